use std::fmt;

use url::{Host, Url};

use crate::error::{Error, Result};
use crate::id::Id;
use crate::redact::Redactor;
use crate::retry_budget::RetryBudget;
use crate::source::TransportSource;
use crate::token::AccessToken;
use crate::validate;

/// Everything a call needs besides its own parameters.
///
/// Built with [`Config::builder`]; immutable afterwards. `Debug` never shows
/// the token, not even in a base URL the caller put it in.
#[derive(Clone)]
pub struct Config {
    base_url: Url,
    project: Option<String>,
    project_folder: Option<String>,
    access_token: Option<AccessToken>,
    company_id: Option<Id>,
    year_id: Option<Id>,
    allow_insecure_http: bool,
    ajax_token: bool,
    /// Shared by every clone: every call of the client and its flows.
    retry_budget: RetryBudget,
}

/// Collects a [`Config`]; [`ConfigBuilder::build`] validates every field.
/// `Debug` never shows the token, as [`Config`]'s.
#[derive(Clone, Default)]
pub struct ConfigBuilder {
    /// `None` until given or read from `ERPDATA_BASE_URL`; `build` says
    /// how to give one.
    base_url: Option<String>,
    project: Option<String>,
    project_folder: Option<String>,
    access_token: Option<AccessToken>,
    company_id: Option<Id>,
    year_id: Option<Id>,
    allow_insecure_http: bool,
    ajax_token: bool,
    /// The settings whose values were read from a variable, each with its
    /// variable (see `env`): an error about such a value names the
    /// variable, where the value can be fixed.
    from_vars: Vec<(&'static str, &'static str)>,
}

impl Config {
    /// Starts a configuration for the service at `base_url`
    /// (e.g. `https://erp.example.com/` or `https://host/erp/`).
    pub fn builder(base_url: impl Into<String>) -> ConfigBuilder {
        ConfigBuilder::new().base_url(base_url)
    }

    /// The service's base URL (always ends with `/`).
    pub fn base_url(&self) -> &Url {
        &self.base_url
    }

    /// The base URL to show (a binding's `repr`, `Debug`, a log line):
    /// [`base_url`](Self::base_url) with the token redacted where the
    /// caller put it (a gateway's path). A token of fewer than 8
    /// characters, which would be found among the URL's own characters, is
    /// not looked for, as in a refused value's reason.
    ///
    /// ```
    /// use erpdata::Config;
    ///
    /// let config = Config::builder("https://erp.example.com/k/fake-token-123/")
    ///     .access_token("fake-token-123")
    ///     .build()?;
    /// assert_eq!(config.display_base_url(), "https://erp.example.com/k/[REDACTED]/");
    /// assert!(!format!("{config:?}").contains("fake-token-123"));
    /// # Ok::<(), erpdata::Error>(())
    /// ```
    pub fn display_base_url(&self) -> String {
        self.redactor().redact_setting(self.base_url.as_str())
    }

    /// The ERP project name, if set.
    pub fn project(&self) -> Option<&str> {
        self.project.as_deref()
    }

    /// The project folder sent as `sys_projectfolder`: the configured folder,
    /// or else the project name.
    pub fn project_folder(&self) -> Option<&str> {
        self.project_folder.as_deref().or(self.project.as_deref())
    }

    /// Whether an access token is configured (its value is never exposed here).
    pub fn has_access_token(&self) -> bool {
        self.access_token.is_some()
    }

    pub(crate) fn access_token(&self) -> Option<&AccessToken> {
        self.access_token.as_ref()
    }

    /// The default company id for table fetches.
    pub fn company_id(&self) -> Option<&Id> {
        self.company_id.as_ref()
    }

    /// The default year id for table fetches.
    pub fn year_id(&self) -> Option<&Id> {
        self.year_id.as_ref()
    }

    /// Whether plain http to a non-loopback host was explicitly allowed.
    pub fn allow_insecure_http(&self) -> bool {
        self.allow_insecure_http
    }

    /// Whether `ajax.php` calls (the dues query and the other functions)
    /// send the access token unless a call says otherwise.
    pub fn ajax_token(&self) -> bool {
        self.ajax_token
    }

    /// Whether a host stack may send this configuration's requests through
    /// a proxy (one it was given, or `HTTP_PROXY`, `HTTPS_PROXY` and
    /// `ALL_PROXY`, which reqwest and ureq read by themselves): not when
    /// the base URL is loopback. Plain http with the token is allowed there
    /// only because such a request never leaves the machine; through a
    /// proxy it would travel unencrypted, token included, to the proxy's
    /// host, and reach that host's loopback instead of this one's.
    ///
    /// ```
    /// use erpdata::Config;
    ///
    /// assert!(!Config::builder("http://127.0.0.1:8787").build()?.proxy_allowed());
    /// assert!(Config::builder("https://erp.example.com/").build()?.proxy_allowed());
    /// # Ok::<(), erpdata::Error>(())
    /// ```
    pub fn proxy_allowed(&self) -> bool {
        !is_loopback(&self.base_url)
    }

    /// `{base}/apis/{file}`, keeping any path prefix of the base URL.
    pub(crate) fn endpoint(&self, file: &str) -> Url {
        let mut url = self.base_url.clone();
        url.path_segments_mut()
            // A base URL that passed `build` can always be a base.
            .expect("base URL checked in build")
            .pop_if_empty()
            .push("apis")
            .push(file);
        url
    }

    /// Replaces every occurrence of the token (raw and in the encodings a
    /// URL or form body would carry) with [`REDACTED`].
    ///
    /// Bindings pass any text that might have seen a request (a host stack's
    /// error message, a URL to display) through here.
    ///
    /// [`REDACTED`]: crate::REDACTED
    pub fn redact(&self, text: &str) -> String {
        self.redactor().redact(text)
    }

    /// `err` with the field and reason of an `InvalidInput` redacted, as the refusals
    /// of [`Config::invoke`] and of a [`Plan`](crate::Plan) are: a value a
    /// check repeats (an unknown type name in a declared schema, a column
    /// name) may be the token pasted in the wrong place. Bindings pass
    /// through here what they check apart from a call: the typing options
    /// a call is given with.
    pub fn redact_error(&self, err: Error) -> Error {
        err.input_redacted(&self.redactor())
    }

    /// The retry budget every call of this configuration (and of its
    /// clones) shares; see [`RetryBudget`].
    pub fn retry_budget(&self) -> &RetryBudget {
        &self.retry_budget
    }

    /// What the decoder, excerpts and transport errors need to redact, so
    /// that they need not hold (or import) the whole configuration.
    pub(crate) fn redactor(&self) -> Redactor {
        Redactor::new(self.access_token.clone())
    }
}

impl fmt::Debug for Config {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Derived, it printed the base URL as given, token and all.
        f.debug_struct("Config")
            .field("base_url", &self.display_base_url())
            .field("project", &self.project)
            .field("project_folder", &self.project_folder)
            .field("access_token", &self.access_token)
            .field("company_id", &self.company_id)
            .field("year_id", &self.year_id)
            .field("allow_insecure_http", &self.allow_insecure_http)
            .field("ajax_token", &self.ajax_token)
            .field("retry_budget", &self.retry_budget)
            .finish()
    }
}

impl fmt::Debug for ConfigBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let redactor = Redactor::new(self.access_token.clone());
        let base_url = self.base_url.as_deref().map(|u| redactor.redact_setting(u));
        f.debug_struct("ConfigBuilder")
            .field("base_url", &base_url)
            .field("project", &self.project)
            .field("project_folder", &self.project_folder)
            .field("access_token", &self.access_token)
            .field("company_id", &self.company_id)
            .field("year_id", &self.year_id)
            .field("allow_insecure_http", &self.allow_insecure_http)
            .field("ajax_token", &self.ajax_token)
            .field("from_vars", &self.from_vars)
            .finish()
    }
}

impl ConfigBuilder {
    /// A builder with nothing set, not even the base URL: for a binding or
    /// a host that takes every setting as optional and fills the rest from
    /// the variables ([`ConfigBuilder::or_from_vars`], which then reads
    /// `ERPDATA_BASE_URL` too). [`ConfigBuilder::build`] without a base URL
    /// says how to give one.
    ///
    /// ```
    /// let err = erpdata::ConfigBuilder::new().build().unwrap_err();
    /// assert_eq!(err.field(), Some("base_url"));
    ///
    /// let config = erpdata::ConfigBuilder::new()
    ///     .base_url("https://erp.example.com")
    ///     .build()?;
    /// assert_eq!(config.base_url().as_str(), "https://erp.example.com/");
    /// # Ok::<(), erpdata::Error>(())
    /// ```
    pub fn new() -> Self {
        Self::default()
    }

    /// The service's base URL (e.g. `https://erp.example.com/` or
    /// `https://host/erp/`); checked by `build`.
    pub fn base_url(mut self, base_url: impl Into<String>) -> Self {
        self.base_url = Some(base_url.into());
        self.given("base_url")
    }

    /// The ERP project name (the table fetch's `project`).
    pub fn project(mut self, project: impl Into<String>) -> Self {
        self.project = Some(project.into());
        self.given("project")
    }

    /// The project folder (the dues query's `sys_projectfolder`); defaults to
    /// the project name.
    pub fn project_folder(mut self, folder: impl Into<String>) -> Self {
        self.project_folder = Some(folder.into());
        self.given("project_folder")
    }

    /// The access token the table fetch requires.
    pub fn access_token(mut self, token: impl Into<AccessToken>) -> Self {
        self.access_token = Some(token.into());
        self.given("access_token")
    }

    /// The company id used when a table query gives none.
    pub fn company_id(mut self, id: impl Into<Id>) -> Self {
        self.company_id = Some(id.into());
        self.given("company_id")
    }

    /// The year id used when a table query gives none.
    pub fn year_id(mut self, id: impl Into<Id>) -> Self {
        self.year_id = Some(id.into());
        self.given("year_id")
    }

    /// Allows sending the token over plain http to a host that is not
    /// loopback. Off by default: only for trusted private networks.
    pub fn allow_insecure_http(mut self, allow: bool) -> Self {
        self.allow_insecure_http = allow;
        self
    }

    /// Sends the access token with every `ajax.php` call (the dues query
    /// and the other functions) unless a call says otherwise, for a
    /// deployment that asks for it there. Off by default: the interface
    /// defines no credential for that endpoint. See [`crate::AjaxQuery`]
    /// for how such a call is sent.
    pub fn ajax_token(mut self, send: bool) -> Self {
        self.ajax_token = send;
        self
    }

    /// Whether `setting` (the core's name: `base_url`, `company_id`...)
    /// has a value.
    pub(crate) fn has(&self, setting: &str) -> bool {
        match setting {
            "base_url" => self.base_url.is_some(),
            "project" => self.project.is_some(),
            "project_folder" => self.project_folder.is_some(),
            "access_token" => self.access_token.is_some(),
            "company_id" => self.company_id.is_some(),
            "year_id" => self.year_id.is_some(),
            _ => true,
        }
    }

    /// Marks `setting`'s value as read from `variable`.
    pub(crate) fn read_from(mut self, setting: &'static str, variable: &'static str) -> Self {
        self.from_vars.push((setting, variable));
        self
    }

    /// `setting` given in code: no longer its variable's.
    fn given(mut self, setting: &str) -> Self {
        self.from_vars.retain(|(s, _)| *s != setting);
        self
    }

    /// Validates every field and returns the configuration. An error about
    /// a value read from a variable names the variable (`invalid
    /// ERPDATA_PROJECT: ...`), one about a value given in code the setting.
    pub fn build(self) -> Result<Config> {
        let from_vars = self.from_vars.clone();
        let redactor = Redactor::new(self.access_token.clone());
        self.checked()
            .map_err(|err| match err.input_redacted(&redactor) {
                Error::InvalidInput { field, reason } => Error::InvalidInput {
                    field: from_vars
                        .iter()
                        .find(|(setting, _)| *setting == field)
                        .map_or(field, |(_, variable)| (*variable).to_owned()),
                    reason,
                },
                other => other,
            })
    }

    fn checked(self) -> Result<Config> {
        let base_url = match &self.base_url {
            Some(text) => parse_base_url(text)?,
            None => {
                return Err(Error::invalid(
                    "base_url",
                    format!(
                        "is required: pass the service's base URL (e.g. \
                         https://erp.example.com/) or set {}",
                        crate::env::BASE_URL_VAR
                    ),
                ))
            }
        };
        if let Some(p) = &self.project {
            validate::setting("project", p)?;
        }
        if let Some(f) = &self.project_folder {
            validate::setting("project_folder", f)?;
        }
        if let Some(t) = &self.access_token {
            validate::token(t.expose_secret())?;
            if base_url.scheme() == "http" && !is_loopback(&base_url) && !self.allow_insecure_http {
                return Err(Error::invalid(
                    "base_url",
                    format!(
                        "uses plain http to {}, a host that is not loopback, which would send \
                         the access token unencrypted; use https, or set allow_insecure_http to \
                         allow it",
                        base_url.host_str().unwrap_or_default()
                    ),
                ));
            }
        }
        if self.ajax_token && self.access_token.is_none() {
            return Err(Error::invalid(
                "ajax_token",
                "asks to send the access token with ajax.php calls, but no access token is set",
            ));
        }
        if let Some(c) = &self.company_id {
            validate::setting("company_id", c.as_str())?;
        }
        if let Some(y) = &self.year_id {
            validate::setting("year_id", y.as_str())?;
        }
        Ok(Config {
            base_url,
            project: self.project,
            project_folder: self.project_folder,
            access_token: self.access_token,
            company_id: self.company_id,
            year_id: self.year_id,
            allow_insecure_http: self.allow_insecure_http,
            ajax_token: self.ajax_token,
            retry_budget: RetryBudget::new(),
        })
    }
}

impl TransportSource {
    /// Captures `error` and its sources, each message redacted with
    /// `config`'s token.
    pub fn capture(config: &Config, error: &(dyn std::error::Error + 'static)) -> Self {
        TransportSource::redacted(&config.redactor(), error)
    }
}

/// `text` when it is a host and a port with no scheme before them
/// (`localhost:8080`, `erp.example.com:8443/erp`), which the URL parser
/// reads as the scheme `localhost`.
fn host_and_port(text: &str) -> Option<&str> {
    let (host, rest) = text.split_once(':')?;
    let port = rest.split('/').next()?;
    let named = !host.is_empty()
        && host
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-'));
    let numbered = !port.is_empty() && port.len() <= 5 && port.bytes().all(|b| b.is_ascii_digit());
    (named && numbered).then_some(text)
}

fn parse_base_url(text: &str) -> Result<Url> {
    let bad = |reason: &str| Error::invalid("base_url", reason.to_owned());
    if text.trim().is_empty() {
        return Err(bad("must not be empty"));
    }
    if validate::quoted(text.trim()) {
        // As a settings file writes it: the parser's "relative URL without
        // a base" said nothing of the quotes.
        return Err(Error::invalid(
            "base_url",
            format!(
                "{} is wrapped in quotes; {}",
                text.trim(),
                validate::QUOTES_HINT
            ),
        ));
    }
    if let Some(comment) = validate::trailing_comment(text.trim()) {
        // The parser reads it as a fragment: "must not have a fragment"
        // said nothing of the comment.
        return Err(Error::invalid(
            "base_url",
            format!(
                "ends with what reads as a comment ({comment:?}); {}",
                validate::COMMENT_HINT
            ),
        ));
    }
    // The URL parser would drop tabs and newlines and percent-encode the
    // rest, quietly making another URL than the one written.
    if let Some(c) = text.trim().chars().find(|c| c.is_control()) {
        return Err(Error::invalid(
            "base_url",
            format!("contains the control character U+{:04X}", c as u32),
        ));
    }
    // "localhost:8080" parses as the scheme "localhost", "127.0.0.1:8080"
    // not at all: neither message would say what is missing.
    if let Some(written) = host_and_port(text.trim()) {
        let scheme = match Url::parse(&format!("http://{written}")) {
            Ok(u) if is_loopback(&u) => "http",
            _ => "https",
        };
        let slash = if written.ends_with('/') { "" } else { "/" };
        return Err(bad(&format!(
            "must begin with http:// or https://; {written:?} reads as a host and a port: \
             write {scheme}://{written}{slash}"
        )));
    }
    let mut url = Url::parse(text.trim()).map_err(|e| {
        Error::invalid(
            "base_url",
            format!("is not an absolute URL ({e}); expected e.g. https://erp.example.com/"),
        )
    })?;
    if !matches!(url.scheme(), "http" | "https") {
        // ftp://, file:, or a name followed by what is not a port.
        return Err(bad(&format!(
            "must use http or https, got {:?}; it begins https://, as in \
             https://erp.example.com/",
            url.scheme()
        )));
    }
    if url.host().is_none() || url.cannot_be_a_base() {
        return Err(bad("must have a host"));
    }
    if !url.username().is_empty() || url.password().is_some() {
        // Credentials in a URL end up in logs and error messages.
        return Err(bad("must not contain a user name or password"));
    }
    if url.query().is_some() || url.fragment().is_some() {
        return Err(bad("must not have a query string or fragment"));
    }
    if !url.path().ends_with('/') {
        let path = format!("{}/", url.path());
        url.set_path(&path);
    }
    if let Some((usable, removed)) = without_scripts(&url) {
        // The client adds apis/ajax.php and apis/dataapi.php itself: this
        // URL would be asked for .../apis/apis/dataapi.php, and the
        // service's 404 page would not say why.
        return Err(Error::invalid(
            "base_url",
            format!(
                "ends in {removed:?}, a path the client adds itself (it asks for \
                 apis/ajax.php and apis/dataapi.php under the base URL); use {usable}"
            ),
        ));
    }
    Ok(url)
}

/// `url` without a trailing `apis/` folder or `….php` script, when it has
/// either: the base URL its writer meant, and the part taken off.
fn without_scripts(url: &Url) -> Option<(Url, String)> {
    let segments: Vec<&str> = url.path_segments()?.filter(|s| !s.is_empty()).collect();
    let mut keep = segments.as_slice();
    if let [rest @ .., last] = keep {
        if last.to_ascii_lowercase().ends_with(".php") {
            keep = rest;
        }
    }
    if let [rest @ .., last] = keep {
        if last.eq_ignore_ascii_case("apis") {
            keep = rest;
        }
    }
    if keep.len() == segments.len() {
        return None;
    }
    let mut usable = url.clone();
    let path: String = keep.iter().map(|s| format!("/{s}")).collect();
    usable.set_path(&format!("{path}/"));
    Some((usable, segments[keep.len()..].join("/")))
}

/// Loopback hosts are exempt from the https rule: traffic never leaves the
/// machine, which is how the sandbox and tests run.
pub(crate) fn is_loopback(url: &Url) -> bool {
    match url.host() {
        Some(Host::Domain(d)) => d.eq_ignore_ascii_case("localhost"),
        Some(Host::Ipv4(ip)) => ip.is_loopback(),
        Some(Host::Ipv6(ip)) => ip.is_loopback(),
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use std::error::Error as _;

    use super::*;
    use crate::error::TransportKind;

    #[test]
    fn a_base_url_naming_the_scripts_is_refused_with_the_one_to_use() {
        for (given, usable, tail) in [
            (
                "https://erp.example.com/apis/",
                "https://erp.example.com/",
                "apis",
            ),
            (
                "https://erp.example.com/apis",
                "https://erp.example.com/",
                "apis",
            ),
            (
                "https://erp.example.com/erp/apis/dataapi.php",
                "https://erp.example.com/erp/",
                "apis/dataapi.php",
            ),
            ("https://h/x/ajax.PHP", "https://h/x/", "ajax.PHP"),
            ("https://h/APIS/", "https://h/", "APIS"),
        ] {
            let e = Config::builder(given).build().unwrap_err();
            assert_eq!(e.field(), Some("base_url"), "{given}");
            let text = e.to_string();
            assert!(text.contains(&format!("use {usable}")), "{given}: {text}");
            assert!(text.contains(&format!("{tail:?}")), "{given}: {text}");
        }
        for fine in ["https://h/apis-v2/", "https://h/erp/", "https://h/php/"] {
            assert!(Config::builder(fine).build().is_ok(), "{fine}");
        }
    }

    #[test]
    fn debug_shows_no_token_put_in_the_base_url() {
        let url = "https://erp.example.com/gw/fake-token-4711/";
        let builder = Config::builder(url).access_token("fake-token-4711");
        let built = builder.clone().build().unwrap();
        for shown in [
            format!("{builder:?}"),
            format!("{built:?}"),
            format!("{built:#?}"),
        ] {
            assert!(!shown.contains("fake-token-4711"), "{shown}");
            assert!(shown.contains("/gw/[REDACTED]/"), "{shown}");
        }
        // A token too short to tell from the URL's own characters is not
        // looked for: "x" would have made "e[REDACTED]ample".
        let short = Config::builder(url).access_token("x").build().unwrap();
        assert_eq!(short.display_base_url(), url);
    }

    #[test]
    fn base_url_rules() {
        let c = Config::builder("https://h/erp").build().unwrap();
        assert_eq!(
            c.endpoint("ajax.php").as_str(),
            "https://h/erp/apis/ajax.php"
        );
        let c = Config::builder("https://h").build().unwrap();
        assert_eq!(c.endpoint("ajax.php").as_str(), "https://h/apis/ajax.php");
        // Whitespace around it, as read from a file or a variable, is not part of it.
        let c = Config::builder(" https://h/\n").build().unwrap();
        assert_eq!(c.base_url().as_str(), "https://h/");
        for bad in [
            "",
            "h/erp",
            "ftp://h/",
            "https://u:p@h/",
            "https://h/?a=1",
            "https://h/e\trp/",
            "https://h\n.example.com/",
            "https://h/\0/",
            "https://h/\u{85}/",
        ] {
            assert!(Config::builder(bad).build().is_err(), "{bad}");
        }
    }

    #[test]
    fn https_required_with_token() {
        let b = |u: &str| Config::builder(u).access_token("fake-token");
        assert!(b("http://erp.example.com/").build().is_err());
        assert!(b("http://erp.example.com/")
            .allow_insecure_http(true)
            .build()
            .is_ok());
        assert!(b("http://127.0.0.1:8787/").build().is_ok());
        assert!(b("http://localhost/").build().is_ok());
        assert!(b("http://[::1]/").build().is_ok());
        assert!(Config::builder("http://erp.example.com/").build().is_ok());
    }

    #[test]
    fn redaction() {
        let c = Config::builder("https://h/").access_token("a b+c").build();
        assert!(c.is_err(), "whitespace in a token is refused");
        let c = Config::builder("https://h/")
            .access_token("tok/+=en")
            .build()
            .unwrap();
        let s = c.redact("x tok/+=en y tok%2F%2B%3Den z");
        assert_eq!(s, "x [REDACTED] y [REDACTED] z");
        assert!(!format!("{c:?}").contains("tok/"));
    }

    #[derive(Debug)]
    struct Outer(std::io::Error);

    impl std::fmt::Display for Outer {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("error sending request for url (https://h/?accesstoken=fake-tok)")
        }
    }

    impl std::error::Error for Outer {
        fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
            Some(&self.0)
        }
    }

    #[test]
    fn chain_is_kept_and_redacted() {
        let c = Config::builder("https://h/")
            .access_token("fake-tok")
            .build()
            .unwrap();
        let inner = std::io::Error::new(std::io::ErrorKind::ConnectionReset, "reset by fake-tok");
        let err = c.transport_error_from(TransportKind::Reset, &Outer(inner));
        assert_eq!(
            err.to_string(),
            "transport error (reset): error sending request for url (https://h/?accesstoken=[REDACTED])"
        );
        let source = err.source().expect("a source");
        assert_eq!(source.to_string(), "reset by [REDACTED]");
        assert!(source.source().is_none());
        assert!(!format!("{err:?}").contains("fake-tok"));
        assert_eq!(err.clone(), err);
    }
}
