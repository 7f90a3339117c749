//! `retry_core::messages`: the texts people read (SwarmSDK's error message, seconds).

use pyo3::prelude::*;

use crate::category::PyClassification;
use crate::error::guard;
use crate::failure::PyFailureRecord;

/// SwarmSDK's error text for a failure that will not be retried (secrets scrubbed).
#[pyfunction]
#[pyo3(signature = (record, classification, /))]
pub fn _error_message(
    py: Python<'_>,
    record: &Bound<'_, PyFailureRecord>,
    classification: &Bound<'_, PyClassification>,
) -> PyResult<String> {
    guard(py, || {
        Ok(retry_core::__private::messages::error_message(
            &record.get().inner,
            &classification.get().inner,
        ))
    })
}

/// Seconds as people write them: `2`, `1.5`, `0.25`.
#[pyfunction]
#[pyo3(signature = (seconds, /))]
pub fn _format_seconds(py: Python<'_>, seconds: f64) -> PyResult<String> {
    guard(py, || {
        Ok(retry_core::__private::messages::format_seconds(seconds))
    })
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(_error_message, m)?)?;
    m.add_function(wrap_pyfunction!(_format_seconds, m)?)?;
    Ok(())
}
