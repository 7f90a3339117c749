//! `retry_core::stream_end`: whether a stream ended properly, and the table of reasons; and
//! `_StreamWatch`, the core's `stream_end::Watch` (which field of which event carries the stop
//! reason), for `retry_core.streams`.

use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyInt, PyList, PyString, PyTuple};
use retry_core::stream_end::{self, Watch};

use crate::error::{guard, OrRaise};

/// An event as Python holds it: a dict (decoded SSE data) or an SDK object (attributes), read
/// for the core's `stream_end::Event`. An attribute or key whose reading raises is absent.
struct PyEvent<'py>(Bound<'py, PyAny>);

impl<'py> stream_end::Event for PyEvent<'py> {
    fn field(&self, name: &str) -> Option<Self> {
        let py = self.0.py();
        let value = if let Ok(d) = self.0.cast::<PyDict>() {
            d.get_item(name).ok().flatten()
        } else if self.0.is_instance_of::<PyString>() || self.0.is_instance_of::<PyInt>() {
            None
        } else {
            attribute(&self.0, &PyString::new(py, name))
        };
        value.filter(|v| !v.is_none()).map(PyEvent)
    }
    fn text(&self) -> Option<String> {
        // A str, an enum's value (google-genai's `FinishReason`), else the value's str().
        let value = match self.0.getattr(intern!(self.0.py(), "value")) {
            Ok(v) if !self.0.is_instance_of::<PyString>() => v,
            _ => self.0.clone(),
        };
        if let Ok(s) = value.cast::<PyString>() {
            return s.to_str().ok().map(str::to_owned);
        }
        value.str().ok()?.to_str().ok().map(str::to_owned)
    }
    fn int(&self) -> Option<i64> {
        self.0.cast::<PyInt>().ok()?.extract().ok()
    }
    fn items(&self) -> Option<Vec<Self>> {
        if let Ok(l) = self.0.cast::<PyList>() {
            return Some(l.iter().map(PyEvent).collect());
        }
        let t = self.0.cast::<PyTuple>().ok()?;
        Some(t.iter().map(PyEvent).collect())
    }
}

/// `getattr(obj, name, None)`, cheaper for the SDKs' pydantic models: their fields are in the
/// instance's `__dict__` and extra wire fields in `__pydantic_extra__`, so a field the event
/// lacks (most events lack most fields) is answered without raising and catching an
/// `AttributeError` inside the model's `__getattr__`. Any other object is asked by `getattr`.
fn attribute<'py>(
    obj: &Bound<'py, PyAny>,
    name: &Bound<'py, PyString>,
) -> Option<Bound<'py, PyAny>> {
    let py = obj.py();
    let fields = obj
        .getattr(intern!(py, "__dict__"))
        .ok()
        .and_then(|d| d.cast_into::<PyDict>().ok());
    if let Some(v) = fields
        .as_ref()
        .and_then(|d| d.get_item(name).ok().flatten())
    {
        return Some(v);
    }
    if fields.is_some() {
        if let Ok(extra) = obj.getattr(intern!(py, "__pydantic_extra__")) {
            return match extra.cast::<PyDict>() {
                Ok(extra) => extra.get_item(name).ok().flatten(),
                Err(_) => None, // a model without extra fields: it has no such field
            };
        }
    }
    obj.getattr_opt(name).ok().flatten()
}

/// `_StreamWatch(api=None)`: one stream's watch (an unknown `api` is a `ValueError`).
#[pyclass(name = "_StreamWatch", module = "retry_core._native")]
pub struct PyStreamWatch {
    inner: Watch,
}

#[pymethods]
impl PyStreamWatch {
    #[new]
    #[pyo3(signature = (api=None, /))]
    fn new(py: Python<'_>, api: Option<&str>) -> PyResult<Self> {
        guard(py, || {
            Ok(PyStreamWatch {
                inner: Watch::new(api).or_raise(py)?,
            })
        })
    }

    /// `see(item)`: one event (a dict or an SDK object). For an error event, `(message, data)`:
    /// the message of the core's failure for its payload and the payload as JSON text (the
    /// caller raises it with status 200 and that body, for the engine to classify); else None.
    fn see(
        &mut self,
        py: Python<'_>,
        item: Bound<'_, PyAny>,
    ) -> PyResult<Option<(String, String)>> {
        let error = guard(py, || Ok(self.inner.see(None, PyEvent(item.clone()))))?;
        if !error {
            return Ok(None);
        }
        let data: String = if item.is_instance_of::<PyDict>() {
            let kwargs = PyDict::new(py);
            kwargs.set_item("default", py.get_type::<PyString>())?;
            py.import("json")?
                .getattr("dumps")?
                .call((&item,), Some(&kwargs))?
                .extract()?
        } else {
            match item.call_method0(intern!(py, "model_dump_json")) {
                Ok(j) => j.extract()?,
                Err(_) => item.str()?.extract()?,
            }
        };
        let failure = retry_core::sse::failure_from_payload(&data);
        Ok(Some((failure.message, data)))
    }

    /// `see_final(answer)`: an answer assembled from a stream (not counted as an event).
    fn see_final(&mut self, py: Python<'_>, answer: Bound<'_, PyAny>) -> PyResult<()> {
        guard(py, || {
            self.inner.see_final(PyEvent(answer));
            Ok(())
        })
    }

    /// `saw(api, index, reason)`: one event whose reason the caller read itself.
    #[pyo3(signature = (api, index, reason, /))]
    fn saw(&mut self, py: Python<'_>, api: &str, index: i64, reason: Option<&str>) -> PyResult<()> {
        guard(py, || {
            self.inner.count();
            self.inner.saw(api, index, reason).or_raise(py)
        })
    }

    /// `finish()`: None when the stream ended properly, else `(message, api, reason)`.
    fn finish(&self) -> Option<(String, Option<&'static str>, Option<String>)> {
        self.inner.finish().map(|i| (i.message, i.api, i.reason))
    }

    /// The stream's API, once an event (or the caller) named it.
    #[getter]
    fn api(&self) -> Option<&'static str> {
        self.inner.api()
    }

    /// How many events it has seen.
    #[getter]
    fn events(&self) -> u64 {
        self.inner.events()
    }
}

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
    m.add_class::<PyStreamWatch>()?;
    // `{api: (field, ends, fails)}`: the core's table, for the docs and the helpers' tests.
    let table = pyo3::types::PyDict::new(m.py());
    for a in stream_end::APIS {
        table.set_item(a.name, (a.field, a.ends.to_vec(), a.fails.to_vec()))?;
    }
    m.add("STREAM_APIS", table)?;
    m.add("STREAM_INCOMPLETE_CLASS", stream_end::PYTHON_CLASS)?;
    Ok(())
}
