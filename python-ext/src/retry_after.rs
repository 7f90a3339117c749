//! `retry_core::retry_after`: `_retry_after(headers, now)`.

use pyo3::prelude::*;
use retry_core::Headers;

use crate::category::source_str;
use crate::classify::epoch;
use crate::error::guard;

/// `(seconds, source)` the headers ask to wait, or None. `now` is epoch seconds.
#[pyfunction]
#[pyo3(signature = (headers, now, /))]
pub fn _retry_after(
    py: Python<'_>,
    headers: Vec<(String, String)>,
    now: f64,
) -> PyResult<Option<(f64, &'static str)>> {
    guard(py, || {
        let now = epoch(py, now)?;
        let headers: Headers = headers.into_iter().collect();
        Ok(
            retry_core::__private::retry_after::from_headers(&headers, now)
                .map(|(s, src)| (s, source_str(src))),
        )
    })
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(_retry_after, m)?)?;
    Ok(())
}
