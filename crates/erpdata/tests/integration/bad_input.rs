//! Bad input, as properties: arbitrary Unicode, huge strings, NUL and
//! other control characters in every parameter of both operations (and of
//! the config) give a typed `InvalidInput` naming the parameter, from both
//! ready clients, and the sandbox sees nothing (`/_faults/total` stays
//! put). Arbitrary Unicode that is valid goes out exactly as given.

use crate::clients;
use crate::sandbox;

use clients::{Client, FLAVOURS};
use erpdata::{Config, DuesKind, Error, TableQuery};
use proptest::prelude::*;
use proptest::test_runner::{Config as Cases, TestCaseError, TestRunner};
use sandbox::{config, quick, Sandbox, TOKEN};

/// Characters `char::is_control` calls control: C0, DEL and C1.
fn control() -> impl Strategy<Value = char> {
    prop_oneof![
        Just('\0'),
        (0x01u32..0x20).prop_map(|c| char::from_u32(c).unwrap()),
        Just('\u{7f}'),
        (0x80u32..0xa0).prop_map(|c| char::from_u32(c).unwrap()),
    ]
}

/// A value no parameter accepts: blank, with a control character
/// somewhere in arbitrary Unicode, or longer than any id could be.
fn bad_value() -> impl Strategy<Value = String> {
    prop_oneof![
        Just(String::new()),
        "[ \u{a0}\u{2003}\u{3000}]{1,8}",
        ("\\PC{0,40}", control(), "\\PC{0,40}").prop_map(|(a, c, b)| format!("{a}{c}{b}")),
        (1025usize..200_000, "\\PC").prop_map(|(n, c)| c.repeat(n)),
    ]
}

/// A table name that is not a plain identifier, besides every bad value.
fn bad_table() -> impl Strategy<Value = String> {
    prop_oneof![
        bad_value(),
        "[0-9][A-Za-z0-9_]{0,20}",
        ("[A-Za-z_]{0,10}", "[^A-Za-z0-9_]", "\\PC{0,10}")
            .prop_map(|(a, c, b)| format!("{a}{c}{b}")),
        "[a-z_]{65,300}",
    ]
}

fn field_of(result: Result<impl std::fmt::Debug, Error>) -> Result<String, TestCaseError> {
    match result {
        Err(Error::InvalidInput { field, .. }) => Ok(field),
        other => Err(TestCaseError::fail(format!("not InvalidInput: {other:?}"))),
    }
}

fn check(
    what: &str,
    want: &str,
    result: Result<impl std::fmt::Debug, Error>,
) -> Result<(), TestCaseError> {
    let field = field_of(result)?;
    prop_assert_eq!(field.as_str(), want, "{}", what);
    Ok(())
}

fn runner() -> TestRunner {
    TestRunner::new(Cases {
        cases: 64,
        failure_persistence: None,
        ..Cases::default()
    })
}

#[test]
fn bad_parameters_are_refused_before_anything_is_sent() {
    let sb = Sandbox::start();
    let clients: Vec<Client> = FLAVOURS
        .iter()
        .map(|f| Client::new(f, config(&sb.url), quick(0)).unwrap())
        .collect();
    let strategy = (bad_value(), bad_table());
    runner()
        .run(&strategy, |(bad, bad_name)| {
            let before = sb.total();
            for c in &clients {
                check("receivables", "acid", c.receivables(bad.as_str()))?;
                check("payables", "acid", c.payables(bad.as_str()))?;
                check("dues", "acid", c.dues(bad.as_str(), DuesKind::Receipt))?;
                check("table", "table", c.table(bad_name.as_str()))?;
                let streamed = c.stream(bad_name.as_str());
                check("stream", "table", streamed.error.map_or(Ok(()), Err))?;
                for (field, query) in [
                    (
                        "company_id",
                        TableQuery::new("sales_invoice").company_id(bad.as_str()),
                    ),
                    (
                        "year_id",
                        TableQuery::new("sales_invoice").year_id(bad.as_str()),
                    ),
                ] {
                    check("table", field, c.table(query.clone()))?;
                    check("stream", field, c.stream(query).error.map_or(Ok(()), Err))?;
                }
            }
            prop_assert_eq!(sb.total(), before, "a request reached the sandbox");
            Ok(())
        })
        .unwrap();
}

#[test]
fn bad_config_values_are_refused_naming_the_setting() {
    runner()
        .run(&bad_value(), |bad| {
            let base = || {
                Config::builder("http://127.0.0.1:9/")
                    .project("demo")
                    .access_token(TOKEN)
                    .company_id(1)
                    .year_id(2025)
            };
            let b = bad.as_str();
            check("project", "project", base().project(b).build())?;
            check(
                "project_folder",
                "project_folder",
                base().project_folder(b).build(),
            )?;
            check(
                "access_token",
                "access_token",
                base().access_token(b).build(),
            )?;
            check("company_id", "company_id", base().company_id(b).build())?;
            check("year_id", "year_id", base().year_id(b).build())?;
            Ok(())
        })
        .unwrap();
}

/// Valid Unicode is not refused: it reaches the service exactly as given
/// (form-encoded), and an unknown account is the service's own error.
#[test]
fn any_valid_unicode_goes_out_exactly() {
    let sb = Sandbox::start();
    let mut runner = TestRunner::new(Cases {
        cases: 32,
        failure_persistence: None,
        ..Cases::default()
    });
    let acid = "\\PC{1,60}".prop_filter("not blank", |s| !s.trim().is_empty());
    runner
        .run(&acid, |acid| {
            for flavour in FLAVOURS {
                let (base, key) = sb.faulty("pass");
                let c = Client::new(flavour, config(&base), quick(0)).unwrap();
                match c.receivables(acid.as_str()) {
                    Ok(_) => {}
                    Err(Error::Service { message, .. }) => {
                        prop_assert!(message.contains("Unknown account"), "{}", message)
                    }
                    Err(e) => return Err(TestCaseError::fail(format!("{e:?}"))),
                }
                let log: serde_json::Value = serde_json::from_str(&sb.log(&key)).unwrap();
                let query = log[0]["query"].as_str().unwrap().to_owned();
                let sent = url::form_urlencoded::parse(query.as_bytes())
                    .find(|(k, _)| k == "acid")
                    .map(|(_, v)| v.into_owned());
                prop_assert_eq!(sent.as_deref(), Some(acid.as_str()));
            }
            Ok(())
        })
        .unwrap();
}
