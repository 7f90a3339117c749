//! `RetryCore::Failure`: the failure record (core `failure.rs`), built from keyword arguments,
//! from JSON, or from a live exception.

use magnus::{
    prelude::*, rb_sys::AsRawValue, value::LazyId, Error, Integer, Module, RArray, RClass, RHash,
    RModule, RString, Ruby, Symbol, Value,
};
use retry_core::__private::failure::{HeaderSink, MAX_HEADERS, MAX_HEADER_ITEMS};
use retry_core::Link;
use retry_core::{Failure, Headers, Transport};

use crate::convert::{self, is_fatal, name_of, rstring_lossy, to_s, try_to_s};
use crate::error::{guard, invalid_argument, to_ruby, type_error};

/// One failure record. Immutable from Ruby.
#[magnus::wrap(class = "RetryCore::Failure", free_immediately, size, frozen_shareable)]
pub struct RbFailure(pub Failure);

// How many exceptions of a `#cause` chain are read, and which statuses a record takes: the
// core's limits, the same in every binding.
use retry_core::__private::failure::{checked_status, MAX_CAUSES};

static ID_RESPONSE: LazyId = LazyId::new("response");
static ID_STATUS: LazyId = LazyId::new("status");
static ID_HEADERS: LazyId = LazyId::new("headers");
static ID_BODY: LazyId = LazyId::new("body");
static ID_MESSAGE: LazyId = LazyId::new("message");
static ID_CAUSE: LazyId = LazyId::new("cause");
static ID_ANCESTORS: LazyId = LazyId::new("ancestors");
static ID_NAME: LazyId = LazyId::new("name");
static ID_RESPONSE_STATUS: LazyId = LazyId::new("response_status");
static ID_RESPONSE_BODY: LazyId = LazyId::new("response_body");
static ID_RESPONSE_HEADERS: LazyId = LazyId::new("response_headers");
static ID_STATUS_CODE: LazyId = LazyId::new("status_code");
static ID_HTTP_STATUS: LazyId = LazyId::new("http_status");
static ID_CODE: LazyId = LazyId::new("code");
static ID_EACH_HEADER: LazyId = LazyId::new("each_header");
static ID_TO_HASH: LazyId = LazyId::new("to_hash");

fn status_from(ruby: &Ruby, v: Value) -> Result<Option<u16>, Error> {
    if v.is_nil() {
        return Ok(None);
    }
    let Some(i) = Integer::from_value(v) else {
        return Err(type_error(
            ruby,
            format!("status must be an Integer or nil, not {}", v.class()),
        ));
    };
    match i.to_i64() {
        Ok(n) if checked_status(n).is_some() => Ok(checked_status(n)),
        _ => Err(invalid_argument(
            ruby,
            format!("status must be an HTTP status (100..999), got {}", to_s(v)),
        )),
    }
}

/// Header values: a String, a list of Strings (joined as HTTP joins repeated headers), or
/// anything else by `to_s` (an `Interrupt` raised by it is passed on).
fn header_value(v: Value) -> Result<String, Error> {
    if let Some(a) = RArray::from_value(v) {
        let n = a.len().min(MAX_HEADERS);
        let mut parts = Vec::with_capacity(n);
        for i in 0..n {
            parts.push(try_to_s(a.entry::<Value>(i as isize)?)?);
        }
        return Ok(parts.join(", "));
    }
    try_to_s(v)
}

/// What a misbehaving object's `StandardError` leaves: `absent`. Anything else (`Interrupt`,
/// `SignalException`, a `throw`) is passed on.
fn or_absent<T>(r: Result<T, Error>, absent: T) -> Result<T, Error> {
    match r {
        Err(e) if is_fatal(&e) => Err(e),
        Err(_) => Ok(absent),
        ok => ok,
    }
}

/// The headers of a response a call returned (any header object, as `headers_from` reads
/// them); a header object that cannot be read gives none, never an error.
pub(crate) fn response_headers(ruby: &Ruby, v: Value) -> Result<Headers, Error> {
    or_absent(headers_from(ruby, v, false), Headers::new())
}

fn headers_from(ruby: &Ruby, v: Value, strict: bool) -> Result<Headers, Error> {
    let headers = Headers::new();
    if v.is_nil() {
        return Ok(headers);
    }
    let mut pairs: Vec<(String, Value)> = Vec::new();
    // Faraday::Utils::Headers and friends are Hash subclasses (read from the table, at most
    // MAX_HEADER_ITEMS entries). Other header objects are read through `each_pair` or `each`,
    // stopped after MAX_HEADER_ITEMS items (an endless one must not hang nor fill memory);
    // objects with neither convert with `to_h`.
    let hash = match RHash::from_value(v) {
        Some(h) => Some(h),
        None => {
            let each = ["each_pair", "each"]
                .into_iter()
                .map(|m| or_absent(v.respond_to(m, false), false).map(|r| r.then_some(m)))
                .collect::<Result<Vec<_>, Error>>()?
                .into_iter()
                .flatten()
                .next();
            match each {
                Some(m) => {
                    let items = v
                        .funcall::<_, _, Value>("enum_for", (ruby.to_symbol(m),))
                        .and_then(|e| e.funcall::<_, _, Value>("first", (MAX_HEADER_ITEMS,)));
                    let items = match items {
                        Err(e) if is_fatal(&e) || strict => return Err(e),
                        Err(_) => return Ok(headers),
                        Ok(items) => items,
                    };
                    if let Some(items) = RArray::from_value(items) {
                        for i in 0..items.len().min(MAX_HEADER_ITEMS) {
                            let item = items.entry::<Value>(i as isize)?;
                            if let Some(pair) = RArray::from_value(item) {
                                if pair.len() == 2 {
                                    let k = try_to_s(pair.entry::<Value>(0)?)?;
                                    pairs.push((k, pair.entry::<Value>(1)?));
                                }
                            }
                        }
                    }
                    None
                }
                None => match v.check_funcall::<_, _, RHash>("to_h", ()) {
                    Some(Ok(h)) => Some(h),
                    Some(Err(e)) if is_fatal(&e) => return Err(e),
                    _ if strict => {
                        return Err(type_error(
                            ruby,
                            format!("headers must be a Hash or nil, not {}", v.class()),
                        ))
                    }
                    _ => return Ok(headers),
                },
            }
        }
    };
    if let Some(hash) = hash {
        let mut failed = None;
        hash.foreach(|k: Value, val: Value| {
            if pairs.len() >= MAX_HEADER_ITEMS {
                return Ok(magnus::r_hash::ForEach::Stop);
            }
            match try_to_s(k) {
                Ok(k) => {
                    pairs.push((k, val));
                    Ok(magnus::r_hash::ForEach::Continue)
                }
                Err(e) => {
                    failed = Some(e);
                    Ok(magnus::r_hash::ForEach::Stop)
                }
            }
        })?;
        if let Some(e) = failed {
            return Err(e);
        }
    }
    // The core's caps (`HeaderSink`), the same in every binding.
    let mut sink = HeaderSink::new();
    for (k, val) in pairs {
        if val.is_nil() {
            continue;
        }
        let value = header_value(val)?;
        if !sink.offer(Some((&k, value))) {
            break;
        }
    }
    let headers = sink.finish();
    Ok(headers)
}

/// A body: a String as it is, a parsed JSON body (Hash/Array, as Faraday's JSON middleware
/// leaves it) back as JSON text, anything else by `to_s`.
fn body_from(v: Value) -> Result<Option<String>, Error> {
    if v.is_nil() {
        return Ok(None);
    }
    if let Some(s) = RString::from_value(v) {
        return Ok(Some(rstring_lossy(s)));
    }
    if RHash::from_value(v).is_some() || RArray::from_value(v).is_some() {
        return Ok(Some(convert::to_json(v)?.to_string()));
    }
    Ok(Some(try_to_s(v)?))
}

/// The names of a class and its superclasses (modules left out), most specific first. A
/// `StandardError` raised by `ancestors` or `name` leaves that name out; an `Interrupt` (any
/// other error) is passed on.
fn class_chain(class: RClass) -> Result<Vec<String>, Error> {
    let mut names = Vec::new();
    let ancestors = match class.funcall::<_, _, RArray>(*ID_ANCESTORS, ()) {
        Ok(a) => a,
        Err(e) if is_fatal(&e) => return Err(e),
        Err(_) => return Ok(names),
    };
    for i in 0..ancestors.len() {
        let Ok(a) = ancestors.entry::<Value>(i as isize) else {
            break;
        };
        if RClass::from_value(a).is_none() {
            continue; // a module (Kernel, Comparable, ...)
        }
        match a.funcall::<_, _, Option<RString>>(*ID_NAME, ()) {
            Ok(Some(name)) => {
                let name = rstring_lossy(name);
                if name == "Object" || name == "BasicObject" {
                    break;
                }
                names.push(name);
            }
            Err(e) if is_fatal(&e) => return Err(e),
            _ => {}
        }
    }
    Ok(names)
}

fn error_class_from(ruby: &Ruby, v: Value) -> Result<Vec<String>, Error> {
    if v.is_nil() {
        return Ok(Vec::new());
    }
    if let Some(c) = RClass::from_value(v) {
        return class_chain(c);
    }
    if let Some(n) = name_of(v) {
        return Ok(vec![n]);
    }
    let Some(a) = RArray::from_value(v) else {
        return Err(type_error(
            ruby,
            format!("error_class must be an Array of names, not {}", v.class()),
        ));
    };
    let mut names = Vec::with_capacity(a.len());
    for i in 0..a.len() {
        let item = a.entry::<Value>(i as isize)?;
        if let Some(n) = name_of(item) {
            names.push(n);
        } else if let Some(m) = RModule::from_value(item) {
            let name: Option<RString> = m.funcall(*ID_NAME, ())?;
            names.push(name.map(rstring_lossy).unwrap_or_default());
        } else {
            return Err(type_error(
                ruby,
                format!("error_class entries must be Strings, not {}", item.class()),
            ));
        }
    }
    Ok(names)
}

/// Calls `method` if the object responds to it. A `StandardError` raised by it counts as "no
/// answer"; anything else (an `Interrupt`, a `SignalException`, `Thread#raise` of a non-standard
/// error, a `throw`) is passed on, never swallowed.
fn probe(ruby: &Ruby, v: Value, method: &'static LazyId) -> Result<Option<Value>, Error> {
    match v.check_funcall::<_, _, Value>(**method, ()) {
        Some(Ok(x)) if !x.is_nil() => Ok(Some(x)),
        Some(Err(e)) if !e.is_kind_of(ruby.exception_standard_error()) => Err(e),
        _ => Ok(None),
    }
}

/// The first of these methods that answers.
fn probe_first(ruby: &Ruby, v: Value, methods: &[&'static LazyId]) -> Result<Option<Value>, Error> {
    for method in methods {
        if let Some(x) = probe(ruby, v, method)? {
            return Ok(Some(x));
        }
    }
    Ok(None)
}

/// What one exception in a cause chain says about the HTTP response.
#[derive(Default)]
struct Response {
    status: Option<u16>,
    headers: Headers,
    body: Option<String>,
}

fn lenient_status(v: Option<Value>) -> Option<u16> {
    let v = v?;
    let n = match Integer::from_value(v) {
        Some(i) => i.to_i64().ok()?,
        None => name_of(v)?.trim().parse::<i64>().ok()?,
    };
    checked_status(n)
}

fn response_of(ruby: &Ruby, exc: Value) -> Result<Response, Error> {
    let mut r = Response::default();
    // RubyLLM: error.response is a Faraday::Response; Faraday::Error (1.x and 2.x):
    // error.response is a Hash {status:, headers:, body:, request:} (the request is never read);
    // Net::HTTPExceptions: error.response is the Net::HTTPResponse.
    if let Some(resp) = probe(ruby, exc, &ID_RESPONSE)? {
        if let Some(h) = RHash::from_value(resp) {
            r.status = lenient_status(convert::hash_get(ruby, h, "status"));
            if let Some(v) = convert::hash_get(ruby, h, "headers") {
                r.headers = or_absent(headers_from(ruby, v, false), Headers::new())?;
            }
            if let Some(v) = convert::hash_get(ruby, h, "body") {
                r.body = or_absent(body_from(v), None)?;
            }
        } else {
            // Faraday::Response (RubyLLM): #status, #headers, #body. Net::HTTPResponse (the
            // #response of the Net::HTTPExceptions that `res.value` raises): #code as a String,
            // headers only through Net::HTTPHeader (#each_header, #to_hash: name => [values]).
            r.status = lenient_status(probe_first(ruby, resp, &[&ID_STATUS, &ID_CODE])?);
            let mut headers = probe(ruby, resp, &ID_HEADERS)?;
            if headers.is_none() && or_absent(resp.respond_to(*ID_EACH_HEADER, false), false)? {
                headers = probe(ruby, resp, &ID_TO_HASH)?;
            }
            if let Some(v) = headers {
                r.headers = or_absent(headers_from(ruby, v, false), Headers::new())?;
            }
            if let Some(v) = probe(ruby, resp, &ID_BODY)? {
                r.body = or_absent(body_from(v), None)?;
            }
        }
    }
    if r.status.is_none() {
        r.status = lenient_status(probe_first(
            ruby,
            exc,
            &[
                &ID_RESPONSE_STATUS,
                &ID_STATUS_CODE,
                &ID_HTTP_STATUS,
                &ID_STATUS,
            ],
        )?);
    }
    if r.headers.is_empty() {
        if let Some(h) = probe(ruby, exc, &ID_RESPONSE_HEADERS)? {
            r.headers = or_absent(headers_from(ruby, h, false), Headers::new())?;
        }
    }
    if r.body.is_none() {
        if let Some(v) = probe(ruby, exc, &ID_RESPONSE_BODY)? {
            r.body = or_absent(body_from(v), None)?;
        }
    }
    Ok(r)
}

/// The failure record of a live exception: each exception of its `#cause` chain read as a
/// [`Link`] (its own class names, status, headers, body and message), merged by the core's
/// one rule (`Failure::from_chain`). Errors raised by the exception's own methods are ignored,
/// except those that are not `StandardError`s (`Interrupt` and friends), which are passed on.
pub fn failure_from_exception(ruby: &Ruby, exc: Value) -> Result<Failure, Error> {
    let mut links = Vec::new();
    let mut current = exc;
    let mut seen: Vec<Value> = Vec::new();
    for _ in 0..MAX_CAUSES {
        // Identity, compared without calling into Ruby (`equal?` could be redefined to raise).
        if seen.iter().any(|s| s.as_raw() == current.as_raw()) {
            break;
        }
        seen.push(current);
        let message = match current.funcall::<_, _, Value>(*ID_MESSAGE, ()) {
            Ok(m) => or_absent(try_to_s(m), String::new())?,
            Err(e) if is_fatal(&e) => return Err(e),
            Err(_) => String::new(),
        };
        let r = response_of(ruby, current)?;
        links.push(Link {
            error_class: class_chain(current.class())?,
            status: r.status,
            headers: r.headers,
            body: r.body,
            message,
            client_retries: None,
        });
        match probe(ruby, current, &ID_CAUSE)? {
            Some(cause) => current = cause,
            None => break,
        }
    }
    Ok(Failure::from_chain(links))
}

impl RbFailure {
    fn new(
        ruby: &Ruby,
        status: Value,
        headers: Value,
        body: Value,
        error_class: Value,
        message: Value,
        transport: Value,
    ) -> Result<Self, Error> {
        guard(ruby, || {
            let transport = if transport.is_nil() {
                None
            } else {
                let name = name_of(transport).ok_or_else(|| {
                    type_error(ruby, "transport must be a String, a Symbol or nil")
                })?;
                Some(Transport::parse(&name).ok_or_else(|| {
                    invalid_argument(
                        ruby,
                        format!(
                            "unknown transport {name:?}; expected one of {}",
                            Transport::ALL.map(Transport::as_str).join(", ")
                        ),
                    )
                })?)
            };
            Ok(RbFailure(Failure {
                status: status_from(ruby, status)?,
                headers: headers_from(ruby, headers, true)?,
                body: body_from(body)?,
                error_class: error_class_from(ruby, error_class)?,
                message: if message.is_nil() {
                    String::new()
                } else {
                    to_s(message)
                },
                transport,
                client_retries: None,
                inner_messages: Box::default(),
            }))
        })
    }

    fn from_exception(ruby: &Ruby, exc: Value) -> Result<Self, Error> {
        guard(ruby, || {
            if !exc.is_kind_of(ruby.exception_exception()) {
                return Err(type_error(
                    ruby,
                    format!("expected an Exception, got {}", exc.class()),
                ));
            }
            Ok(RbFailure(failure_from_exception(ruby, exc)?))
        })
    }

    fn from_json(ruby: &Ruby, json: RString) -> Result<Self, Error> {
        guard(ruby, || {
            Failure::from_json(&rstring_lossy(json))
                .map(RbFailure)
                .map_err(|e| to_ruby(ruby, e))
        })
    }

    fn status(&self) -> Option<u16> {
        self.0.status
    }

    fn headers(ruby: &Ruby, rb_self: &Self) -> Result<RHash, Error> {
        let h = ruby.hash_new();
        for (k, v) in rb_self.0.headers.iter() {
            h.aset(k, v)?;
        }
        Ok(h)
    }

    fn body(&self) -> Option<String> {
        self.0.body.clone()
    }

    fn error_class(&self) -> Vec<String> {
        self.0.error_class.clone()
    }

    fn message(&self) -> String {
        self.0.message.clone()
    }

    fn transport(ruby: &Ruby, rb_self: &Self) -> Option<Symbol> {
        rb_self.0.transport.map(|t| ruby.to_symbol(t.as_str()))
    }

    fn to_json(ruby: &Ruby, rb_self: &Self) -> Result<String, Error> {
        guard(ruby, || {
            serde_json::to_string(&rb_self.0).map_err(|e| to_ruby(ruby, e.into()))
        })
    }
}

pub fn init(ruby: &Ruby, module: RModule) -> Result<(), Error> {
    let class = module.define_class("Failure", ruby.class_object())?;
    class.undef_default_alloc_func();
    class.define_singleton_method("_new", magnus::function!(RbFailure::new, 6))?;
    class.define_singleton_method(
        "_from_exception",
        magnus::function!(RbFailure::from_exception, 1),
    )?;
    class.define_singleton_method("_from_json", magnus::function!(RbFailure::from_json, 1))?;
    class.define_method("status", magnus::method!(RbFailure::status, 0))?;
    class.define_method("headers", magnus::method!(RbFailure::headers, 0))?;
    class.define_method("body", magnus::method!(RbFailure::body, 0))?;
    class.define_method("error_class", magnus::method!(RbFailure::error_class, 0))?;
    class.define_method("message", magnus::method!(RbFailure::message, 0))?;
    class.define_method("transport", magnus::method!(RbFailure::transport, 0))?;
    class.define_method("_to_json", magnus::method!(RbFailure::to_json, 0))?;
    Ok(())
}
