//! What a call does with the body of the answer it accepted: keep it
//! whole, or decode it as it arrives and hand out batches.

use std::collections::VecDeque;

use crate::body::debug_answer;
use crate::config::Config;
use crate::decode::{Batch, DecoderOptions, TableDecoder};
use crate::error::Result;

/// A part of the body as the host received it, given to the sink to keep
/// ([`Call::chunk_owned`](super::Call::chunk_owned)): a host whose chunks
/// are objects of its own (a Python `bytes`) lends them instead of having
/// them copied, and takes back what the sink dropped where it can free it.
pub type OwnedChunk = Box<dyn AsRef<[u8]> + Send>;

/// Where the body of an accepted answer goes. A [`Call`](super::Call)
/// starts its sink on each answer it accepts (a retry after a cut body
/// starts it again) and feeds it every chunk.
pub trait Sink {
    /// What the call gives when the body ended and the sink accepted it.
    type Output;

    /// An answer with this status begins; anything kept from an earlier
    /// answer is dropped.
    fn start(&mut self, config: &Config, status: u16) -> Result<()>;

    /// The next part of the body.
    fn feed(&mut self, chunk: &[u8]) -> Result<()>;

    /// [`Sink::feed`] with a part the sink may keep instead of copying
    /// (see [`OwnedChunk`]): one that decodes on a thread of its own hands
    /// it there as it is. By default, fed as [`Sink::feed`] is.
    fn feed_owned(&mut self, chunk: OwnedChunk) -> Result<()> {
        self.feed(AsRef::<[u8]>::as_ref(&*chunk))
    }

    /// A batch to hand to the caller now. Only a stream has any: the call
    /// hands each out as soon as it is complete.
    fn next_batch(&mut self) -> Option<Batch> {
        None
    }

    /// Whether [`Sink::next_batch`] has a batch now. A sink that decodes
    /// on another thread may have some that completed while the host was
    /// reading: when the answer then fails, the call hands them out
    /// before the error, as a sink decoding each chunk at once would have.
    fn has_batch(&self) -> bool {
        false
    }

    /// Complete rows decoded so far; `None` for a sink that does not
    /// decode rows (an error then says no `rows_received`).
    fn rows(&self) -> Option<u64> {
        None
    }

    /// After the body broke off: an error if what arrived already fails
    /// (then that is the call's result, as if each chunk had been decoded
    /// before the next was read), else the call may retry.
    fn check(&mut self) -> Result<()> {
        Ok(())
    }

    /// The body ended: the result, or the answer's error. A stream leaves
    /// its last batches to [`Sink::next_batch`].
    fn finish(&mut self) -> Result<Self::Output>;
}

/// Keeps the whole body: for small answers (dues, the service's other
/// functions) and for callers that parse the body themselves.
#[derive(Default)]
pub struct WholeBody {
    status: u16,
    body: Vec<u8>,
}

/// An answer read to its end. `Debug` shows the body's length, not its
/// bytes, which may echo the token.
#[derive(Clone, PartialEq, Eq)]
pub struct Answer {
    /// The HTTP status.
    pub status: u16,
    /// The whole body.
    pub body: Vec<u8>,
}

impl std::fmt::Debug for WholeBody {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        debug_answer(f, "WholeBody", self.status, &self.body)
    }
}

impl std::fmt::Debug for Answer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        debug_answer(f, "Answer", self.status, &self.body)
    }
}

impl Sink for WholeBody {
    type Output = Answer;

    fn start(&mut self, _: &Config, status: u16) -> Result<()> {
        self.status = status;
        self.body.clear();
        Ok(())
    }

    fn feed(&mut self, chunk: &[u8]) -> Result<()> {
        self.body.extend_from_slice(chunk);
        Ok(())
    }

    fn finish(&mut self) -> Result<Answer> {
        Ok(Answer {
            status: self.status,
            body: std::mem::take(&mut self.body),
        })
    }
}

/// Keeps the whole body, then parses it: the parser's error is the
/// call's, saying where the call stood like any other.
pub struct Parsed<F> {
    body: WholeBody,
    config: Option<Config>,
    parse: F,
}

impl<F> Parsed<F> {
    /// A sink giving `parse(config, status, body)` of the whole answer.
    pub fn new(parse: F) -> Self {
        Parsed {
            body: WholeBody::default(),
            config: None,
            parse,
        }
    }
}

impl<F> std::fmt::Debug for Parsed<F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Parsed")
            .field("body", &self.body)
            .finish_non_exhaustive()
    }
}

impl<O, F: FnMut(&Config, u16, &[u8]) -> Result<O>> Sink for Parsed<F> {
    type Output = O;

    fn start(&mut self, config: &Config, status: u16) -> Result<()> {
        self.config = Some(config.clone());
        self.body.start(config, status)
    }

    fn feed(&mut self, chunk: &[u8]) -> Result<()> {
        self.body.feed(chunk)
    }

    fn finish(&mut self) -> Result<O> {
        let answer = self.body.finish()?;
        let config = self.config.as_ref().expect("finish after start");
        (self.parse)(config, answer.status, &answer.body)
    }
}

/// What a stream leaves once its body ended and decoded without error:
/// only then are its batches known to be the whole table.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StreamEnd {
    /// PHP notices or warnings that preceded the JSON (redacted).
    pub notices: Vec<String>,
    /// Rows in the whole answer.
    pub total_rows: u64,
}

/// Decodes a table answer as it arrives and hands out each batch once
/// complete, all of one schema.
#[derive(Debug)]
pub struct TableStream {
    options: DecoderOptions,
    decoder: Option<TableDecoder>,
    ready: VecDeque<Batch>,
    rows: u64,
}

impl TableStream {
    /// A stream decoding with these options (`one_schema` is set: every
    /// batch has the first one's schema).
    pub fn new(options: DecoderOptions) -> Self {
        TableStream {
            options: DecoderOptions {
                one_schema: true,
                ..options
            },
            decoder: None,
            ready: VecDeque::new(),
            rows: 0,
        }
    }
}

impl Sink for TableStream {
    type Output = StreamEnd;

    fn start(&mut self, config: &Config, status: u16) -> Result<()> {
        self.ready.clear();
        self.rows = 0;
        self.decoder = Some(TableDecoder::new(config, status, self.options.clone()));
        Ok(())
    }

    fn feed(&mut self, chunk: &[u8]) -> Result<()> {
        if let Some(decoder) = &mut self.decoder {
            let fed = decoder.feed(chunk);
            self.rows = decoder.rows();
            self.ready.extend(fed?);
        }
        Ok(())
    }

    fn next_batch(&mut self) -> Option<Batch> {
        self.ready.pop_front()
    }

    fn has_batch(&self) -> bool {
        !self.ready.is_empty()
    }

    fn rows(&self) -> Option<u64> {
        Some(self.rows)
    }

    fn finish(&mut self) -> Result<StreamEnd> {
        let Some(decoder) = self.decoder.take() else {
            return Ok(StreamEnd::default());
        };
        let finished = decoder.finish()?;
        self.ready.extend(finished.batches);
        Ok(StreamEnd {
            notices: finished.notices,
            total_rows: finished.total_rows,
        })
    }
}
