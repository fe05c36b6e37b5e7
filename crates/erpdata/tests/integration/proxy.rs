//! Proxies from the environment: both clients bypass them for a loopback
//! service, whose plain-http requests carry the token only because they
//! never leave the machine.

use std::process::Command;

use crate::clients::{error_text, Client, FLAVOURS};
use crate::raw_server::{raw_server, Then};
use crate::sandbox::{config, quick, Sandbox};

/// Set in the child process of the test below.
const PROXIED: &str = "ERPDATA_TEST_PROXIED";

/// Every variable reqwest or ureq reads a proxy from, in both cases.
const PROXY_VARS: [&str; 6] = [
    "HTTP_PROXY",
    "http_proxy",
    "HTTPS_PROXY",
    "https_proxy",
    "ALL_PROXY",
    "all_proxy",
];

/// With every proxy variable naming a "proxy" that answers 502 to
/// anything, both clients still read the sandbox's table: they went to it
/// directly. Through the proxy, the POST form, token included, went to the
/// proxy in plain http (reqwest), or the proxy was asked for a tunnel to
/// its own loopback (ureq), and the call failed on its 502. Run in a child
/// process: the variables would reach every client the other tests make
/// meanwhile.
#[test]
fn a_loopback_service_is_reached_directly_whatever_proxy_the_environment_names() {
    if std::env::var_os(PROXIED).is_none() {
        let proxy = raw_server(
            b"HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
            Then::Close,
        );
        let name =
            "proxy::a_loopback_service_is_reached_directly_whatever_proxy_the_environment_names";
        let mut run = Command::new(std::env::current_exe().unwrap());
        run.args(["--exact", name, "--nocapture"])
            .env(PROXIED, "1")
            .env_remove("NO_PROXY")
            .env_remove("no_proxy");
        for var in PROXY_VARS {
            run.env(var, &proxy);
        }
        let run = run.output().unwrap();
        assert!(
            run.status.success(),
            "the run with a proxy in the environment failed:\n{}{}",
            String::from_utf8_lossy(&run.stdout),
            String::from_utf8_lossy(&run.stderr)
        );
        return;
    }
    let sandbox = Sandbox::start();
    let proxied: Vec<String> = FLAVOURS
        .iter()
        .filter_map(|flavour| {
            let client = Client::new(flavour, config(&sandbox.url), quick(0)).unwrap();
            match client.table("account") {
                Ok(table) if !table.rows.is_empty() => None,
                Ok(_) => Some(format!("{flavour}: no rows")),
                Err(err) => Some(format!("{flavour}: {}", error_text(&err))),
            }
        })
        .collect();
    assert!(proxied.is_empty(), "went through the proxy: {proxied:#?}");
}
