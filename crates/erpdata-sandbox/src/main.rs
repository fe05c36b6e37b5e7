//! `erpdata-sandbox`: prints its base URL as the first line of stdout, then
//! serves until SIGINT or SIGTERM.

use std::io::Write;
use std::process::ExitCode;

use erpdata_sandbox::{
    parse_args, serve_tls_with_shutdown, serve_with_shutdown, shutdown_signal, Command, Config,
    SelfSigned, DEFAULT_TOKEN, TOKEN_ENV, USAGE,
};

#[tokio::main]
async fn main() -> ExitCode {
    let args = std::env::args_os()
        .skip(1)
        .map(|a| a.to_string_lossy().into_owned());
    let config = match parse_args(args, std::env::var(TOKEN_ENV).ok()) {
        Ok(Command::Run(config)) => config,
        Ok(Command::Help) => {
            print!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Ok(Command::Version) => {
            println!("erpdata-sandbox {}", env!("CARGO_PKG_VERSION"));
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            eprintln!("erpdata-sandbox: {e}\n\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let listener = match tokio::net::TcpListener::bind((config.host.as_str(), config.port)).await {
        Ok(l) => l,
        Err(e) => {
            eprintln!(
                "erpdata-sandbox: cannot listen on {}:{}: {e}",
                config.host, config.port
            );
            return ExitCode::FAILURE;
        }
    };
    let tls = match config.tls.then(SelfSigned::generate).transpose() {
        Ok(tls) => tls,
        Err(e) => {
            eprintln!("erpdata-sandbox: {e}");
            return ExitCode::FAILURE;
        }
    };
    if let (Some(tls), Some(path)) = (&tls, &config.tls_cert) {
        if let Err(e) = std::fs::write(path, tls.cert_pem()) {
            eprintln!("erpdata-sandbox: cannot write {}: {e}", path.display());
            return ExitCode::FAILURE;
        }
    }
    let scheme = if tls.is_some() { "https" } else { "http" };
    let base = match listener.local_addr() {
        Ok(addr) => format!("{scheme}://{addr}"),
        Err(e) => {
            eprintln!("erpdata-sandbox: {e}");
            return ExitCode::FAILURE;
        }
    };
    announce(&base, &config);
    let served = match &tls {
        Some(tls) => serve_tls_with_shutdown(config, listener, tls, shutdown_signal()).await,
        None => serve_with_shutdown(config, listener, shutdown_signal()).await,
    };
    match served {
        Ok(()) => {
            eprintln!("erpdata-sandbox: stopped");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("erpdata-sandbox: {e}");
            ExitCode::FAILURE
        }
    }
}

/// The base URL first and flushed at once: scripts and tests read that line
/// to learn the port. Write errors are ignored because a reader may close
/// the pipe after that line.
fn announce(base: &str, config: &Config) {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{base}");
    let _ = out.flush();
    // A token chosen by the user is not echoed; the default one is public.
    let token = if config.token == DEFAULT_TOKEN {
        DEFAULT_TOKEN
    } else {
        "YOUR_TOKEN"
    };
    let dues = form_urlencoded::Serializer::new(String::new())
        .append_pair("sys_projectfolder", config.project_folder())
        .append_pair("func", "getduesDet")
        .append_pair("acid", "C001")
        .append_pair("type", "RECEIPT")
        .finish();
    let table = form_urlencoded::Serializer::new(String::new())
        .append_pair("req", "getdata")
        .append_pair("project", &config.project)
        .append_pair("accesstoken", token)
        .append_pair("yearid", "2025")
        .append_pair("compid", "1")
        .append_pair("table", "sales_invoice")
        .finish();
    let _ = writeln!(
        out,
        "project: {} (folder {}), access token: {}\n\
         companies 1, 2; years 2024, 2025; tables account, sales_invoice, purchase_bill, receipt, payment\n\
         style: {} (others under {base}/_style/native|mysqlnd|strings/)\n\
         dues:  {base}/apis/ajax.php?{dues}\n\
         table: {base}/apis/dataapi.php?{table}",
        config.project,
        config.project_folder(),
        if token == DEFAULT_TOKEN {
            DEFAULT_TOKEN
        } else {
            "(as set by --token or ERPDATA_SANDBOX_TOKEN)"
        },
        config.style,
    );
    let _ = out.flush();
}
