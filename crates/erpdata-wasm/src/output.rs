//! What an operation or a plan answered -> plain JS objects, by the
//! `Output` variant (never by operation): dues, a function's answer, a
//! whole table's typed columns, a plan's typed rows.

use erpdata::{AjaxAnswer, AjaxValue, Batch, Dues, Output, Schema, Table, TableBatches, TypedRows};
use js_sys::{Array, Object, Reflect, Uint8Array};
use wasm_bindgen::JsValue;

use crate::columns;
use crate::convert::set;
use crate::rows::{Keys, Numbers};

/// A table's answer as the JS client reads it, with what `Table.rows`
/// needs: whether every row had the same keys in the same order (rows
/// rebuilt from columns are then the rows sent) and, when not, the body
/// and status, to read the exact rows again on demand.
pub(crate) struct Whole {
    pub(crate) batches: TableBatches,
    pub(crate) regular: bool,
    pub(crate) status: u16,
    pub(crate) reread: Option<Reread>,
}

/// What `Table.rows` reads the exact rows of a table with irregular rows
/// from: the first `rows_before` rows are the batch's first
/// `width_before` columns; the rows of `body` (an answer of its own, see
/// `erpdata::RowsFrom`) are the rest, their keys as sent.
pub(crate) struct Reread {
    pub(crate) body: Vec<u8>,
    pub(crate) rows_before: u64,
    pub(crate) width_before: usize,
}

/// `output` as its JS object (see the functions below).
pub(crate) fn output_js(output: Output, numbers: Numbers) -> Result<JsValue, JsValue> {
    match output {
        Output::Dues(dues) => dues_js(&dues, numbers),
        Output::Function(answer) => answer_js(&answer, numbers),
        Output::Table(table) => table_js(&table, numbers),
        Output::Batches(batches) => Ok(whole_js(
            Whole {
                batches,
                regular: true,
                status: 200,
                reread: None,
            },
            numbers,
        )),
    }
}

/// Dues as `{acid, kind, rows, schema, raw, notices}`, and `batch` (the
/// rows as typed columns) and `totalRows` for `columns()`.
fn dues_js(dues: &Dues, numbers: Numbers) -> Result<JsValue, JsValue> {
    let rows = Keys::new(&[]).rows(&dues.rows, numbers)?;
    let out = Object::new();
    set(
        &out,
        "batch",
        &columns::batches(&unified(dues.batches.clone()), numbers),
    );
    set(&out, "totalRows", &(dues.rows.len() as f64).into());
    set(&out, "acid", &dues.acid.as_str().into());
    set(&out, "kind", &dues.kind.as_str().into());
    set(&out, "rows", &rows);
    set(&out, "schema", &schema(&dues.schema)?.into());
    set(&out, "raw", &dues.raw.as_str().into());
    set(&out, "notices", &strings(&dues.notices));
    Ok(out.into())
}

/// An answer as `{func, shape, rows, fields, value, schema, raw, notices}`
/// and, for rows, `batch` (the typed columns) and `totalRows`.
fn answer_js(answer: &AjaxAnswer, numbers: Numbers) -> Result<JsValue, JsValue> {
    let out = Object::new();
    set(&out, "func", &answer.func.as_str().into());
    match &answer.value {
        AjaxValue::Rows(typed) => {
            set(&out, "shape", &"rows".into());
            let rows = Keys::new(&[]).rows(&typed.rows, numbers)?;
            set(&out, "value", &rows);
            set(&out, "rows", &rows);
            set(&out, "fields", &Object::new());
            set(&out, "schema", &schema(&typed.schema)?.into());
            set_table(&out, typed, numbers);
        }
        AjaxValue::Object {
            schema: fields_schema,
            fields,
        } => {
            set(&out, "shape", &"object".into());
            let one = Keys::new(&[]).rows(std::slice::from_ref(fields), numbers)?;
            let fields = one.get(0);
            set(&out, "value", &fields);
            set(&out, "fields", &fields);
            set(&out, "rows", &Array::new());
            set(&out, "schema", &schema(fields_schema)?.into());
        }
        AjaxValue::Value { column_type, cell } => {
            set(&out, "shape", &"value".into());
            let row = erpdata::Row {
                fields: vec![("value".to_owned(), cell.clone())],
            };
            let one = Keys::new(&[]).rows(std::slice::from_ref(&row), numbers)?;
            let value = Reflect::get(&one.get(0), &"value".into())?;
            set(&out, "value", &value);
            set(&out, "rows", &Array::new());
            set(&out, "fields", &Object::new());
            let only = vec![("value".to_owned(), *column_type)];
            set(&out, "schema", &schema(&only)?.into());
        }
    }
    set(&out, "raw", &answer.raw.as_str().into());
    set(&out, "notices", &strings(&answer.notices));
    Ok(out.into())
}

/// A table with its rows as sent: `{columns, rows, notices}`, each row
/// with the keys it was sent with.
fn table_js(table: &Table, numbers: Numbers) -> Result<JsValue, JsValue> {
    let mut keys = Keys::new(&table.columns);
    let rows = keys.rows(&table.rows, numbers)?;
    let out = Object::new();
    set(&out, "columns", &keys.columns());
    set(&out, "rows", &rows);
    set(&out, "notices", &strings(&table.notices));
    Ok(out.into())
}

/// A whole table as a call gives it: `{batch, notices, totalRows,
/// regular, status, body?, rowsBefore?, widthBefore?}` (the last three
/// only when the rows were not all of one shape; see [`Reread`]).
pub(crate) fn whole_js(table: Whole, numbers: Numbers) -> JsValue {
    let out = Object::new();
    let batches = &table.batches;
    let batch = if batches.batches.is_empty() {
        columns::batch(&Batch::empty(&batches.schema), numbers)
    } else {
        columns::batches(&batches.batches, numbers)
    };
    set(&out, "batch", &batch);
    set(&out, "notices", &strings(&batches.notices));
    set(&out, "totalRows", &(batches.total_rows as f64).into());
    set(&out, "regular", &table.regular.into());
    set(&out, "status", &table.status.into());
    if let Some(reread) = table.reread {
        set(
            &out,
            "body",
            &Uint8Array::from(reread.body.as_slice()).into(),
        );
        set(&out, "rowsBefore", &(reread.rows_before as f64).into());
        set(&out, "widthBefore", &(reread.width_before as f64).into());
    }
    out.into()
}

/// A plan's answer as a Table takes it: `{batch, totalRows, notices}`.
pub(crate) fn typed_js(typed: &TypedRows, numbers: Numbers) -> JsValue {
    let out = Object::new();
    set_table(&out, typed, numbers);
    let notices: Array = typed.notices.iter().map(|n| JsValue::from_str(n)).collect();
    set(&out, "notices", &notices);
    out.into()
}

/// `batch` and `totalRows` of typed rows, as a Table takes them.
pub(crate) fn set_table(out: &Object, typed: &TypedRows, numbers: Numbers) {
    let batches = if typed.batches.is_empty() {
        vec![Batch::empty(&typed.schema)]
    } else {
        unified(typed.batches.clone())
    };
    set(out, "batch", &columns::batches(&batches, numbers));
    set(out, "totalRows", &(typed.rows.len() as f64).into());
}

/// The batches cast to the schema that holds them all (the core's rule),
/// so that they make one JS batch.
pub(crate) fn unified(batches: Vec<Batch>) -> Vec<Batch> {
    let schema = batches.iter().fold(Schema::new(), |s, b| {
        erpdata::unify_schemas(&s, &b.schema())
    });
    batches
        .into_iter()
        .map(|b| {
            if b.schema() == schema {
                b
            } else {
                b.cast(&schema)
                    .expect("a schema unified from a batch's holds it")
            }
        })
        .collect()
}

/// `{column: type name}`, own properties in column order.
fn schema(schema: &Schema) -> Result<Object, JsValue> {
    let pairs: Array = schema
        .iter()
        .map(|(name, ty)| Array::of2(&name.as_str().into(), &ty.name().into()))
        .collect();
    Object::from_entries(&pairs)
}

pub(crate) fn strings(items: &[String]) -> Array {
    items.iter().map(|s| JsValue::from_str(s)).collect()
}
