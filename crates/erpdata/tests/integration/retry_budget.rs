//! The client's retry budget, shared by its calls (`tests/vectors/budget.json`):
//! each case run by both Rust clients against the sandbox's faults.

use crate::clients::{Client, FLAVOURS};
use crate::common;
use crate::sandbox::{config, quick, Sandbox};

#[test]
fn one_clients_calls_share_its_retry_budget() {
    let sandbox = Sandbox::start();
    for flavour in FLAVOURS {
        for case in common::cases("budget") {
            let name = format!("{flavour}: {}", case["name"].as_str().unwrap());
            let (base, key) = sandbox.faulty(case["fault"].as_str().unwrap());
            let client = Client::new(flavour, config(&base), quick(2)).unwrap();
            for (i, want) in case["calls"].as_array().unwrap().iter().enumerate() {
                let at = format!("{name}: call {}", i + 1);
                let before = sandbox.count(&key);
                let got = client.receivables("C001");
                let seen = sandbox.count(&key) - before;
                let attempts = want["attempts"].as_u64().unwrap();
                assert_eq!(seen, attempts, "{at}: requests the sandbox saw");
                match (got, want["outcome"].as_str().unwrap()) {
                    (Ok(_), "ok") => {}
                    (Err(e), "error") => {
                        let info = e.call().unwrap_or_else(|| panic!("{at}: {e}"));
                        assert_eq!(u64::from(info.attempts), attempts, "{at}: {e}");
                        let withheld = e.to_string().contains("not retried: recent requests");
                        assert_eq!(withheld, want["withheld"].as_bool().unwrap(), "{at}: {e}");
                        assert_eq!(withheld, info.retry_withheld, "{at}: {e}");
                    }
                    (got, want) => panic!("{at}: {got:?}, expected {want}"),
                }
            }
        }
    }
}
