//! `estimate=` read and checked in one native call (`Fleet._cost`): an int of tokens, or a
//! mapping with `messages` (their compact JSON's byte count) and/or `max_tokens`, handed to the
//! core's estimate (`Fleet::estimate`). It runs before every call given an estimate, so the
//! reading is here rather than in Python; its errors are the builtin `TypeError` and
//! `ValueError` with the texts the Python check had (the tests match them).

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyBytes, PyDict, PyInt, PyList, PySequence, PyString, PyTuple};
use retry_core::fleet::admission::{json_int_len, json_string_len};
use retry_core::fleet::{Cost, Fleet};

/// The largest int of tokens read: beyond it a float no longer holds the count exactly (the
/// core's own limit is lower and answers with its own message).
const MAX_GIVEN_TOKENS: i64 = 1_000_000_000_000_000;

/// `estimate` as the attempt's `(input_tokens, output_tokens)`.
pub fn cost(py: Python<'_>, fleet: &Fleet, estimate: &Bound<'_, PyAny>) -> PyResult<(f64, f64)> {
    if estimate.is_instance_of::<PyInt>() && !estimate.is_instance_of::<PyBool>() {
        if estimate.gt(MAX_GIVEN_TOKENS)? {
            return Err(PyValueError::new_err(format!(
                "estimate must be at most 1e12 tokens, got {}",
                estimate.str()?
            )));
        }
        // As `float(estimate)`: a negative beyond a float's range is Python's OverflowError.
        let tokens: f64 = estimate.extract()?;
        let cost = Cost::new(tokens, 0.0)
            .map_err(|e| crate::error::invalid_argument(py, format!("estimate: {}", e.message)))?;
        return Ok((cost.input_tokens, cost.output_tokens));
    }
    let (messages, max_tokens) = parts(py, estimate)?;
    let size = match messages {
        Some(m) => request_bytes(py, &m)?,
        None => 0,
    };
    let max_tokens = match max_tokens {
        Some(n) => max_tokens_of(&n)?,
        None => 0,
    };
    let cost = fleet.estimate(size, max_tokens);
    Ok((cost.input_tokens, cost.output_tokens))
}

/// The two keys of a mapping (None when absent or None): a dict read directly, another mapping
/// through its own `get`. Anything else, an empty mapping or another key is an error.
#[allow(clippy::type_complexity)]
fn parts<'py>(
    py: Python<'py>,
    estimate: &Bound<'py, PyAny>,
) -> PyResult<(Option<Bound<'py, PyAny>>, Option<Bound<'py, PyAny>>)> {
    let not_none = |v: Option<Bound<'py, PyAny>>| v.filter(|v| !v.is_none());
    if let Ok(d) = estimate.cast_exact::<PyDict>() {
        let mut known = 0;
        let messages = d.get_item(pyo3::intern!(py, "messages"))?;
        known += usize::from(messages.is_some());
        let max_tokens = d.get_item(pyo3::intern!(py, "max_tokens"))?;
        known += usize::from(max_tokens.is_some());
        if known == 0 || known != d.len() {
            return Err(bad_keys(estimate));
        }
        return Ok((not_none(messages), not_none(max_tokens)));
    }
    let mapping = py
        .import(pyo3::intern!(py, "collections.abc"))?
        .getattr(pyo3::intern!(py, "Mapping"))?;
    if !estimate.is_instance(&mapping)? {
        return Err(PyTypeError::new_err(format!(
            "estimate must be an int (tokens) or a mapping with 'messages' and/or 'max_tokens', not {}",
            type_name(estimate)?
        )));
    }
    if !estimate.is_truthy()? {
        return Err(bad_keys(estimate));
    }
    for key in estimate.try_iter()? {
        let key = key?;
        let known = key.cast::<PyString>().ok().and_then(|k| {
            k.to_str()
                .ok()
                .map(|k| k == "messages" || k == "max_tokens")
        });
        if known != Some(true) {
            return Err(bad_keys(estimate));
        }
    }
    let get = |k: &Bound<'py, PyString>| estimate.call_method1(pyo3::intern!(py, "get"), (k,));
    Ok((
        not_none(Some(get(pyo3::intern!(py, "messages"))?)),
        not_none(Some(get(pyo3::intern!(py, "max_tokens"))?)),
    ))
}

/// `estimate takes 'messages' and/or 'max_tokens', got [...]`: the keys given, as their sorted
/// reprs.
fn bad_keys(estimate: &Bound<'_, PyAny>) -> PyErr {
    let listed = || -> PyResult<String> {
        let reprs = PyList::empty(estimate.py());
        for key in estimate.try_iter()? {
            reprs.append(key?.repr()?)?;
        }
        reprs.sort()?;
        Ok(reprs.repr()?.to_string())
    };
    match listed() {
        Ok(keys) => PyValueError::new_err(format!(
            "estimate takes 'messages' and/or 'max_tokens', got {keys}"
        )),
        Err(e) => e,
    }
}

/// The byte count of `messages` as compact UTF-8 JSON: counted here for plain messages, else
/// by Python's serializer with the same options.
fn request_bytes(py: Python<'_>, messages: &Bound<'_, PyAny>) -> PyResult<usize> {
    if !messages.is_exact_instance_of::<PyList>()
        && (messages.is_instance_of::<PyString>()
            || messages.is_instance_of::<PyBytes>()
            || messages.cast::<PySequence>().is_err())
    {
        return Err(PyTypeError::new_err(format!(
            "estimate['messages'] must be a list of messages, not {}",
            type_name(messages)?
        )));
    }
    if let Some(n) = json_size(messages, 0) {
        return Ok(n);
    }
    let serialized = (|| -> PyResult<usize> {
        let kwargs = PyDict::new(py);
        kwargs.set_item("separators", PyTuple::new(py, [",", ":"])?)?;
        kwargs.set_item("ensure_ascii", false)?;
        let text = py.import(pyo3::intern!(py, "json"))?.call_method(
            "dumps",
            (messages,),
            Some(&kwargs),
        )?;
        text.call_method1("encode", ("utf-8", "replace"))?.len()
    })();
    serialized.or_else(|err| {
        if err.is_instance_of::<PyTypeError>(py) || err.is_instance_of::<PyValueError>(py) {
            let e = PyTypeError::new_err(format!(
                "estimate['messages'] must be JSON-serializable: {}",
                err.value(py).str()?
            ));
            // As `raise ... from None`.
            e.set_cause(py, None);
            Err(e)
        } else {
            Err(err)
        }
    })
}

/// `max_tokens`: an int (not a bool) in `[0, 2**64)`.
fn max_tokens_of(value: &Bound<'_, PyAny>) -> PyResult<u64> {
    if !value.is_instance_of::<PyInt>() || value.is_instance_of::<PyBool>() {
        return Err(PyTypeError::new_err(format!(
            "estimate['max_tokens'] must be an int, not {}",
            type_name(value)?
        )));
    }
    value.extract::<u64>().map_err(|_| match value.str() {
        Ok(text) => PyValueError::new_err(format!(
            "estimate['max_tokens'] must be in [0, 2**64), got {text}"
        )),
        Err(e) => e,
    })
}

/// `type(value).__name__`.
fn type_name(value: &Bound<'_, PyAny>) -> PyResult<String> {
    Ok(value.get_type().name()?.to_string())
}

/// The length of `v` as compact JSON without ASCII escaping, in UTF-8 bytes (see
/// `PyFleet::_json_size`), or None for what only the serializer knows how to write. This runs
/// before every call given messages: the shapes of a message (a dict of strs, a list) are
/// tried first by their exact type, and nothing is allocated.
pub fn json_size(v: &Bound<'_, PyAny>, depth: usize) -> Option<usize> {
    if depth > 64 {
        return None;
    }
    // Exact types by their type pointer first (a failed `cast` builds an error to drop).
    if v.is_exact_instance_of::<PyString>() {
        // SAFETY: checked just above.
        return string_size(unsafe { v.cast_unchecked::<PyString>() });
    }
    if v.is_exact_instance_of::<PyDict>() {
        // SAFETY: checked just above.
        return dict_size(unsafe { v.cast_unchecked::<PyDict>() }, depth);
    }
    if v.is_exact_instance_of::<PyList>() {
        // SAFETY: checked just above.
        return list_size(unsafe { v.cast_unchecked::<PyList>() }, depth);
    }
    if v.is_none() {
        return Some(4);
    }
    if v.is_exact_instance_of::<PyBool>() {
        return Some(if v.is_truthy().ok()? { 4 } else { 5 });
    }
    if v.is_exact_instance_of::<PyInt>() {
        return int_size(v);
    }
    // Subclasses, as the serializer writes them.
    if let Ok(s) = v.cast::<PyString>() {
        return string_size(s);
    }
    if v.is_instance_of::<PyInt>() {
        return int_size(v);
    }
    if let Ok(d) = v.cast::<PyDict>() {
        return dict_size(d, depth);
    }
    if let Ok(l) = v.cast::<PyList>() {
        return list_size(l, depth);
    }
    if let Ok(t) = v.cast::<PyTuple>() {
        let mut n = 2 + t.len().saturating_sub(1);
        for x in t.iter() {
            n += json_size(&x, depth + 1)?;
        }
        return Some(n);
    }
    None
}

fn string_size(s: &Bound<'_, PyString>) -> Option<usize> {
    // As `ensure_ascii=False` writes it (the core's rule).
    Some(json_string_len(s.to_str().ok()?.as_bytes()))
}

/// An int's digits (a bool is not one: checked before).
fn int_size(v: &Bound<'_, PyAny>) -> Option<usize> {
    if let Ok(i) = v.extract::<i64>() {
        return Some(json_int_len(i));
    }
    let i: i128 = v.extract().ok()?;
    Some(i.to_string().len())
}

fn dict_size(d: &Bound<'_, PyDict>, depth: usize) -> Option<usize> {
    let mut n = 2 + d.len().saturating_sub(1);
    for (k, x) in d.iter() {
        let key = if k.is_exact_instance_of::<PyString>() {
            // SAFETY: checked just above.
            string_size(unsafe { k.cast_unchecked::<PyString>() })?
        } else {
            string_size(k.cast::<PyString>().ok()?)?
        };
        n += key + 1 + json_size(&x, depth + 1)?;
    }
    Some(n)
}

fn list_size(l: &Bound<'_, PyList>, depth: usize) -> Option<usize> {
    let mut n = 2 + l.len().saturating_sub(1);
    for x in l.iter() {
        n += json_size(&x, depth + 1)?;
    }
    Some(n)
}
