//! Tokens: keys, strings, numbers and literals, each put to its use by
//! where it stands (envelope, `data`, a row, or a value only checked).

use super::*;

impl<S: RowSink> Core<S> {
    /// A string, number or literal at `buf[pos]`: `Ok(None)` if `buf` ends
    /// inside it.
    pub(super) fn token(
        &mut self,
        buf: &[u8],
        pos: usize,
        base: u64,
        after: After,
    ) -> Result<Option<usize>, Failure> {
        let b = buf[pos];
        if b == b'"' && matches!(self.expect, Expect::Key | Expect::FirstKeyOrEnd) {
            return self.key(buf, pos, base, after);
        }
        if !matches!(self.expect, Expect::Value | Expect::FirstValueOrEnd) {
            return Err(self.unexpected(base + pos as u64));
        }
        let target = self.target();
        match b {
            // Reported at once, before reading what may be a long string.
            b'"' if target == Target::Top => Err(Failure::Decode(
                "expected a JSON object with status and data, got a string".into(),
            )),
            b'"' => self.string_value(buf, pos, base, after, target),
            b't' | b'f' | b'n' => match scan_literal(buf, pos, after) {
                Scan::Done(lit, end) => {
                    self.literal_value(lit, target)?;
                    Ok(Some(end))
                }
                Scan::Incomplete => Ok(None),
                Scan::Bad(bad) => Err(self.bad(bad, base)),
            },
            _ => match scan_number(buf, pos, after) {
                Scan::Done(n, end) => {
                    self.number_value(unsafe_str(&buf[pos..end]), n, target)?;
                    Ok(Some(end))
                }
                Scan::Incomplete => Ok(None),
                Scan::Bad(bad) => Err(self.bad(bad, base)),
            },
        }
    }

    pub(super) fn key(
        &mut self,
        buf: &[u8],
        pos: usize,
        base: u64,
        after: After,
    ) -> Result<Option<usize>, Failure> {
        let Some(&frame) = self.stack.last() else {
            return Err(self.unexpected(base + pos as u64));
        };
        let decode = frame != Frame::SkipObject;
        let mut scratch = std::mem::take(&mut self.key_scratch);
        let result = match scan_str(buf, pos, &mut scratch, decode, after) {
            Scan::Incomplete => Ok(None),
            Scan::Bad(bad) => Err(self.bad(bad, base)),
            Scan::Done(s, end) => {
                if decode {
                    let key = if s.escaped {
                        unsafe_str(&scratch)
                    } else {
                        unsafe_str(&buf[pos + 1..end - 1])
                    };
                    match frame {
                        Frame::Envelope => self.role = role_of(key),
                        Frame::DataObject => {
                            self.row_key.clear();
                            self.row_key.push_str(key);
                            if !crate::php_array::is_row_number(key) && !self.data_failed {
                                if self.data_key_error.is_none() {
                                    self.data_key_error = Some(format!(
                                        "`data` is an object whose key {:?} is not a row number",
                                        truncate(key, 40)
                                    ));
                                }
                                self.data_failed = true;
                            }
                        }
                        Frame::Row => {
                            self.field_key.clear();
                            self.field_key.push_str(key);
                            if s.lone_surrogate && !self.data_failed {
                                let reason = format!(
                                    "row {}, field {key:?}: lone surrogate in a \\u escape",
                                    self.element_name_in_row()
                                );
                                self.row_error(reason);
                            }
                        }
                        _ => {}
                    }
                }
                self.expect = Expect::Colon;
                Ok(Some(end))
            }
        };
        self.key_scratch = scratch;
        result
    }

    /// The element name while inside its row object (one frame deeper).
    pub(super) fn element_name_in_row(&self) -> String {
        let parent = self.stack.len().checked_sub(2).map(|i| self.stack[i]);
        if parent == Some(Frame::DataObject) {
            self.row_key.clone()
        } else {
            (self.data_items + 1).to_string()
        }
    }

    pub(super) fn string_value(
        &mut self,
        buf: &[u8],
        pos: usize,
        base: u64,
        after: After,
        target: Target,
    ) -> Result<Option<usize>, Failure> {
        let decode = matches!(
            target,
            Target::Cell | Target::Envelope(Role::Status | Role::Message(_) | Role::Data)
        );
        let mut scratch = std::mem::take(&mut self.scratch);
        let result = match scan_str(buf, pos, &mut scratch, decode, after) {
            Scan::Incomplete => Ok(None),
            Scan::Bad(bad) => Err(self.bad(bad, base)),
            Scan::Done(s, end) => {
                let value = if s.escaped {
                    unsafe_str(&scratch)
                } else {
                    unsafe_str(&buf[pos + 1..end - 1])
                };
                match target {
                    // Lone surrogates become U+FFFD in these texts: they only
                    // ever end up in an error message.
                    Target::Envelope(Role::Status) => {
                        self.set_status(Status::Text(Kept::of(value)))
                    }
                    Target::Envelope(Role::Data) => {
                        self.begin_data();
                        self.data =
                            Data::Bad("`data` is a string, expected an array of rows".into());
                        self.slots[DATA_SLOT] = Slot::Text(Kept::of(value));
                    }
                    Target::Envelope(Role::Message(i)) => {
                        self.slots[i] = Slot::Text(Kept::of(value))
                    }
                    Target::Row => self.not_a_row("a string"),
                    Target::Cell if s.lone_surrogate => {
                        let reason = format!(
                            "row {}, field {:?}: lone surrogate in a \\u escape",
                            self.element_name_in_row(),
                            self.field_key
                        );
                        self.row_error(reason);
                    }
                    Target::Cell => {
                        let raw = unsafe_str(&buf[pos..end]);
                        self.sink.field(&self.field_key, CellRef::Str(value, raw));
                    }
                    Target::Top | Target::Envelope(Role::Other) | Target::Skip => {}
                }
                self.value_done();
                Ok(Some(end))
            }
        };
        self.scratch = scratch;
        result
    }

    pub(super) fn literal_value(&mut self, lit: Literal, target: Target) -> Step {
        let type_name = match lit {
            Literal::True | Literal::False => "a boolean",
            Literal::Null => "null",
        };
        match target {
            Target::Top => {
                return Err(Failure::Decode(format!(
                    "expected a JSON object with status and data, got {type_name}"
                )))
            }
            // `'status' => false` is how some PHP code says "failed".
            Target::Envelope(Role::Status) if lit == Literal::False => {
                self.set_status(Status::Text(Kept::of("false")))
            }
            Target::Envelope(Role::Status) => self.set_status(Status::Other(type_name)),
            Target::Envelope(Role::Data) => {
                self.begin_data();
                self.data = match lit {
                    Literal::Null => Data::Null,
                    Literal::False => Data::Bad(
                        "`data` is false: the service reported success but sent no rows \
                         (PHP returns false from a failed query)"
                            .into(),
                    ),
                    Literal::True => {
                        Data::Bad("`data` is a boolean, expected an array of rows".into())
                    }
                };
            }
            Target::Envelope(Role::Message(i)) => self.slots[i] = Slot::Other,
            Target::Row => self.not_a_row(type_name),
            Target::Cell => {
                let cell = match lit {
                    Literal::True => CellRef::Bool(true),
                    Literal::False => CellRef::Bool(false),
                    Literal::Null => CellRef::Null,
                };
                self.sink.field(&self.field_key, cell);
            }
            Target::Envelope(Role::Other) | Target::Skip => {}
        }
        self.value_done();
        Ok(())
    }

    pub(super) fn number_value(&mut self, text: &str, n: Number, target: Target) -> Step {
        match target {
            Target::Top => {
                return Err(Failure::Decode(
                    "expected a JSON object with status and data, got a number".into(),
                ))
            }
            Target::Envelope(Role::Status) => self.set_status(Status::Other("a number")),
            Target::Envelope(Role::Data) => {
                self.begin_data();
                self.data = Data::Bad("`data` is a number, expected an array of rows".into());
            }
            // An error code (`"message": 5`) is the service's word too.
            Target::Envelope(Role::Message(i)) => self.slots[i] = Slot::Json(Kept::of(text)),
            Target::Row => self.not_a_row("a number"),
            Target::Cell => self.sink.field(&self.field_key, CellRef::Number(text, &n)),
            Target::Envelope(Role::Other) | Target::Skip => {}
        }
        self.value_done();
        Ok(())
    }
}
