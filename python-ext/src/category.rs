//! `retry_core::category`: the classification the engine returns, and the category table.

use pyo3::prelude::*;
use pyo3::types::PyDict;
use retry_core::__private::category::RetryAfterSource;
use retry_core::{Category, Classification};

/// The result of `retry_core.classify`: read-only attributes (CONTRACT §2).
#[pyclass(frozen, name = "Classification", module = "retry_core")]
pub struct PyClassification {
    pub inner: Classification,
}

pub fn source_str(s: RetryAfterSource) -> &'static str {
    s.as_str()
}

#[pymethods]
impl PyClassification {
    /// The category's snake_case name (`rate_limited`, `unauthorized`, ...).
    #[getter]
    fn category(&self) -> &'static str {
        self.inner.category.as_str()
    }

    /// Whether the failure is worth retrying.
    #[getter]
    fn transient(&self) -> bool {
        self.inner.transient
    }

    /// Seconds the server asked to wait, or None.
    #[getter]
    fn retry_after(&self) -> Option<f64> {
        self.inner.retry_after
    }

    /// `header` (the server's instruction), `body` / `message` (the same instruction stated in
    /// the error body or its words), `reset_hint` (a rate-limit reset header), or None.
    #[getter]
    fn retry_after_source(&self) -> Option<&'static str> {
        self.inner.retry_after_source.map(source_str)
    }

    /// A short friendly name (`RateLimit`, `Unauthorized`, `BadRequest`, ...).
    #[getter]
    fn error_type(&self) -> &str {
        &self.inner.error_type
    }

    #[getter]
    fn status(&self) -> Option<u16> {
        self.inner.status
    }

    /// What decided the category: `status`, `body`, `error_class`, `message`, ...
    #[getter]
    fn evidence(&self) -> &'static str {
        self.inner.evidence.as_str()
    }

    /// The failure came from an LLM client's own API-error class.
    #[getter]
    fn api_error(&self) -> bool {
        self.inner.api_error
    }

    /// The two-valued view: `transient` or `permanent`.
    #[getter]
    fn error_class(&self) -> &'static str {
        self.inner.transience().as_str()
    }

    /// All attributes as a dict.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        d.set_item("category", self.category())?;
        d.set_item("transient", self.inner.transient)?;
        d.set_item("retry_after", self.inner.retry_after)?;
        d.set_item("retry_after_source", self.retry_after_source())?;
        d.set_item("error_type", &self.inner.error_type)?;
        d.set_item("status", self.inner.status)?;
        d.set_item("evidence", self.evidence())?;
        d.set_item("api_error", self.inner.api_error)?;
        Ok(d)
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other
            .cast::<PyClassification>()
            .is_ok_and(|o| o.get().inner == self.inner)
    }

    fn __hash__(&self) -> u64 {
        // Equal classifications hash alike; the category and status are enough to spread them.
        (self.inner.category as u64) << 16 | u64::from(self.inner.status.unwrap_or(0))
    }

    fn __repr__(&self) -> String {
        let mut s = format!(
            "Classification(category={:?}, transient={}",
            self.category(),
            py_bool(self.inner.transient)
        );
        if let Some(st) = self.inner.status {
            s.push_str(&format!(", status={st}"));
        }
        if let Some(ra) = self.inner.retry_after {
            s.push_str(&format!(
                ", retry_after={}",
                retry_core::__private::messages::format_seconds(ra)
            ));
        }
        s.push_str(&format!(", error_type={:?})", self.inner.error_type));
        s
    }
}

fn py_bool(b: bool) -> &'static str {
    if b {
        "True"
    } else {
        "False"
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyClassification>()?;
    // (name, transient by nature, friendly error type), in contract order.
    let table: Vec<(&str, bool, &str)> = Category::all()
        .map(|c| (c.as_str(), c.is_transient(), c.error_type()))
        .collect();
    m.add("CATEGORIES", table)?;
    Ok(())
}
