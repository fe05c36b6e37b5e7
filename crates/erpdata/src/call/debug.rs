//! `Debug` of an [`Action`]: a host that logs each step must not log the
//! token, which a `Send`'s request holds in its form body (the POST form)
//! or its URL (the GET form). The request shows its method, its URL and its
//! body with the value of `accesstoken` withheld, and the URL redacted by
//! the redactor a request the core built carries.

use std::fmt;

use super::Action;
use crate::body::without_token;
use crate::redact::Redactor;

impl<O: fmt::Debug> fmt::Debug for Action<O> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Action::Send {
                request,
                connect,
                read,
                wait,
            } => {
                let uri = request.uri();
                let url = match uri.query() {
                    Some(query) => {
                        let before = uri.to_string();
                        let at = before.len() - query.len();
                        format!("{}{}", &before[..at], without_token(query))
                    }
                    None => uri.to_string(),
                };
                // Redacted too where the request carries its config's
                // redactor (every request the core built): the token in
                // the path of the base URL, or in a redirect's `Location`
                // (`?return=...%3Daccesstoken%3D...`), is not an
                // `accesstoken` pair.
                let url = match request.extensions().get::<Redactor>() {
                    Some(redactor) => redactor.redact(&url),
                    None => url,
                };
                f.debug_struct("Send")
                    .field("method", request.method())
                    .field("url", &url)
                    .field("body", request.body())
                    .field("connect", connect)
                    .field("read", read)
                    .field("wait", wait)
                    .finish()
            }
            Action::Read { wait } => f.debug_struct("Read").field("wait", wait).finish(),
            Action::Sleep(wait) => f.debug_tuple("Sleep").field(wait).finish(),
            Action::Emit(batch) => f.debug_tuple("Emit").field(batch).finish(),
            Action::Done(output) => f.debug_tuple("Done").field(output).finish(),
            Action::Failed(error) => f.debug_tuple("Failed").field(error).finish(),
        }
    }
}
