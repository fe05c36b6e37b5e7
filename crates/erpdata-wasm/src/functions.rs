//! The other functions of ajax.php for the JS client: their queries from JS
//! values, their answers as plain objects, and dues of many accounts as one
//! table. Conversions only: every rule is the core's.

use std::str::FromStr;

use erpdata::{AjaxAnswer, AjaxOptions, AjaxQuery, AjaxValue, Error, Method, TypedRows};
use js_sys::{Array, Object, Reflect};
use wasm_bindgen::prelude::*;

use crate::columns;
use crate::convert::{id, invalid, opt_text, set, text};
use crate::errors::core;
use crate::rows::{self, Keys, Numbers};
use crate::{schema, strings, Core};

fn member(obj: &JsValue, key: &str) -> JsValue {
    if obj.is_object() {
        Reflect::get(obj, &key.into()).unwrap_or(JsValue::UNDEFINED)
    } else {
        JsValue::UNDEFINED
    }
}

fn given(value: &JsValue) -> bool {
    !value.is_undefined() && !value.is_null()
}

/// `{sendToken, method}` (each optional; the object `undefined` or `null`
/// for neither).
pub(crate) fn ajax_options(options: &JsValue) -> Result<AjaxOptions, Error> {
    let mut out = AjaxOptions::default();
    if !given(options) {
        return Ok(out);
    }
    let send = member(options, "sendToken");
    if given(&send) {
        out.send_token = Some(
            send.as_bool()
                .ok_or_else(|| invalid("send_token", "must be a boolean"))?,
        );
    }
    if let Some(m) = opt_text("method", &member(options, "method"))? {
        out.method = Some(Method::from_str(&m)?);
    }
    Ok(out)
}

/// A function by the name of its method (`dues_summary`, `avg_pay_days`,
/// `net_profit`, `gross_profit`, `schedule_accounts`, or `ajax` with
/// `func` and `params`, an array of `[name, value]` pairs), its arguments
/// in `args` (`acid`, `start`, `end`, `schedule`, `func`, `params`).
pub(crate) fn ajax_query(
    function: &str,
    args: &JsValue,
    options: &JsValue,
) -> Result<AjaxQuery, Error> {
    let arg = |name: &str| text(name, &member(args, name));
    let mut query = match function {
        "dues_summary" => AjaxQuery::dues_summary(),
        "avg_pay_days" => AjaxQuery::avg_pay_days(id("acid", &member(args, "acid"))?),
        "net_profit" => AjaxQuery::net_profit(arg("start")?, arg("end")?),
        "gross_profit" => AjaxQuery::gross_profit(arg("start")?, arg("end")?),
        "schedule_accounts" => {
            AjaxQuery::schedule_accounts(arg("schedule")?, arg("start")?, arg("end")?)
        }
        "ajax" => AjaxQuery::new(arg("func")?, params(&member(args, "params"))?),
        other => return Err(invalid("function", format!("unknown function {other:?}"))),
    };
    query.options = ajax_options(options)?;
    Ok(query)
}

/// `[[name, value], ...]`, values strings or integers (sent as their text).
fn params(value: &JsValue) -> Result<Vec<(String, String)>, Error> {
    if !given(value) {
        return Ok(Vec::new());
    }
    if !Array::is_array(value) {
        return Err(invalid("params", "must be an array of [name, value] pairs"));
    }
    let mut out = Vec::new();
    for pair in Array::from(value).iter() {
        let pair = Array::from(&pair);
        let name = pair
            .get(0)
            .as_string()
            .ok_or_else(|| invalid("params", "names must be strings"))?;
        let value = id(&name, &pair.get(1))?;
        out.push((name, value.as_str().to_owned()));
    }
    Ok(out)
}

/// An answer as `{func, shape, rows, fields, value, schema, raw, notices}`
/// and, for rows, `batch` (the typed columns) and `totalRows`.
pub(crate) fn answer_js(answer: &AjaxAnswer, numbers: Numbers) -> Result<JsValue, JsValue> {
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

/// `batch` and `totalRows` of typed rows, as a Table takes them.
pub(crate) fn set_table(out: &Object, typed: &TypedRows, numbers: Numbers) {
    set(
        out,
        "batch",
        &columns::batches(
            &if typed.batches.is_empty() {
                vec![erpdata::Batch::empty(&typed.schema)]
            } else {
                crate::call::unified(typed.batches.clone())
            },
            numbers,
        ),
    );
    set(out, "totalRows", &(typed.rows.len() as f64).into());
}

#[wasm_bindgen]
impl Core {
    /// A call to a function of ajax.php as `{method, url, headers, body,
    /// displayUrl}` (see `ajax_query` for `function` and `args`;
    /// `options`: `{sendToken, method}`).
    #[wasm_bindgen(js_name = ajaxRequest)]
    pub fn ajax_request(
        &self,
        function: &str,
        args: &JsValue,
        options: &JsValue,
    ) -> Result<JsValue, JsValue> {
        let query = core(ajax_query(function, args, options))?;
        let request = core(self.config.ajax_request(&query))?;
        Ok(self.request(&request))
    }

    /// Parses a function's answer (see `answer_js`).
    #[wasm_bindgen(js_name = parseAjax)]
    pub fn parse_ajax(
        &self,
        function: &str,
        args: &JsValue,
        status: u16,
        body: &[u8],
        numbers: &JsValue,
        typing: &JsValue,
    ) -> Result<JsValue, JsValue> {
        let query = core(ajax_query(function, args, &JsValue::UNDEFINED))?;
        let numbers = core(rows::numbers(numbers))?;
        let options = core(crate::convert::typing(typing))?;
        let answer = core(self.config.parse_ajax_with(&query, status, body, &options))?;
        answer_js(&answer, numbers)
    }

    /// The dues of many accounts as one table (`{batch, totalRows,
    /// notices}`, as a Table takes it): `dues` are dues answers
    /// (`{acid, kind, raw}`, as `parseDues` and `dues()` give them), read
    /// again from their raw JSON and joined with an `acid` column first.
    #[wasm_bindgen(js_name = duesTable)]
    pub fn dues_table(
        &self,
        dues: &JsValue,
        numbers: &JsValue,
        typing: &JsValue,
    ) -> Result<JsValue, JsValue> {
        let numbers = core(rows::numbers(numbers))?;
        let options = core(crate::convert::typing(typing))?;
        if !Array::is_array(dues) {
            core(Err::<(), Error>(invalid(
                "dues",
                "must be an array of dues answers",
            )))?;
        }
        let mut parsed = Vec::new();
        for d in Array::from(dues).iter() {
            let query = core(crate::dues_query(&member(&d, "acid"), &member(&d, "kind")))?;
            let raw = core(text("raw", &member(&d, "raw")))?;
            parsed.push(core(self.config.parse_dues_with(
                &query,
                200,
                raw.as_bytes(),
                &options,
            ))?);
        }
        let typed = core(self.config.dues_table(&parsed, &options))?;
        let out = Object::new();
        set_table(&out, &typed, numbers);
        set(&out, "notices", &Array::new());
        Ok(out.into())
    }
}
