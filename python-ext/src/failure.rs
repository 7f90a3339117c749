//! `retry_core::failure`: the failure record as an opaque native handle, and the reader that
//! builds one from a live Python exception.
//!
//! The reader is translation, not decision (CONTRACT §1): it walks the exception chain and
//! reads class names, status, headers, body and message, exactly as the reference reader in
//! Python does (`tests/python/reference_reader.py`; `test_failure_reader.py` checks that they
//! agree). It lives here because doing it in Python cost 10 to 30 µs per exception, ten times
//! the engine's own work. The handle is then reused for classification and every decision.
//! Which attribute each field comes from, provider SDK by provider SDK, is listed in
//! `retry_core/_failure.py`'s docstring.

use retry_core::__private::failure::checked_status;

use pyo3::exceptions::PyException;
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBool, PyByteArray, PyBytes, PyDict, PyInt, PyList, PyString, PyTuple, PyType};
use retry_core::__private::failure::HeaderSink;
use retry_core::Link;
use retry_core::{Failure, Headers, Transport};

use crate::error::{guard, invalid_argument};

/// A core [`Failure`], owned by Python.
#[pyclass(frozen, name = "FailureRecord", module = "retry_core._native")]
pub struct PyFailureRecord {
    pub inner: Failure,
}

#[pymethods]
impl PyFailureRecord {
    /// `FailureRecord(status, headers, body, error_class, message, transport,
    /// client_retries=None)`, all positional.
    #[new]
    #[pyo3(signature = (status, headers, body, error_class, message, transport, client_retries=None, /))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        status: Option<i64>,
        headers: Option<Vec<(String, String)>>,
        body: Option<String>,
        error_class: Option<Vec<String>>,
        message: String,
        transport: Option<String>,
        client_retries: Option<u32>,
    ) -> PyResult<Self> {
        guard(py, || {
            let status = match status {
                None => None,
                Some(s) if checked_status(s).is_some() => checked_status(s),
                Some(s) => {
                    return Err(invalid_argument(
                        py,
                        format!("status must be an HTTP status (100-999), got {s}"),
                    ))
                }
            };
            let transport = match transport.as_deref() {
                None => None,
                Some(t) => Some(Transport::parse(t).ok_or_else(|| {
                    let all: Vec<&str> = Transport::ALL.iter().map(|t| t.as_str()).collect();
                    invalid_argument(
                        py,
                        format!(
                            "unknown transport {t:?}; expected one of {}",
                            all.join(", ")
                        ),
                    )
                })?),
            };
            let headers: Headers = headers.unwrap_or_default().into_iter().collect();
            Ok(PyFailureRecord {
                inner: Failure {
                    status,
                    headers,
                    body,
                    error_class: error_class.unwrap_or_default(),
                    message,
                    transport,
                    client_retries: client_retries.map(saturating_u8),
                    inner_messages: Box::default(),
                },
            })
        })
    }

    /// `FailureRecord._from_links(links)`: the record of a chain given as its links, outermost
    /// first, each `(error_class, status, headers, body, message, client_retries)`, merged by
    /// the core's one rule. The reference reader in the tests hands its links over here.
    #[staticmethod]
    #[pyo3(signature = (links, /))]
    #[allow(clippy::type_complexity)]
    fn _from_links(
        py: Python<'_>,
        links: Vec<(
            Vec<String>,
            Option<i64>,
            Option<Vec<(String, String)>>,
            Option<String>,
            String,
            Option<u32>,
        )>,
    ) -> PyResult<Self> {
        guard(py, || {
            let links = links.into_iter().map(
                |(error_class, status, headers, body, message, client_retries)| Link {
                    error_class,
                    status: status.and_then(checked_status),
                    headers: headers.unwrap_or_default().into_iter().collect(),
                    body,
                    message,
                    client_retries: client_retries.map(saturating_u8),
                },
            );
            Ok(PyFailureRecord {
                inner: Failure::from_chain(links),
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
        self.inner
            .headers
            .iter()
            .map(|(k, v)| (k.to_owned(), v.to_owned()))
            .collect()
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

    /// Retries the client library already made before it raised (`x-stainless-retry-count`
    /// of the request, sent by the openai and anthropic SDKs), when known.
    #[getter]
    fn client_retries(&self) -> Option<u8> {
        self.inner.client_retries
    }

    /// The record of a live exception, wrapped causes looked through (see the module docs).
    #[staticmethod]
    #[pyo3(signature = (exc, /))]
    fn _from_exception(py: Python<'_>, exc: &Bound<'_, PyAny>) -> PyResult<Self> {
        guard(py, || {
            if !exc.is_instance_of::<pyo3::exceptions::PyBaseException>() {
                let name = exc
                    .get_type()
                    .name()
                    .map(|n| n.to_string())
                    .unwrap_or_default();
                return Err(pyo3::exceptions::PyTypeError::new_err(format!(
                    "expected an exception, got {name}"
                )));
            }
            Ok(PyFailureRecord {
                inner: read_exception(py, exc)?,
            })
        })
    }

    /// The record in the shared vectors' JSON shape.
    fn _to_json(&self, py: Python<'_>) -> PyResult<String> {
        guard(py, || {
            serde_json::to_string(&self.inner).map_err(|e| invalid_argument(py, e.to_string()))
        })
    }

    fn __repr__(&self) -> String {
        format!(
            "FailureRecord(status={:?}, error_class={:?}, message={:?})",
            self.inner.status,
            self.inner.error_class.first(),
            retry_core::__private::scrub::scrub(&self.inner.message)
        )
    }
}

// ---------------------------------------------------------------------------------------------
// Reading a live exception. Each helper names the Python it mirrors.

/// How many wrapped exceptions are looked through at most: the core's limit for every binding.
const MAX_CHAIN: usize = retry_core::__private::failure::MAX_CAUSES;

/// Whether `err` is an `Exception` (Python's `except Exception:` catches it); other
/// `BaseException`s (`KeyboardInterrupt`, `SystemExit`) pass through, as in Python.
fn is_exception(py: Python<'_>, err: &PyErr) -> bool {
    err.is_instance_of::<PyException>(py)
}

/// `r`, with an `Exception` turned into `None` (`try: ... except Exception: return None`).
fn or_absent<T>(py: Python<'_>, r: PyResult<T>) -> PyResult<Option<T>> {
    match r {
        Ok(v) => Ok(Some(v)),
        Err(e) if is_exception(py, &e) => Ok(None),
        Err(e) => Err(e),
    }
}

/// Python's own `getattr` and `hasattr`, looked up once. Called with a default, `getattr` asks
/// the type not to raise for a missing attribute (`_PyObject_LookupAttr`), where the C API
/// open to an abi3 module (`PyObject_GetAttr`) would build an AttributeError and its message
/// only to have it dropped: 2 µs per miss, and an exception chain misses a dozen times.
fn builtin<'py>(py: Python<'py>, which: usize) -> PyResult<&'py Bound<'py, PyAny>> {
    static FUNCS: PyOnceLock<[Py<PyAny>; 2]> = PyOnceLock::new();
    let funcs = FUNCS.get_or_try_init(py, || -> PyResult<[Py<PyAny>; 2]> {
        let b = py.import("builtins")?;
        Ok([
            b.getattr("getattr")?.unbind(),
            b.getattr("hasattr")?.unbind(),
        ])
    })?;
    Ok(funcs[which].bind(py))
}

/// `getattr(obj, name, None)`: a missing attribute is `None`; any other exception propagates.
fn lookup<'py>(
    obj: &Bound<'py, PyAny>,
    name: &Bound<'py, PyString>,
) -> PyResult<Bound<'py, PyAny>> {
    let py = obj.py();
    builtin(py, 0)?.call1((obj, name, py.None()))
}

/// `hasattr(obj, name)`.
fn has(obj: &Bound<'_, PyAny>, name: &Bound<'_, PyString>) -> PyResult<bool> {
    builtin(obj.py(), 1)?.call1((obj, name))?.is_truthy()
}

/// `_attr(obj, name)`: `getattr(obj, name, None)`, any `Exception` read as absent (properties
/// of some clients raise on access), `None` values absent too. Always asked through the builtin
/// with a default: a per-class guess of which attributes exist (a plain `getattr` for those)
/// cost more than it saved (58.7 K instructions per `classify(openai.RateLimitError)` with
/// it, 45.5 K without; `bench/callgrind_classify.sh`).
fn attr<'py>(
    e: &Bound<'py, PyAny>,
    name: &Bound<'py, PyString>,
) -> PyResult<Option<Bound<'py, PyAny>>> {
    Ok(or_absent(e.py(), lookup(e, name))?.filter(|v| !v.is_none()))
}

/// `class_names(tp)`: the class and its ancestors as `module.QualName` (`builtins.` dropped),
/// without `BaseException` and `object`.
fn class_names(py: Python<'_>, tp: &Bound<'_, PyType>) -> PyResult<Vec<String>> {
    let base = py.get_type::<pyo3::exceptions::PyBaseException>();
    let object = py.get_type::<pyo3::types::PyAny>();
    let mut out = Vec::new();
    let mro = match or_absent(py, tp.getattr(intern!(py, "__mro__")))? {
        Some(m) if m.is_instance_of::<PyTuple>() => m,
        _ => return Ok(vec![tp.name().map(|n| n.to_string()).unwrap_or_default()]),
    };
    for k in mro.try_iter()? {
        let k = k?;
        if k.is(&base) || k.is(&object) {
            continue;
        }
        // A metaclass may make `__module__` or `__qualname__` raise or return anything: only a
        // str counts, and a class without a readable name is left out.
        // A module that is not a str is shown as its str(), as the reference reader's f-string
        // does; one whose str() raises is left out.
        let module = match or_absent(py, k.getattr(intern!(py, "__module__")))? {
            Some(m) if m.is_none() => None,
            Some(m) => match m.cast_into::<PyString>() {
                Ok(s) => Some(s),
                Err(e) => or_absent(py, e.into_inner().str())?,
            },
            None => None,
        };
        let mut qualname = or_absent(py, k.getattr(intern!(py, "__qualname__")))?
            .and_then(|q| q.cast_into::<PyString>().ok());
        if qualname.is_none() {
            qualname = or_absent(py, k.getattr(intern!(py, "__name__")))?
                .and_then(|q| q.cast_into::<PyString>().ok());
        }
        let Some(qualname) = qualname else { continue };
        let qualname = utf8(&qualname)?;
        match module {
            Some(m) if m.to_cow().map_or(true, |m| m != "builtins") => {
                out.push(format!("{}.{}", utf8(&m)?, qualname));
            }
            _ => out.push(qualname),
        }
    }
    Ok(out)
}

/// `_utf8(s)`: the text, with lone surrogates (`surrogateescape`-decoded bytes) replaced by
/// `?` as `s.encode("utf-8", "replace")` does, so that any Python text can cross into Rust.
fn utf8(s: &Bound<'_, PyString>) -> PyResult<String> {
    match s.to_cow() {
        Ok(c) => Ok(c.into_owned()),
        Err(_) => {
            let py = s.py();
            let bytes = s.call_method1(intern!(py, "encode"), ("utf-8", "replace"))?;
            Ok(String::from_utf8_lossy(bytes.cast::<PyBytes>()?.as_bytes()).into_owned())
        }
    }
}

/// `_text(v)`: a str as is; bytes, bytearray or memoryview decoded as UTF-8 with replacement;
/// anything else `None`. Returns the Python str for a str (the caller decides when to convert).
enum Text<'py> {
    Str(Bound<'py, PyString>),
    Decoded(String),
}

impl Text<'_> {
    fn into_string(self) -> PyResult<String> {
        match self {
            Text::Str(s) => utf8(&s),
            Text::Decoded(s) => Ok(s),
        }
    }
}

fn text<'py>(v: &Bound<'py, PyAny>) -> PyResult<Option<Text<'py>>> {
    if let Ok(s) = v.cast::<PyString>() {
        return Ok(Some(Text::Str(s.clone())));
    }
    if let Ok(b) = v.cast::<PyBytes>() {
        return Ok(Some(Text::Decoded(
            String::from_utf8_lossy(b.as_bytes()).into_owned(),
        )));
    }
    if let Ok(b) = v.cast::<PyByteArray>() {
        return Ok(Some(Text::Decoded(
            String::from_utf8_lossy(&b.to_vec()).into_owned(),
        )));
    }
    let py = v.py();
    if v.is_instance(&py.get_type::<pyo3::types::PyMemoryView>())? {
        let b = py.get_type::<PyBytes>().call1((v,))?;
        return Ok(Some(Text::Decoded(
            String::from_utf8_lossy(b.cast::<PyBytes>()?.as_bytes()).into_owned(),
        )));
    }
    Ok(None)
}

/// `_status(v)`: an int (not a bool) from 100 to 999.
fn status_of(v: Option<Bound<'_, PyAny>>) -> Option<u16> {
    let v = v?;
    if !v.is_instance_of::<PyInt>() || v.is_instance_of::<PyBool>() {
        return None;
    }
    v.extract::<i64>().ok().and_then(checked_status)
}

/// `k, v = item`: exactly two elements.
fn pair<'py>(item: &Bound<'py, PyAny>) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyAny>)> {
    if let Ok(t) = item.cast::<PyTuple>() {
        if t.len() == 2 {
            return Ok((t.get_item(0)?, t.get_item(1)?));
        }
    }
    let mut it = item.try_iter()?;
    let (Some(k), Some(v)) = (it.next().transpose()?, it.next().transpose()?) else {
        return Err(pyo3::exceptions::PyValueError::new_err(
            "not enough values to unpack (expected 2)",
        ));
    };
    if it.next().transpose()?.is_some() {
        return Err(pyo3::exceptions::PyValueError::new_err(
            "too many values to unpack (expected 2)",
        ));
    }
    Ok((k, v))
}

/// Bytes decoded as latin-1 (`bytes.decode("latin-1")`), as HTTP header bytes are. ASCII, the
/// usual case, is copied as is.
fn latin1(b: &[u8]) -> String {
    match std::str::from_utf8(b) {
        Ok(s) if b.is_ascii() => s.to_owned(),
        _ => b.iter().map(|&c| c as char).collect(),
    }
}

/// `_header_items(h)`: header pairs from httpx's raw list (bytes pairs as received, decoded as
/// latin-1), `multi_items()` (repeated headers stay separate), `items()`, or an iterable of
/// pairs, under the core's caps (`HeaderSink`); `None` if reading them raised.
fn header_items(h: Option<Bound<'_, PyAny>>) -> PyResult<Option<Headers>> {
    let Some(h) = h else { return Ok(None) };
    let py = h.py();
    or_absent(py, header_items_inner(&h))
}

fn header_items_inner(h: &Bound<'_, PyAny>) -> PyResult<Headers> {
    let py = h.py();
    let mut out = HeaderSink::new();
    let raw = lookup(h, intern!(py, "raw"))?;
    if let Ok(raw) = raw.cast::<PyList>() {
        for item in raw.iter() {
            let (k, v) = pair(&item)?;
            let kv = match (k.cast::<PyBytes>(), v.cast::<PyBytes>()) {
                (Ok(k), Ok(v)) => Some((latin1(k.as_bytes()), latin1(v.as_bytes()))),
                _ => None,
            };
            if !out.offer(kv.as_ref().map(|(k, v)| (k.as_str(), v.clone()))) {
                break;
            }
        }
        return Ok(out.finish());
    }
    let items = if has(h, intern!(py, "multi_items"))? {
        h.call_method0(intern!(py, "multi_items"))?
    } else if has(h, intern!(py, "items"))? {
        h.call_method0(intern!(py, "items"))?
    } else {
        h.clone()
    };
    // Counted per item taken, not per header kept: an endless run of non-text pairs stops too.
    for item in items.try_iter()? {
        if out.is_full() {
            break;
        }
        let (k, v) = pair(&item?)?;
        let kv = match (text(&k)?, text(&v)?) {
            (Some(k), Some(v)) => Some((k.into_string()?, v.into_string()?)),
            _ => None,
        };
        if !out.offer(kv.as_ref().map(|(k, v)| (k.as_str(), v.clone()))) {
            break;
        }
    }
    Ok(out.finish())
}

/// `_message(exc)`: `str(exc)`, or the class name when that raises.
fn message_of<'py>(e: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyString>> {
    let py = e.py();
    match or_absent(py, e.str())? {
        Some(s) => Ok(s),
        None => Ok(
            or_absent(py, e.get_type().getattr(intern!(py, "__name__")))?
                .and_then(|n| n.cast_into::<PyString>().ok())
                .unwrap_or_else(|| PyString::new(py, "Exception")),
        ),
    }
}

/// `json.dumps(body, default=str)`, looked up once.
fn json_dumps<'py>(body: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    static DUMPS: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
    let py = body.py();
    let dumps = DUMPS.get_or_try_init(py, || {
        py.import("json")?.getattr("dumps").map(Bound::unbind)
    })?;
    let kwargs = pyo3::types::PyDict::new(py);
    kwargs.set_item("default", py.get_type::<PyString>())?;
    dumps.bind(py).call((body,), Some(&kwargs))
}

/// `_body_of(e, response)`: `e.body` as text; else the raw response text (it beats a
/// re-serialised parsed body: openai and anthropic keep only the inner error in `.body`); else
/// the parsed body as JSON.
fn body_of<'py>(
    e: &Bound<'py, PyAny>,
    response: Option<&Bound<'py, PyAny>>,
) -> PyResult<Option<Text<'py>>> {
    let py = e.py();
    let body = attr(e, intern!(py, "body"))?;
    if let Some(t) = match &body {
        Some(b) => text(b)?,
        None => None,
    } {
        return Ok(Some(t));
    }
    if let Some(r) = response {
        let mut t = match attr(r, intern!(py, "text"))? {
            Some(v) => text(&v)?,
            None => None,
        };
        if t.is_none() {
            t = match attr(r, intern!(py, "content"))? {
                Some(v) => text(&v)?,
                None => None,
            };
        }
        if t.is_some() {
            return Ok(t);
        }
    }
    match body {
        Some(b) => match or_absent(py, json_dumps(&b))? {
            Some(s) => text(&s),
            None => Ok(None),
        },
        None => Ok(None),
    }
}

/// `_chain(exc)`: the exception, then its `__cause__` (else its `__context__`, unless
/// `raise ... from None` suppressed it), cycle-safe, at most [`MAX_CHAIN`] deep.
fn chain<'py>(exc: &Bound<'py, PyAny>) -> PyResult<Vec<Bound<'py, PyAny>>> {
    let py = exc.py();
    let mut out: Vec<Bound<'py, PyAny>> = Vec::new();
    let mut cur = Some(exc.clone());
    while let Some(c) = cur {
        if out.len() >= MAX_CHAIN || out.iter().any(|o| o.is(&c)) {
            break;
        }
        // A `__cause__` / `__context__` that raises (a property of the user's), or that is not
        // an exception, ends the walk: what was read so far still counts.
        let mut next = or_absent(py, c.getattr(intern!(py, "__cause__")))?;
        if next.as_ref().is_none_or(|n| n.is_none()) {
            let suppressed = or_absent(
                py,
                c.getattr(intern!(py, "__suppress_context__"))
                    .and_then(|s| s.is_truthy()),
            )?
            .unwrap_or(true);
            if !suppressed {
                next = or_absent(py, c.getattr(intern!(py, "__context__")))?;
            }
        }
        out.push(c);
        cur = next
            .filter(|n| !n.is_none() && n.is_instance_of::<pyo3::exceptions::PyBaseException>());
    }
    Ok(out)
}

/// `_aws_meta(response, key)`: botocore's `ClientError.response` is a dict, not a response
/// object: `response["ResponseMetadata"][key]` (`HTTPStatusCode`, `HTTPHeaders`), else `None`.
fn aws_meta<'py>(
    response: Option<&Bound<'py, PyAny>>,
    key: &str,
) -> PyResult<Option<Bound<'py, PyAny>>> {
    let Some(d) = response.and_then(|r| r.cast::<PyDict>().ok()) else {
        return Ok(None);
    };
    let Some(meta) = item(d, "ResponseMetadata")? else {
        return Ok(None);
    };
    let Ok(meta) = meta.cast::<PyDict>() else {
        return Ok(None);
    };
    item(meta, key)
}

/// `_item(d, key)`: `d.get(key)`, any `Exception` (a key whose `__eq__` raises) read as absent.
fn item<'py>(d: &Bound<'py, PyDict>, key: &str) -> PyResult<Option<Bound<'py, PyAny>>> {
    Ok(or_absent(d.py(), d.get_item(key))?
        .flatten()
        .filter(|v| !v.is_none()))
}

/// `_parsed_body(e, response)`, for exceptions that keep only a parsed body: botocore's
/// `response["Error"]` (`{"Code", "Message", ...}`, the error as botocore parsed it), else a
/// dict `e.details` (google-genai keeps the whole response JSON there), as JSON.
fn parsed_body<'py>(
    e: &Bound<'py, PyAny>,
    response: Option<&Bound<'py, PyAny>>,
) -> PyResult<Option<Text<'py>>> {
    let py = e.py();
    let mut parsed = None;
    if let Some(d) = response.and_then(|r| r.cast::<PyDict>().ok()) {
        parsed = item(d, "Error")?.filter(|v| v.is_instance_of::<PyDict>());
    }
    if parsed.is_none() {
        parsed = attr(e, intern!(py, "details"))?.filter(|v| v.is_instance_of::<PyDict>());
    }
    match parsed {
        Some(b) => match or_absent(py, json_dumps(&b))? {
            Some(s) => text(&s),
            None => Ok(None),
        },
        None => Ok(None),
    }
}

/// aiohttp's HTTP parser errors (aiohttp/http_exceptions.py: ContentLengthError,
/// TransferEncodingError, ...) carry in `code` the status aiohttp's *server* would answer a
/// malformed message with (400); raised by a client reading a cut response, it is no status the
/// client received.
const AIOHTTP_PARSER_ERROR: &str = "aiohttp.http_exceptions.HttpProcessingError";

/// `_fields(exc)` -> the record: each exception of the chain read as a [`Link`] (its own class
/// names, status, headers, body, message); the core merges them (`Failure::from_chain`).
fn read_exception(py: Python<'_>, exc: &Bound<'_, PyAny>) -> PyResult<Failure> {
    let mut links = Vec::new();
    for e in &chain(exc)? {
        links.push(read_link(py, e)?);
    }
    Ok(Failure::from_chain(links))
}

/// One exception's own fields, nothing looked up in its causes.
fn read_link(py: Python<'_>, e: &Bound<'_, PyAny>) -> PyResult<Link> {
    let names = class_names(py, &e.get_type())?;
    let response = attr(e, intern!(py, "response"))?;
    let mut status = status_of(attr(e, intern!(py, "status_code"))?);
    if status.is_none() {
        status = status_of(attr(e, intern!(py, "status"))?);
    }
    if let Some(r) = &response {
        if status.is_none() {
            status = status_of(attr(r, intern!(py, "status_code"))?);
        }
        if status.is_none() {
            status = status_of(attr(r, intern!(py, "status"))?);
        }
    }
    if status.is_none() {
        status = status_of(aws_meta(response.as_ref(), "HTTPStatusCode")?);
    }
    if status.is_none() && !names.iter().any(|n| n == AIOHTTP_PARSER_ERROR) {
        // urllib's HTTPError, google-api-core, google-genai: `code` is the HTTP status.
        status = status_of(attr(e, intern!(py, "code"))?);
    }
    // litellm replaces `response` with a stand-in without headers and keeps the provider's
    // own in `litellm_response_headers`.
    let mut headers = header_items(attr(e, intern!(py, "litellm_response_headers"))?)?;
    if headers.is_none() {
        if let Some(r) = &response {
            headers = header_items(attr(r, intern!(py, "headers"))?)?;
        }
    }
    if headers.is_none() {
        headers = header_items(attr(e, intern!(py, "headers"))?)?;
    }
    if headers.is_none() {
        headers = header_items(aws_meta(response.as_ref(), "HTTPHeaders")?)?;
    }
    let mut body = body_of(e, response.as_ref())?;
    if body.is_none() {
        body = parsed_body(e, response.as_ref())?;
    }
    Ok(Link {
        error_class: names,
        status,
        headers: headers.unwrap_or_default(),
        body: body.map(Text::into_string).transpose()?,
        message: utf8(&message_of(e)?)?,
        client_retries: client_retries_of(e, response.as_ref())?.map(saturating_u8),
    })
}

/// A retry count as the record keeps it: 255 stands for any more.
fn saturating_u8(n: u32) -> u8 {
    u8::try_from(n).unwrap_or(u8::MAX)
}

/// The retries the client library made before it raised: the openai and anthropic SDKs send
/// `x-stainless-retry-count` on every request, and keep the httpx request on their errors
/// (`exc.request`, or `exc.response.request`). Any `Exception` on the way reads as unknown.
fn client_retries_of(
    e: &Bound<'_, PyAny>,
    response: Option<&Bound<'_, PyAny>>,
) -> PyResult<Option<u32>> {
    let py = e.py();
    let mut request = attr(e, intern!(py, "request"))?;
    if request.is_none() {
        if let Some(r) = response {
            request = attr(r, intern!(py, "request"))?;
        }
    }
    let Some(request) = request else {
        return Ok(None);
    };
    let read = || -> PyResult<Option<u32>> {
        let headers = request.getattr(intern!(py, "headers"))?;
        let value = headers.call_method1(
            intern!(py, "get"),
            (intern!(py, "x-stainless-retry-count"),),
        )?;
        Ok(match value.cast::<PyString>() {
            Ok(s) => s.to_cow()?.trim().parse::<u32>().ok(),
            Err(_) => None,
        })
    };
    Ok(or_absent(py, read())?.flatten())
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyFailureRecord>()?;
    let transports: Vec<&str> = Transport::ALL.iter().map(|t| t.as_str()).collect();
    m.add("TRANSPORTS", transports)?;
    m.add("MAX_CHAIN", MAX_CHAIN)?;
    Ok(())
}
