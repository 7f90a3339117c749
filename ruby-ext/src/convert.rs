//! Ruby values <-> JSON values (`serde_json::Value`), the lingua franca of the core's records.
//!
//! Everything here copies into owned Rust values: nothing keeps a Ruby object past the call,
//! so nothing needs marking for the garbage collector.

use magnus::{
    prelude::*, value::Qfalse, value::Qtrue, Error, Float, Integer, RArray, RHash, RString, Ruby,
    Symbol, Value,
};
use serde_json::{Map, Number, Value as Json};

/// Nesting deeper than this is cut off (a self-referencing Hash must not recurse forever).
const MAX_DEPTH: usize = 64;

/// A Ruby String as UTF-8 (invalid bytes replaced). A String in another encoding (UTF-16,
/// ISO-8859-1, Shift_JIS, ...) is transcoded first, so that its text is read rather than its
/// bytes; UTF-8, US-ASCII and binary Strings are read as they are.
pub fn rstring_lossy(s: RString) -> String {
    let s = as_utf8(s);
    // SAFETY: the bytes are copied before any Ruby code can run again.
    let bytes = unsafe { s.as_slice() };
    match std::str::from_utf8(bytes) {
        Ok(text) => text.to_owned(),
        Err(_) => String::from_utf8_lossy(bytes).into_owned(),
    }
}

fn as_utf8(s: RString) -> RString {
    let ruby = Ruby::get_with(s);
    let index = s.enc_get();
    if index == ruby.utf8_encindex()
        || index == ruby.usascii_encindex()
        || index == ruby.ascii8bit_encindex()
    {
        return s;
    }
    // rb_str_conv_enc gives the String back unchanged when it cannot convert it (broken bytes):
    // the lossy read below then replaces what is not UTF-8.
    s.conv_enc(ruby.utf8_encoding()).unwrap_or(s)
}

/// A Symbol's or String's text; `None` for anything else.
pub fn name_of(v: Value) -> Option<String> {
    if let Some(s) = RString::from_value(v) {
        return Some(rstring_lossy(s));
    }
    if let Some(sym) = Symbol::from_value(v) {
        return sym.name().ok().map(|c| c.into_owned());
    }
    None
}

/// Whether an error raised by the caller's object must be passed on rather than read as "no
/// answer": anything that is not a `StandardError` (`Interrupt`, `SignalException`,
/// `SystemExit`, `Thread#raise` of such an error, a `throw`).
pub fn is_fatal(e: &Error) -> bool {
    let ruby = Ruby::get().expect("called from a Ruby thread");
    !e.is_kind_of(ruby.exception_standard_error())
}

/// `v.to_s` as a Rust String (falls back to `inspect`, then to the class's default text, when
/// they raise a `StandardError`); an error that is not a `StandardError` (`Interrupt`, ...) is
/// passed on, never swallowed. Hashes and Arrays are written as JSON (nesting cut at
/// `MAX_DEPTH`) rather than by Ruby's `inspect`, which takes time quadratic in their depth
/// (minutes for 100 000 levels).
pub fn try_to_s(v: Value) -> Result<String, Error> {
    if let Some(n) = name_of(v) {
        return Ok(n);
    }
    if RHash::from_value(v).is_some() || RArray::from_value(v).is_some() {
        match to_json(v) {
            Ok(j) => return Ok(j.to_string()),
            Err(e) if is_fatal(&e) => return Err(e),
            Err(_) => {}
        }
    }
    match v.funcall::<_, _, RString>("to_s", ()) {
        Ok(s) => Ok(rstring_lossy(s)),
        Err(e) if is_fatal(&e) => Err(e),
        Err(_) => match v.funcall::<_, _, RString>("inspect", ()) {
            Ok(s) => Ok(rstring_lossy(s)),
            Err(e) if is_fatal(&e) => Err(e),
            // rb_inspect fails again and magnus falls back to rb_any_to_s.
            Err(_) => Ok(v.inspect()),
        },
    }
}

/// `v.to_s` as a Rust String, never failing (see [`try_to_s`]; an `Interrupt` raised by the
/// object's `to_s` is replaced by its `inspect`). For values the caller gave as arguments;
/// what is read from a live exception goes through [`try_to_s`].
pub fn to_s(v: Value) -> String {
    try_to_s(v).unwrap_or_else(|_| v.inspect())
}

pub fn is_true(v: Value) -> bool {
    Qtrue::from_value(v).is_some()
}

pub fn is_false(v: Value) -> bool {
    Qfalse::from_value(v).is_some()
}

/// A Ruby object as JSON: nil, booleans, numbers, Strings, Symbols (as strings), Arrays,
/// Hashes (keys as strings); anything else by its `to_s`.
pub fn to_json(v: Value) -> Result<Json, Error> {
    to_json_at(v, 0)
}

fn to_json_at(v: Value, depth: usize) -> Result<Json, Error> {
    if v.is_nil() {
        return Ok(Json::Null);
    }
    if is_true(v) {
        return Ok(Json::Bool(true));
    }
    if is_false(v) {
        return Ok(Json::Bool(false));
    }
    if let Some(s) = RString::from_value(v) {
        return Ok(Json::String(rstring_lossy(s)));
    }
    if let Some(sym) = Symbol::from_value(v) {
        return Ok(Json::String(sym.name()?.into_owned()));
    }
    if let Some(i) = Integer::from_value(v) {
        if let Ok(n) = i.to_i64() {
            return Ok(Json::from(n));
        }
        if let Ok(n) = i.to_u64() {
            return Ok(Json::from(n));
        }
        return Ok(Json::String(try_to_s(v)?));
    }
    if let Some(f) = Float::from_value(v) {
        return Ok(Number::from_f64(f.to_f64()).map_or(Json::Null, Json::Number));
    }
    if depth >= MAX_DEPTH {
        return Ok(Json::Null);
    }
    if let Some(a) = RArray::from_value(v) {
        let mut out = Vec::with_capacity(a.len());
        let mut i = 0;
        while i < a.len() {
            out.push(to_json_at(a.entry::<Value>(i as isize)?, depth + 1)?);
            i += 1;
        }
        return Ok(Json::Array(out));
    }
    if let Some(h) = RHash::from_value(v) {
        let mut pairs: Vec<(String, Json)> = Vec::with_capacity(h.len());
        let mut failed = None;
        h.foreach(|k: Value, val: Value| {
            match to_json_at(val, depth + 1).and_then(|j| Ok((try_to_s(k)?, j))) {
                Ok(pair) => pairs.push(pair),
                Err(e) => {
                    failed = Some(e);
                    return Ok(magnus::r_hash::ForEach::Stop);
                }
            }
            Ok(magnus::r_hash::ForEach::Continue)
        })?;
        if let Some(e) = failed {
            return Err(e);
        }
        let mut m = Map::with_capacity(pairs.len());
        for (k, j) in pairs {
            m.insert(k, j);
        }
        return Ok(Json::Object(m));
    }
    Ok(Json::String(try_to_s(v)?))
}

/// JSON as Ruby: objects become Hashes with Symbol keys when `symbol_keys`, else String keys.
pub fn from_json(ruby: &Ruby, j: &Json, symbol_keys: bool) -> Result<Value, Error> {
    Ok(match j {
        Json::Null => ruby.qnil().as_value(),
        Json::Bool(true) => ruby.qtrue().as_value(),
        Json::Bool(false) => ruby.qfalse().as_value(),
        Json::Number(n) => {
            if let Some(i) = n.as_i64() {
                ruby.integer_from_i64(i).as_value()
            } else if let Some(u) = n.as_u64() {
                ruby.integer_from_u64(u).as_value()
            } else {
                ruby.float_from_f64(n.as_f64().unwrap_or(f64::NAN))
                    .as_value()
            }
        }
        Json::String(s) => ruby.str_new(s).as_value(),
        Json::Array(items) => {
            let a = ruby.ary_new_capa(items.len());
            for item in items {
                a.push(from_json(ruby, item, symbol_keys)?)?;
            }
            a.as_value()
        }
        Json::Object(map) => {
            let h = ruby.hash_new();
            for (k, v) in map {
                let val = from_json(ruby, v, symbol_keys)?;
                if symbol_keys {
                    h.aset(ruby.to_symbol(k), val)?;
                } else {
                    h.aset(ruby.str_new(k), val)?;
                }
            }
            h.as_value()
        }
    })
}

/// Looks a key up in a Hash by its String form, then its Symbol form.
pub fn hash_get(ruby: &Ruby, h: RHash, key: &str) -> Option<Value> {
    h.get(ruby.str_new(key))
        .or_else(|| h.get(ruby.to_symbol(key)))
}
