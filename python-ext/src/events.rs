//! `retry_core::events`: an event becomes a dict with `type` first, then its keys (CONTRACT §4),
//! and a batch of new events the `(event, level, line)` triples the Python side logs and emits.

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use retry_core::__private::messages::{log_line, LogLevel};
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

/// The events as a list of dicts.
pub fn events_list<'py>(py: Python<'py>, events: &[Event]) -> PyResult<Bound<'py, PyList>> {
    let list = PyList::empty(py);
    for e in events {
        list.append(event_to_dict(py, e)?)?;
    }
    Ok(list)
}

/// Python's `logging.WARNING`, `logging.INFO` and `logging.DEBUG`.
fn level(l: LogLevel) -> i32 {
    match l {
        LogLevel::Warning => 30,
        LogLevel::Info => 20,
        LogLevel::Debug => 10,
    }
}

/// The events as `(event, level, line)` triples: the event as a dict, and its one log line (core
/// `messages::log_line`) with its `logging` level, or `(event, 0, None)` when it is not logged.
pub fn pending<'py>(py: Python<'py>, events: &[Event]) -> PyResult<Bound<'py, PyList>> {
    let list = PyList::empty(py);
    for e in events {
        let dict = event_to_dict(py, e)?;
        let item = match log_line(e) {
            Some((l, line)) => (dict, level(l), Some(line)).into_pyobject(py)?,
            None => (dict, 0, None::<String>).into_pyobject(py)?,
        };
        list.append(item)?;
    }
    Ok(list)
}
