//! Tokens cut by the end of a chunk, and what may follow the JSON.

use super::*;

impl<S: RowSink> Core<S> {
    /// A byte that starts no token. `Ok(true)`: a character cut by the end
    /// of the chunk, to be completed before deciding.
    pub(super) fn stray(
        &mut self,
        buf: &[u8],
        pos: usize,
        base: u64,
        eof: bool,
    ) -> Result<bool, Failure> {
        if buf[pos] < 0x80 {
            return Err(self.unexpected(base + pos as u64));
        }
        // Invalid UTF-8 is named as such, a valid character as misplaced.
        match utf8_char(buf, pos) {
            Utf8::Char(_) => Err(self.unexpected(base + pos as u64)),
            Utf8::Incomplete if !eof => Ok(true),
            _ => Err(utf8_error(base + pos as u64)),
        }
    }

    pub(super) fn start_carry(&mut self, buf: &[u8], pos: usize, base: u64) {
        let rest = &buf[pos..];
        self.carry_kind = match rest[0] {
            b'"' => {
                let mut escape = false;
                let end = str_end(&rest[1..], &mut escape);
                debug_assert!(end.is_none(), "an incomplete string has no end");
                Carry::Str { escape }
            }
            b'-' | b'0'..=b'9' => Carry::Number,
            b't' | b'f' | b'n' => Carry::Literal,
            _ => Carry::Char,
        };
        self.carry.clear();
        self.carry.extend_from_slice(rest);
        self.carry_at = base + pos as u64;
    }

    /// Completes the token carried over from the previous chunk with the
    /// start of `buf`; returns where in `buf` it ended, or `None` if all of
    /// `buf` belongs to it.
    pub(super) fn resume(&mut self, buf: &[u8], eof: bool) -> Result<Option<usize>, Failure> {
        let end = match self.carry_kind {
            Carry::Str { mut escape } => {
                let end = str_end(buf, &mut escape);
                self.carry_kind = Carry::Str { escape };
                end
            }
            Carry::Number => buf.iter().position(|&b| !is_number_byte(b)),
            Carry::Literal => buf.iter().position(|&b| !b.is_ascii_alphabetic()),
            Carry::Char => {
                let need = match self.carry[0] {
                    0xC0..=0xDF => 2,
                    0xE0..=0xEF => 3,
                    _ => 4,
                };
                let missing = need - self.carry.len().min(need);
                (buf.len() >= missing).then_some(missing)
            }
            Carry::None => Some(0),
        };
        let (used, after) = match end {
            Some(e) => (e, After::Delimiter),
            None if eof => (buf.len(), After::Eof),
            None => {
                self.carry.extend_from_slice(buf);
                return Ok(None);
            }
        };
        self.carry.extend_from_slice(&buf[..used]);
        let kind = std::mem::replace(&mut self.carry_kind, Carry::None);
        let token = std::mem::take(&mut self.carry);
        let at = self.carry_at;
        let result = match kind {
            Carry::Char if self.phase == Phase::Trailing => {
                self.trailing(&token, at, 0, eof).map(|()| token.len())
            }
            // Complete or at the end of the body: a stray character is an
            // error either way.
            Carry::Char => match self.stray(&token, 0, at, true) {
                Ok(_) => Err(self.truncated()),
                Err(f) => Err(f),
            },
            // A completed token is never incomplete; at the end of the body
            // the scanners say "truncated" themselves.
            _ => match self.token(&token, 0, at, after) {
                Ok(Some(end)) => Ok(end),
                Ok(None) => Err(self.truncated()),
                Err(f) => Err(f),
            },
        };
        let end = result?;
        // Only bytes that could continue the token were joined to it; if it
        // ended earlier, the next of them is misplaced. What the sink could
        // not take of the token itself comes first, as it does when the
        // token is read whole from one chunk.
        if end < token.len() {
            self.sink_fault()?;
            return Err(self.unexpected(at + end as u64));
        }
        self.carry = token;
        self.carry.clear();
        Ok(Some(used))
    }

    /// After the JSON value: `str::trim_end`'s whitespace only.
    pub(super) fn trailing(&mut self, buf: &[u8], base: u64, mut pos: usize, eof: bool) -> Step {
        loop {
            match buf.get(pos) {
                None => return Ok(()),
                Some(b' ' | b'\t' | b'\n' | b'\r' | 0x0B | 0x0C) => pos += 1,
                Some(&b) if b >= 0x80 => match utf8_char(buf, pos) {
                    Utf8::Char(n) => {
                        let c = std::str::from_utf8(&buf[pos..pos + n])
                            .ok()
                            .and_then(|s| s.chars().next());
                        if !c.is_some_and(char::is_whitespace) {
                            return Err(json_error("trailing characters", base + pos as u64));
                        }
                        pos += n;
                    }
                    Utf8::Incomplete if !eof => {
                        self.start_carry(buf, pos, base);
                        return Ok(());
                    }
                    _ => return Err(utf8_error(base + pos as u64)),
                },
                Some(_) => return Err(json_error("trailing characters", base + pos as u64)),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{run, same_in_chunks};

    #[test]
    fn every_token_resumes_across_chunks() {
        let body = br#"{"status":"success","data":[{"long":"aaaaaaaaaaaaaaaaaaaaaaaaaaaa\"\\\u00e9\ud83d\ude00","n":-12345.678e-2,"t":true,"f":false,"z":null,"e":"\u20ac"}]}"#;
        let (calls, _) = same_in_chunks(body).unwrap();
        assert_eq!(calls.len(), 9);
        assert!(calls[2].starts_with("long=s:aaaaaaaaaaaaaaaaaaaaaaaaaaaa\"\\\u{e9}\u{1f600}|"));
        assert_eq!(calls[3], "n=n:-12345.678e-2");
    }

    #[test]
    fn a_token_ending_early_leaves_a_misplaced_byte() {
        for body in [
            &br#"{"status":"success","data":[{"n":1.5.2}]}"#[..],
            br#"{"status":"success","data":[{"n":01}]}"#,
            br#"{"status":"success","data":[{"n":nullx}]}"#,
        ] {
            let err = same_in_chunks(body).unwrap_err();
            assert!(err.to_string().contains("expected `,` or `}`"), "{err}");
        }
    }

    #[test]
    fn a_carried_tokens_own_problem_comes_before_the_byte_after_it() {
        // The value 0 does not fit the bool the first batch fixed, and a
        // misplaced 2 follows it: the same error, whether or not the 0 was
        // cut off.
        let body = br#"{"status":"success","data":[{"a":true},{"a":024}]}"#;
        let config = crate::Config::builder("https://erp.example.com/")
            .project("demo")
            .access_token("fake-token-for-tests")
            .build()
            .unwrap();
        let run = |size: usize| {
            let options = crate::DecoderOptions {
                one_schema: true,
                ..crate::DecoderOptions::with_batch_rows(1)
            };
            let mut decoder = crate::TableDecoder::new(&config, 200, options);
            for chunk in body.chunks(size) {
                if let Err(e) = decoder.feed(chunk) {
                    return e;
                }
            }
            decoder.finish().unwrap_err()
        };
        let whole = run(body.len());
        assert!(
            whole
                .to_string()
                .contains("the number 0 does not fit its type bool"),
            "{whole}"
        );
        for size in 1..body.len() {
            assert_eq!(run(size), whole, "chunks of {size}");
        }
    }

    #[test]
    fn whitespace_after_the_json_may_be_any() {
        let body = "{\"status\":\"success\",\"data\":[]}\u{3000}\u{85}\n".as_bytes();
        assert!(same_in_chunks(body).is_ok());
        let err = run(b"{\"status\":\"success\",\"data\":[]}\xe3\x80", 1).unwrap_err();
        assert!(err.to_string().contains("UTF-8 (at byte 30)"), "{err}");
        let err =
            same_in_chunks("{\"status\":\"success\",\"data\":[]}\u{e9}".as_bytes()).unwrap_err();
        assert!(
            err.to_string().contains("trailing characters at byte 30"),
            "{err}"
        );
    }

    #[test]
    fn a_stray_character_is_named_by_what_it_is() {
        let err = same_in_chunks("{\"status\":é}".as_bytes()).unwrap_err();
        assert!(
            err.to_string().contains("expected a value at byte 10"),
            "{err}"
        );
        let err = same_in_chunks(b"{\"status\":\xe9}").unwrap_err();
        assert!(err.to_string().contains("UTF-8 (at byte 10)"), "{err}");
    }
}
