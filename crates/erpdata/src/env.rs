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
/// errors, in the order they are read.
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
    builder_from_vars(lookup)?.build()
}

/// A builder from the variables `lookup` gives ([`ConfigBuilder::from_vars`]).
pub(crate) fn builder_from_vars<F>(mut lookup: F) -> Result<ConfigBuilder>
where
    F: FnMut(&str) -> Option<std::ffi::OsString>,
{
    let builder = or_from_vars(ConfigBuilder::new(), &mut lookup)?;
    if !builder.has("base_url") {
        return Err(Error::invalid(
            BASE_URL_VAR,
            "is not set: set it to the service's base URL (e.g. https://erp.example.com/) \
             or pass one to Config::builder",
        ));
    }
    Ok(builder)
}

/// `builder` with each setting it has not been given read from its
/// variable, where `lookup` gives one ([`ConfigBuilder::or_from_vars`]);
/// the builder remembers which, so that its `build` names the variable in
/// an error about such a value.
pub(crate) fn or_from_vars<F>(mut builder: ConfigBuilder, mut lookup: F) -> Result<ConfigBuilder>
where
    F: FnMut(&str) -> Option<std::ffi::OsString>,
{
    for (setting, variable) in FIELDS {
        if builder.has(setting) {
            continue;
        }
        let Some(value) = read(&mut lookup, variable)? else {
            continue;
        };
        builder = match setting {
            "base_url" => builder.base_url(value),
            "project" => builder.project(value),
            "project_folder" => builder.project_folder(value),
            "access_token" => builder.access_token(value),
            "company_id" => builder.company_id(value),
            "year_id" => builder.year_id(value),
            _ => builder,
        }
        .read_from(setting, variable);
    }
    Ok(builder)
}

/// A variable's value, `None` when unset; not Unicode is an error naming it.
fn read<F>(lookup: &mut F, name: &str) -> Result<Option<String>>
where
    F: FnMut(&str) -> Option<std::ffi::OsString>,
{
    match lookup(name) {
        None => Ok(None),
        Some(value) => value
            .into_string()
            .map(Some)
            .map_err(|_| Error::invalid(name, "is not valid Unicode".to_owned())),
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

    #[test]
    fn settings_given_in_code_win_and_errors_name_where_a_value_came_from() {
        let vars: HashMap<&str, &str> = HashMap::from([
            (PROJECT_VAR, " "),
            (COMPANY_ID_VAR, "01"),
            (YEAR_ID_VAR, ""),
        ]);
        let lookup = |name: &str| vars.get(name).map(OsString::from);
        let field = |b: ConfigBuilder| b.build().unwrap_err().field().map(str::to_owned);
        // Filled from the variables: the refused one names its variable.
        let filled = Config::builder("https://h/").or_from_vars(lookup).unwrap();
        assert_eq!(field(filled.clone()).as_deref(), Some(PROJECT_VAR));
        // Given in code: the variable is not read, and an error names the setting.
        let given = Config::builder("https://h/")
            .project("demo")
            .or_from_vars(lookup)
            .unwrap();
        assert_eq!(field(given).as_deref(), Some(YEAR_ID_VAR));
        let config = Config::builder("https://h/")
            .project("demo")
            .year_id(2025)
            .or_from_vars(lookup)
            .unwrap()
            .build()
            .unwrap();
        assert_eq!(config.company_id().unwrap().as_str(), "01");
        // Overridden after being read: the setting's own again.
        let overridden = filled.project("").year_id(1);
        assert_eq!(field(overridden).as_deref(), Some("project"));
        // The base URL and the plain-http refusal it carries.
        let err = Config::builder("http://erp.example.com/")
            .access_token("fake-token")
            .build()
            .unwrap_err();
        assert_eq!(err.field(), Some("base_url"));
        let err = ConfigBuilder::from_vars(|name| {
            (name == BASE_URL_VAR).then(|| OsString::from("http://erp.example.com/"))
        })
        .unwrap()
        .access_token("fake-token")
        .build()
        .unwrap_err();
        assert_eq!(err.field(), Some(BASE_URL_VAR));
    }

    #[test]
    fn a_builder_without_a_base_url_reads_its_variable_and_only_the_unset_ones() {
        let vars: HashMap<&str, &str> = HashMap::from([
            (BASE_URL_VAR, "https://from-var/"),
            (PROJECT_VAR, ""),
            (YEAR_ID_VAR, "2025"),
        ]);
        let mut asked = Vec::new();
        let lookup = |name: &str| {
            asked.push(name.to_owned());
            vars.get(name).map(OsString::from)
        };
        // The project is given, so its (empty, refused) variable is never read.
        let config = ConfigBuilder::new()
            .project("demo")
            .or_from_vars(lookup)
            .unwrap()
            .build()
            .unwrap();
        assert_eq!(config.base_url().as_str(), "https://from-var/");
        assert_eq!(config.project(), Some("demo"));
        assert_eq!(config.year_id().unwrap().as_str(), "2025");
        assert!(!asked.iter().any(|n| n == PROJECT_VAR), "{asked:?}");
        // A base URL given in code wins, and its variable is not read.
        let mut asked = Vec::new();
        let config = ConfigBuilder::new()
            .base_url("https://given/")
            .or_from_vars(|name: &str| {
                asked.push(name.to_owned());
                vars.get(name).map(OsString::from)
            })
            .unwrap();
        assert!(!asked.iter().any(|n| n == BASE_URL_VAR), "{asked:?}");
        assert_eq!(
            config.build().unwrap_err().field(),
            Some(PROJECT_VAR),
            "the empty project read from its variable is refused, named by it"
        );
        // Neither given nor set: one error, naming the setting and both ways to give it.
        let err = ConfigBuilder::new()
            .or_from_vars(|_| None)
            .unwrap()
            .build()
            .unwrap_err();
        assert_eq!(err.field(), Some("base_url"));
        assert!(err.to_string().contains(BASE_URL_VAR), "{err}");
        // Read from its variable and refused: named by the variable.
        let err = ConfigBuilder::new()
            .or_from_vars(|name| (name == BASE_URL_VAR).then(|| OsString::from("erp.example.com")))
            .unwrap()
            .build()
            .unwrap_err();
        assert_eq!(err.field(), Some(BASE_URL_VAR));
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
