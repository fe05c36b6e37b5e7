//! Batches as Arrow record batches (feature `arrow`).
#![cfg(feature = "arrow")]

use erpdata::arrow_array::cast::AsArray;
use erpdata::arrow_array::types::{Date32Type, Decimal128Type, Int32Type, Int64Type};
use erpdata::arrow_array::Array;
use erpdata::arrow_schema::DataType;
use erpdata::{
    unify_schemas, Batch, Config, DecoderOptions, Dictionary, TableDecoder, JSON_TYPE,
    TYPE_METADATA_KEY,
};

fn batches(body: &str, batch_rows: usize) -> Vec<Batch> {
    let config = Config::builder("https://erp.example.com/").build().unwrap();
    let mut d = TableDecoder::new(&config, 200, DecoderOptions::with_batch_rows(batch_rows));
    let mut out = d.feed(body.as_bytes()).unwrap();
    out.extend(d.finish().unwrap().batches);
    out
}

fn sales(rows: usize) -> String {
    let rows: Vec<String> = (0..rows)
        .map(|i| {
            format!(
                r#"{{"invoice_no":"INV-{i:05}","date":"2025-01-{:02}","customer":"C{:03}","amount":{}.{:02},"paid":{},"note":{},"meta":{}}}"#,
                i % 28 + 1,
                i % 7,
                100 + i,
                i % 100,
                i % 2 == 0,
                if i % 3 == 0 { "null".to_owned() } else { format!("\"n{i}\"") },
                if i % 5 == 0 { "[1,2]" } else { "null" },
            )
        })
        .collect();
    format!(r#"{{"status":"success","data":[{}]}}"#, rows.join(","))
}

#[test]
fn types_values_and_nulls() {
    let b = batches(&sales(100), 1000).remove(0);
    // Repeated strings as a dictionary, asked for: a whole table in one
    // batch, where no other batch's schema has to match.
    let rb = b.clone().into_record_batch_with(Dictionary::Auto).unwrap();
    assert_eq!(rb.num_rows(), 100);
    let types: Vec<DataType> = rb
        .schema()
        .fields()
        .iter()
        .map(|f| f.data_type().clone())
        .collect();
    assert_eq!(
        types,
        [
            DataType::Utf8,
            DataType::Date32,
            DataType::Dictionary(Box::new(DataType::Int32), Box::new(DataType::Utf8)),
            DataType::Decimal128(38, 2),
            DataType::Boolean,
            DataType::Utf8,
            DataType::Utf8,
        ]
    );
    assert_eq!(rb.column(0).as_string::<i32>().value(7), "INV-00007");
    assert_eq!(rb.column(1).as_primitive::<Date32Type>().value(4), 20_093);
    let customers = rb.column(2).as_dictionary::<Int32Type>();
    assert_eq!(customers.values().len(), 7);
    let names = customers.values().as_string::<i32>();
    assert_eq!(names.value(customers.keys().value(9) as usize), "C002");
    let amount = rb.column(3).as_primitive::<Decimal128Type>();
    assert_eq!(amount.value(1), 10_101);
    assert_eq!(amount.value_as_string(1), "101.01");
    assert!(rb.column(4).as_boolean().value(0));
    let note = rb.column(5).as_string::<i32>();
    assert!(note.is_null(0) && note.is_valid(1));
    assert_eq!(note.null_count(), 34);
    let meta = rb.schema().field(6).clone();
    assert_eq!(
        meta.metadata().get(TYPE_METADATA_KEY).map(String::as_str),
        Some(JSON_TYPE)
    );
    assert_eq!(rb.column(6).as_string::<i32>().value(5), "[1,2]");
    assert!(rb.column(6).is_null(1));
    // Copying or moving the buffers gives the same batch, its strings
    // plain by default.
    let plain = b.to_record_batch().unwrap();
    assert_eq!(plain.schema().field(2).data_type(), &DataType::Utf8);
    assert_eq!(plain.column(2).as_string::<i32>().value(9), "C002");
    assert_eq!(b.into_record_batch().unwrap(), plain);
}

#[test]
fn ints_nulls_and_empty_columns() {
    let b = batches(
        r#"{"status":"success","data":[{"n":1,"z":null},{"n":null,"z":null},{"n":-3}]}"#,
        10,
    )
    .remove(0);
    let rb = b.to_record_batch().unwrap();
    let n = rb.column(0).as_primitive::<Int64Type>();
    assert_eq!((n.value(0), n.is_null(1), n.value(2)), (1, true, -3));
    assert_eq!(rb.column(1).data_type(), &DataType::Null);
    assert_eq!(rb.column(1).len(), 3);
    // A batch with rows but no columns keeps its row count.
    let b = batches(r#"{"status":"success","data":[{},{}]}"#, 10).remove(0);
    let rb = b.to_record_batch().unwrap();
    assert_eq!((rb.num_rows(), rb.num_columns()), (2, 0));
}

#[test]
fn one_schema_over_batches() {
    let bs = batches(
        r#"{"status":"success","data":[{"a":1,"c":"USD"},{"a":2.5,"c":"EUR"},{"a":null,"d":"2025-01-05"}]}"#,
        1,
    );
    let schema = bs
        .iter()
        .fold(Vec::new(), |s, b| unify_schemas(&s, &b.schema()));
    let rbs: Vec<_> = bs
        .iter()
        .map(|b| {
            b.cast(&schema)
                .unwrap()
                .into_record_batch_with(Dictionary::Never)
                .unwrap()
        })
        .collect();
    for rb in &rbs {
        assert_eq!(rb.schema(), rbs[0].schema());
    }
    assert_eq!(
        rbs[0].schema().field(0).data_type(),
        &DataType::Decimal128(38, 1)
    );
    assert_eq!(
        rbs[0].column(0).as_primitive::<Decimal128Type>().value(0),
        10
    );
    let always = bs[0]
        .cast(&schema)
        .unwrap()
        .into_record_batch_with(Dictionary::Always)
        .unwrap();
    assert!(matches!(
        always.schema().field(1).data_type(),
        DataType::Dictionary(..)
    ));
}

#[test]
fn a_streams_batches_are_one_arrow_schema() {
    // A stream's batches share one schema, and each goes to the same
    // writer (Parquet, Arrow IPC), which refuses a batch of another Arrow
    // schema. Forty rows of seven customers in batches of 32: the first
    // batch's customers repeat enough for a dictionary, the last eight's
    // are too few, so encoding chosen per batch would change the type.
    let config = Config::builder("https://erp.example.com/").build().unwrap();
    let mut options = DecoderOptions::with_batch_rows(32);
    options.one_schema = true;
    let mut d = TableDecoder::new(&config, 200, options);
    let mut bs = d.feed(sales(40).as_bytes()).unwrap();
    bs.extend(d.finish().unwrap().batches);
    assert_eq!(bs.len(), 2);
    let schemas: Vec<_> = bs
        .iter()
        .map(|b| b.to_record_batch().unwrap().schema())
        .collect();
    assert_eq!(schemas[0], schemas[1]);
    assert_eq!(schemas[0].field(2).data_type(), &DataType::Utf8);
    let moved: Vec<_> = bs
        .into_iter()
        .map(|b| b.into_record_batch().unwrap().schema())
        .collect();
    assert_eq!(moved, schemas);
}

/// An Arrow Date32 may hold any i32 of days: its row, its text and an aging
/// or credit status over it give the date or an answer, never an overflow.
#[test]
fn dates_at_the_ends_of_date32_do_not_overflow() {
    use std::sync::Arc;

    use erpdata::arrow_array::{Date32Array, Decimal128Array, RecordBatch, StringArray};
    use erpdata::arrow_schema::{Field, Schema};
    use erpdata::{aging, civil_from_days, credit_status, AgingOptions, Cell};

    assert_eq!(civil_from_days(i32::MAX), (5_881_580, 7, 11));
    assert_eq!(civil_from_days(i32::MIN), (-5_877_641, 6, 23));
    let dues = |day: i32| {
        let schema = Arc::new(Schema::new(vec![
            Field::new("acid", DataType::Utf8, false),
            Field::new("due_date", DataType::Date32, true),
            Field::new("balance", DataType::Decimal128(18, 2), true),
        ]));
        let balance = Decimal128Array::from(vec![1_000_i128])
            .with_precision_and_scale(18, 2)
            .unwrap();
        let batch = RecordBatch::try_new(
            schema,
            vec![
                Arc::new(StringArray::from(vec!["C001"])),
                Arc::new(Date32Array::from(vec![day])),
                Arc::new(balance),
            ],
        )
        .unwrap();
        Batch::from_record_batch(&batch, "dues").unwrap()
    };
    let accounts = batches(
        r#"{"status":"success","data":[{"acid":"C001","credit_limit":"5.00"}]}"#,
        100,
    );
    let cell = |row: &erpdata::Row, name: &str| {
        row.fields
            .iter()
            .find(|(n, _)| n == name)
            .unwrap()
            .1
            .clone()
    };
    for (day, due_date, bucket) in [
        (i32::MAX, "5881580-07-11", "current"),
        (i32::MIN, "-5877641-06-23", "91+"),
    ] {
        let dues = dues(day);
        assert_eq!(
            dues.row(0).get("due_date"),
            Some(&Cell::String(due_date.to_owned()))
        );
        let report = aging(
            std::slice::from_ref(&dues),
            &AgingOptions::new("2025-12-31"),
        )
        .unwrap();
        assert_eq!(
            cell(&report.rows[0], bucket),
            Cell::Number("10.00".to_owned())
        );
        let status = credit_status(&accounts, &[dues], &[], "2025-12-31");
        if day == i32::MIN {
            // Overdue since before year 1: a date column cannot hold that
            // due date, which is an error, not an overflow.
            assert!(status.is_err());
        } else {
            let overdue = cell(&status.unwrap().rows[0], "oldest_overdue_days");
            assert_eq!(overdue, Cell::Null);
        }
    }
}
