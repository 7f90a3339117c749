//! `retry_core::events`: an event becomes a dict with `type` first, then its keys (CONTRACT §4).

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use retry_core::Event;
use serde_json::Value;

/// A JSON value as plain Python objects (None, bool, int, float, str, list, dict).
pub fn json_to_py<'py>(py: Python<'py>, v: &Value) -> PyResult<Bound<'py, PyAny>> {
    Ok(match v {
        Value::Null => py.None().into_bound(py),
        Value::Bool(b) => pyo3::types::PyBool::new(py, *b).to_owned().into_any(),
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                i.into_pyobject(py)?.into_any()
            } else if let Some(u) = n.as_u64() {
                u.into_pyobject(py)?.into_any()
            } else {
                n.as_f64().unwrap_or(f64::NAN).into_pyobject(py)?.into_any()
            }
        }
        Value::String(s) => s.into_pyobject(py)?.into_any(),
        Value::Array(items) => {
            let list = PyList::empty(py);
            for item in items {
                list.append(json_to_py(py, item)?)?;
            }
            list.into_any()
        }
        Value::Object(map) => {
            let d = PyDict::new(py);
            for (k, item) in map {
                d.set_item(k, json_to_py(py, item)?)?;
            }
            d.into_any()
        }
    })
}

/// One event as a dict: `{"type": ..., key: value, ...}`.
pub fn event_to_dict<'py>(py: Python<'py>, e: &Event) -> PyResult<Bound<'py, PyAny>> {
    json_to_py(py, &e.to_json())
}
