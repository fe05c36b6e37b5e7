//! Threads that come back from the core while the interpreter exits.
//!
//! Before Python 3.14, a daemon thread that takes the GIL back once the
//! interpreter is finalizing is ended with `pthread_exit`, whose unwinding
//! cannot cross Rust frames: the process aborts ("FATAL: exception not
//! rethrown", exit 134). A daemon thread of the caller's own (a poller, a
//! notebook's background refresh) inside a call when the program ends met
//! that on its way back from the core. `atexit` runs before finalizing
//! starts, once every other thread that is not a daemon has ended: from
//! then on, a thread other than the exiting one that comes back from the
//! core waits there for good, and the process ends around it.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;
use std::thread::ThreadId;

use pyo3::prelude::*;
use pyo3::types::PyModule;

static EXITING: AtomicBool = AtomicBool::new(false);
static EXITING_THREAD: OnceLock<ThreadId> = OnceLock::new();

/// `atexit`'s callback: the interpreter is about to finalize, on this thread.
#[pyfunction]
fn _interpreter_exiting() {
    EXITING_THREAD.get_or_init(|| std::thread::current().id());
    EXITING.store(true, Ordering::SeqCst);
}

/// Registers [`_interpreter_exiting`] with `atexit`.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let callback = wrap_pyfunction!(_interpreter_exiting, m)?;
    m.py()
        .import("atexit")?
        .call_method1("register", (callback,))?;
    Ok(())
}

/// `f` run without the GIL, as [`Python::detach`] runs it; coming back
/// once the interpreter exits, a thread other than the exiting one waits
/// for good instead of taking the GIL back (see the module's docs).
pub(crate) fn detach<T, F>(py: Python<'_>, f: F) -> T
where
    F: Send + FnOnce() -> T,
    T: Send,
{
    py.detach(|| {
        let out = f();
        if EXITING.load(Ordering::SeqCst)
            && EXITING_THREAD.get() != Some(&std::thread::current().id())
        {
            loop {
                std::thread::park();
            }
        }
        out
    })
}
