//! `retry_core::stream_end`: whether a stream ended properly, and the table of reasons.

use pyo3::prelude::*;
use retry_core::stream_end;

use crate::error::{guard, OrRaise};

/// `_stream_incomplete(api, reason)`: `None` when a stream of `api` whose last reason was
/// `reason` ended properly, else the message of its `StreamIncomplete`.
#[pyfunction]
#[pyo3(signature = (api, reason, /))]
pub fn _stream_incomplete(
    py: Python<'_>,
    api: &str,
    reason: Option<&str>,
) -> PyResult<Option<String>> {
    guard(py, || {
        if stream_end::ends(api, reason).or_raise(py)? {
            return Ok(None);
        }
        stream_end::incomplete_message(api, reason)
            .map(Some)
            .or_raise(py)
    })
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(_stream_incomplete, m)?)?;
    // `{api: (field, ends, fails)}`: the core's table, for the docs and the helpers' tests.
    let table = pyo3::types::PyDict::new(m.py());
    for a in stream_end::APIS {
        table.set_item(a.name, (a.field, a.ends.to_vec(), a.fails.to_vec()))?;
    }
    m.add("STREAM_APIS", table)?;
    m.add("STREAM_INCOMPLETE_CLASS", stream_end::PYTHON_CLASS)?;
    Ok(())
}
