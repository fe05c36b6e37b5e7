//! Where the rows of `data` begin and end, for decoding them elsewhere
//! (on other threads) while this decoder reads only the envelope around
//! them.

use super::*;

impl<S: RowSink> Core<S> {
    /// Whether the input so far ended exactly with the `[` that opens the
    /// envelope's `data` array, with nothing pending: the bytes that follow
    /// are the array's elements, and the state is the one they would start
    /// from whatever came before.
    pub(crate) fn at_rows_start(&self) -> bool {
        self.failure.is_none()
            && self.phase == Phase::Json
            && self.carry_kind == Carry::None
            && self.capture.is_none()
            && !self.data_failed
            && self.expect == Expect::FirstValueOrEnd
            && self.stack.len() == 2
            && self.stack[0] == Frame::Envelope
            && self.stack[1] == Frame::DataArray
    }

    /// The absolute offset of the `]` that closed the first `data` array,
    /// once it has: where the rows of a decoder fed an answer's last rows
    /// and the rest of its envelope ended.
    pub(crate) fn rows_end(&self) -> Option<u64> {
        self.rows_end
    }
}
