//! Configuration from `ERPDATA_*` environment variables, read only when
//! asked: the same variables the Python and JavaScript packages read.

use crate::config::{Config, ConfigBuilder};
use crate::error::{Error, Result};

/// The service's base URL (required).
pub const BASE_URL_VAR: &str = "ERPDATA_BASE_URL";
/// The ERP project name.
pub const PROJECT_VAR: &str = "ERPDATA_PROJECT";
/// The project folder of the dues query (defaults to the project).
pub const PROJECT_FOLDER_VAR: &str = "ERPDATA_PROJECT_FOLDER";
/// The table fetch's access token.
pub const ACCESS_TOKEN_VAR: &str = "ERPDATA_ACCESS_TOKEN";
/// The default company id.
pub const COMPANY_ID_VAR: &str = "ERPDATA_COMPANY_ID";
/// The default year id.
pub const YEAR_ID_VAR: &str = "ERPDATA_YEAR_ID";

/// Each setting with its variable, as [`Config::from_env`] names them in
/// errors.
const FIELDS: [(&str, &str); 6] = [
    ("base_url", BASE_URL_VAR),
    ("project", PROJECT_VAR),
    ("project_folder", PROJECT_FOLDER_VAR),
    ("access_token", ACCESS_TOKEN_VAR),
    ("company_id", COMPANY_ID_VAR),
    ("year_id", YEAR_ID_VAR),
];

/// A configuration from the variables `lookup` gives ([`Config::from_vars`]).
pub(crate) fn from_vars<F>(lookup: F) -> Result<Config>
where
    F: FnMut(&str) -> Option<std::ffi::OsString>,
{
    builder_from_vars(lookup)?
        .build()
        .map_err(name_the_variable)
}

/// A builder from the variables `lookup` gives ([`ConfigBuilder::from_vars`]).
pub(crate) fn builder_from_vars<F>(mut lookup: F) -> Result<ConfigBuilder>
where
    F: FnMut(&str) -> Option<std::ffi::OsString>,
{
    let mut get = |name: &str| -> Result<Option<String>> {
        match lookup(name) {
            None => Ok(None),
            Some(value) => value
                .into_string()
                .map(Some)
                .map_err(|_| Error::invalid(name, "is not valid Unicode".to_owned())),
        }
    };
    let base_url = get(BASE_URL_VAR)?.ok_or_else(|| {
        Error::invalid(
            BASE_URL_VAR,
            "is not set: set it to the service's base URL (e.g. https://erp.example.com/) \
             or pass one to Config::builder",
        )
    })?;
    let mut builder = Config::builder(base_url);
    if let Some(v) = get(PROJECT_VAR)? {
        builder = builder.project(v);
    }
    if let Some(v) = get(PROJECT_FOLDER_VAR)? {
        builder = builder.project_folder(v);
    }
    if let Some(v) = get(ACCESS_TOKEN_VAR)? {
        builder = builder.access_token(v);
    }
    if let Some(v) = get(COMPANY_ID_VAR)? {
        builder = builder.company_id(v);
    }
    if let Some(v) = get(YEAR_ID_VAR)? {
        builder = builder.year_id(v);
    }
    Ok(builder)
}

/// `invalid project: ...` becomes `invalid ERPDATA_PROJECT: ...`, so the
/// message points at where the value came from.
fn name_the_variable(err: Error) -> Error {
    match err {
        Error::InvalidInput { field, reason } => {
            let field = FIELDS
                .iter()
                .find(|(f, _)| *f == field)
                .map(|(_, var)| (*var).to_owned())
                .unwrap_or(field);
            Error::InvalidInput { field, reason }
        }
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;
    use std::ffi::OsString;

    use super::*;

    fn from(vars: &[(&str, &str)]) -> Result<Config> {
        let map: HashMap<String, OsString> = vars
            .iter()
            .map(|(k, v)| ((*k).to_owned(), OsString::from(*v)))
            .collect();
        Config::from_vars(|name| map.get(name).cloned())
    }

    #[test]
    fn reads_every_variable() {
        let c = from(&[
            (BASE_URL_VAR, "http://127.0.0.1:8787"),
            (PROJECT_VAR, "demo"),
            (PROJECT_FOLDER_VAR, "demo_folder"),
            (ACCESS_TOKEN_VAR, "fake-token"),
            (COMPANY_ID_VAR, "007"),
            (YEAR_ID_VAR, "2025"),
        ])
        .unwrap();
        assert_eq!(c.base_url().as_str(), "http://127.0.0.1:8787/");
        assert_eq!(c.project(), Some("demo"));
        assert_eq!(c.project_folder(), Some("demo_folder"));
        assert!(c.has_access_token());
        assert_eq!(c.company_id().unwrap().as_str(), "007");
        assert_eq!(c.year_id().unwrap().as_str(), "2025");
    }

    #[test]
    fn errors_name_the_variable() {
        let field = |r: Result<Config>| match r.unwrap_err() {
            Error::InvalidInput { field, .. } => field,
            other => panic!("{other:?}"),
        };
        assert_eq!(field(from(&[])), BASE_URL_VAR);
        assert_eq!(field(from(&[(BASE_URL_VAR, "")])), BASE_URL_VAR);
        assert_eq!(
            field(from(&[(BASE_URL_VAR, "https://h/"), (PROJECT_VAR, " ")])),
            PROJECT_VAR
        );
        let err = from(&[
            (BASE_URL_VAR, "http://erp.example.com/"),
            (ACCESS_TOKEN_VAR, "fake-secret-value"),
        ])
        .unwrap_err();
        assert!(err.to_string().contains(BASE_URL_VAR), "{err}");
        assert!(!format!("{err} {err:?}").contains("fake-secret-value"));
    }

    #[cfg(unix)]
    #[test]
    fn non_unicode_is_refused() {
        use std::os::unix::ffi::OsStringExt;
        let bad = OsString::from_vec(vec![0xff, 0xfe]);
        let err = Config::from_vars(|name| match name {
            BASE_URL_VAR => Some("https://h/".into()),
            PROJECT_VAR => Some(bad.clone()),
            _ => None,
        })
        .unwrap_err();
        assert!(err.to_string().contains(PROJECT_VAR), "{err}");
    }
}
