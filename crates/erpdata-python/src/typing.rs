//! `erpdata._core.Typing`: how a table's values get their column types
//! (declared types, string inference, one schema for a stream), validated
//! by the core before anything is sent.

use erpdata::{DeclaredSchema, DecoderOptions, Error};
use pyo3::prelude::*;
use pyo3::types::{PyList, PyString, PyTuple};

use crate::config::Config;
use crate::convert;
use crate::errors::Result;

/// The argument's name as the Python API spells it.
const FIELD: &str = "schema_overrides";

/// The typing options of a decoder: the core's `DecoderOptions` without
/// the batch size (each decoder takes its own).
#[pyclass(frozen, module = "erpdata._core")]
pub(crate) struct Typing {
    options: DecoderOptions,
}

/// `InvalidInput` naming `schema_overrides` for an argument of the wrong
/// shape.
fn shape(reason: &str) -> Error {
    Error::InvalidInput {
        field: FIELD.to_owned(),
        reason: reason.to_owned(),
    }
}

fn type_name(obj: &Bound<'_, PyAny>) -> String {
    obj.get_type()
        .name()
        .map_or_else(|_| "an unknown type".to_owned(), |n| n.to_string())
}

/// `(column, type name)` pairs from a mapping (its `items()`) or an
/// iterable of 2-tuples.
fn pairs(obj: &Bound<'_, PyAny>) -> std::result::Result<Vec<(String, String)>, Error> {
    let items = if obj.hasattr("items").unwrap_or(false) && !obj.is_instance_of::<PyString>() {
        obj.call_method0("items")
            .map_err(|_| shape("must be a mapping of column names to type names"))?
    } else {
        obj.clone()
    };
    if items.is_instance_of::<PyString>() {
        return Err(shape(
            "must be a mapping of column names to type names, got str",
        ));
    }
    let iter = items
        .try_iter()
        .map_err(|_| shape("must be a mapping of column names to type names"))?;
    let mut out = Vec::new();
    for item in iter {
        let item = item.map_err(|_| shape("cannot be iterated"))?;
        let pair = item
            .cast::<PyTuple>()
            .ok()
            .filter(|t| t.len() == 2)
            .ok_or_else(|| shape("must hold (column, type) pairs"))?;
        let name = pair.get_item(0).map_err(|_| shape("bad pair"))?;
        if !name.is_instance_of::<PyString>() {
            return Err(shape(&format!(
                "column names must be strings, got {}",
                type_name(&name)
            )));
        }
        let name = convert::text(FIELD, &name)?;
        let ty = pair.get_item(1).map_err(|_| shape("bad pair"))?;
        let at = format!("{FIELD}[{name:?}]");
        if !ty.is_instance_of::<PyString>() {
            return Err(Error::InvalidInput {
                field: at,
                reason: format!(
                    "must be a type name or a pyarrow.DataType, got {}",
                    type_name(&ty)
                ),
            });
        }
        let ty = convert::text(&at, &ty)?;
        out.push((name, ty));
    }
    Ok(out)
}

#[pymethods]
impl Typing {
    /// Declared types (`schema_overrides`: a mapping or `(column, type
    /// name)` pairs; names as the core accepts them), whether strings are
    /// typed from their text, and whether every batch of a stream keeps
    /// the first batch's schema. Raises `InvalidInputError` naming
    /// `schema_overrides["column"]` for an unknown type name, redacted by
    /// `config` (the client's) where one is given: a type or column name
    /// may be the token pasted in the wrong place.
    #[new]
    #[pyo3(signature = (schema_overrides=None, *, infer_strings=true, one_schema=false, config=None))]
    fn new(
        schema_overrides: Option<&Bound<'_, PyAny>>,
        infer_strings: bool,
        one_schema: bool,
        config: Option<PyRef<'_, Config>>,
    ) -> Result<Self> {
        let build = || -> std::result::Result<DecoderOptions, Error> {
            let schema = match schema_overrides.filter(|o| !o.is_none()) {
                Some(obj) => {
                    let pairs = pairs(obj)?;
                    DeclaredSchema::parse(
                        FIELD,
                        pairs.iter().map(|(n, t)| (n.as_str(), t.as_str())),
                    )?
                }
                None => DeclaredSchema::new(),
            };
            Ok(DecoderOptions {
                infer_strings,
                one_schema,
                schema,
                ..DecoderOptions::default()
            })
        };
        let options = build().map_err(|e| match &config {
            Some(config) => config.core_config().redact_error(e),
            None => e,
        })?;
        Ok(Typing { options })
    }

    /// The declared types as `(column, type name)` pairs, names in the
    /// core's spelling (`decimal(14,2)`, `timestamp`).
    #[getter]
    fn schema_overrides<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let pairs: Vec<(String, String)> = self
            .options
            .schema
            .columns()
            .iter()
            .map(|(n, t)| (n.clone(), t.to_string()))
            .collect();
        PyList::new(py, pairs)
    }

    /// Whether strings are typed from their text (`"1500.00"` a decimal).
    #[getter]
    fn infer_strings(&self) -> bool {
        self.options.infer_strings
    }

    /// Whether a stream's first batch fixes the schema of every batch.
    #[getter]
    fn one_schema(&self) -> bool {
        self.options.one_schema
    }

    fn __repr__(&self) -> String {
        let declared: Vec<String> = self
            .options
            .schema
            .columns()
            .iter()
            .map(|(n, t)| format!("{n:?}: {t:?}", t = t.to_string()))
            .collect();
        format!(
            "Typing(schema_overrides={{{}}}, infer_strings={}, one_schema={})",
            declared.join(", "),
            if self.options.infer_strings {
                "True"
            } else {
                "False"
            },
            if self.options.one_schema {
                "True"
            } else {
                "False"
            },
        )
    }
}

impl Typing {
    /// The core's decoder options with `batch_rows` rows per batch.
    pub(crate) fn decoder_options(typing: Option<&Typing>, batch_rows: usize) -> DecoderOptions {
        let mut options = typing.map_or_else(DecoderOptions::default, |t| t.options.clone());
        options.batch_rows = batch_rows;
        options
    }
}
