use super::*;
use crate::cell::Cell;
use crate::decode::columns::{Column, ColumnData, ColumnType};
use crate::decode::scanner::{scan_number, After, Scan};
use crate::decode::sink::{CellRef, RowSink};

fn num(text: &str) -> CellRef<'_> {
    let Scan::Done(n, _) = scan_number(text.as_bytes(), 0, After::Eof) else {
        panic!("{text}")
    };
    CellRef::Number(text, Box::leak(Box::new(n)))
}

fn build(values: &[CellRef<'_>]) -> Column {
    let typing = Typing {
        infer_strings: true,
        ..Typing::default()
    };
    let mut b = Builder::new("x", 0, &typing, 4);
    for &v in values {
        assert!(b.push(v, 4, true));
    }
    b.finish(4)
}

fn s(text: &str) -> CellRef<'_> {
    CellRef::Str(text, text)
}

#[test]
fn first_value_decides_and_widening_follows_the_rule() {
    let c = build(&[num("1"), num("2")]);
    assert_eq!(c.column_type(), ColumnType::Int);
    let c = build(&[num("1"), num("2.50"), num("1e-3")]);
    assert_eq!(
        c.column_type(),
        ColumnType::Decimal {
            precision: 38,
            scale: 3
        }
    );
    // Cells keep the text sent; the values are at scale 3.
    assert_eq!(c.cell(0), Cell::Number("1".into()));
    assert_eq!(c.cell(1), Cell::Number("2.50".into()));
    assert_eq!(c.cell(2), Cell::Number("1e-3".into()));
    let ColumnData::Decimal { values, .. } = &c.data else {
        panic!()
    };
    assert_eq!(values, &[1000, 2500, 1]);
    let c = build(&[s("2025-01-05"), CellRef::Null, s("2025-02-30")]);
    assert_eq!(c.column_type(), ColumnType::String);
    assert_eq!(c.cell(0), Cell::String("2025-01-05".into()));
    assert_eq!(c.cell(1), Cell::Null);
    assert_eq!(c.cell(2), Cell::String("2025-02-30".into()));
    let c = build(&[CellRef::Null, s("2025-01-05")]);
    assert_eq!(c.column_type(), ColumnType::Date);
    assert_eq!(c.cell(0), Cell::Null);
    let c = build(&[num("1.5"), CellRef::Str("x", "\"x\""), CellRef::Bool(true)]);
    assert_eq!(c.column_type(), ColumnType::String);
    assert_eq!(c.cell(0), Cell::String("1.5".into()));
    assert_eq!(c.cell(1), Cell::String("x".into()));
    assert_eq!(c.cell(2), Cell::String("true".into()));
    let c = build(&[num("1.5"), CellRef::Json("[1]")]);
    assert_eq!(c.column_type(), ColumnType::Json);
    assert_eq!(c.cell(0), Cell::Number("1.5".into()));
    let c = build(&[num(&"9".repeat(38)), num("0.5")]);
    assert_eq!(
        c.column_type(),
        ColumnType::String,
        "38 digits then a scale"
    );
    assert_eq!(c.cell(0), Cell::String("9".repeat(38)));
    assert_eq!(c.cell(1), Cell::String("0.5".into()));
    let c = build(&[num("1e400")]);
    assert_eq!(c.column_type(), ColumnType::String);
    assert_eq!(c.cell(0), Cell::String("1e400".into()));
    let c = build(&[CellRef::Null, CellRef::Null]);
    assert_eq!(c.data, ColumnData::Null { len: 2 });
    let c = build(&[num("-0")]);
    assert_eq!(
        c.column_type(),
        ColumnType::Decimal {
            precision: 38,
            scale: 0
        }
    );
}

#[test]
fn duplicates_keep_the_last_value() {
    let mut sink = ColumnSink::new(10, Typing::default());
    sink.begin_row();
    sink.field("a", num("1"));
    sink.field("b", s("x"));
    sink.field("a", num("3"));
    sink.end_row(0);
    sink.begin_row();
    sink.field("b", s("y"));
    sink.end_row(0);
    let batches = sink.into_batches();
    let b = &batches[0];
    assert_eq!(b.num_rows, 2);
    assert_eq!(b.columns[0].cell(0), Cell::Int(3));
    assert_eq!(b.columns[0].cell(1), Cell::Null);
    assert_eq!(b.columns[1].cell(1), Cell::String("y".into()));
    assert_eq!(b.columns[1].data.null_count(), 0);
    let _ = Builder::new("t", 0, &Typing::default(), 4).text_len();
}

#[test]
fn a_batch_ends_early_once_its_rows_take_256_mib_of_the_body() {
    let mut sink = ColumnSink::new(10, Typing::default());
    // Rows of 100 MiB each (as the decoder would count them): the third
    // passes 256 MiB and ends its batch; the next batch counts from 0.
    for i in 0..7 {
        sink.begin_row();
        sink.field("i", num(&i.to_string()));
        sink.end_row(100 << 20);
    }
    // Reaching 256 MiB exactly does not end one; a byte more does.
    for bytes in [156 << 20, 1] {
        sink.begin_row();
        sink.end_row(bytes);
    }
    let sizes: Vec<usize> = sink.into_batches().iter().map(|b| b.num_rows).collect();
    assert_eq!(sizes, [3, 3, 3]);
}

#[cfg(test)]
mod reservation {
    use crate::{Config, DecoderOptions, TableDecoder};

    /// Room for a huge batch is not taken up front: reserving it would
    /// overflow or fail, and abort the process.
    #[test]
    fn a_huge_batch_size_reserves_only_what_rows_need() {
        let config = Config::builder("https://erp.example.com/").build().unwrap();
        let options = DecoderOptions::with_batch_rows(usize::MAX / 2);
        let mut decoder = TableDecoder::new(&config, 200, options);
        let body = br#"{"status":"success","data":[{"a":1.5,"b":"x","c":"2025-01-01","d":true},{"a":2,"b":null}]}"#;
        assert!(decoder.feed(body).unwrap().is_empty());
        let finished = decoder.finish().unwrap();
        assert_eq!(finished.total_rows, 2);
        assert_eq!(finished.batches[0].num_rows, 2);
    }
}
