//! The push decoder for the table answer: bytes in, [`RowSink`] calls out.
//!
//! One state machine serves both the whole-body [`Config::parse_table`] and
//! the streaming [`TableDecoder`](super::TableDecoder); it never builds a
//! tree and never needs more of the body than one token.
//!
//! Decisions for what a PHP service may send, each made where noted below:
//! - a status outside 2xx is `HttpStatus`, whatever the body says;
//! - UTF-8 BOMs, surrounding whitespace and leading PHP notices are removed
//!   (the notices are kept, redacted) — see [`crate::php_notice`];
//! - an empty body, an HTML page, invalid UTF-8, invalid or truncated JSON,
//!   or JSON of another shape is `Decode`, with an excerpt;
//! - `status` other than `success` (compared ignoring case) is `Service`;
//! - `data` may be an array of row objects, an object keyed by row number
//!   (PHP's `json_encode` of an array with gaps), or `null` (no rows);
//!   `false` (a failed query in PHP) and anything else are `Decode`;
//! - a duplicated key keeps its last value, in the envelope as in rows,
//!   but for `data`: a second one fails the answer ([`envelope::DATA_TWICE`]).
//!
//! Which problem is reported when a body has several: problems of the text
//! (invalid UTF-8, invalid JSON, truncation, HTML, trailing garbage, a
//! top-level value that is not an object) are reported as soon as they are
//! met, the first in byte order; problems of the shape (`status`, `data`,
//! rows that are not objects) only once the whole body has been read,
//! `status` before `data`, because a later duplicate key could still change
//! them. A body that ends inside a string — even inside one of its UTF-8
//! characters — is truncated, not invalid UTF-8.
//!
//! Every decision depends on the bytes only, never on where chunks end: a
//! token cut by a chunk's end is carried over and completed, and an error's
//! excerpt is made once the bytes it shows are all in: the body's first
//! bytes, or, when the body broke off past them (invalid JSON or UTF-8,
//! trailing text, truncation), the bytes around that point — where a PHP
//! script that echoed rows printed its fatal error, which then leads the
//! message ([`crate::php_notice::failure_at`]).
//!
//! [`Config::parse_table`]: crate::Config::parse_table

mod carry;
mod envelope;
mod fast;
mod front;
#[cfg(feature = "parallel")]
mod rows_start;
mod values;

pub(crate) use front::{html_reason, truncate};

use super::scanner::{
    find_special, is_number_byte, scan_literal, scan_number, scan_number_into, scan_str, skip_ws,
    str_end, utf8_char, After, Bad, Literal, Number, Scan, Utf8,
};
use super::sink::{CellRef, RowSink};
use crate::error::Error;
use crate::excerpt::{excerpt, excerpt_of, HEAD_BYTES};
use crate::redact::Redactor;
pub(crate) use envelope::DATA_TWICE;
use envelope::{role_of, Data, Kept, Slot, Status, DATA_SLOT, MESSAGE_BYTES};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// Skipping whitespace, BOMs and PHP diagnostics.
    Prelude,
    /// The body is an HTML page; collecting it to name its title.
    Html,
    /// Inside the JSON value.
    Json,
    /// After the JSON value: only whitespace may follow.
    Trailing,
}

/// An open container. One byte each: a skipped value may nest deeply.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Frame {
    Envelope,
    DataArray,
    DataObject,
    Row,
    SkipObject,
    SkipArray,
}

impl Frame {
    fn is_object(self) -> bool {
        matches!(
            self,
            Frame::Envelope | Frame::DataObject | Frame::Row | Frame::SkipObject
        )
    }
}

/// What the next token may be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Expect {
    Value,
    FirstKeyOrEnd,
    Key,
    Colon,
    CommaOrEnd,
    FirstValueOrEnd,
}

/// The envelope key whose value comes next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    Status,
    Data,
    /// An index into [`MESSAGE_KEYS`].
    Message(usize),
    Other,
}

/// What the value about to be read is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Target {
    Top,
    Envelope(Role),
    /// An element of `data`: must be a row object.
    Row,
    /// A value of a row.
    Cell,
    /// Only checked.
    Skip,
}

/// A token cut off by the end of a chunk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Carry {
    None,
    Str {
        escape: bool,
    },
    Number,
    Literal,
    /// A non-ASCII character outside a string (to tell invalid UTF-8 from
    /// a misplaced character, or whitespace after the JSON).
    Char,
}

/// A nested value of a row or a message whose exact text is being kept.
#[derive(Debug)]
struct Capture {
    /// The stack depth of its outermost container.
    depth: usize,
    /// `Some(slot)` for a message; `None` for a row's cell.
    message: Option<usize>,
    /// Where in the current chunk the not-yet-kept text starts.
    from: usize,
}

/// A failure before its excerpt is attached: the excerpt is made once the
/// first [`HEAD_BYTES`] of the body are in (or the body ended), and for a
/// body broken off past its start once [`AFTER`] bytes from there are, so
/// it does not depend on how the body was cut into chunks.
#[derive(Debug, Clone)]
pub(crate) enum Failure {
    Decode(String),
    /// The body stopped being the documented JSON at this byte.
    BrokenAt(String, u64),
    Http(u16),
    /// Each text as kept: redacted, then cut to what an error shows.
    Service {
        status: Kept,
        message: Kept,
    },
}

/// A body broken off in its first bytes is shown by its start, which then
/// holds the place.
const AT_START: u64 = 64;
/// Bytes shown before the place a body broke off (more are kept: see
/// `Core::margin`).
const BEFORE: u64 = 48;
/// Bytes kept from the place a body broke off: the excerpt, and PHP's error
/// message when it printed one there.
const AFTER: u64 = crate::php_notice::FAILURE_SEARCH as u64 + 1024;

/// The bytes of the body around the place it broke off, as they arrive.
struct Window {
    at: u64,
    /// Absolute offset of `bytes[0]`.
    start: u64,
    bytes: Vec<u8>,
}

impl Window {
    fn complete(&self) -> bool {
        self.start + self.bytes.len() as u64 >= self.at + AFTER
    }

    /// Takes what it still lacks from `chunk`, which starts at `base`.
    fn take(&mut self, chunk: &[u8], base: u64) {
        let end = self.at + AFTER;
        let from = (self.start + self.bytes.len() as u64).max(base);
        if from >= end || from >= base + chunk.len() as u64 {
            return;
        }
        let lo = (from - base) as usize;
        let hi = (end - base).min(chunk.len() as u64) as usize;
        self.bytes.extend_from_slice(&chunk[lo..hi]);
    }
}

type Step = Result<(), Failure>;

/// The decoding state machine. See the module documentation.
pub(crate) struct Core<S> {
    pub(crate) sink: S,
    redactor: Redactor,
    /// The first [`HEAD_BYTES`] of the body, for excerpts.
    head: Vec<u8>,
    /// The body's bytes from `recent_at` to `offset`: the [`BEFORE`] bytes
    /// before the current input and any token carried into it, so that the
    /// place a body breaks off can be shown with what precedes it.
    recent: Vec<u8>,
    recent_at: u64,
    /// How many bytes before the place a body broke off are kept: [`BEFORE`]
    /// and the longest token text the redactor replaces, so that a token
    /// cut by the window's start is never partly shown.
    margin: u64,
    /// Once the body broke off past its start: the bytes around the place.
    window: Option<Window>,
    /// Bytes of the body before the current input.
    offset: u64,
    phase: Phase,
    failure: Option<Failure>,
    /// Undecided text of the prelude, or the start of an HTML page.
    pending: Vec<u8>,
    /// Absolute offset of an HTML page's first byte.
    html_at: u64,
    notices: Vec<String>,

    stack: Vec<Frame>,
    expect: Expect,
    carry: Vec<u8>,
    carry_kind: Carry,
    /// Absolute offset of `carry[0]`.
    carry_at: u64,
    scratch: Vec<u8>,
    key_scratch: Vec<u8>,
    role: Role,
    /// The current row's key whose value comes next.
    field_key: String,
    /// The name of the current element of `data`: its key when `data` is an
    /// object; empty when it is an array (then `data_items` names it).
    row_key: String,
    data_items: u64,
    capture: Option<Capture>,
    capture_text: Vec<u8>,

    status: Status,
    slots: [Slot; 5],
    data: Data,
    data_key_error: Option<String>,
    data_row_error: Option<String>,
    /// A problem in `data` was met: its remaining rows are only checked.
    data_failed: bool,
    /// Complete rows in the current `data`.
    rows: u64,
    /// Where the last row begun in a `data` array starts (see
    /// [`RowStart`]); `None` before one, and from each `data` field's start.
    row_start: Option<RowStart>,
    /// Absolute offset of the `{` of the row being read (in an array or
    /// an object), for its length at its end.
    row_begin: u64,
    /// `data` fields met so far.
    data_fields: u32,
    /// Absolute offset of the `]` that closed the first `data` array.
    #[cfg_attr(not(feature = "parallel"), allow(dead_code))]
    rows_end: Option<u64>,
}

/// The `{` of a row of a `data` array: the body from `offset` on holds
/// that row and every later one, row `row` (counted from 0).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct RowStart {
    pub offset: u64,
    pub row: u64,
}

/// What [`Core::finish`] gives on success.
pub(crate) struct Done<S> {
    pub sink: S,
    pub notices: Vec<String>,
    pub rows: u64,
}

impl<S: RowSink> Core<S> {
    /// A decoder for an answer with HTTP `status`.
    pub(crate) fn new(redactor: &Redactor, status: u16, sink: S) -> Self {
        Core {
            sink,
            redactor: redactor.clone(),
            head: Vec::new(),
            recent: Vec::new(),
            recent_at: 0,
            margin: BEFORE + redactor.reach() as u64,
            window: None,
            offset: 0,
            phase: Phase::Prelude,
            // Decided here, whatever the body says.
            failure: (!(200..300).contains(&status)).then_some(Failure::Http(status)),
            pending: Vec::new(),
            html_at: 0,
            notices: Vec::new(),
            stack: Vec::new(),
            expect: Expect::Value,
            carry: Vec::new(),
            carry_kind: Carry::None,
            carry_at: 0,
            scratch: Vec::new(),
            key_scratch: Vec::new(),
            role: Role::Other,
            field_key: String::new(),
            row_key: String::new(),
            data_items: 0,
            capture: None,
            capture_text: Vec::new(),
            status: Status::Missing,
            slots: [
                Slot::Absent,
                Slot::Absent,
                Slot::Absent,
                Slot::Absent,
                Slot::Absent,
            ],
            data: Data::Missing,
            data_key_error: None,
            data_row_error: None,
            data_failed: false,
            rows: 0,
            row_start: None,
            row_begin: 0,
            data_fields: 0,
            rows_end: None,
        }
    }

    /// The PHP diagnostics removed from before the JSON so far.
    pub(crate) fn notices(&self) -> &[String] {
        &self.notices
    }

    /// Complete rows decoded so far.
    pub(crate) fn rows(&self) -> u64 {
        self.rows
    }

    /// Where the last row begun in a `data` array starts.
    pub(crate) fn row_start(&self) -> Option<RowStart> {
        self.row_start
    }

    /// Takes the next chunk of the body.
    pub(crate) fn feed(&mut self, chunk: &[u8]) -> Result<(), Error> {
        if self.head.len() < HEAD_BYTES {
            let n = chunk.len().min(HEAD_BYTES - self.head.len());
            self.head.extend_from_slice(&chunk[..n]);
        }
        if self.failure.is_none() {
            if let Err(f) = self.input(chunk, false) {
                self.failure = Some(f);
            }
        }
        self.keep(chunk);
        self.offset += chunk.len() as u64;
        let shown = self.window.as_ref().is_none_or(Window::complete);
        match &self.failure {
            Some(f) if self.head.len() >= HEAD_BYTES && shown => Err(self.error(f)),
            _ => Ok(()),
        }
    }

    /// Keeps what an excerpt may need of `chunk` (which starts at
    /// `self.offset`): the window's bytes once the body broke off, else the
    /// recent bytes.
    fn keep(&mut self, chunk: &[u8]) {
        let base = self.offset;
        if let Some(Failure::BrokenAt(_, at)) = &self.failure {
            let at = *at;
            if at < AT_START {
                return;
            }
            let window = self.window.get_or_insert_with(|| {
                // The bytes before the place: from `recent`, then `chunk`.
                // `recent` can reach past the window's end: a token carried
                // over many chunks is judged only once it is whole, long
                // after the place it broke off at (a control character early
                // in a long string); the window stops at its end however the
                // body was cut.
                let start = at.saturating_sub(self.margin).max(self.recent_at);
                let end = base.min(at + AFTER);
                let mut bytes = Vec::with_capacity((AFTER + self.margin) as usize);
                if start < end {
                    bytes.extend_from_slice(
                        &self.recent
                            [(start - self.recent_at) as usize..(end - self.recent_at) as usize],
                    );
                }
                Window { at, start, bytes }
            });
            window.take(chunk, base);
            return;
        }
        // Kept: the last `margin` bytes, and before them a token carried on
        // or the prelude's undecided text (a PHP notice not yet complete):
        // the body may break off anywhere in those.
        let end = base + chunk.len() as u64;
        let mut from = end.saturating_sub(self.margin);
        if self.carry_kind != Carry::None {
            from = from.min(self.carry_at.saturating_sub(self.margin));
        }
        // An HTML page is judged (and its UTF-8 checked) once its first
        // bytes are all in: a failure there points back into them.
        if matches!(self.phase, Phase::Prelude | Phase::Html) {
            let undecided = end - self.pending.len() as u64;
            from = from.min(undecided.saturating_sub(self.margin));
        }
        if from < self.recent_at {
            from = self.recent_at;
        }
        if from >= base {
            self.recent.clear();
            self.recent
                .extend_from_slice(&chunk[(from - base) as usize..]);
        } else {
            self.recent.drain(..(from - self.recent_at) as usize);
            self.recent.extend_from_slice(chunk);
        }
        self.recent_at = from;
    }

    /// The body is complete: the sink and the notices, or the error.
    pub(crate) fn finish(mut self) -> Result<Done<S>, Error> {
        if self.failure.is_none() {
            let result = self
                .input(&[], true)
                .and_then(|()| match self.sink.fault() {
                    Some(fault) => Err(Failure::Decode(fault.to_owned())),
                    None => self.verdict(),
                });
            if let Err(f) = result {
                self.failure = Some(f);
                self.keep(&[]);
            }
        }
        if let Some(f) = &self.failure {
            return Err(self.error(f));
        }
        Ok(Done {
            sink: self.sink,
            notices: self.notices,
            rows: self.rows,
        })
    }

    fn error(&self, f: &Failure) -> Error {
        match f {
            Failure::Http(status) => Error::HttpStatus {
                status: *status,
                excerpt: excerpt(&self.redactor, &self.head),
                call: None,
            },
            Failure::Decode(reason) => Error::Decode {
                reason: self.redactor.redact(reason),
                excerpt: excerpt(&self.redactor, &self.head),
                excerpt_at: None,
                call: None,
            },
            Failure::BrokenAt(reason, at) => {
                // Past its first bytes, the place is shown; in them, the
                // body's start shows it. Either way the text is redacted
                // whole before it is cut.
                let (bytes, excerpt_at, place, shown_from) = match &self.window {
                    Some(w) => (
                        &w.bytes,
                        Some(*at),
                        {
                            // `keep` holds the bytes from before the place;
                            // were it ever not so, the excerpt starts later
                            // rather than the decoder panicking.
                            debug_assert!(w.start <= w.at, "window starts past the place");
                            (w.at.saturating_sub(w.start) as usize).min(w.bytes.len())
                        },
                        (at.saturating_sub(BEFORE).max(w.start) - w.start) as usize,
                    ),
                    None => (&self.head, None, (*at as usize).min(self.head.len()), 0),
                };
                let text = self.redactor.redact(&String::from_utf8_lossy(bytes));
                let from = |cut: usize| {
                    redacted_index(
                        &text,
                        &self
                            .redactor
                            .redact(&String::from_utf8_lossy(&bytes[..cut])),
                    )
                };
                let reason = match crate::php_notice::failure_at(&text[from(place)..]) {
                    Some(php) => format!(
                        "the service failed after {} complete row{}: {php} ({reason})",
                        thousands(self.rows),
                        if self.rows == 1 { "" } else { "s" }
                    ),
                    None => reason.clone(),
                };
                Error::Decode {
                    reason: self.redactor.redact(&reason),
                    // A window complete to its end was cut there.
                    excerpt: excerpt_of(
                        &self.redactor,
                        &text.as_bytes()[from(shown_from)..],
                        self.window
                            .as_ref()
                            .map_or(self.head.len() >= HEAD_BYTES, |w| w.complete()),
                    ),
                    excerpt_at,
                    call: None,
                }
            }
            Failure::Service { status, message } => Error::Service {
                status: status.shown(&self.redactor, 80),
                message: message.shown(&self.redactor, 300),
                call: None,
            },
        }
    }

    fn input(&mut self, chunk: &[u8], eof: bool) -> Step {
        let step = match self.phase {
            Phase::Prelude | Phase::Html => self.prelude(chunk, eof),
            Phase::Json | Phase::Trailing => self.json(chunk, self.offset, eof),
        };
        // A value the sink could not take was read before whatever failed
        // after it, so it is the first problem, however the body was cut:
        // the fast path stops after such a value, and the byte after it may
        // fail before the loop's next check. Looked at here, on a failure's
        // way out: a check after each run of the fast path cost the rows'
        // loop about 5 % (`ratios --only "decoder → Arrow"`).
        match step {
            Err(_) if self.sink.fault().is_some() => self.sink_fault(),
            step => step,
        }
    }

    // ---- the JSON value -------------------------------------------------

    /// Runs the state machine over `buf`, whose first byte is at absolute
    /// offset `base`.
    fn json(&mut self, buf: &[u8], base: u64, eof: bool) -> Step {
        let after = if eof { After::Eof } else { After::More };
        if let Some(c) = &mut self.capture {
            c.from = 0;
        }
        let mut pos = 0;
        if self.carry_kind != Carry::None {
            match self.resume(buf, eof)? {
                Some(p) => pos = p,
                None => {
                    self.keep_capture(buf);
                    return Ok(());
                }
            }
        }
        loop {
            // What the sink could not take is a problem at the token just
            // read: checked here, so it is ordered with the others by its
            // place in the body, however the body was cut.
            self.sink_fault()?;
            if self.phase == Phase::Trailing {
                return self.trailing(buf, base, pos, eof);
            }
            if self.fast_ready() {
                pos = self.fast_rows(buf, base, pos);
            }
            pos = skip_ws(buf, pos);
            let Some(&b) = buf.get(pos) else {
                break;
            };
            let at = base + pos as u64;
            match b {
                b'{' | b'[' => {
                    self.open(b, pos, at)?;
                    pos += 1;
                }
                b'}' | b']' => {
                    self.close(b, buf, pos, at)?;
                    pos += 1;
                }
                b',' => {
                    if self.expect != Expect::CommaOrEnd {
                        return Err(self.unexpected(at));
                    }
                    self.expect = match self.stack.last() {
                        Some(f) if f.is_object() => Expect::Key,
                        _ => Expect::Value,
                    };
                    pos += 1;
                }
                b':' => {
                    if self.expect != Expect::Colon {
                        return Err(self.unexpected(at));
                    }
                    self.expect = Expect::Value;
                    pos += 1;
                }
                b'"' | b'-' | b'0'..=b'9' | b't' | b'f' | b'n' => {
                    match self.token(buf, pos, base, after)? {
                        Some(end) => pos = end,
                        None => {
                            self.start_carry(buf, pos, base);
                            break;
                        }
                    }
                }
                _ => {
                    if self.stray(buf, pos, base, eof)? {
                        self.start_carry(buf, pos, base);
                        break;
                    }
                }
            }
        }
        self.keep_capture(buf);
        self.sink_fault()?;
        if eof && self.phase == Phase::Json {
            return Err(self.truncated());
        }
        Ok(())
    }

    fn sink_fault(&self) -> Step {
        match self.sink.fault() {
            Some(fault) => Err(Failure::Decode(fault.to_owned())),
            None => Ok(()),
        }
    }

    fn truncated(&self) -> Failure {
        Failure::BrokenAt(
            format!(
                "the body ended before the JSON was complete (truncated after {} complete row{}: \
                 a PHP fatal error with display_errors off, a time limit, or a proxy cutting \
                 the answer)",
                self.rows,
                if self.rows == 1 { "" } else { "s" }
            ),
            self.offset,
        )
    }

    fn unexpected(&self, at: u64) -> Failure {
        let what = match (self.expect, self.stack.last()) {
            (Expect::Value, _) => "expected a value",
            (Expect::FirstValueOrEnd, _) => "expected a value or `]`",
            (Expect::FirstKeyOrEnd, _) => "expected a key or `}`",
            (Expect::Key, _) => "expected a key",
            (Expect::Colon, _) => "expected `:`",
            (Expect::CommaOrEnd, Some(f)) if f.is_object() => "expected `,` or `}`",
            (Expect::CommaOrEnd, _) => "expected `,` or `]`",
        };
        json_error(what, at)
    }

    fn bad(&self, bad: Bad, base: u64) -> Failure {
        match bad {
            Bad::Json(i, what) => json_error(what, base + i as u64),
            Bad::Utf8(i) => utf8_error(base + i as u64),
            Bad::Truncated => self.truncated(),
        }
    }

    fn target(&self) -> Target {
        match self.stack.last() {
            None => Target::Top,
            Some(Frame::Envelope) => Target::Envelope(self.role),
            Some(Frame::DataArray | Frame::DataObject) if !self.data_failed => Target::Row,
            Some(Frame::Row) if !self.data_failed => Target::Cell,
            Some(_) => Target::Skip,
        }
    }

    /// After any value: its container expects a comma or its end.
    #[inline]
    fn value_done(&mut self) {
        match self.stack.last() {
            None => self.phase = Phase::Trailing,
            Some(f) => {
                if *f == Frame::DataArray {
                    self.data_items += 1;
                }
                self.expect = Expect::CommaOrEnd;
            }
        }
    }

    /// The name of the element of `data` being read, for messages.
    fn element_name(&self) -> String {
        if self.stack.last() == Some(&Frame::DataObject) {
            self.row_key.clone()
        } else {
            (self.data_items + 1).to_string()
        }
    }

    /// The first problem in `data` is kept (a later `data` field may still
    /// replace it); the rest of `data` is then only checked.
    fn row_error(&mut self, reason: String) {
        if self.data_row_error.is_none() {
            self.data_row_error = Some(reason);
        }
        self.data_failed = true;
    }

    fn not_a_row(&mut self, type_name: &str) {
        let reason = format!(
            "row {} is {type_name}, expected an object",
            self.element_name()
        );
        self.row_error(reason);
    }

    fn open(&mut self, b: u8, pos: usize, at: u64) -> Step {
        if !matches!(self.expect, Expect::Value | Expect::FirstValueOrEnd) {
            return Err(self.unexpected(at));
        }
        let object = b == b'{';
        let skip = if object {
            Frame::SkipObject
        } else {
            Frame::SkipArray
        };
        let type_name = if object { "an object" } else { "an array" };
        let mut capture = None;
        let frame = match self.target() {
            Target::Top if object => Frame::Envelope,
            // Reported at once: the answer cannot be the documented one.
            Target::Top => {
                return Err(Failure::Decode(
                    "expected a JSON object with status and data, got an array".into(),
                ))
            }
            Target::Envelope(Role::Status) => {
                self.set_status(Status::Other(type_name));
                skip
            }
            Target::Envelope(Role::Data) => {
                self.begin_data();
                self.data = Data::Rows;
                if object {
                    Frame::DataObject
                } else {
                    Frame::DataArray
                }
            }
            Target::Envelope(Role::Message(i)) => {
                capture = Some(Some(i));
                skip
            }
            Target::Envelope(Role::Other) | Target::Skip => skip,
            Target::Row if object => {
                if self.stack.last() == Some(&Frame::DataArray) {
                    self.row_start = Some(RowStart {
                        offset: at,
                        row: self.rows,
                    });
                }
                self.row_begin = at;
                self.sink.begin_row();
                Frame::Row
            }
            Target::Row => {
                self.not_a_row(type_name);
                skip
            }
            Target::Cell => {
                capture = Some(None);
                skip
            }
        };
        self.stack.push(frame);
        if let Some(message) = capture {
            self.capture_text.clear();
            self.capture = Some(Capture {
                depth: self.stack.len(),
                message,
                from: pos,
            });
        }
        self.expect = if object {
            Expect::FirstKeyOrEnd
        } else {
            Expect::FirstValueOrEnd
        };
        Ok(())
    }

    fn close(&mut self, b: u8, buf: &[u8], pos: usize, at: u64) -> Step {
        let object = b == b'}';
        let fits = match (self.stack.last(), self.expect) {
            (Some(f), Expect::CommaOrEnd) => f.is_object() == object,
            (Some(f), Expect::FirstKeyOrEnd) => f.is_object() && object,
            (Some(f), Expect::FirstValueOrEnd) => !f.is_object() && !object,
            _ => false,
        };
        if !fits {
            return Err(self.unexpected(at));
        }
        if self
            .capture
            .as_ref()
            .is_some_and(|c| c.depth == self.stack.len())
        {
            let c = self.capture.take().expect("checked");
            self.capture_push(&buf[c.from..=pos], c.message.is_some());
            match c.message {
                Some(i) => {
                    // The cap may have cut a character in two.
                    let text = String::from_utf8_lossy(&self.capture_text).into_owned();
                    let more = self.capture_text.len() >= MESSAGE_BYTES;
                    self.slots[i] = Slot::Json(Kept::cut(text, more));
                }
                None => {
                    // Validated UTF-8: it is the body's own text.
                    let text = unsafe_str(&self.capture_text);
                    self.sink.field(&self.field_key, CellRef::Json(text));
                }
            }
        }
        // A row the sink refused (a value that does not fit) is not counted:
        // the count says how many complete rows arrived before an error.
        match self.stack.pop() {
            Some(Frame::Row) if !self.data_failed && self.sink.fault().is_none() => {
                self.sink.end_row(at + 1 - self.row_begin);
                self.rows += 1;
            }
            Some(Frame::DataArray) if self.rows_end.is_none() => self.rows_end = Some(at),
            _ => {}
        }
        self.value_done();
        Ok(())
    }

    fn capture_push(&mut self, bytes: &[u8], capped: bool) {
        if capped {
            let room = MESSAGE_BYTES.saturating_sub(self.capture_text.len());
            self.capture_text
                .extend_from_slice(&bytes[..bytes.len().min(room)]);
        } else {
            self.capture_text.extend_from_slice(bytes);
        }
    }

    /// At the end of a chunk, the part of a kept nested value in it.
    fn keep_capture(&mut self, buf: &[u8]) {
        if let Some(c) = &self.capture {
            let (from, capped) = (c.from.min(buf.len()), c.message.is_some());
            self.capture_push(&buf[from..], capped);
        }
    }
}

/// Text the scanner has already proved to be UTF-8.
#[inline(always)]
pub(super) fn unsafe_str(bytes: &[u8]) -> &str {
    debug_assert!(std::str::from_utf8(bytes).is_ok());
    // SAFETY: every caller passes bytes of a token that `scan_str` or
    // `scan_number` accepted (their UTF-8 is validated character by
    // character; numbers are ASCII), or text decoded by `scan_str`, which
    // only writes whole UTF-8 characters, or the kept text of a nested value
    // made of such tokens and ASCII punctuation.
    unsafe { std::str::from_utf8_unchecked(bytes) }
}

pub(super) fn utf8_error(at: u64) -> Failure {
    Failure::BrokenAt(format!("the body is not valid UTF-8 (at byte {at})"), at)
}

pub(super) fn json_error(what: &str, at: u64) -> Failure {
    Failure::BrokenAt(
        format!("the body is not valid JSON ({what} at byte {at})"),
        at,
    )
}

/// Where the text of a cut's bytes ends in the redacted text of all of them
/// (`prefix` is the cut's own redacted text): their common start, which
/// stops at a token the cut splits, so that cutting there shows none of it.
fn redacted_index(text: &str, prefix: &str) -> usize {
    text.char_indices()
        .zip(prefix.chars())
        .find(|((_, a), b)| a != b)
        .map_or(prefix.len().min(text.len()), |((i, _), _)| i)
}

/// `1500000` as `1,500,000`.
fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Writes down every call, to compare decodings of one body.
    #[derive(Debug, Default, Clone, PartialEq, Eq)]
    pub(crate) struct Recorder(pub Vec<String>);

    impl RowSink for Recorder {
        fn begin_row(&mut self) {
            self.0.push("{".into());
        }
        fn field(&mut self, key: &str, value: CellRef<'_>) {
            let v = match value {
                CellRef::Null => "null".to_owned(),
                CellRef::Bool(b) => b.to_string(),
                CellRef::Number(t, _) => format!("n:{t}"),
                CellRef::Str(s, raw) => format!("s:{s}|{raw}"),
                CellRef::Json(j) => format!("j:{j}"),
            };
            self.0.push(format!("{key}={v}"));
        }
        fn end_row(&mut self, bytes: u64) {
            // The row's length too: alike whatever the chunks.
            self.0.push(format!("}} {bytes}"));
        }
        fn release(&mut self, success: bool) {
            self.0.push(format!("release {success}"));
        }
    }

    pub(crate) fn redactor() -> Redactor {
        Redactor::new(Some(crate::token::AccessToken::new("fake-token-for-tests")))
    }

    /// The calls and notices for `body` fed in `chunks`, or the error.
    pub(crate) fn run(body: &[u8], chunk: usize) -> Result<(Vec<String>, Vec<String>), Error> {
        let mut core = Core::new(&redactor(), 200, Recorder::default());
        for c in body.chunks(chunk.max(1)) {
            core.feed(c)?;
        }
        if body.is_empty() {
            core.feed(b"")?;
        }
        let done = core.finish()?;
        Ok((done.sink.0, done.notices))
    }

    /// The same result for every chunk size.
    pub(crate) fn same_in_chunks(body: &[u8]) -> Result<(Vec<String>, Vec<String>), Error> {
        let whole = run(body, body.len());
        for chunk in 1..body.len().min(40) {
            assert_eq!(run(body, chunk), whole, "chunks of {chunk}");
        }
        whole
    }

    #[test]
    fn a_broken_body_shows_its_place_and_no_part_of_the_token() {
        let token = "fake-token-for-tests";
        let rows = r#"{"status":"success","data":[{"n":"one","t":"two"},{"n":"three","t":"four"},"#;
        // The token at every distance before the place, and in the text
        // after it (a PHP error quoting the request).
        for pad in 0..80 {
            let body = format!(
                "{rows}{{\"note\":\"{}{token}{}\"}},<br />\n<b>Fatal error</b>:  Uncaught Error: \
                 no {token} here in /x.php:9<br />",
                "x".repeat(pad),
                "y".repeat(80 - pad)
            );
            let err = same_in_chunks(body.as_bytes()).unwrap_err();
            let message = err.to_string();
            for part in token.as_bytes().windows(6) {
                let part = std::str::from_utf8(part).unwrap();
                assert!(!message.contains(part), "{pad}: {part:?} in {message}");
            }
            assert!(
                message.contains(
                    "the service failed after 3 complete rows: PHP Fatal error: Uncaught Error: \
                     no [REDACTED] here in /x.php:9"
                ),
                "{message}"
            );
            let at = body.find("<br />").unwrap();
            assert!(
                message.contains(&format!("around byte {at}: ")),
                "{message}"
            );
        }
    }

    #[test]
    fn a_php_error_after_a_long_broken_string_reads_alike_in_any_chunks() {
        // The string breaks off early (a control character) and is judged
        // only when its closing quote arrives, well past the bytes kept
        // after the place: PHP's message, which runs to the end of what is
        // kept, must end at the same byte whatever the chunks.
        let body = format!(
            "{{\"status\":\"{}\u{1}{}<br />\n<b>Fatal error</b>:  Uncaught Error {}\",\"data\":[]}}",
            "-".repeat(100),
            "-".repeat(300),
            "x".repeat(3000),
        );
        let err = same_in_chunks(body.as_bytes()).unwrap_err().to_string();
        let at = body.find('\u{1}').unwrap();
        let message = &body[body.find("Uncaught").unwrap()..at + AFTER as usize];
        assert!(
            err.contains(&format!("PHP Fatal error: {message} (the body")),
            "{err}"
        );
    }

    #[test]
    fn rows_reach_the_sink_in_order() {
        let (calls, _) = same_in_chunks(
            br#"{"status":"success","data":[{"a":"x\u00e9","b":-1.50e3,"c":[1, {"d" : null}],"a":true},{}]}"#,
        )
        .unwrap();
        assert_eq!(
            calls,
            [
                "release true",
                "{",
                "a=s:x\u{e9}|\"x\\u00e9\"",
                "b=n:-1.50e3",
                "c=j:[1, {\"d\" : null}]",
                "a=true",
                "} 58",
                "{",
                "} 2",
            ]
        );
    }

    #[test]
    fn data_keyed_by_row_number() {
        let (calls, _) =
            same_in_chunks(br#"{"status":"success","data":{"0":{"a":1},"7":{"a":2}}}"#).unwrap();
        assert_eq!(
            calls,
            ["release true", "{", "a=n:1", "} 7", "{", "a=n:2", "} 7"]
        );
        // Keys PHP writes for a map, not for a list with gaps.
        for key in ["-1", "+7", "01"] {
            let body = format!(r#"{{"status":"success","data":{{"0":{{"a":1}},"{key}":{{}}}}}}"#);
            let err = same_in_chunks(body.as_bytes()).unwrap_err();
            assert!(
                err.to_string()
                    .contains(&format!("key \"{key}\" is not a row number")),
                "{err}"
            );
        }
    }

    #[test]
    fn duplicated_envelope_keys_keep_the_last_but_data_fails() {
        // Whichever `data` is longer, first or last, and whatever the
        // other holds: one of them would be a shorter table than was sent.
        for body in [
            &br#"{"data":[{"a":1}],"status":"error","data":[{"b":2}],"status":"success"}"#[..],
            br#"{"status":"success","data":[{"a":1},{"a":2}],"data":[{"a":1}]}"#,
            br#"{"status":"success","data":[{"a":1}],"data":[]}"#,
            br#"{"status":"success","data":[{"a":1}],"data":null}"#,
            br#"{"status":"success","data":false,"data":[{"a":1}]}"#,
            br#"{"status":"success","data":[],"data":{"0":{"a":1}}}"#,
        ] {
            let err = same_in_chunks(body).unwrap_err();
            assert!(
                matches!(&err, Error::Decode { reason, .. } if reason.starts_with(DATA_TWICE)),
                "{err}"
            );
        }
        // `status` is judged first.
        let err = same_in_chunks(br#"{"status":"error","data":[],"data":[{"a":1}]}"#).unwrap_err();
        assert!(matches!(err, Error::Service { .. }), "{err}");
        let err = same_in_chunks(br#"{"status":"success","data":[],"status":"failed","msg":"x"}"#)
            .unwrap_err();
        assert!(matches!(err, Error::Service { ref status, .. } if status == "failed"));
    }

    #[test]
    fn problems_of_the_shape_wait_for_the_end() {
        // The row error would be reported if the status were success; here
        // the status decides.
        let err = same_in_chunks(br#"{"data":[5],"status":"error","message":"no"}"#).unwrap_err();
        assert!(matches!(err, Error::Service { ref message, .. } if message == "no"));
        // A syntax error after a shape problem still wins: it is the text.
        let err = same_in_chunks(br#"{"status":"success","data":[5]] "#).unwrap_err();
        assert!(err.to_string().contains("not valid JSON"), "{err}");
    }

    #[test]
    fn deep_nesting_is_fine_in_values() {
        let deep = format!(
            r#"{{"status":"success","meta":{}{},"data":[{{"x":{}1{}}}]}}"#,
            "[".repeat(500),
            "]".repeat(500),
            "{\"a\":".repeat(300),
            "}".repeat(300)
        );
        let (calls, _) = run(deep.as_bytes(), 7).unwrap();
        assert_eq!(calls.len(), 4);
        assert!(calls[2].starts_with("x=j:{\"a\":{\"a\":"));
    }

    #[test]
    fn status_and_messages_are_cut_to_size() {
        let long = "é".repeat(2000);
        let body = format!(r#"{{"status":"{long}","error":"  ","errors":{{"why":"{long}"}}}}"#);
        let Error::Service {
            status, message, ..
        } = same_in_chunks(body.as_bytes()).unwrap_err()
        else {
            panic!()
        };
        assert_eq!(status.chars().count(), 81);
        assert!(message.starts_with("{\"why\":\"éé"));
        assert_eq!(message.chars().count(), 301);
    }
}
