//! `retry_core::failure`: the failure record as an opaque native handle.
//!
//! Python builds the record's fields from a live exception (`retry_core/_failure.py`: that is
//! translation, not decision) and hands them over once; the handle is then reused for
//! classification and for every decision of the state machine.

use pyo3::prelude::*;
use retry_core::{Failure, Headers, Transport};

use crate::error::{guard, invalid_argument};

/// A core [`Failure`], owned by Python.
#[pyclass(frozen, name = "FailureRecord", module = "retry_core._native")]
pub struct PyFailureRecord {
    pub inner: Failure,
}

#[pymethods]
impl PyFailureRecord {
    /// `FailureRecord(status, headers, body, error_class, message, transport)`, all positional.
    #[new]
    #[pyo3(signature = (status, headers, body, error_class, message, transport, /))]
    fn new(
        py: Python<'_>,
        status: Option<i64>,
        headers: Option<Vec<(String, String)>>,
        body: Option<String>,
        error_class: Option<Vec<String>>,
        message: String,
        transport: Option<String>,
    ) -> PyResult<Self> {
        guard(py, || {
            let status = match status {
                None => None,
                Some(s) if (100..=999).contains(&s) => Some(s as u16),
                Some(s) => return Err(invalid_argument(py, format!("status must be an HTTP status (100-999), got {s}"))),
            };
            let transport = match transport.as_deref() {
                None => None,
                Some(t) => Some(Transport::parse(t).ok_or_else(|| {
                    let all: Vec<&str> = Transport::ALL.iter().map(|t| t.as_str()).collect();
                    invalid_argument(py, format!("unknown transport {t:?}; expected one of {}", all.join(", ")))
                })?),
            };
            let headers: Headers = headers.unwrap_or_default().into_iter().collect();
            Ok(PyFailureRecord {
                inner: Failure { status, headers, body, error_class: error_class.unwrap_or_default(), message, transport },
            })
        })
    }

    #[getter]
    fn status(&self) -> Option<u16> {
        self.inner.status
    }

    /// Header names lower-cased, in arrival order.
    #[getter]
    fn headers(&self) -> Vec<(String, String)> {
        self.inner.headers.iter().map(|(k, v)| (k.to_owned(), v.to_owned())).collect()
    }

    #[getter]
    fn body(&self) -> Option<&str> {
        self.inner.body.as_deref()
    }

    #[getter]
    fn error_class(&self) -> Vec<String> {
        self.inner.error_class.clone()
    }

    #[getter]
    fn message(&self) -> &str {
        &self.inner.message
    }

    #[getter]
    fn transport(&self) -> Option<&'static str> {
        self.inner.transport.map(Transport::as_str)
    }

    /// The record in the shared vectors' JSON shape.
    fn _to_json(&self, py: Python<'_>) -> PyResult<String> {
        guard(py, || serde_json::to_string(&self.inner).map_err(|e| invalid_argument(py, e.to_string())))
    }

    fn __repr__(&self) -> String {
        format!(
            "FailureRecord(status={:?}, error_class={:?}, message={:?})",
            self.inner.status,
            self.inner.error_class.first(),
            retry_core::scrub::scrub(&self.inner.message)
        )
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyFailureRecord>()?;
    let transports: Vec<&str> = Transport::ALL.iter().map(|t| t.as_str()).collect();
    m.add("TRANSPORTS", transports)?;
    Ok(())
}
