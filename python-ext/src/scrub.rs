//! `retry_core::scrub`: `_scrub(text)`.

use pyo3::prelude::*;

use crate::error::guard;

/// `text` with API keys and bearer tokens replaced by `[REDACTED]`.
#[pyfunction]
#[pyo3(signature = (text, /))]
pub fn _scrub(py: Python<'_>, text: &str) -> PyResult<String> {
    guard(py, || {
        Ok(retry_core::__private::scrub::scrub(text).into_owned())
    })
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(_scrub, m)?)?;
    m.add("REDACTED", retry_core::__private::scrub::REDACTED)?;
    Ok(())
}
