//! The envelope: what `status`, `data` and the message keys said, and the
//! verdict once the body is complete.

use super::*;

/// How much of a service message or status is kept: the 300 characters
/// an error shows, at up to four bytes a character, and room for a token
/// straddling them to be redacted whole (as [`HEAD_BYTES`] has), so that
/// what is shown is what the whole text gives.
///
/// [`HEAD_BYTES`]: crate::excerpt::HEAD_BYTES
pub(super) const MESSAGE_BYTES: usize = 300 * 4 + 4096;

/// Where a service error's message is looked for, in this order (the last
/// value of each key counts).
pub(super) const MESSAGE_KEYS: [&str; 5] = ["message", "msg", "error", "errors", "data"];
pub(super) const DATA_SLOT: usize = 4;

/// Why an answer with two `data` fields fails, whatever they hold: one of
/// them holds rows the other does not, and taking either (JSON parsers keep
/// the last) would give a table shorter than the one sent with no error.
/// PHP's `json_encode` never writes a key twice, so such a body comes from
/// JSON written by hand. A duplicated key in a row keeps its last value.
pub(crate) const DATA_TWICE: &str = "the answer has two `data` fields, and which one holds \
     the rows cannot be told (json_encode never writes a key twice: the service writes this \
     JSON by hand); fix the service to send one";
/// A text kept for a message: the first [`MESSAGE_BYTES`], whether more
/// was cut, and whether any of it (or of the cut part) is not blank.
#[derive(Debug, Clone, Default)]
pub(crate) struct Kept {
    text: String,
    more: bool,
    nonblank: bool,
}

impl Kept {
    /// A text already cut to size (`more`: something was cut).
    pub(super) fn cut(text: String, more: bool) -> Kept {
        Kept {
            text,
            more,
            nonblank: true,
        }
    }

    pub(super) fn of(s: &str) -> Kept {
        let mut k = Kept::default();
        k.push(s);
        k.nonblank = !s.trim().is_empty();
        k
    }

    fn push(&mut self, s: &str) {
        let room = MESSAGE_BYTES.saturating_sub(self.text.len());
        if s.len() <= room {
            self.text.push_str(s);
        } else {
            let mut cut = room;
            while !s.is_char_boundary(cut) {
                cut -= 1;
            }
            self.text.push_str(&s[..cut]);
            self.more = true;
        }
    }

    /// The text as an error shows it: redacted, then cut to `max`
    /// characters, as the whole-text parser does with the whole text.
    pub(super) fn shown(&self, redactor: &Redactor, max: usize) -> String {
        redactor.redact_cut(&self.text, max, self.more)
    }
}

#[derive(Debug, Clone)]
pub(super) enum Status {
    Missing,
    Text(Kept),
    /// The JSON type it had instead of a string.
    Other(&'static str),
}

#[derive(Debug, Clone)]
pub(super) enum Slot {
    Absent,
    Text(Kept),
    Json(Kept),
    Other,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Data {
    Missing,
    Rows,
    Null,
    Bad(String),
}

impl<S: RowSink> Core<S> {
    pub(super) fn set_status(&mut self, status: Status) {
        let success =
            matches!(&status, Status::Text(k) if !k.more && k.text.eq_ignore_ascii_case("success"));
        self.status = status;
        self.sink.release(success);
    }

    /// A `data` value begins. A second one fails the answer (see
    /// [`DATA_TWICE`]); its rows go nowhere, and the first one's stay
    /// counted, for the error to say how many were read.
    pub(super) fn begin_data(&mut self) {
        self.data_fields += 1;
        if self.data_fields > 1 {
            self.data_failed = true;
            self.slots[DATA_SLOT] = Slot::Other;
            return;
        }
        self.data_items = 0;
        self.row_start = None;
        self.data_key_error = None;
        self.data_row_error = None;
        self.data_failed = false;
        self.slots[DATA_SLOT] = Slot::Other;
    }

    /// Once the whole body is read: `status`, then `data`, as documented.
    pub(super) fn verdict(&self) -> Step {
        match &self.status {
            Status::Missing => {
                return Err(Failure::Decode("the answer has no `status` field".into()))
            }
            Status::Other(t) => {
                return Err(Failure::Decode(format!(
                    "`status` is {t}, expected a string"
                )))
            }
            Status::Text(k) if !k.more && k.text.eq_ignore_ascii_case("success") => {}
            Status::Text(k) => {
                return Err(Failure::Service {
                    status: k.clone(),
                    message: self.service_message(),
                })
            }
        }
        if self.data_fields > 1 {
            return Err(Failure::Decode(DATA_TWICE.into()));
        }
        match &self.data {
            Data::Missing => return Err(Failure::Decode("the answer has no `data` field".into())),
            Data::Bad(reason) => return Err(Failure::Decode(reason.clone())),
            Data::Rows | Data::Null => {}
        }
        // Keys of `data` were checked before its rows.
        match self
            .data_key_error
            .as_ref()
            .or(self.data_row_error.as_ref())
        {
            Some(reason) => Err(Failure::Decode(reason.clone())),
            None => Ok(()),
        }
    }

    fn service_message(&self) -> Kept {
        for (i, slot) in self.slots.iter().enumerate() {
            match slot {
                Slot::Text(k) if k.nonblank => return k.clone(),
                Slot::Json(k) if i != DATA_SLOT => return k.clone(),
                _ => {}
            }
        }
        Kept::of("the service gave no message")
    }
}

pub(super) fn role_of(key: &str) -> Role {
    match key {
        "status" => Role::Status,
        "data" => Role::Data,
        _ => match MESSAGE_KEYS.iter().position(|k| *k == key) {
            Some(i) if i != DATA_SLOT => Role::Message(i),
            _ => Role::Other,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kept_text_is_shown_as_the_whole_text() {
        let shown = |k: &Kept| k.shown(&Redactor::default(), 300);
        assert_eq!(shown(&Kept::of("abc")), "abc");
        let long = "x".repeat(MESSAGE_BYTES + 100);
        let k = Kept::of(&long);
        assert!(k.more);
        assert_eq!(shown(&k), crate::decode::decoder::truncate(&long, 300));
        assert!(!Kept::of(" \t").nonblank);
    }

    #[test]
    fn roles() {
        assert_eq!(role_of("status"), Role::Status);
        assert_eq!(role_of("data"), Role::Data);
        assert_eq!(role_of("msg"), Role::Message(1));
        assert_eq!(role_of("Status"), Role::Other);
    }
}
