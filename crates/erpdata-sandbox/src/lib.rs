//! A local fake of the cloud ERP's HTTP data interface: the dues query
//! (`apis/ajax.php?func=getduesDet`) and the table data fetch
//! (`apis/dataapi.php`, `req=getdata`), over deterministic demo books.
//!
//! ```no_run
//! # async fn run() -> std::io::Result<()> {
//! let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
//! erpdata_sandbox::serve(erpdata_sandbox::Config::default(), listener).await
//! # }
//! ```

mod answers;
mod config;
mod data;
mod date;
mod dues;
mod faults;
mod functions;
mod generate;
mod json;
mod rng;
mod routes;
mod style;
mod tables;
mod tls;

use std::future::{Future, IntoFuture};
use std::io;
use std::sync::Arc;
use std::time::Duration;

use tokio::net::TcpListener;
use tokio::sync::Notify;

pub use config::{
    parse_args, Command, Config, DEFAULT_HOST, DEFAULT_PORT, DEFAULT_PROJECT, DEFAULT_SEED,
    DEFAULT_TOKEN, TOKEN_ENV, USAGE,
};
pub use generate::{table_body, table_body_styled};
pub use routes::router;
pub use style::Style;
pub use tls::SelfSigned;

/// How long answers in flight may go on after a shutdown signal.
const GRACE: Duration = Duration::from_secs(3);

/// Serves plain http until SIGINT (ctrl-c) or SIGTERM (`config.tls` is
/// for the binary; see [`serve_tls_with_shutdown`] for https).
pub async fn serve(config: Config, listener: TcpListener) -> io::Result<()> {
    serve_with_shutdown(config, listener, shutdown_signal()).await
}

/// Serves until `shutdown` completes, then lets answers in flight finish
/// for a moment.
pub async fn serve_with_shutdown<F>(
    config: Config,
    listener: TcpListener,
    shutdown: F,
) -> io::Result<()>
where
    F: Future<Output = ()> + Send + 'static,
{
    run(config, listener, shutdown).await
}

/// [`serve_with_shutdown`] over https with the certificate `tls`.
pub async fn serve_tls_with_shutdown<F>(
    config: Config,
    listener: TcpListener,
    tls: &SelfSigned,
    shutdown: F,
) -> io::Result<()>
where
    F: Future<Output = ()> + Send + 'static,
{
    run(config, tls.listen(listener)?, shutdown).await
}

async fn run<L, F>(config: Config, listener: L, shutdown: F) -> io::Result<()>
where
    L: axum::serve::Listener,
    L::Addr: std::fmt::Debug,
    F: Future<Output = ()> + Send + 'static,
{
    let notify = Arc::new(Notify::new());
    let signalled = notify.clone();
    let server = axum::serve(listener, router(config))
        .with_graceful_shutdown(async move {
            shutdown.await;
            signalled.notify_one();
        })
        .into_future();
    let mut server = std::pin::pin!(server);
    tokio::select! {
        res = &mut server => return res,
        () = notify.notified() => {}
    }
    // A streamed table of millions of rows, or a never-ending answer,
    // would otherwise hold the exit.
    tokio::time::timeout(GRACE, server).await.unwrap_or(Ok(()))
}

/// Completes on SIGINT (ctrl-c) or, on Unix, SIGTERM.
pub async fn shutdown_signal() {
    let interrupt = async {
        if tokio::signal::ctrl_c().await.is_err() {
            std::future::pending::<()>().await;
        }
    };
    #[cfg(unix)]
    let terminate = async {
        use tokio::signal::unix::{signal, SignalKind};
        match signal(SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = interrupt => {}
        () = terminate => {}
    }
}
