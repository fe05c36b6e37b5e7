//! Decoding a whole body on several threads (feature `parallel`).
//!
//! The envelope is read by one decoder, which sees the `data` array as if
//! it were empty; a structural scan finds where the array's elements end
//! (see [`super::row_bounds`]), they are cut at row boundaries into pieces
//! of whole batches, and each piece is decoded by a decoder of its own on a
//! rayon thread. While the scan runs, another thread already decodes the
//! first rows (they start at a batch boundary whatever the counts) and
//! later goes on to the first batch boundary past what it read. The scan
//! stops short of the array's end: the rows from the last batch boundary
//! it found on are the tail, whose decoder is fed the rest of the body and
//! finds where the array ends (see [`TAIL_FIFTHS`]). The result is the
//! sequential decoder's, batch for batch:
//! - pieces hold a multiple of `batch_rows` rows, so batches end where the
//!   sequential decoder ends them, and each batch types its columns from
//!   its own values alike;
//! - each batch has every column seen so far in the answer, in first-seen
//!   order (a column absent from a piece's batch is all null there, as the
//!   sequential decoder makes it), and a number column that, with the
//!   batches before, needs more than 38 digits is text.
//!
//! Each piece is aligned, fitted and mapped on its thread as if it began
//! the answer, which it does as far as the pieces before it can tell when
//! its first batch starts with their columns and their numbers and its
//! own stay within 38 digits together: the rows of an ERP's table all
//! have the same columns. From the first piece where that fails, the rest
//! are decoded again and aligned and fitted after the pieces before them.
//!
//! Anything the pieces cannot reproduce exactly falls back to decoding the
//! body in one piece: a problem anywhere (so that errors, their excerpts
//! and row numbers are the sequential decoder's), `data` keyed by row
//! number, a second `data` field, rows not where the scan expected them
//! (a tail that does not end with the array, say), or a batch ended early
//! by the 256 MiB limit on a batch's rows.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, Ordering};

use rayon::prelude::*;

use super::batch::NumberReach;
use super::builder::ColumnSink;
use super::columns::{Column, ColumnData};
use super::decoder::Core;
use super::row_bounds::{guess_comma, is_ws, scan, End};
use super::sink::{CellRef, RowSink};
use super::{Batch, DecoderOptions, Finished, TableDecoder, ROWS_HEAD};
use crate::config::Config;
use crate::error::Error;
use crate::redact::Redactor;

/// How [`TableDecoder::decode_parallel`] spreads the work.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ParallelOptions {
    /// Threads to decode on: `None` for rayon's global pool (one thread per
    /// core unless configured otherwise), `Some(n)` for a pool of `n`
    /// threads made for the call. One thread decodes in one piece.
    pub threads: Option<usize>,
    /// Bodies shorter than this are decoded in one piece (default 4 MiB):
    /// below it, handing work to threads costs more than it saves.
    pub min_body_bytes: usize,
}

impl Default for ParallelOptions {
    fn default() -> Self {
        ParallelOptions {
            threads: None,
            min_body_bytes: 4 << 20,
        }
    }
}

/// The envelope is looked for in the body's first bytes only; a `data`
/// array that starts later is decoded in one piece.
const ENVELOPE_LIMIT: usize = 1 << 20;
/// How far past a nominal cut the scan looks for a row boundary.
const GUESS_WINDOW: usize = 1 << 20;
/// Scan segments per thread, and pieces per thread (for balance: rows
/// differ in cost).
const SEGMENTS_PER_THREAD: usize = 2;
const PIECES_PER_THREAD: usize = 4;
/// How much of the array the head decoder takes at a time while the scan
/// runs (it checks for the scan's end between steps).
const HEAD_STEP: usize = 256 << 10;

/// What closes a piece after [`ROWS_HEAD`] and its rows.
const PIECE_TAIL: &[u8] = b"]}";
/// How much of the array a piece's decoder is fed at a time: each batch
/// is mapped as soon as it is made.
const PIECE_STEP: usize = 1 << 20;
/// The scan stops at `1 - TAIL_FIFTHS / 5 / threads` of the array: the
/// rows from the last batch boundary it found on are the tail, one
/// thread's piece, whose decoder finds where the array ends. The tail is
/// a little less than that thread's share of the decoding, so that it
/// also takes a piece before it at the end; the rest of the scan is saved
/// (two fifths of it on two threads).
const TAIL_FIFTHS: usize = 4;

/// A whole body decoded by [`TableDecoder::decode_parallel_map`]: each
/// batch mapped, in batch order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decoded<T> {
    /// What each batch was mapped to, in order.
    pub batches: Vec<T>,
    /// PHP notices or warnings that preceded the JSON (redacted).
    pub notices: Vec<String>,
    /// Rows in the whole answer.
    pub total_rows: u64,
}

impl TableDecoder {
    /// Decodes a whole body, large ones on several threads: the same
    /// batches (same boundaries, column types, columns and their order),
    /// notices, row count and errors as a `TableDecoder` with the same
    /// `options` fed the same body.
    ///
    /// ```
    /// use erpdata::{Config, DecoderOptions, ParallelOptions, TableDecoder};
    ///
    /// let config = Config::builder("https://erp.example.com/").build()?;
    /// let body = br#"{"status":"success","data":[{"n":1},{"n":2},{"n":3.5}]}"#;
    /// let parallel = ParallelOptions { threads: Some(2), min_body_bytes: 0 };
    /// let options = DecoderOptions::with_batch_rows(2);
    /// let finished = TableDecoder::decode_parallel(&config, 200, body, options, parallel)?;
    /// assert_eq!(finished.total_rows, 3);
    /// assert_eq!(finished.batches.len(), 2);
    /// # Ok::<(), erpdata::Error>(())
    /// ```
    pub fn decode_parallel(
        config: &Config,
        status: u16,
        body: &[u8],
        options: DecoderOptions,
        parallel: ParallelOptions,
    ) -> Result<Finished, Error> {
        let decoded = Self::decode_parallel_map(config, status, body, options, parallel, |b| b)?;
        Ok(Finished {
            batches: decoded.batches,
            notices: decoded.notices,
            total_rows: decoded.total_rows,
        })
    }

    /// [`TableDecoder::decode_parallel`], then `map` applied to every batch
    /// on the same threads — converting them to Arrow, say
    /// (`|b| b.into_record_batch()`), which then runs on every core too.
    ///
    /// A piece's batches are mapped as soon as it is decoded, before the
    /// pieces before it are known to agree with it (those of a table whose
    /// rows all have the same columns do). So `map` may also see batches
    /// whose result is then dropped: those of the pieces decoded again
    /// because they did not agree, or all of them, when the answer turns
    /// out to fail. Keep it free of side effects.
    pub fn decode_parallel_map<T, F>(
        config: &Config,
        status: u16,
        body: &[u8],
        options: DecoderOptions,
        parallel: ParallelOptions,
        map: F,
    ) -> Result<Decoded<T>, Error>
    where
        T: Send,
        F: Fn(Batch) -> T + Send + Sync,
    {
        // A small body or an error answer is decoded in one piece, and no
        // pool is made for it.
        // One schema for every batch needs the first batch first.
        let splittable = body.len() >= parallel.min_body_bytes
            && (200..300).contains(&status)
            && !options.one_schema;
        let options = &options;
        let redactor = &config.redactor();
        let work = |threads: usize| -> Result<Decoded<T>, Error> {
            let split = threads > 1 && splittable;
            if let Some(decoded) = split
                .then(|| split_rows(redactor, body, options, threads, &map))
                .flatten()
            {
                return Ok(decoded);
            }
            let finished = sequential(redactor, status, body, options)?;
            let batches = if threads > 1 {
                finished.batches.into_par_iter().map(&map).collect()
            } else {
                finished.batches.into_iter().map(&map).collect()
            };
            Ok(Decoded {
                batches,
                notices: finished.notices,
                total_rows: finished.total_rows,
            })
        };
        match parallel.threads {
            _ if !splittable => work(1),
            None => work(rayon::current_num_threads()),
            Some(n) if n > 1 => match rayon::ThreadPoolBuilder::new().num_threads(n).build() {
                Ok(pool) => pool.install(|| work(n)),
                // No threads to be had: the work still gets done, here.
                Err(_) => work(1),
            },
            Some(_) => work(1),
        }
    }
}

/// The one-piece decoding every other path must equal.
fn sequential(
    redactor: &Redactor,
    status: u16,
    body: &[u8],
    options: &DecoderOptions,
) -> Result<Finished, Error> {
    let mut decoder = TableDecoder::with_redactor(redactor, status, options.clone());
    let mut batches = decoder.feed(body)?;
    let mut finished = decoder.finish()?;
    batches.append(&mut finished.batches);
    finished.batches = batches;
    Ok(finished)
}

/// The envelope decoder's sink: it should see no row at all.
#[derive(Debug, Default)]
struct Envelope {
    rows: u64,
}

impl RowSink for Envelope {
    fn begin_row(&mut self) {
        self.rows += 1;
    }
    fn field(&mut self, _key: &str, _value: CellRef<'_>) {}
    fn end_row(&mut self, _bytes: u64) {}
}

/// The parallel decoding, each batch mapped, or `None` where it could
/// differ from the sequential one (which the caller then runs).
fn split_rows<T, F>(
    redactor: &Redactor,
    body: &[u8],
    options: &DecoderOptions,
    threads: usize,
    map: &F,
) -> Option<Decoded<T>>
where
    T: Send,
    F: Fn(Batch) -> T + Send + Sync,
{
    split_rows_with(redactor, body, options, threads, false, map)
}

/// `head_first`: the head decoder reads its whole share before the scan
/// (for tests: otherwise how much it reads depends on timing).
fn split_rows_with<T, F>(
    redactor: &Redactor,
    body: &[u8],
    options: &DecoderOptions,
    threads: usize,
    head_first: bool,
    map: &F,
) -> Option<Decoded<T>>
where
    T: Send,
    F: Fn(Batch) -> T + Send + Sync,
{
    let batch_rows = options.batch_rows.max(1);
    let mut envelope = Core::new(redactor, 200, Envelope::default());
    let open = find_rows(&mut envelope, body)?;
    let region = &body[open + 1..];
    // The scan leaves the array's last part to one thread's decoder, which
    // finds its end itself (see `TAIL_FIFTHS`).
    let limit = region.len() - region.len() * TAIL_FIFTHS / (5 * threads);
    // The first rows start at a batch boundary whatever the counts: one
    // thread decodes them while another scans for the rest.
    let scanned = AtomicBool::new(false);
    let (bounds, head) = if head_first {
        let head = decode_head(redactor, region, options, &scanned);
        (bounds(region, threads, limit), head)
    } else {
        rayon::join(
            || {
                let b = bounds(region, threads, limit);
                scanned.store(true, Ordering::Relaxed);
                b
            },
            || decode_head(redactor, region, options, &scanned),
        )
    };
    let Bounds { mut commas, close } = bounds?;

    // The rows whose bounds are known: all of them once the scan reached
    // the array's end; else those before the last batch boundary it
    // reached, the rest being the tail's (with no such boundary, the scan
    // goes on to the end).
    let boundary = commas.len() / batch_rows * batch_rows;
    let close = match close {
        None if boundary == 0 => {
            let from = commas.last().map_or(0, |&c| c + 1);
            match scan(region, from, usize::MAX, &mut commas) {
                End::Closed(close) => Some(close),
                _ => return None,
            }
        }
        close => close,
    };
    let known = match close {
        Some(close) if region[..close].iter().all(|&b| is_ws(b)) => 0,
        Some(_) => commas.len() + 1,
        None => {
            commas.truncate(boundary);
            boundary
        }
    };
    if close.is_some() && known.div_ceil(batch_rows) < 2 {
        return None;
    }
    let starts = |row: usize| if row == 0 { 0 } else { commas[row - 1] + 1 };
    let ends = |row: usize| match close {
        Some(close) if row == known => close,
        _ => commas[row - 1],
    };

    // The head goes on to the first batch boundary at or after what it
    // read (if it read no further than the known rows).
    let mut tasks: Vec<Task> = Vec::new();
    let mut first = 0;
    if let Some(head) = head.filter(|h| h.fed > 0 && h.fed <= ends(known)) {
        let k = commas.partition_point(|&c| c < head.fed);
        let last = ((k + 1).div_ceil(batch_rows) * batch_rows).min(known);
        tasks.push(Task::Head(Box::new(head), last));
        first = last;
    }
    let left = (known - first).div_ceil(batch_rows);
    if left > 0 {
        let pieces = left.min(threads * PIECES_PER_THREAD);
        let per_piece = left.div_ceil(pieces) * batch_rows;
        tasks.extend(
            (first..known)
                .step_by(per_piece)
                .map(|from| Task::Piece(from, (from + per_piece).min(known))),
        );
    }

    // Each piece is aligned, fitted and mapped as if it were the whole
    // answer, on its thread, batch by batch as they are decoded. The
    // tail starts at once, on this thread: it is the longest.
    let last_is_known = close.is_some();
    let run = |task: Task| -> Option<Piece<T>> {
        let mut mapper = Mapper::new(map, batch_rows);
        let (fed, first, last) = match task {
            Task::Head(head, last) => {
                mapper.take(head.batches);
                let rows = &region[head.fed..ends(last)];
                (
                    feed_rows(head.decoder, rows, PIECE_TAIL, |b| mapper.take(b))?,
                    0,
                    last,
                )
            }
            Task::Piece(first, last) => {
                let rows = &region[starts(first)..ends(last)];
                let decoder = piece_decoder(redactor, options, Fitted::AsIfFirst)?;
                (
                    feed_rows(decoder, rows, PIECE_TAIL, |b| mapper.take(b))?,
                    first,
                    last,
                )
            }
        };
        let ends_answer = last_is_known && last == known;
        mapper.piece(
            fed,
            Some(last - first),
            ends_answer,
            starts(first)..ends(last),
        )
    };
    let tail = |start: usize| -> Option<(Piece<T>, usize)> {
        let mut mapper = Mapper::new(map, batch_rows);
        let decoder = piece_decoder(redactor, options, Fitted::AsIfFirst)?;
        let fed = feed_rows(decoder, &region[start..], b"", |b| mapper.take(b))?;
        // At least one row: a comma before the array's end is an error.
        if fed.rows == 0 {
            return None;
        }
        let close = start + usize::try_from(fed.rows_end?).ok()? - ROWS_HEAD.len();
        Some((mapper.piece(fed, None, true, start..close)?, close))
    };
    let pieces = || each_piece(tasks, run);
    let (tail, decoded) = if last_is_known {
        (None, pieces())
    } else {
        rayon::join(|| tail(starts(known)), pieces)
    };
    let (close, tail) = match (close, tail) {
        (Some(close), _) => (close, None),
        (None, Some((piece, close))) => (close, Some(piece)),
        (None, None) => return None,
    };
    let rows = known + tail.as_ref().map_or(0, |t| t.rows);

    // The rest of the envelope, after the array.
    envelope.feed(&region[close..]).ok()?;
    let done = envelope.finish().ok()?;
    if done.sink.rows > 0 {
        return None;
    }

    // In order, each piece against the pieces before it. From the first
    // that they could change (a column first seen earlier, numbers that
    // reach 38 digits only together), the rest are decoded again from
    // their bytes, on every thread, and aligned, fitted and mapped after
    // the pieces before them, as the sequential decoder would.
    let mut columns = Aligner::default();
    let mut numbers = NumberReach::default();
    let mut out = Vec::with_capacity(rows.div_ceil(batch_rows));
    let mut again = Vec::new();
    for piece in decoded.into_iter().chain(tail.map(Some)) {
        let piece = piece?;
        if again.is_empty() && columns.admits(&piece.first) && numbers.admits(&piece.numbers) {
            columns = piece.columns;
            numbers.join(&piece.numbers);
            out.extend(piece.mapped);
        } else {
            again.push(piece.bytes);
        }
    }
    if !again.is_empty() {
        let again = each_piece(again, |bytes| {
            decode_piece(redactor, &region[bytes], options)
        });
        let mut rest = Vec::new();
        for batches in again {
            rest.extend(batches?);
        }
        fit_after(&mut columns, &mut numbers, &mut rest);
        out.extend(rest.into_par_iter().map(map).collect::<Vec<T>>());
    }
    Some(Decoded {
        batches: out,
        notices: done.notices,
        total_rows: rows as u64,
    })
}

/// One piece of the answer, decoded, aligned, fitted and mapped as if it
/// were the whole answer, and what tells whether that is what the
/// sequential decoder gives after the pieces before it.
struct Piece<T> {
    mapped: Vec<T>,
    /// Its rows.
    rows: usize,
    /// The columns of its first batch, in order.
    first: Vec<String>,
    /// Its columns once aligned, as the next piece's first batch must
    /// start.
    columns: Aligner,
    /// Its numbers' reach.
    numbers: NumberReach,
    /// Where its rows are in the array's bytes.
    bytes: std::ops::Range<usize>,
}

/// A piece's batches, aligned and mapped one at a time as its decoder
/// gives them (fitted by it), as if the piece began the answer: each while
/// it is still in the cache, its memory then free for the next.
struct Mapper<'m, T, F> {
    map: &'m F,
    batch_rows: usize,
    columns: Aligner,
    first: Option<Vec<String>>,
    mapped: Vec<T>,
    /// Rows of the last batch taken.
    last_rows: usize,
    /// A batch before the last had fewer than `batch_rows` rows.
    short: bool,
}

impl<'m, T, F: Fn(Batch) -> T> Mapper<'m, T, F> {
    fn new(map: &'m F, batch_rows: usize) -> Self {
        Mapper {
            map,
            batch_rows,
            columns: Aligner::default(),
            first: None,
            mapped: Vec::new(),
            last_rows: 0,
            short: false,
        }
    }

    fn take(&mut self, batches: Vec<Batch>) {
        for mut batch in batches {
            self.short |= !self.mapped.is_empty() && self.last_rows != self.batch_rows;
            self.last_rows = batch.num_rows;
            // A piece's sink gives every column seen so far in its rows,
            // in first-seen order: aligned from nothing, as the piece is,
            // a batch stays as it is (this only checks it and learns the
            // columns), so the positions its sink fitted by hold.
            self.columns.align(std::slice::from_mut(&mut batch));
            self.first
                .get_or_insert_with(|| batch.columns.iter().map(|c| c.name.clone()).collect());
            self.mapped.push((self.map)(batch));
        }
    }

    /// The piece, if its batches end where the sequential decoder ends
    /// them: the rows `fed` (as `expected`, when known), in batches all
    /// full but the last, which is full too unless the piece
    /// `ends_answer`. A batch the 256 MiB limit ended early moves every
    /// later boundary.
    fn piece(
        self,
        fed: Fed,
        expected: Option<usize>,
        ends_answer: bool,
        bytes: std::ops::Range<usize>,
    ) -> Option<Piece<T>> {
        let rows = usize::try_from(fed.rows).ok()?;
        let numbers = fed.numbers?;
        let whole = expected.is_none_or(|n| n == rows)
            && self.mapped.len() == rows.div_ceil(self.batch_rows)
            && !self.short
            && (ends_answer || rows % self.batch_rows == 0);
        whole.then(|| Piece {
            mapped: self.mapped,
            rows,
            first: self.first.unwrap_or_default(),
            columns: self.columns,
            numbers,
            bytes,
        })
    }
}

/// Gives `batches` the columns and the number types the sequential
/// decoder gives them after the batches `columns` and `numbers` have seen,
/// and takes them in: the batches of the pieces decoded again, after the
/// pieces before them.
fn fit_after(columns: &mut Aligner, numbers: &mut NumberReach, batches: &mut [Batch]) {
    columns.align(batches);
    for batch in batches {
        numbers.fit(batch, &[]);
    }
}

/// Feeds the envelope decoder up to the `[` that opens `data`; its offset.
fn find_rows(envelope: &mut Core<Envelope>, body: &[u8]) -> Option<usize> {
    let head = &body[..body.len().min(ENVELOPE_LIMIT)];
    let mut fed = 0;
    for open in memchr::memchr_iter(b'[', head) {
        envelope.feed(&body[fed..=open]).ok()?;
        fed = open + 1;
        if envelope.at_rows_start() {
            return Some(open);
        }
        if envelope.sink.rows > 0 {
            return None;
        }
    }
    None
}

/// What the scan of the array found.
#[derive(Debug)]
struct Bounds {
    /// The offsets of the commas between the elements it read, in order.
    commas: Vec<usize>,
    /// The offset of the array's closing `]`, if the scan got there
    /// before its limit.
    close: Option<usize>,
}

/// The commas between the elements of the array in `region` up to the
/// first one at or after `limit`, or to the array's closing `]`: scanned
/// in segments on the pool's threads, each starting at a guessed row
/// boundary that the segment before must reach; from a wrong guess on,
/// in one pass.
fn bounds(region: &[u8], threads: usize, limit: usize) -> Option<Bounds> {
    let segments = threads * SEGMENTS_PER_THREAD;
    let span = limit.min(region.len());
    let step = span / segments;
    let mut cuts: Vec<usize> = Vec::with_capacity(segments);
    for k in 1..segments {
        let from = (k * step).max(cuts.last().map_or(0, |&c| c + 1));
        match guess_comma(region, from, GUESS_WINDOW) {
            Some(c) if c < limit => cuts.push(c),
            _ => {}
        }
    }
    // Segment k scans from just after cut k-1 up to cut k; the last one
    // up to the limit.
    let parts: Vec<(Vec<usize>, End)> = (0..=cuts.len())
        .into_par_iter()
        .map(|k| {
            let from = if k == 0 { 0 } else { cuts[k - 1] + 1 };
            let to = cuts.get(k).copied().unwrap_or(limit);
            let mut commas = Vec::with_capacity((to.min(region.len()) - from) / 64);
            let end = scan(region, from, to, &mut commas);
            (commas, end)
        })
        .collect();
    // Segment k started where it should if segment k-1 ended at its cut;
    // after a wrong guess, the scan goes on alone from where it stands.
    let mut commas = Vec::new();
    for (k, (part, end)) in parts.into_iter().enumerate() {
        if commas.is_empty() {
            commas = part;
        } else {
            commas.extend_from_slice(&part);
        }
        let end = match end {
            End::Comma(at) if cuts.get(k) == Some(&at) => continue,
            End::Comma(at) if at < limit => scan(region, at + 1, limit, &mut commas),
            end => end,
        };
        return match end {
            End::Closed(close) => Some(Bounds {
                commas,
                close: Some(close),
            }),
            End::Comma(_) => Some(Bounds {
                commas,
                close: None,
            }),
            End::Broken => None,
        };
    }
    None
}

/// How a piece's decoder fits its numbers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Fitted {
    /// As if the piece began the answer: by its sink, with the largest
    /// value of each decimal column its builder kept (not read again).
    AsIfFirst,
    /// Not at all: the batches are fitted afterwards, after the pieces
    /// before them (a piece decoded again).
    After,
}

/// A decoder for rows cut from an answer, fed the answer's start up to
/// them.
fn piece_decoder(
    redactor: &Redactor,
    options: &DecoderOptions,
    fitted: Fitted,
) -> Option<TableDecoder> {
    let sink = match fitted {
        Fitted::AsIfFirst => ColumnSink::new(options.batch_rows, options.typing()),
        Fitted::After => ColumnSink::unfitted(options.batch_rows, options.typing()),
    };
    let mut decoder = TableDecoder {
        core: Core::new(redactor, 200, sink),
    };
    let batches = decoder.feed(ROWS_HEAD).ok()?;
    debug_assert!(batches.is_empty());
    Some(decoder)
}

/// What [`feed_rows`] learnt from the decoder.
struct Fed {
    /// The rows it decoded.
    rows: u64,
    /// Where its `data` array closed, in its input.
    rows_end: Option<u64>,
    /// How far its numbers reach ([`Fitted::AsIfFirst`]).
    numbers: Option<NumberReach>,
}

/// `work` done on each of `pieces` on the pool's threads, the results in
/// order. One piece a split: a thread that is done (the tail's, most
/// often) can take any piece not yet begun, even the last; by default the
/// last few run in one split, on the thread that split them.
fn each_piece<P: Send, R: Send>(pieces: Vec<P>, work: impl Fn(P) -> R + Sync + Send) -> Vec<R> {
    pieces.into_par_iter().with_max_len(1).map(work).collect()
}

/// Feeds `decoder` `rows` a step at a time, then `end`, and finishes it,
/// handing `take` the batches as they are made; `None` for any problem.
fn feed_rows(
    mut decoder: TableDecoder,
    rows: &[u8],
    end: &[u8],
    mut take: impl FnMut(Vec<Batch>),
) -> Option<Fed> {
    for step in rows.chunks(PIECE_STEP) {
        take(decoder.feed(step).ok()?);
    }
    if !end.is_empty() {
        take(decoder.feed(end).ok()?);
    }
    let rows_end = decoder.core.rows_end();
    let done = decoder.core.finish().ok()?;
    let (batches, numbers) = done.sink.into_fitted();
    take(batches);
    Some(Fed {
        rows: done.rows,
        rows_end,
        numbers,
    })
}

/// The batches of one piece of the array's elements, decoded as an
/// answer of its own; `None` for any problem (the caller then decodes the
/// whole body).
fn decode_piece(redactor: &Redactor, piece: &[u8], options: &DecoderOptions) -> Option<Vec<Batch>> {
    let mut batches = Vec::new();
    let decoder = piece_decoder(redactor, options, Fitted::After)?;
    feed_rows(decoder, piece, PIECE_TAIL, |b| batches.extend(b))?;
    Some(batches)
}

/// Decoding work for one thread, besides the tail.
enum Task {
    /// Rows `0..` of the array up to row `.1`, begun during the scan.
    Head(Box<Head>, usize),
    /// Rows `.0..` up to row `.1`.
    Piece(usize, usize),
}

/// The decoder of the array's first rows, fed while the scan runs.
struct Head {
    decoder: TableDecoder,
    batches: Vec<Batch>,
    /// Bytes of the array fed so far.
    fed: usize,
}

/// Decodes the array's first rows in steps until `scanned`, within the
/// first half of `region` (so never past the array's end unless what
/// follows it is longer than the array). A head that read past the rows
/// the scan bounded is not used.
fn decode_head(
    redactor: &Redactor,
    region: &[u8],
    options: &DecoderOptions,
    scanned: &AtomicBool,
) -> Option<Head> {
    let mut decoder = piece_decoder(redactor, options, Fitted::AsIfFirst)?;
    let mut batches = Vec::new();
    let step = (region.len() / 64).clamp(64, HEAD_STEP);
    let budget = region.len() / 2;
    let mut fed = 0;
    while fed + step <= budget && !scanned.load(Ordering::Relaxed) {
        batches.extend(decoder.feed(&region[fed..fed + step]).ok()?);
        fed += step;
    }
    Some(Head {
        decoder,
        batches,
        fed,
    })
}

/// The columns seen so far in the answer, in first-seen order.
#[derive(Debug, Default)]
struct Aligner {
    names: Vec<String>,
    seen: HashSet<String>,
}

impl Aligner {
    /// Gives every batch every column seen so far, in first-seen order,
    /// as the sequential decoder does: a piece only knew the columns it
    /// saw.
    fn align(&mut self, batches: &mut [Batch]) {
        for batch in batches {
            for c in &batch.columns {
                if !self.seen.contains(&c.name) {
                    self.seen.insert(c.name.clone());
                    self.names.push(c.name.clone());
                }
            }
            let in_order = batch.columns.len() == self.names.len()
                && batch
                    .columns
                    .iter()
                    .zip(&self.names)
                    .all(|(c, n)| c.name == *n);
            if in_order {
                continue;
            }
            let mut by_name: HashMap<String, Column> = batch
                .columns
                .drain(..)
                .map(|c| (c.name.clone(), c))
                .collect();
            let num_rows = batch.num_rows;
            batch.columns = self
                .names
                .iter()
                .map(|name| {
                    by_name.remove(name).unwrap_or_else(|| Column {
                        name: name.clone(),
                        data: ColumnData::Null { len: num_rows },
                    })
                })
                .collect();
        }
    }

    /// Whether a piece whose first batch has `first` columns (aligned as
    /// if it began the answer) is aligned the same after these: they are
    /// where it starts.
    fn admits(&self, first: &[String]) -> bool {
        first.starts_with(&self.names)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// No token, as a config built with none.
    fn redactor() -> Redactor {
        Redactor::default()
    }

    fn body(rows: usize, row: impl Fn(usize) -> String) -> Vec<u8> {
        let rows: Vec<String> = (0..rows).map(row).collect();
        format!(
            "Notice: x in /a.php on line 1\n{{\"status\":\"success\",\"meta\":[[]],\"data\":[{}]}}",
            rows.join(",")
        )
        .into_bytes()
    }

    /// The pieces path itself (not the fallback) gives the sequential
    /// result, with columns first seen in later pieces.
    #[test]
    fn rows_are_really_cut_into_pieces() {
        let options = DecoderOptions::with_batch_rows(3);
        for b in [
            body(100, |i| format!(r#"{{"n":{i},"s":"x{i}"}}"#)),
            body(100, |i| match i % 40 {
                0 => format!(r#"{{"late{}":[{{"a":"}},{{"}}],"n":{i}}}"#, i / 40),
                _ => format!(r#"{{"n":{}.5,"d":"2025-01-05"}}"#, i),
            }),
            // Decoded again from the second piece on (the first has a
            // column the next lacks); batches of 30 whole digits and of a
            // scale of 10 by turns: from the second of them on, `x` is
            // text (40 digits together), and so it stays for the 20-digit
            // numbers after them. A piece decoded again must not fit
            // itself first: the batches it made text would hide their
            // scale from the pieces after it.
            body(100, |i| match i {
                1 => r#"{"n":1,"x":"1","z":1}"#.to_owned(),
                30..60 if (i / 3) % 2 == 0 => {
                    format!(r#"{{"n":{i},"x":"123456789012345678901234567890"}}"#)
                }
                30..60 => format!(r#"{{"n":{i},"x":"0.1234567890"}}"#),
                60.. => format!(r#"{{"n":{i},"x":"12345678901234567890"}}"#),
                _ => format!(r#"{{"n":{i},"x":"1"}}"#),
            }),
            // 36 digits before the point in the first rows, a scale of 3
            // later (and the other way round): no piece sees both.
            body(100, |i| {
                let big = "123456789012345678901234567890123456.12";
                let tiny = format!("0.{}1", "0".repeat(24));
                if i < 10 {
                    format!(r#"{{"a":"{big}","b":{i},"c":1.125}}"#)
                } else {
                    format!(r#"{{"a":"1.125","b":"{tiny}","c":"{big}"}}"#)
                }
            }),
        ] {
            let expected = sequential(&redactor(), 200, &b, &options).unwrap();
            for threads in [2, 3, 5] {
                for head_first in [false, true] {
                    let got =
                        split_rows_with(&redactor(), &b, &options, threads, head_first, &|b| b)
                            .expect("cut into pieces");
                    let got = Finished {
                        batches: got.batches,
                        notices: got.notices,
                        total_rows: got.total_rows,
                    };
                    assert_eq!(got, expected, "{threads} threads, head first: {head_first}");
                }
            }
            let schema = expected.batches.iter().fold(Vec::new(), |s, b| {
                crate::decode::unify_schemas(&s, &b.schema())
            });
            for batch in &expected.batches {
                assert!(batch.cast(&schema).is_some(), "{schema:?}");
            }
            if schema.iter().any(|(n, _)| n == "c") {
                let types: Vec<String> = schema.iter().map(|(_, t)| t.name()).collect();
                assert_eq!(types, ["string", "decimal(38,25)", "string"]);
            }
        }
    }

    #[test]
    fn wrong_guesses_are_found_out() {
        // Every guessed boundary is a comma inside a string.
        let row = r#"{"s":"} , {"}"#;
        let region = format!("{}]", vec![row; 50].join(","));
        let all = bounds(region.as_bytes(), 4, usize::MAX).unwrap();
        assert_eq!(all.close, Some(region.len() - 1));
        assert_eq!(all.commas.len(), 49);
        assert!(all.commas.iter().all(|&c| region.as_bytes()[c - 1] == b'}'));
        // Up to a limit: as far as the first comma between rows at or
        // after it, the wrong guesses found out alike.
        for limit in [0, 13, 14, region.len() / 2, region.len() - 20] {
            let Bounds { commas, close } = bounds(region.as_bytes(), 4, limit).unwrap();
            assert_eq!(close, None);
            let below = all.commas.iter().filter(|&&c| c < limit).count();
            assert_eq!(commas, all.commas[..=below], "limit {limit}");
        }
    }

    /// The scan stops short of the array's end, and the tail's decoder
    /// finds it: the same answer, whatever follows the array.
    #[test]
    fn the_tail_finds_the_end_of_the_array() {
        let options = DecoderOptions::with_batch_rows(4);
        for rest in [
            "}",
            " }",
            r#","meta":[1,{"a":"]"}]}"#,
            r#","data":[]}"#,
            " ] }",
        ] {
            let rows: Vec<String> = (0..60).map(|i| format!(r#"{{"n":{i}}}"#)).collect();
            let b = format!(r#"{{"status":"success","data":[{}]{rest}"#, rows.join(","));
            let expected = sequential(&redactor(), 200, b.as_bytes(), &options);
            let got = split_rows_with(&redactor(), b.as_bytes(), &options, 2, true, &|b| b);
            match expected {
                Ok(expected) if rest != r#","data":[]}"# => {
                    let got = got.expect("cut into pieces");
                    assert_eq!(got.total_rows, 60, "{rest}");
                    assert_eq!(got.batches, expected.batches, "{rest}");
                }
                _ => assert!(got.is_none(), "{rest}"),
            }
        }
        // A comma just before the array's end, where the tail starts.
        let options = DecoderOptions::with_batch_rows(1);
        let long = "x".repeat(200);
        let b = format!(r#"{{"status":"success","data":[{{"n":1}},{{"n":2}},{{"s":"{long}"}},]}}"#);
        assert!(sequential(&redactor(), 200, b.as_bytes(), &options).is_err());
        assert!(split_rows_with(&redactor(), b.as_bytes(), &options, 2, true, &|b| b).is_none());
    }

    #[test]
    fn columns_are_aligned_by_first_sight() {
        let col = |name: &str, len| Column {
            name: name.into(),
            data: ColumnData::Null { len },
        };
        let mut batches = vec![
            Batch {
                num_rows: 1,
                columns: vec![col("a", 1), col("b", 1)],
            },
            Batch {
                num_rows: 2,
                columns: vec![col("c", 2), col("a", 2)],
            },
            Batch {
                num_rows: 3,
                columns: vec![],
            },
        ];
        Aligner::default().align(&mut batches);
        let names: Vec<Vec<&str>> = batches
            .iter()
            .map(|b| b.columns.iter().map(|c| c.name.as_str()).collect())
            .collect();
        assert_eq!(
            names,
            [vec!["a", "b"], vec!["a", "b", "c"], vec!["a", "b", "c"]]
        );
        assert_eq!(batches[2].columns[1].data, ColumnData::Null { len: 3 });
    }
}
