//! The body of a request the core builds: the form of a POST, empty for a
//! GET.
//!
//! Its own type rather than a `Vec<u8>` because the POST form holds the
//! access token, and `http::Request`'s `Debug` prints its body: a
//! `Vec<u8>`'s as a list of numbers that spell the token, which a
//! `dbg!(request)` or a `tracing::debug!(?request)` would write out. This
//! one's `Debug` shows the form with the value of `accesstoken` withheld.
//! Everything else reads it as bytes (it dereferences to `[u8]`), and
//! [`into_vec`](RequestBody::into_vec) hands the bytes to any HTTP library.

use std::fmt;
use std::ops::Deref;

use crate::token::REDACTED;

/// The bytes of a request's body: an `application/x-www-form-urlencoded`
/// form for a POST, nothing for a GET.
///
/// It reads as `&[u8]` (`request.body().len()`, `&request.body()[..]`);
/// [`into_vec`](Self::into_vec) (or `Vec::from`) gives the bytes to send.
/// Its `Debug` never shows the access token:
///
/// ```
/// # fn main() -> erpdata::Result<()> {
/// let config = erpdata::Config::builder("https://erp.example.com")
///     .project("demo")
///     .access_token("a-fake-token")
///     .build()?;
/// let request = config.table_request(&erpdata::TableQuery::new("voucher").company_id(1).year_id(2025))?;
/// let shown = format!("{request:?}");
/// assert!(shown.contains("accesstoken=[REDACTED]"));
/// assert!(!shown.contains("a-fake-token"));
/// let bytes: Vec<u8> = request.into_body().into_vec();
/// assert!(String::from_utf8(bytes).unwrap().contains("accesstoken=a-fake-token"));
/// # Ok(())
/// # }
/// ```
#[derive(Clone, Default, PartialEq, Eq, Hash)]
pub struct RequestBody(Vec<u8>);

impl RequestBody {
    /// The bytes to send.
    pub fn into_vec(self) -> Vec<u8> {
        self.0
    }

    /// The bytes, borrowed.
    pub fn as_bytes(&self) -> &[u8] {
        &self.0
    }
}

impl Deref for RequestBody {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        &self.0
    }
}

impl AsRef<[u8]> for RequestBody {
    fn as_ref(&self) -> &[u8] {
        &self.0
    }
}

impl From<Vec<u8>> for RequestBody {
    fn from(bytes: Vec<u8>) -> Self {
        RequestBody(bytes)
    }
}

impl From<RequestBody> for Vec<u8> {
    fn from(body: RequestBody) -> Self {
        body.0
    }
}

#[cfg(feature = "reqwest")]
impl From<RequestBody> for reqwest::Body {
    fn from(body: RequestBody) -> Self {
        body.0.into()
    }
}

impl fmt::Debug for RequestBody {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match std::str::from_utf8(&self.0) {
            Ok(text) => f
                .debug_tuple("RequestBody")
                .field(&without_token(text))
                .finish(),
            Err(_) => write!(f, "RequestBody({} bytes)", self.0.len()),
        }
    }
}

/// `Debug` of an answer kept whole (`name { status, body }`), its body as
/// its length only: a service may echo the token in it, and the bytes'
/// numbers would spell it.
pub(crate) fn debug_answer(
    f: &mut fmt::Formatter<'_>,
    name: &str,
    status: u16,
    body: &[u8],
) -> fmt::Result {
    f.debug_struct(name)
        .field("status", &status)
        .field("body", &format_args!("<{} bytes>", body.len()))
        .finish()
}

/// `name=value&...` with the value of each `accesstoken` pair withheld:
/// the form of a POST, or the query of a GET's URL.
pub(crate) fn without_token(pairs: &str) -> String {
    pairs
        .split('&')
        .map(|pair| match pair.split_once('=') {
            Some(("accesstoken", _)) => format!("accesstoken={REDACTED}"),
            _ => pair.to_owned(),
        })
        .collect::<Vec<_>>()
        .join("&")
}

#[cfg(test)]
mod tests {
    use super::RequestBody;

    #[test]
    fn debug_withholds_the_token_and_shows_the_rest() {
        let body = RequestBody::from(b"req=getdata&accesstoken=fake%2Ftok&table=voucher".to_vec());
        assert_eq!(
            format!("{body:?}"),
            r#"RequestBody("req=getdata&accesstoken=[REDACTED]&table=voucher")"#
        );
        let request = http::Request::new(body);
        let shown = format!("{request:?}");
        assert!(!shown.contains("fake"), "{shown}");
        assert!(!shown.contains("102, 97, 107, 101"), "{shown}");
    }

    #[test]
    fn bytes_that_are_no_text_are_counted_not_shown() {
        let body = RequestBody::from(vec![0xff, b'a']);
        assert_eq!(format!("{body:?}"), "RequestBody(2 bytes)");
        assert_eq!(&body[..], &[0xff, b'a']);
        assert_eq!(Vec::from(body), vec![0xff, b'a']);
    }
}
