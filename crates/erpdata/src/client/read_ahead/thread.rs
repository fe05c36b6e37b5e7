//! The blocking client's read-ahead: a thread of its own reads the body.
//!
//! It sends each chunk on a bounded channel, so that at most
//! [`AHEAD_CHUNKS`] wait for the decoder (a download faster than decoding
//! waits for it); buffers the caller is done with go back to the reader
//! for its next read. When the caller lets go (the call ended, or a stream
//! was dropped), the reader's next send fails and the thread ends,
//! dropping the body; a read it is blocked in ends with the request's read
//! timeout at the latest.

use std::io::{self, Read};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender, SyncSender};
use std::time::Duration;

use super::AHEAD_CHUNKS;

/// What the reader thread gives next.
pub(crate) enum Ahead {
    /// The next part of the body (never empty).
    Chunk(Vec<u8>),
    /// The body ended.
    End,
    /// Reading failed.
    Failed(io::Error),
    /// Nothing arrived within the wait.
    Stalled,
}

/// A body being read on a thread of its own.
pub(crate) struct ReadAhead {
    chunks: Receiver<io::Result<Vec<u8>>>,
    spare: Sender<Vec<u8>>,
}

impl ReadAhead {
    /// Starts reading `body` on a new thread, `chunk` bytes at a time; if
    /// the thread cannot start, the error and `body`, unread.
    pub(crate) fn start<R: Read + Send + 'static>(
        body: R,
        chunk: usize,
    ) -> Result<ReadAhead, (io::Error, R)> {
        ReadAhead::start_with(body, chunk, |job| {
            std::thread::Builder::new()
                .name("erpdata-read-ahead".into())
                .spawn(job)
                .map(drop)
        })
    }

    /// [`ReadAhead::start`], the thread started by `spawn` (the tests give
    /// one that fails).
    fn start_with<R: Read + Send + 'static>(
        body: R,
        chunk: usize,
        spawn: impl FnOnce(Box<dyn FnOnce() + Send>) -> io::Result<()>,
    ) -> Result<ReadAhead, (io::Error, R)> {
        let (sender, chunks) = mpsc::sync_channel(AHEAD_CHUNKS);
        let (spare, spares) = mpsc::channel();
        // The body is handed to the thread once it runs: if it cannot
        // start, the body is still here for the caller to read.
        let (hand, take) = mpsc::channel::<R>();
        let job = Box::new(move || {
            if let Ok(body) = take.recv() {
                read(body, chunk, &sender, &spares);
            }
        });
        if let Err(e) = spawn(job) {
            return Err((e, body));
        }
        match hand.send(body) {
            Ok(()) => Ok(ReadAhead { chunks, spare }),
            Err(mpsc::SendError(body)) => Err((
                io::Error::other("the read-ahead thread ended before its body came"),
                body,
            )),
        }
    }

    /// The next chunk, the end or the failure, waiting at most `wait`.
    pub(crate) fn next(&self, wait: Duration) -> Ahead {
        match self.chunks.recv_timeout(wait) {
            Ok(Ok(chunk)) if chunk.is_empty() => Ahead::End,
            Ok(Ok(chunk)) => Ahead::Chunk(chunk),
            Ok(Err(e)) => Ahead::Failed(e),
            Err(RecvTimeoutError::Timeout) => Ahead::Stalled,
            // The reader sends the end or a failure before it stops: gone
            // without either, it panicked.
            Err(RecvTimeoutError::Disconnected) => Ahead::Failed(io::Error::other(
                "the thread reading the body ended without its end",
            )),
        }
    }

    /// Hands a chunk's buffer back for a later read.
    pub(crate) fn recycle(&self, buffer: Vec<u8>) {
        // The reader may be gone already (it sent the end): then the
        // buffer is simply freed.
        let _ = self.spare.send(buffer);
    }
}

/// The reader thread: reads `body` until it ends, fails, or the caller lets
/// go. The body is dropped before the last message, so that a connection
/// read to its end is back in the pool by the time the caller knows.
fn read(
    mut body: impl Read,
    chunk: usize,
    sender: &SyncSender<io::Result<Vec<u8>>>,
    spares: &Receiver<Vec<u8>>,
) {
    let last = loop {
        let mut buffer = spares.try_recv().unwrap_or_default();
        buffer.resize(chunk, 0);
        match body.read(&mut buffer) {
            Ok(0) => break Ok(Vec::new()),
            Ok(n) => {
                buffer.truncate(n);
                if sender.send(Ok(buffer)).is_err() {
                    return;
                }
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => break Err(e),
        }
    };
    drop(body);
    let _ = sender.send(last);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Reads `parts` in turn, then fails with `then` (or ends).
    struct Parts {
        parts: Vec<&'static [u8]>,
        then: Option<io::ErrorKind>,
    }

    impl Read for Parts {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            if self.parts.is_empty() {
                return match self.then {
                    Some(kind) => Err(io::Error::from(kind)),
                    None => Ok(0),
                };
            }
            let part = self.parts.remove(0);
            buf[..part.len()].copy_from_slice(part);
            Ok(part.len())
        }
    }

    fn drain(ahead: &ReadAhead) -> (Vec<u8>, Ahead) {
        let mut got = Vec::new();
        loop {
            match ahead.next(Duration::from_secs(10)) {
                Ahead::Chunk(c) => {
                    got.extend_from_slice(&c);
                    ahead.recycle(c);
                }
                last => return (got, last),
            }
        }
    }

    #[test]
    fn every_byte_in_order_then_the_end() {
        let body = Parts {
            parts: vec![b"ab", b"cde", b"f"],
            then: None,
        };
        let ahead = ReadAhead::start(body, 4).ok().expect("a thread");
        let (got, last) = drain(&ahead);
        assert_eq!(got, b"abcdef");
        assert!(matches!(last, Ahead::End));
    }

    #[test]
    fn a_failure_comes_after_the_bytes_before_it() {
        let body = Parts {
            parts: vec![b"ab", b"cd"],
            then: Some(io::ErrorKind::ConnectionReset),
        };
        let ahead = ReadAhead::start(body, 4).ok().expect("a thread");
        let (got, last) = drain(&ahead);
        assert_eq!(got, b"abcd");
        assert!(matches!(
            &last,
            Ahead::Failed(e) if e.kind() == io::ErrorKind::ConnectionReset
        ));
    }

    #[test]
    fn a_thread_that_cannot_start_gives_the_body_back_unread() {
        let body = Parts {
            parts: vec![b"ab", b"cd"],
            then: None,
        };
        let Err((e, mut body)) = ReadAhead::start_with(body, 4, |_| {
            Err(io::Error::from(io::ErrorKind::OutOfMemory))
        }) else {
            panic!("started without a thread");
        };
        assert_eq!(e.kind(), io::ErrorKind::OutOfMemory);
        let mut rest = Vec::new();
        body.read_to_end(&mut rest).unwrap();
        assert_eq!(rest, b"abcd");
    }

    #[test]
    fn a_read_that_blocks_is_a_stall() {
        struct Blocks;
        impl Read for Blocks {
            fn read(&mut self, _: &mut [u8]) -> io::Result<usize> {
                std::thread::sleep(Duration::from_secs(2));
                Ok(0)
            }
        }
        let ahead = ReadAhead::start(Blocks, 4).ok().expect("a thread");
        assert!(matches!(
            ahead.next(Duration::from_millis(50)),
            Ahead::Stalled
        ));
    }

    #[test]
    fn letting_go_ends_the_thread_and_drops_the_body() {
        /// An endless body that says when it is dropped.
        struct Endless(mpsc::Sender<()>);
        impl Read for Endless {
            fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
                buf.fill(b' ');
                Ok(buf.len())
            }
        }
        impl Drop for Endless {
            fn drop(&mut self) {
                let _ = self.0.send(());
            }
        }
        let (dropped, body_gone) = mpsc::channel();
        let ahead = ReadAhead::start(Endless(dropped), 4)
            .ok()
            .expect("a thread");
        assert!(matches!(
            ahead.next(Duration::from_secs(10)),
            Ahead::Chunk(_)
        ));
        assert!(body_gone.try_recv().is_err(), "still reading");
        drop(ahead);
        body_gone
            .recv_timeout(Duration::from_secs(10))
            .expect("the body is dropped once the caller lets go");
    }

    #[test]
    fn a_panicking_reader_is_a_failure() {
        struct Panics;
        impl Read for Panics {
            fn read(&mut self, _: &mut [u8]) -> io::Result<usize> {
                panic!("a reader that panics (expected by this test)")
            }
        }
        let ahead = ReadAhead::start(Panics, 4).ok().expect("a thread");
        assert!(matches!(
            ahead.next(Duration::from_secs(10)),
            Ahead::Failed(_)
        ));
    }
}
