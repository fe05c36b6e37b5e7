//! Settings of a sandbox instance and the command line that sets them.

use std::fmt;
use std::num::NonZeroU32;
use std::path::PathBuf;
use std::time::Duration;

use crate::faults::{Fault, KNOWN};
use crate::style::Style;

pub const DEFAULT_HOST: &str = "127.0.0.1";
pub const DEFAULT_PORT: u16 = 8787;
pub const DEFAULT_PROJECT: &str = "demo";
/// Deliberately public: the sandbox guards nothing.
pub const DEFAULT_TOKEN: &str = "sandbox-token-not-secret";
pub const DEFAULT_SEED: u64 = 42;
pub const TOKEN_ENV: &str = "ERPDATA_SANDBOX_TOKEN";

#[derive(Clone, PartialEq, Eq)]
pub struct Config {
    pub host: String,
    /// `0` lets the OS pick a free port.
    pub port: u16,
    /// The `project` of the table data fetch.
    pub project: String,
    /// The `sys_projectfolder` of the dues query; `None` means `project`.
    pub project_folder: Option<String>,
    pub token: String,
    /// Size of company 1's 2025 `sales_invoice` table; `None` is demo size.
    pub rows: Option<u64>,
    pub seed: u64,
    /// How values are typed on the plain paths (a `/_style/STYLE/` prefix
    /// chooses per request).
    pub style: Style,
    /// One line per request on stderr.
    pub log_requests: bool,
    /// Added before every answer.
    pub latency: Option<Duration>,
    /// Percent of requests answered 503 (seeded by `seed`).
    pub fail_rate: Option<u8>,
    /// A fault (as in `/_faults/FAULT/KEY/`) met by every request on the
    /// plain paths.
    pub fault: Option<String>,
    /// Serve https with a self-signed certificate made at start.
    pub tls: bool,
    /// Where to write that certificate (PEM); implies `tls`.
    pub tls_cert: Option<PathBuf>,
    /// Every ajax.php call must carry `accesstoken` (the table fetch's
    /// token), as a deployment that guards those functions would ask.
    pub ajax_token: bool,
    /// HTTP chunks of a table answer too large for one: at most this many
    /// bytes each (PHP behind nginx sends 4 or 8 KiB); `None`: as they are
    /// made, about 64 KiB.
    pub chunk_bytes: Option<NonZeroU32>,
    /// Make each table answer once and send it again from memory: the
    /// answer then costs this machine what one from a service elsewhere
    /// would, its sending (for benchmarks of a client on the same cores).
    pub cache_answers: bool,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            host: DEFAULT_HOST.to_owned(),
            port: DEFAULT_PORT,
            project: DEFAULT_PROJECT.to_owned(),
            project_folder: None,
            token: DEFAULT_TOKEN.to_owned(),
            rows: None,
            seed: DEFAULT_SEED,
            style: Style::default(),
            log_requests: true,
            latency: None,
            fail_rate: None,
            fault: None,
            tls: false,
            tls_cert: None,
            ajax_token: false,
            chunk_bytes: None,
            cache_answers: false,
        }
    }
}

// By hand so that the token never reaches a log through `{:?}`.
impl fmt::Debug for Config {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Config")
            .field("host", &self.host)
            .field("port", &self.port)
            .field("project", &self.project)
            .field("project_folder", &self.project_folder)
            .field("token", &"<redacted>")
            .field("rows", &self.rows)
            .field("seed", &self.seed)
            .field("style", &self.style)
            .field("log_requests", &self.log_requests)
            .field("latency", &self.latency)
            .field("fail_rate", &self.fail_rate)
            .field("fault", &self.fault)
            .field("tls", &self.tls)
            .field("tls_cert", &self.tls_cert)
            .field("ajax_token", &self.ajax_token)
            .field("chunk_bytes", &self.chunk_bytes)
            .field("cache_answers", &self.cache_answers)
            .finish()
    }
}

impl Config {
    pub fn project_folder(&self) -> &str {
        self.project_folder.as_deref().unwrap_or(&self.project)
    }
}

/// What the command line asks for.
#[derive(Debug, PartialEq, Eq)]
pub enum Command {
    Run(Config),
    Help,
    Version,
}

pub const USAGE: &str = "\
Usage: erpdata-sandbox [OPTIONS]

A local fake of the cloud ERP's data interface (apis/ajax.php, apis/dataapi.php).
Prints its base URL as the first line of stdout.

Options:
  --host HOST             address to listen on [default: 127.0.0.1]
  --port PORT             port; 0 picks a free one [default: 8787]
  --project NAME          project of the table data fetch [default: demo]
  --project-folder NAME   sys_projectfolder of the dues query [default: the project]
  --token TOKEN           access token [default: sandbox-token-not-secret,
                          or $ERPDATA_SANDBOX_TOKEN]
  --rows N                rows of sales_invoice for company 1, year 2025
                          [default: demo size, 40]
  --seed N                seed of the demo data [default: 42]
  --style STYLE           how values are typed: native (money and integers
                          as JSON numbers), mysqlnd (money as strings
                          \"1500.00\", integers as numbers), strings (every
                          non-null value a string) [default: mysqlnd];
                          a /_style/STYLE/ path prefix chooses per request
  --ajax-token            require the access token (accesstoken) on every
                          ajax.php call too, in the query string or a form body
  --chunk-bytes N         HTTP chunks of a large table answer of at most N
                          bytes, as PHP behind nginx sends 4 or 8 KiB
                          [default: about 64 KiB each]
  --cache-answers         make each table answer once and send it again from
                          memory, as a service elsewhere costs this machine
                          only the sending (for benchmarks of a client)
  --quiet                 do not log requests to stderr

Hostile mode (see also the /_faults/FAULT/KEY/ path prefix):
  --latency MS            delay every answer by MS milliseconds
  --fail-rate PERCENT     answer that share of requests with 503, Retry-After: 0
                          and an HTML page (seeded by --seed)
  --fault FAULT           meet FAULT on every request to the plain paths,
                          counted under the key - (GET /_faults/count/-)
  --tls                   serve https with a self-signed certificate for
                          127.0.0.1 and localhost, made at start
  --tls-cert FILE         write that certificate (PEM) to FILE; implies --tls

FAULT: pass, latency-MS, trickle-BYTESxMS, status-CODExN[-raSECS],
  backoff-CODExN, flaky-PERCENT, notice, html200, service-error,
  truncate-BYTES, short-BYTES, reset-BYTES, stall-MS, hang, endless,
  redirect-CODE-self, redirect-CODE-PORT, redirect-CODE-loop
Fault reads: GET /_faults/count/KEY, /_faults/log/KEY, /_faults/total
  -h, --help              print this help
  -V, --version           print the version
";

/// Parses the arguments after the program name. `env_token` is the value
/// of [`TOKEN_ENV`], which `--token` overrides.
pub fn parse_args<I>(args: I, env_token: Option<String>) -> Result<Command, String>
where
    I: IntoIterator<Item = String>,
{
    let mut config = Config::default();
    if let Some(token) = env_token.filter(|t| !t.is_empty()) {
        config.token = token;
    }
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        let (flag, inline) = match arg.split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f.to_owned(), Some(v.to_owned())),
            _ => (arg, None),
        };
        let mut value = || -> Result<String, String> {
            inline
                .clone()
                .or_else(|| args.next())
                .ok_or_else(|| format!("{flag} needs a value"))
        };
        match flag.as_str() {
            "-h" | "--help" => return Ok(Command::Help),
            "-V" | "--version" => return Ok(Command::Version),
            "--quiet" => config.log_requests = false,
            "--ajax-token" => config.ajax_token = true,
            "--cache-answers" => config.cache_answers = true,
            "--host" => config.host = value()?,
            "--port" => config.port = number(&flag, &value()?)?,
            "--project" => config.project = value()?,
            "--project-folder" => config.project_folder = Some(value()?),
            "--token" => config.token = value()?,
            "--rows" => config.rows = Some(number(&flag, &value()?)?),
            "--seed" => config.seed = number(&flag, &value()?)?,
            "--chunk-bytes" => {
                let bytes: u32 = number(&flag, &value()?)?;
                let bytes = NonZeroU32::new(bytes)
                    .ok_or_else(|| format!("{flag}: a chunk has at least one byte"))?;
                config.chunk_bytes = Some(bytes);
            }
            "--style" => {
                let style = value()?;
                config.style = Style::parse(&style).ok_or_else(|| {
                    format!(
                        "{flag}: unknown style {style:?}: expected one of native, mysqlnd, strings"
                    )
                })?;
            }
            "--latency" => {
                config.latency = Some(Duration::from_millis(number(&flag, &value()?)?));
            }
            "--fail-rate" => {
                let percent: u8 = number(&flag, &value()?)?;
                if percent > 100 {
                    return Err(format!("{flag}: a percentage is at most 100"));
                }
                config.fail_rate = Some(percent);
            }
            "--fault" => {
                let fault = value()?;
                if Fault::parse(&fault).is_none() {
                    return Err(format!(
                        "{flag}: unknown fault {fault:?}: expected one of {KNOWN}"
                    ));
                }
                config.fault = Some(fault);
            }
            "--tls" => config.tls = true,
            "--tls-cert" => {
                config.tls_cert = Some(PathBuf::from(value()?));
                config.tls = true;
            }
            _ => return Err(format!("unknown argument: {flag}")),
        }
    }
    if config.token.is_empty() {
        return Err("the access token must not be empty".to_owned());
    }
    Ok(Command::Run(config))
}

fn number<T: std::str::FromStr>(flag: &str, value: &str) -> Result<T, String> {
    value
        .trim()
        .parse()
        .map_err(|_| format!("{flag}: not a valid number: {value}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(args: &[&str], env: Option<&str>) -> Result<Config, String> {
        match parse_args(args.iter().map(|s| s.to_string()), env.map(str::to_owned))? {
            Command::Run(c) => Ok(c),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn defaults() {
        let c = run(&[], None).unwrap();
        assert_eq!(c, Config::default());
        assert_eq!(c.project_folder(), "demo");
        assert_eq!(c.style, Style::Mysqlnd);
    }

    #[test]
    fn style_flag() {
        for (arg, style) in [
            ("native", Style::Native),
            ("mysqlnd", Style::Mysqlnd),
            ("strings", Style::Strings),
        ] {
            assert_eq!(run(&["--style", arg], None).unwrap().style, style);
            let inline = format!("--style={arg}");
            assert_eq!(run(&[&inline], None).unwrap().style, style);
        }
        let e = run(&["--style", "json"], None).unwrap_err();
        assert!(e.starts_with("--style: unknown style \"json\""), "{e}");
        assert!(e.contains("native, mysqlnd, strings"), "{e}");
        assert!(run(&["--style", "Native"], None).is_err());
        assert_eq!(
            run(&["--style"], None).unwrap_err(),
            "--style needs a value"
        );
    }

    #[test]
    fn flags_both_forms() {
        let c = run(
            &[
                "--port=0",
                "--project",
                "acme",
                "--rows",
                "100",
                "--seed=7",
                "--host",
                "::1",
            ],
            None,
        )
        .unwrap();
        assert_eq!(
            (c.port, c.project.as_str(), c.rows, c.seed, c.host.as_str()),
            (0, "acme", Some(100), 7, "::1")
        );
        assert_eq!(c.project_folder(), "acme");
        let c = run(&["--project-folder", "f"], None).unwrap();
        assert_eq!(c.project_folder(), "f");
    }

    #[test]
    fn token_from_env_then_flag() {
        assert_eq!(run(&[], Some("e")).unwrap().token, "e");
        assert_eq!(run(&["--token", "f"], Some("e")).unwrap().token, "f");
        assert_eq!(run(&[], Some("")).unwrap().token, DEFAULT_TOKEN);
    }

    #[test]
    fn errors() {
        assert!(run(&["--port"], None).unwrap_err().contains("--port"));
        assert!(run(&["--port", "x"], None).is_err());
        assert!(run(&["--bogus"], None).is_err());
        assert!(run(&["--token="], None).is_err());
        assert_eq!(parse_args(["-h".to_owned()], None), Ok(Command::Help));
    }

    #[test]
    fn hostile_mode_flags() {
        let c = run(
            &[
                "--latency",
                "50",
                "--fail-rate=1",
                "--fault",
                "status-503x2",
                "--tls-cert",
                "/tmp/c.pem",
            ],
            None,
        )
        .unwrap();
        assert_eq!(c.latency, Some(Duration::from_millis(50)));
        assert_eq!(c.fail_rate, Some(1));
        assert_eq!(c.fault.as_deref(), Some("status-503x2"));
        assert!(c.tls);
        assert_eq!(c.tls_cert, Some(PathBuf::from("/tmp/c.pem")));
        assert!(run(&["--tls"], None).unwrap().tls);
        assert!(run(&["--ajax-token"], None).unwrap().ajax_token);
        assert_eq!(
            run(&["--chunk-bytes", "8192"], None).unwrap().chunk_bytes,
            NonZeroU32::new(8192)
        );
        assert_eq!(run(&[], None).unwrap().chunk_bytes, None);
        assert!(run(&["--chunk-bytes", "0"], None).is_err());
        assert!(!run(&[], None).unwrap().ajax_token);
        assert!(run(&["--cache-answers"], None).unwrap().cache_answers);
        assert!(!run(&[], None).unwrap().cache_answers);
        assert!(run(&["--fail-rate", "101"], None).is_err());
        assert!(run(&["--fault", "bogus"], None)
            .unwrap_err()
            .contains("redirect-CODE-loop"));
    }

    #[test]
    fn debug_hides_token() {
        let c = Config {
            token: "s3cret".into(),
            ..Config::default()
        };
        assert!(!format!("{c:?}").contains("s3cret"));
    }
}
