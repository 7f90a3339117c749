//! `retry_core._native`: the Python binding of retry-core. Private: the public API is the
//! Python package `retry_core`, which adds keyword arguments, defaults and docstrings.
//!
//! One file per core module, `Py*` wrapper names. Entry points are positional and
//! underscore-prefixed; each runs inside `error::guard`, so a panic becomes
//! `retry_core.InternalError`.

mod category;
mod classify;
mod error;
mod estimate;
mod events;
mod failure;
mod fleet;
mod messages;
mod observe;
mod orphan;
mod policy;
mod retry_after;
mod run;
mod scrub;
mod stream_end;
mod testing;

use pyo3::prelude::*;

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    error::load(m.py())?;
    category::register(m)?;
    classify::register(m)?;
    failure::register(m)?;
    fleet::register(m)?;
    messages::register(m)?;
    orphan::register(m)?;
    policy::register(m)?;
    retry_after::register(m)?;
    run::register(m)?;
    scrub::register(m)?;
    testing::register(m)?;
    stream_end::register(m)?;
    observe::register(m)?;
    m.add_function(wrap_pyfunction!(error::_debug_panic, m)?)?;
    m.add_function(wrap_pyfunction!(_sse_first_event, m)?)?;
    m.add_function(wrap_pyfunction!(_warm, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}

/// Core `warm`: every lazy table built now. `os.register_at_fork(before=...)` calls it, so no
/// table is half-built by another thread when the process forks (it would never finish in the
/// child). Waits for a table another thread is building; the GIL is released meanwhile.
#[pyfunction]
fn _warm(py: Python<'_>) {
    py.detach(retry_core::warm);
}

/// Core `middleware::first_event`: where a stream's first SSE event ends and, when it is an
/// error event, its data (retry_core.httpx holds a stream back until it knows).
#[pyfunction]
#[pyo3(signature = (data, /))]
fn _sse_first_event(py: Python<'_>, data: &[u8]) -> PyResult<(Option<usize>, Option<String>)> {
    error::guard(py, || Ok(retry_core::middleware::first_event(data)))
}
