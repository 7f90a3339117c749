//! The one file that turns `retry_core::Error` codes into Python exceptions (STYLE practice 1).
//!
//! The exception classes live in Python (`retry_core/_errors.py`) so that users can subclass and
//! document them like any Python class; they are looked up once, when `_native` is initialised,
//! and `retry_core/__init__.py` imports `_errors` before `_native`, so they are always loaded.
//! Every entry point runs inside [`guard`]: a Rust panic becomes `retry_core.InternalError`, never
//! an abort and never pyo3's `PanicException` (a `BaseException` that `except Exception` misses).

use std::panic::{catch_unwind, AssertUnwindSafe};

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::PyType;
use retry_core::{Error, ErrorCode};

/// The Python class for each code, in the order of [`index`].
static CLASSES: PyOnceLock<[Py<PyType>; 5]> = PyOnceLock::new();

fn index(code: ErrorCode) -> usize {
    // Exhaustive on purpose: a new core code must get its Python class here.
    match code {
        ErrorCode::InvalidArgument => 0,
        ErrorCode::InvalidPolicy => 1,
        ErrorCode::InvalidJson => 2,
        ErrorCode::InvalidState => 3,
        ErrorCode::Internal => 4,
    }
}

const NAMES: [&str; 5] = [
    "InvalidArgumentError",
    "InvalidPolicyError",
    "InvalidJsonError",
    "InvalidStateError",
    "InternalError",
];

/// Looks the classes up in `retry_core._errors`. Called once from the module initialiser.
pub fn load(py: Python<'_>) -> PyResult<()> {
    CLASSES.get_or_try_init(py, || -> PyResult<[Py<PyType>; 5]> {
        let module = py.import("retry_core._errors")?;
        let get = |name: &str| -> PyResult<Py<PyType>> {
            Ok(module.getattr(name)?.cast_into::<PyType>()?.unbind())
        };
        Ok([
            get(NAMES[0])?,
            get(NAMES[1])?,
            get(NAMES[2])?,
            get(NAMES[3])?,
            get(NAMES[4])?,
        ])
    })?;
    Ok(())
}

/// The Python exception for a core error. Its text is scrubbed of keys and tokens: core errors
/// quote the offending value ("invalid type: string \"sk-...\"", "unknown preset ..."), and a
/// key pasted into the wrong configuration field must not end up in a log (CONTRACT §4).
pub fn to_py(py: Python<'_>, err: Error) -> PyErr {
    let message = retry_core::__private::scrub::scrub(&err.message).into_owned();
    match CLASSES.get(py) {
        Some(classes) => PyErr::from_type(classes[index(err.code)].bind(py).clone(), message),
        None => PyRuntimeError::new_err(format!("{}: {message}", err.code.as_str())),
    }
}

/// `Result<T, retry_core::Error>` -> `PyResult<T>`.
pub trait OrRaise<T> {
    fn or_raise(self, py: Python<'_>) -> PyResult<T>;
}

impl<T> OrRaise<T> for Result<T, Error> {
    fn or_raise(self, py: Python<'_>) -> PyResult<T> {
        self.map_err(|e| to_py(py, e))
    }
}

/// An `InvalidArgumentError` (a `ValueError`).
pub fn invalid_argument(py: Python<'_>, message: impl Into<String>) -> PyErr {
    to_py(py, Error::invalid_argument(message))
}

/// Runs one entry point; a panic becomes `retry_core.InternalError`.
pub fn guard<T>(py: Python<'_>, f: impl FnOnce() -> PyResult<T>) -> PyResult<T> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(result) => result,
        Err(payload) => {
            let what = payload
                .downcast_ref::<&str>()
                .map(|s| (*s).to_owned())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".to_owned());
            Err(to_py(
                py,
                Error::new(
                    ErrorCode::Internal,
                    format!("retry-core bug (please report): {what}"),
                ),
            ))
        }
    }
}

/// `_native._debug_panic(message)`: the core's `debug_panic`, run with the GIL released as
/// every Redis call is, so that the test suite proves a panic inside the core surfaces as
/// `InternalError` (unwinding through the released GIL) and the interpreter lives on.
#[pyfunction]
#[pyo3(signature = (message, /))]
pub fn _debug_panic(py: Python<'_>, message: String) -> PyResult<()> {
    guard(py, || {
        py.detach(move || retry_core::__private::debug_panic(&message))
    })
}
