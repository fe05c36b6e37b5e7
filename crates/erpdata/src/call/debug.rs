//! `Debug` of an [`Action`]: a host that logs each step must not log the
//! token, which a `Send`'s request holds in its form body (the POST form)
//! or its URL (the GET form). The request shows its method, its URL and its
//! body with the value of `accesstoken` withheld.

use std::fmt;

use super::Action;
use crate::body::without_token;

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
