//! Request round trips: whatever Unicode a caller passes, decoding the URL
//! or form body the core built gives back exactly that text; and whatever
//! the core refuses, it refuses with the field's name before building.

use erpdata::{Config, DuesKind, DuesQuery, Error, Method, TableQuery};
use proptest::prelude::*;

/// Pairs of a query string or form body, decoded.
fn pairs(encoded: &[u8]) -> Vec<(String, String)> {
    url::form_urlencoded::parse(encoded).into_owned().collect()
}

fn value<'a>(pairs: &'a [(String, String)], name: &str) -> &'a str {
    let found: Vec<_> = pairs.iter().filter(|(k, _)| k == name).collect();
    assert_eq!(found.len(), 1, "{name} sent exactly once in {pairs:?}");
    &found[0].1
}

/// Text the core accepts for a parameter: any Unicode except control
/// and format characters (an id refuses those that print as nothing),
/// with something other than whitespace in it.
fn accepted() -> impl Strategy<Value = String> {
    "[^\\p{Cc}\\p{Cf}]{0,40}[^\\p{Cc}\\p{Cf}\\s][^\\p{Cc}\\p{Cf}]{0,40}"
}

/// Wrapped in one quote mark, as a settings file writes a value: the core
/// refuses such a setting or token.
fn quoted(s: &str) -> bool {
    s.len() >= 2
        && (s.starts_with('"') && s.ends_with('"') || s.starts_with('\'') && s.ends_with('\''))
}

/// Whitespace then `#`, as a settings file's comment after a value: the
/// core refuses such a setting.
fn commented(s: &str) -> bool {
    s.char_indices()
        .any(|(i, c)| c.is_whitespace() && s[i..].trim_start().starts_with('#'))
}

/// A setting naming something of the ERP (project, company, year): text
/// the core accepts, with no whitespace at either end, not in quotes, no
/// comment after it.
fn setting() -> impl Strategy<Value = String> {
    "[^\\p{Cc}\\p{Cf}\\s]([^\\p{Cc}\\p{Cf}]{0,40}[^\\p{Cc}\\p{Cf}\\s])?"
        .prop_filter("not in quotes", |s| !quoted(s))
        .prop_filter("no comment after it", |s| !commented(s))
}

/// An access token: no whitespace either, not in quotes.
fn token() -> impl Strategy<Value = String> {
    "[^\\p{Cc}\\p{Cf}\\s]{1,60}".prop_filter("not in quotes", |s| !quoted(s))
}

fn table_name() -> impl Strategy<Value = String> {
    "[A-Za-z_][A-Za-z0-9_]{0,63}"
}

fn config(project: &str, token: &str) -> Config {
    Config::builder("https://erp.example.com/base/")
        .project(project)
        .access_token(token)
        .build()
        .expect("accepted values make a config")
}

fn field_of(err: &Error) -> &str {
    match err {
        Error::InvalidInput { field, .. } => field,
        other => panic!("expected InvalidInput, got {other:?}"),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn dues_parameters_round_trip(
        project in setting(),
        acid in accepted(),
        receipt in any::<bool>(),
    ) {
        let config = config(&project, "fake-token");
        let kind = if receipt { DuesKind::Receipt } else { DuesKind::Payment };
        let request = config.dues_request(&DuesQuery::new(acid.as_str(), kind)).unwrap();
        prop_assert_eq!(request.method(), "GET");
        prop_assert_eq!(request.uri().path(), "/base/apis/ajax.php");
        let query = request.uri().query().unwrap_or_default();
        // Nothing outside the unreserved set and the encoder's own
        // punctuation travels unencoded.
        prop_assert!(query.bytes().all(|b| b.is_ascii_graphic()), "{}", query);
        let got = pairs(query.as_bytes());
        prop_assert_eq!(got.len(), 4);
        prop_assert_eq!(value(&got, "sys_projectfolder"), project.as_str());
        prop_assert_eq!(value(&got, "func"), "getduesDet");
        prop_assert_eq!(value(&got, "acid"), acid.as_str());
        prop_assert_eq!(value(&got, "type"), kind.as_str());
        // The dues query carries no credential.
        prop_assert!(!query.contains("fake-token"));
    }

    #[test]
    fn table_parameters_round_trip(
        project in setting(),
        secret in token(),
        table in table_name(),
        company in setting(),
        year in setting(),
        get in any::<bool>(),
    ) {
        let config = config(&project, &secret);
        let method = if get { Method::Get } else { Method::Post };
        let query = TableQuery::new(table.as_str())
            .company_id(company.as_str())
            .year_id(year.as_str())
            .method(method);
        let request = config.table_request(&query).unwrap();
        prop_assert_eq!(request.uri().path(), "/base/apis/dataapi.php");
        let url_query = request.uri().query().unwrap_or_default().to_owned();
        let encoded = if get {
            prop_assert_eq!(request.method(), "GET");
            prop_assert!(request.body().is_empty());
            url_query.into_bytes()
        } else {
            prop_assert_eq!(request.method(), "POST");
            // The default form keeps every parameter, the token above all,
            // out of the URL.
            prop_assert_eq!(url_query, "");
            request.body().to_vec()
        };
        let got = pairs(&encoded);
        prop_assert_eq!(got.len(), 6);
        prop_assert_eq!(value(&got, "req"), "getdata");
        prop_assert_eq!(value(&got, "project"), project.as_str());
        prop_assert_eq!(value(&got, "accesstoken"), secret.as_str());
        prop_assert_eq!(value(&got, "yearid"), year.as_str());
        prop_assert_eq!(value(&got, "compid"), company.as_str());
        prop_assert_eq!(value(&got, "table"), table.as_str());
    }

    #[test]
    fn control_characters_are_refused_by_name(
        before in "[a-z]{0,5}",
        control in "\\p{Cc}",
        after in "[a-z]{0,5}",
        which in 0usize..4,
    ) {
        let bad = format!("{before}{control}{after}");
        let config = config("demo", "fake-token");
        let err = match which {
            0 => config.dues_request(&DuesQuery::new(bad.as_str(), DuesKind::Receipt)).unwrap_err(),
            1 => config.table_request(&TableQuery::new("t").company_id(bad.as_str()).year_id("1")).unwrap_err(),
            2 => config.table_request(&TableQuery::new("t").company_id("1").year_id(bad.as_str())).unwrap_err(),
            _ => config.table_request(&TableQuery::new(bad.as_str()).company_id("1").year_id("1")).unwrap_err(),
        };
        let expected = ["acid", "company_id", "year_id", "table"][which];
        prop_assert_eq!(field_of(&err), expected);
    }

    #[test]
    fn table_names_outside_identifiers_are_refused(name in "[^\\p{Cc}]{1,20}") {
        let identifier = name.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        let config = config("demo", "fake-token");
        let result = config.table_request(&TableQuery::new(name.as_str()).company_id("1").year_id("1"));
        if identifier {
            prop_assert!(result.is_ok());
        } else {
            let err = result.unwrap_err();
            prop_assert_eq!(field_of(&err), "table");
        }
    }
}
