//! JS values -> core inputs. Types only: what counts as a valid value is
//! the core's business (`erpdata::validate`), not this file's.

use std::ffi::OsString;

use erpdata::{Arg, Config, ConfigBuilder, DeclaredSchema, DecoderOptions, Error, Id};
use js_sys::{Array, JsString, Object, Reflect};
use wasm_bindgen::{JsCast, JsValue};

pub(crate) fn invalid(field: &str, reason: impl Into<String>) -> Error {
    Error::InvalidInput {
        field: field.to_owned(),
        reason: reason.into(),
    }
}

/// `null` and `undefined` both mean "not given", as `??` treats them.
fn given(value: &JsValue) -> bool {
    !value.is_undefined() && !value.is_null()
}

/// What a wrong value was, without echoing it (it might be a secret).
pub(crate) fn describe(value: &JsValue) -> &'static str {
    if value.is_null() {
        "null"
    } else if value.is_undefined() {
        "undefined"
    } else if value.is_string() {
        "a string"
    } else if value.as_f64().is_some() {
        "a number"
    } else if value.is_bigint() {
        "a bigint"
    } else if value.as_bool().is_some() {
        "a boolean"
    } else if value.is_symbol() {
        "a symbol"
    } else if value.is_function() {
        "a function"
    } else if Array::is_array(value) {
        "an array"
    } else {
        "an object"
    }
}

/// A JS string's text. A lone surrogate cannot go on the wire as UTF-8, so
/// it is reported against the field instead of silently becoming U+FFFD.
pub(crate) fn text(field: &str, value: &JsValue) -> Result<String, Error> {
    let Some(s) = value.dyn_ref::<JsString>() else {
        return Err(invalid(
            field,
            format!("must be a string, got {}", describe(value)),
        ));
    };
    if !s.is_valid_utf16() {
        return Err(invalid(
            field,
            "is not valid Unicode text (it contains a lone surrogate)",
        ));
    }
    Ok(String::from(s))
}

pub(crate) fn opt_text(field: &str, value: &JsValue) -> Result<Option<String>, Error> {
    given(value).then(|| text(field, value)).transpose()
}

/// A default company or year id, converted by shape as every argument is
/// (see `args`): text as given, an integer as its decimal text.
fn opt_id(field: &str, value: &JsValue) -> Result<Option<Id>, Error> {
    match crate::args::arg(value) {
        None => Ok(None),
        Some(Arg::Text(t)) => Ok(Some(Id::from(t))),
        Some(Arg::Int(n)) => Ok(Some(Id::from(n))),
        Some(Arg::Unsupported(what)) => Err(invalid(
            field,
            format!("must be a string, an integer or a bigint, got a value of type {what}"),
        )),
        Some(_) => Err(invalid(
            field,
            format!(
                "must be a string, an integer or a bigint, got {}",
                describe(value)
            ),
        )),
    }
}

/// Sets `obj[key] = value` on a fresh plain object (cannot fail).
pub(crate) fn set(obj: &Object, key: &str, value: &JsValue) {
    let _ = Reflect::set(obj, &key.into(), value);
}

fn member(options: &JsValue, key: &str) -> JsValue {
    Reflect::get(options, &key.into()).unwrap_or(JsValue::UNDEFINED)
}

/// The config from the options object, and for each setting it does not
/// give, from the `ERPDATA_*` variables of `vars` (an object of variable
/// names to values, or undefined), read by the core
/// (`ConfigBuilder::or_from_vars`, which also says how to give a base URL
/// when there is none). Field names in errors are
/// the core's (`base_url`, `company_id`, ...), which `errors::to_js` spells
/// as JS does (`baseUrl`, `companyId`), or for a value read from a
/// variable, the variable (`ERPDATA_BASE_URL`).
pub(crate) fn config(options: &JsValue, vars: &JsValue) -> Result<Config, Error> {
    if !options.is_object() {
        return Err(invalid(
            "options",
            format!("must be an object, got {}", describe(options)),
        ));
    }
    let get = |key| member(options, key);
    let lookup = |name: &str| {
        given(vars)
            .then(|| member(vars, name).as_string())
            .flatten()
            .map(OsString::from)
    };
    let mut builder = ConfigBuilder::new();
    if let Some(base_url) = opt_text("base_url", &get("baseUrl"))? {
        builder = builder.base_url(base_url);
    }
    if let Some(project) = opt_text("project", &get("project"))? {
        builder = builder.project(project);
    }
    if let Some(folder) = opt_text("project_folder", &get("projectFolder"))? {
        builder = builder.project_folder(folder);
    }
    if let Some(token) = opt_text("access_token", &get("accessToken"))? {
        builder = builder.access_token(token);
    }
    if let Some(company) = opt_id("company_id", &get("companyId"))? {
        builder = builder.company_id(company);
    }
    if let Some(year) = opt_id("year_id", &get("yearId"))? {
        builder = builder.year_id(year);
    }
    let insecure = get("allowInsecureHttp");
    if given(&insecure) {
        let allow = insecure.as_bool().ok_or_else(|| {
            invalid(
                "allow_insecure_http",
                format!("must be a boolean, got {}", describe(&insecure)),
            )
        })?;
        builder = builder.allow_insecure_http(allow);
    }
    let ajax_token = get("ajaxToken");
    if given(&ajax_token) {
        let send = ajax_token.as_bool().ok_or_else(|| {
            invalid(
                "ajax_token",
                format!("must be a boolean, got {}", describe(&ajax_token)),
            )
        })?;
        builder = builder.ajax_token(send);
    }
    builder.or_from_vars(lookup)?.build()
}

/// The typing options of a table, stream or dues call (`{schema,
/// inferStrings}`, both optional; the object itself `undefined` or `null`
/// for none) as decoder options. The declared types are parsed by the core
/// (`DeclaredSchema::parse`), which names `schema["column"]` in its errors.
pub(crate) fn typing(options: &JsValue) -> Result<DecoderOptions, Error> {
    let mut out = DecoderOptions::default();
    if !given(options) {
        return Ok(out);
    }
    let infer = member(options, "inferStrings");
    if given(&infer) {
        out.infer_strings = infer.as_bool().ok_or_else(|| {
            invalid(
                "inferStrings",
                format!("must be a boolean, got {}", describe(&infer)),
            )
        })?;
    }
    let schema = member(options, "schema");
    if given(&schema) {
        out.schema = declared(&schema)?;
    }
    Ok(out)
}

/// A plain object mapping column names to type names.
fn declared(schema: &JsValue) -> Result<DeclaredSchema, Error> {
    let plain = schema.is_object() && !schema.is_function() && {
        let proto = JsValue::from(Object::get_prototype_of(schema));
        proto.is_null() || proto == JsValue::from(Object::get_prototype_of(&Object::new()))
    };
    if !plain {
        return Err(invalid(
            "schema",
            format!(
                "must be a plain object mapping column names to type names \
                 (such as {{ amount: \"decimal(14,2)\" }}), got {}",
                describe(schema)
            ),
        ));
    }
    let mut pairs = Vec::new();
    for entry in Object::entries(schema.unchecked_ref::<Object>()).iter() {
        let entry = Array::from(&entry);
        let name = text("schema", &entry.get(0))?;
        let ty = entry.get(1);
        if !ty.is_string() {
            return Err(invalid(
                "schema",
                format!(
                    "the type of column {name:?} must be a type name (string, int, decimal, \
                     decimal(P,S), date, timestamp, bool or json), got {}",
                    describe(&ty)
                ),
            ));
        }
        let ty = text(&format!("schema[{name:?}]"), &ty)?;
        pairs.push((name, ty));
    }
    DeclaredSchema::parse(
        "schema",
        pairs.iter().map(|(n, t)| (n.as_str(), t.as_str())),
    )
}
