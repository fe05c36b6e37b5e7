//! What the sandbox's HTTP tests share.

pub mod client;

use std::net::SocketAddr;

use erpdata_sandbox::{serve_with_shutdown, Config};
use tokio::net::TcpListener;

/// Serves `config` (quietly) on a free loopback port until the test ends.
pub async fn start(config: Config) -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let config = Config {
        log_requests: false,
        ..config
    };
    tokio::spawn(serve_with_shutdown(
        config,
        listener,
        std::future::pending(),
    ));
    addr
}
