//! The rows' fast path: whole fields and rows read straight from the chunk.

use super::*;

impl<S: RowSink> Core<S> {
    #[inline(always)]
    pub(super) fn fast_ready(&self) -> bool {
        matches!(self.expect, Expect::Key | Expect::FirstKeyOrEnd)
            && self.stack.last() == Some(&Frame::Row)
            && !self.data_failed
    }

    /// Reads whole fields (`"key": scalar`) and rows while they lie
    /// complete in `buf`, with exactly the sink calls and states the general
    /// path would make (or, for the fields the sink reads itself, see
    /// [`RowSink::read_fields`], what those calls would have done). It
    /// stops before anything else — a nested value, an error, a token cut
    /// by the chunk's end — and leaves that to the general path, which
    /// reports errors; so it never needs to undo.
    pub(super) fn fast_rows(&mut self, buf: &[u8], base: u64, mut pos: usize) -> usize {
        let Core {
            sink,
            scratch,
            key_scratch,
            stack,
            expect,
            rows,
            data_items,
            row_start,
            row_begin,
            ..
        } = self;
        let len = buf.len();
        let mut number = Number::default();
        loop {
            let kp = skip_ws(buf, pos);
            if kp >= len || buf[kp] != b'"' {
                return pos;
            }
            // The fields the sink reads itself, for as long as it can; then
            // the one it stopped at, if any, scanned here.
            let vend = match sink.read_fields(buf, kp) {
                (end, true) => end,
                (key, false) => {
                    if key != kp {
                        *expect = Expect::Key;
                        pos = key;
                    }
                    match field(sink, scratch, key_scratch, &mut number, buf, key) {
                        Some(end) => end,
                        None => return pos,
                    }
                }
            };
            if sink.fault().is_some() {
                *expect = Expect::CommaOrEnd;
                return vend;
            }
            // The field is in; from here on the state follows every byte.
            let p = skip_ws(buf, vend);
            match buf.get(p) {
                Some(b',') => {
                    *expect = Expect::Key;
                    pos = p + 1;
                }
                Some(b'}') => {
                    stack.pop();
                    sink.end_row(base + p as u64 + 1 - *row_begin);
                    *rows += 1;
                    *expect = Expect::CommaOrEnd;
                    if stack.last() != Some(&Frame::DataArray) {
                        return p + 1;
                    }
                    *data_items += 1;
                    let q = skip_ws(buf, p + 1);
                    if buf.get(q) != Some(&b',') {
                        return p + 1;
                    }
                    let r = skip_ws(buf, q + 1);
                    if buf.get(r) != Some(&b'{') {
                        *expect = Expect::Value;
                        return q + 1;
                    }
                    *row_start = Some(RowStart {
                        offset: base + r as u64,
                        row: *rows,
                    });
                    *row_begin = base + r as u64;
                    sink.begin_row();
                    stack.push(Frame::Row);
                    *expect = Expect::FirstKeyOrEnd;
                    pos = r + 1;
                }
                _ => {
                    *expect = Expect::CommaOrEnd;
                    return p;
                }
            }
        }
    }
}

/// The field whose key starts at `buf[kp]`, scanned and given to the sink:
/// the index after its value, or `None` if the general path must take it.
/// Out of line: the sink reads most fields itself, and the loop stays
/// small.
#[inline(never)]
fn field<S: RowSink>(
    sink: &mut S,
    scratch: &mut Vec<u8>,
    key_scratch: &mut Vec<u8>,
    number: &mut Number,
    buf: &[u8],
    kp: usize,
) -> Option<usize> {
    let len = buf.len();
    // The key is most likely the previous row's at this place: then
    // comparing bytes (the key with its quotes and colon) replaces scanning
    // it, finding the colon and looking it up.
    let expected = sink.next_key_at(buf, kp);
    let predicted = expected.is_some();
    let (key, p) = if let Some(expected) = expected {
        ("", skip_ws(buf, kp + expected))
    } else {
        let (kesc, kend) = match scan_str(buf, kp, key_scratch, true, After::More) {
            Scan::Done(s, end) if !s.lone_surrogate => (s.escaped, end),
            _ => return None,
        };
        let p = skip_ws(buf, kend);
        if p >= len || buf[p] != b':' {
            return None;
        }
        let key = if kesc {
            unsafe_str(key_scratch)
        } else {
            unsafe_str(&buf[kp + 1..kend - 1])
        };
        (key, skip_ws(buf, p + 1))
    };
    // Each value is handed over where it is made: building the cell
    // first and moving it costs a store-forwarding stall.
    macro_rules! emit {
        ($cell:expr) => {
            if predicted {
                sink.next_field($cell)
            } else {
                sink.field(key, $cell)
            }
        };
    }
    Some(match *buf.get(p)? {
        b'"' => {
            // Plain ASCII without escapes, checked inline; anything else
            // goes through the full scan.
            let q = find_special(buf, p + 1);
            if buf.get(q) == Some(&b'"') {
                let value = unsafe_str(&buf[p + 1..q]);
                emit!(CellRef::Str(value, unsafe_str(&buf[p..q + 1])));
                q + 1
            } else {
                match scan_str(buf, p, scratch, true, After::More) {
                    Scan::Done(s, end) if !s.lone_surrogate => {
                        let value = if s.escaped {
                            unsafe_str(scratch)
                        } else {
                            unsafe_str(&buf[p + 1..end - 1])
                        };
                        emit!(CellRef::Str(value, unsafe_str(&buf[p..end])));
                        end
                    }
                    _ => return None,
                }
            }
        }
        b'-' | b'0'..=b'9' => match scan_number_into(buf, p, After::More, number) {
            Scan::Done((), end) => {
                emit!(CellRef::Number(unsafe_str(&buf[p..end]), number));
                end
            }
            _ => return None,
        },
        b't' | b'f' | b'n' => match scan_literal(buf, p, After::More) {
            Scan::Done(lit, end) => {
                emit!(match lit {
                    Literal::True => CellRef::Bool(true),
                    Literal::False => CellRef::Bool(false),
                    Literal::Null => CellRef::Null,
                });
                end
            }
            _ => return None,
        },
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::super::tests::run;

    /// Whole chunks take the fast path, one-byte chunks never can: the two
    /// must agree call for call.
    #[test]
    fn the_fast_path_matches_the_general_one() {
        let rows = r#"{"a":"x", "b" : 1 ,"c":true,"d":null},
            {"a":"y","b":2.5,"c":false,"d":"M\u00fcller","e":[1]},{"b":3,"a":"z"},
            {"a":"w","a":"v"},{"M\u00fc":1,"Mü":2}, {"x":1} "#;
        let body = format!(r#"{{"status":"success","data":[ {rows}]}}"#);
        let (calls, _) = run(body.as_bytes(), body.len()).unwrap();
        assert_eq!(calls, run(body.as_bytes(), 1).unwrap().0);
        assert!(calls.contains(&"Mü=n:2".to_owned()));
        assert!(calls.contains(&"d=s:Müller|\"M\\u00fcller\"".to_owned()));
        let body = format!(r#"{{"status":"success","data":[{rows},{{"a":"\ud800"}}]}}"#);
        let fast = run(body.as_bytes(), body.len());
        assert_eq!(fast, run(body.as_bytes(), 1));
        let err = fast.unwrap_err();
        assert!(
            err.to_string()
                .contains("row 7, field \"a\": lone surrogate"),
            "{err}"
        );
    }
}
