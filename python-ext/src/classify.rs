//! `retry_core::classify`: `_classify(record, now)`.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use pyo3::prelude::*;

use crate::category::PyClassification;
use crate::error::{guard, invalid_argument};
use crate::failure::PyFailureRecord;

/// Bodies above this size are classified with the GIL released: the scan is then long enough
/// for other Python threads to matter, and the record is already an owned Rust value.
const DETACH_ABOVE: usize = 64 * 1024;

/// Whether classifying `failure` is long enough to release the GIL for (see [`DETACH_ABOVE`]).
pub(crate) fn is_big(failure: &retry_core::Failure) -> bool {
    failure
        .body
        .as_ref()
        .is_some_and(|b| b.len() > DETACH_ABOVE)
        || failure.message.len() > DETACH_ABOVE
}

/// Seconds since the epoch -> `SystemTime` (for date-valued headers in tests and vectors).
pub fn epoch(py: Python<'_>, now: f64) -> PyResult<SystemTime> {
    if !(0.0..1e12).contains(&now) {
        return Err(invalid_argument(
            py,
            format!("now must be seconds since the epoch, got {now}"),
        ));
    }
    Ok(UNIX_EPOCH + Duration::from_secs_f64(now))
}

/// `_classify(record, now)`: `now` (epoch seconds) pins the clock for HTTP-date headers.
#[pyfunction]
#[pyo3(signature = (record, now, /))]
pub fn _classify(
    py: Python<'_>,
    record: &Bound<'_, PyFailureRecord>,
    now: Option<f64>,
) -> PyResult<PyClassification> {
    guard(py, || {
        let failure = &record.get().inner;
        let now = match now {
            Some(n) => epoch(py, n)?,
            None => SystemTime::now(),
        };
        let inner = if is_big(failure) {
            py.detach(|| retry_core::__private::classify::classify_at(failure, now))
        } else {
            retry_core::__private::classify::classify_at(failure, now)
        };
        Ok(PyClassification { inner })
    })
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(_classify, m)?)?;
    Ok(())
}
