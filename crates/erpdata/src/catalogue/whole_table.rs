//! A whole table decoded as it arrives: the batches kept, one schema
//! decided over all of them at the end. Every client's `table()` is this.

use crate::call::Sink;
use crate::config::Config;
use crate::decode::decoder::Core;
use crate::decode::sink::RowCollector;
use crate::decode::{Batch, DecoderOptions, RowsFrom, Schema, TableDecoder};
use crate::error::Result;
use crate::response::{typed_rows, unify, Table};

/// A whole table's typed columns.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TableBatches {
    /// Each column's type, decided over the whole table.
    pub schema: Schema,
    /// The rows in batches, each of `schema`.
    pub batches: Vec<Batch>,
    /// PHP notices or warnings that preceded the JSON (redacted).
    pub notices: Vec<String>,
    /// Rows in the whole answer.
    pub total_rows: u64,
}

/// Decodes a whole table as its body arrives (never holding the body),
/// keeping every batch; at the end each column's type is decided over
/// the whole table, as [`Config::parse_table_with`] does.
///
/// With rows (for [`Table::rows`], each row with the keys it was sent
/// with), a second decoder keeps each row's keys as it goes.
pub struct WholeTable {
    options: DecoderOptions,
    with_rows: bool,
    decoder: Option<TableDecoder>,
    rows: Option<Core<RowCollector>>,
    batches: Vec<Batch>,
    decoded: u64,
}

impl std::fmt::Debug for WholeTable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WholeTable")
            .field("with_rows", &self.with_rows)
            .field("batches", &self.batches.len())
            .field("decoded", &self.decoded)
            .finish_non_exhaustive()
    }
}

impl WholeTable {
    /// A whole table of typed columns.
    pub fn new(options: DecoderOptions) -> Self {
        WholeTable {
            options: DecoderOptions {
                one_schema: false,
                ..options
            },
            with_rows: false,
            decoder: None,
            rows: None,
            batches: Vec::new(),
            decoded: 0,
        }
    }

    /// A whole table with its rows too (a Rust [`Table`]).
    pub fn with_rows(options: DecoderOptions) -> Self {
        WholeTable {
            with_rows: true,
            ..WholeTable::new(options)
        }
    }

    /// Whether every row so far had the first row's keys, in its order,
    /// each once: rows rebuilt from the columns are then the rows as sent
    /// (a binding that builds rows from columns reads the body again when
    /// not).
    pub fn rows_regular(&self) -> bool {
        self.decoder.as_ref().is_none_or(TableDecoder::rows_regular)
    }

    /// See [`TableDecoder::rows_from`].
    pub fn rows_from(&self) -> Option<RowsFrom> {
        self.decoder.as_ref().and_then(TableDecoder::rows_from)
    }

    /// The table's typed columns, once the body ended (see
    /// [`Sink::finish`]).
    pub fn finish_batches(&mut self) -> Result<TableBatches> {
        let Some(decoder) = self.decoder.take() else {
            return Ok(TableBatches::default());
        };
        let finished = decoder.finish()?;
        let mut batches = std::mem::take(&mut self.batches);
        batches.extend(finished.batches);
        let (schema, batches) = unify(batches);
        Ok(TableBatches {
            schema,
            batches,
            notices: finished.notices,
            total_rows: finished.total_rows,
        })
    }

    /// The whole [`Table`], rows included (for a sink made
    /// [`WholeTable::with_rows`]; else its rows are empty).
    pub fn finish_table(&mut self) -> Result<Table> {
        let rows = self.rows.take();
        let table = self.finish_batches()?;
        let (columns, rows) = match rows {
            Some(core) => {
                let done = core.finish()?;
                (
                    done.sink.columns(),
                    typed_rows(done.sink.rows, &table.batches),
                )
            }
            None => (
                table.schema.iter().map(|(n, _)| n.clone()).collect(),
                Vec::new(),
            ),
        };
        Ok(Table {
            columns,
            schema: table.schema,
            rows,
            notices: table.notices,
        })
    }
}

impl Sink for WholeTable {
    type Output = TableBatches;

    fn start(&mut self, config: &Config, status: u16) -> Result<()> {
        self.batches.clear();
        self.decoded = 0;
        self.decoder = Some(TableDecoder::new(config, status, self.options.clone()));
        self.rows = self
            .with_rows
            .then(|| Core::new(&config.redactor(), status, RowCollector::default()));
        Ok(())
    }

    fn feed(&mut self, chunk: &[u8]) -> Result<()> {
        if let Some(decoder) = &mut self.decoder {
            let fed = decoder.feed(chunk);
            self.decoded = decoder.rows();
            self.batches.extend(fed?);
        }
        if let Some(rows) = &mut self.rows {
            rows.feed(chunk)?;
        }
        Ok(())
    }

    fn rows(&self) -> Option<u64> {
        Some(self.decoded)
    }

    fn finish(&mut self) -> Result<TableBatches> {
        self.rows = None;
        self.finish_batches()
    }
}
