//! A TLS connection to a server that answers in plain HTTP: a base URL of
//! `https://` for a service without TLS, as a PHP service on a developer's
//! own machine often is. Each TLS stack reports it in words of its own;
//! left as they are, they read as a broken network and the call is
//! retried, though the same server would answer the same way again.

/// What the TLS stacks say on reading an HTTP answer where a TLS record
/// was due, lower-cased: OpenSSL (Python's `ssl`, Node, curl) and
/// BoringSSL read the answer's first bytes as a record's version or
/// length; rustls (reqwest, ureq, Deno) as its content type.
const MARKERS: [&str; 4] = [
    "wrong version number",
    "wrong_version_number",
    "packet length too long",
    "invalidcontenttype",
];

/// Whether the host stack's account of a failure says the server answered
/// a TLS handshake in plain HTTP.
pub(super) fn answered_plain_http(detail: &str) -> bool {
    let detail = detail.to_ascii_lowercase();
    MARKERS.iter().any(|m| detail.contains(m))
}

#[cfg(test)]
mod tests {
    use super::answered_plain_http;

    #[test]
    fn each_stack_s_words_are_known() {
        for detail in [
            // Python's ssl (OpenSSL), through httpx.
            "ConnectError: [SSL: WRONG_VERSION_NUMBER] wrong version number (_ssl.c:1006)",
            // Node's fetch and node:http (OpenSSL).
            "write EPROTO 808C05B3E87F0000:error:0A00010B:SSL routines:ssl3_get_record:\
             wrong version number:../deps/openssl/openssl/ssl/record/ssl3_record.c:350:",
            "ERR_SSL_PACKET_LENGTH_TOO_LONG: packet length too long",
            // rustls, under reqwest and ureq.
            "error sending request: received corrupt message of type InvalidContentType",
        ] {
            assert!(answered_plain_http(detail), "{detail}");
        }
        for detail in [
            "connection refused",
            "invalid peer certificate: UnknownIssuer",
            "[SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed",
            "",
        ] {
            assert!(!answered_plain_http(detail), "{detail}");
        }
    }
}
