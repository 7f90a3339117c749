//! `estimate:` read and checked in one native call (`Fleet#_cost`): an Integer of tokens, or a
//! Hash with `messages:` (their JSON's byte count) and/or `max_tokens:`, handed to the core's
//! estimate (`Fleet::estimate`). It runs before every call given an estimate, so the reading is
//! here rather than in Ruby, and the messages are measured without writing them
//! (`json_size`, as `JSON.generate(messages).bytesize`). Its errors are the `TypeError` and
//! `ArgumentError` with the texts the Ruby check had (the suite matches them). Messages that are
//! objects (RubyLLM's Message: counted as their `to_h`) or hold what only the JSON generator
//! knows how to write go to the Ruby side (`Retry.request_bytes`).

use magnus::r_hash::ForEach;
use magnus::{
    prelude::*, value::ReprValue, Error, Float, Integer, RArray, RHash, RModule, RString, Ruby,
    Symbol, Value,
};
use retry_core::fleet::admission::{json_int_len, json_string_len};
use retry_core::fleet::{Cost, Fleet};

use magnus::rb_sys::{AsRawValue, FromRawValue};
use magnus::value::LazyId;

use crate::error::{guard, to_ruby};

/// The two keys, interned once (a Symbol made from a `&str` on every call allocated a String
/// and took a lock-protected lookup: about 1 000 instructions each, measured with callgrind).
static MESSAGES: LazyId = LazyId::new("messages");
static MAX_TOKENS: LazyId = LazyId::new("max_tokens");

/// Nesting deeper than this is left to the JSON generator (whose own limit then answers).
const MAX_DEPTH: usize = 64;

/// The largest Integer of tokens read (the core's own limit is lower and answers with its own
/// message).
const MAX_GIVEN_TOKENS: i64 = 1_000_000_000_000_000;

/// `estimate` as the attempt's `(input_tokens, output_tokens)`.
pub(crate) fn cost(ruby: &Ruby, fleet: &Fleet, estimate: Value) -> Result<(f64, f64), Error> {
    if let Some(tokens) = Integer::from_value(estimate) {
        let tokens = given_tokens(ruby, tokens)?;
        let cost = Cost::new(tokens, 0.0).map_err(|e| {
            to_ruby(
                ruby,
                retry_core::Error::invalid_argument(format!("estimate: {}", e.message)),
            )
        })?;
        return Ok((cost.input_tokens, cost.output_tokens));
    }
    let Some(hash) = RHash::from_value(estimate) else {
        return Err(Error::new(
            ruby.exception_type_error(),
            format!(
                "estimate: takes an Integer (tokens) or a Hash with messages: and/or max_tokens:, not {}",
                class_name(estimate)?
            ),
        ));
    };
    // Symbol keys (the usual `{messages: ..., max_tokens: ...}`): when every key is one of the
    // two, the keys are right without a pass over them.
    let by_symbol = [hash.get(*MESSAGES), hash.get(*MAX_TOKENS)];
    let found = by_symbol.iter().flatten().count();
    if found == 0 || found != hash.len() {
        check_keys(ruby, hash)?;
    }
    let [messages, max_tokens] = by_symbol;
    let messages = messages.map_or_else(|| hash.aref("messages"), Ok)?;
    let size = request_bytes(ruby, messages)?;
    let max_tokens = max_tokens.map_or_else(|| hash.aref("max_tokens"), Ok)?;
    let max_tokens = max_tokens_of(ruby, max_tokens)?;
    guard(ruby, || {
        let cost = fleet.estimate(size, max_tokens);
        Ok((cost.input_tokens, cost.output_tokens))
    })
}

/// An Integer of tokens as a float, at most `MAX_GIVEN_TOKENS` (as `estimate.to_f`).
fn given_tokens(ruby: &Ruby, tokens: Integer) -> Result<f64, Error> {
    let too_many = match tokens.to_i64() {
        Ok(n) => n > MAX_GIVEN_TOKENS,
        // A Bignum: beyond an i64, so too many unless negative.
        Err(_) => tokens.funcall::<_, _, bool>(">", (0,))?,
    };
    if too_many {
        return Err(Error::new(
            ruby.exception_arg_error(),
            format!(
                "estimate: must be at most 1e12 tokens, got {}",
                tokens.funcall::<_, _, RString>("to_s", ())?
            ),
        ));
    }
    match tokens.to_i64() {
        Ok(n) => Ok(n as f64),
        Err(_) => tokens.funcall("to_f", ()),
    }
}

/// The Hash's keys, by their `to_s`: `messages` and/or `max_tokens`, each once.
fn check_keys(ruby: &Ruby, hash: RHash) -> Result<(), Error> {
    let (mut messages, mut max_tokens, mut other) = (0, 0, false);
    let mut failed = None;
    hash.foreach(|k: Value, _: Value| {
        let mut counted = |name: &[u8]| match name {
            b"messages" => messages += 1,
            b"max_tokens" => max_tokens += 1,
            _ => other = true,
        };
        if let Some(s) = RString::from_value(k).filter(|s| same(s.class(), ruby.class_string())) {
            // SAFETY: the bytes are compared before any Ruby code runs again.
            counted(unsafe { s.as_slice() });
        } else if let Some(name) = Symbol::from_value(k).and_then(|s| s.name().ok()) {
            counted(name.as_bytes());
        } else {
            match k.funcall::<_, _, RString>("to_s", ()) {
                // SAFETY: as above.
                Ok(s) => counted(unsafe { s.as_slice() }),
                Err(e) => {
                    failed = Some(e);
                    return Ok(ForEach::Stop);
                }
            }
        }
        Ok(ForEach::Continue)
    })?;
    if let Some(e) = failed {
        return Err(e);
    }
    if other || messages + max_tokens == 0 || messages > 1 || max_tokens > 1 {
        let keys: Value = hash.funcall("keys", ())?;
        return Err(Error::new(
            ruby.exception_arg_error(),
            format!(
                "estimate: takes messages: and/or max_tokens:, got {}",
                keys.funcall::<_, _, RString>("inspect", ())?
            ),
        ));
    }
    Ok(())
}

/// The byte count of `messages` as JSON, 0 without: counted here when every message is a Hash
/// or an Array of what `json_size` knows; else by the Ruby side.
fn request_bytes(ruby: &Ruby, messages: Value) -> Result<usize, Error> {
    if messages.is_nil() {
        return Ok(0);
    }
    let Some(list) = RArray::from_value(messages) else {
        return Err(Error::new(
            ruby.exception_type_error(),
            format!(
                "estimate: messages: must be an Array, not {}",
                class_name(messages)?
            ),
        ));
    };
    let plain = (|| {
        let mut n = 2 + list.len().saturating_sub(1);
        for i in 0..list.len() {
            let m: Value = list.entry(i as isize).ok()?;
            // Anything else may be an object counted as its `to_h`: the Ruby side.
            if RHash::from_value(m).is_none() && RArray::from_value(m).is_none() {
                return None;
            }
            n += json_size(ruby, m, 1)?;
        }
        Some(n)
    })();
    match plain {
        Some(n) => Ok(n),
        None => {
            let retry: RModule = ruby.class_object().const_get::<_, RModule>("RetryCore")?;
            let retry: Value = retry.const_get("Retry")?;
            retry.funcall("request_bytes", (messages,))
        }
    }
}

/// `max_tokens`: nil (0) or an Integer in `0...2**64`.
fn max_tokens_of(ruby: &Ruby, value: Value) -> Result<u64, Error> {
    if value.is_nil() {
        return Ok(0);
    }
    let Some(n) = Integer::from_value(value) else {
        return Err(Error::new(
            ruby.exception_type_error(),
            format!(
                "estimate: max_tokens: must be an Integer, not {}",
                class_name(value)?
            ),
        ));
    };
    n.to_u64()
        .map_err(|_| match n.funcall::<_, _, RString>("to_s", ()) {
            Ok(text) => Error::new(
                ruby.exception_arg_error(),
                format!("estimate: max_tokens: must be in 0...2**64, got {text}"),
            ),
            Err(e) => e,
        })
}

/// `value.class.to_s`.
fn class_name(value: Value) -> Result<RString, Error> {
    value.class().funcall("to_s", ())
}

/// The length of `v` as `JSON.generate` writes it, in bytes, or None for what only the generator
/// knows how to write: objects (their `to_json`), subclasses of the core types, a Bignum,
/// a Float that is not finite, a String that is not valid UTF-8 (or US-ASCII), Hash keys other
/// than Strings and Symbols, nesting deeper than `MAX_DEPTH`.
pub(crate) fn json_size(ruby: &Ruby, v: Value, depth: usize) -> Option<usize> {
    if depth > MAX_DEPTH {
        return None;
    }
    if v.is_nil() {
        return Some(4);
    }
    if let Some(b) = bool_of(ruby, v) {
        return Some(if b { 4 } else { 5 });
    }
    if let Some(i) = Integer::from_value(v) {
        return Some(json_int_len(i.to_i64().ok()?));
    }
    if let Some(f) = Float::from_value(v) {
        return float_size(f.to_f64());
    }
    if let Some(s) = Symbol::from_value(v) {
        return symbol_size(ruby, s);
    }
    let class = v.class();
    if let Some(s) = RString::from_value(v) {
        return if same(class, ruby.class_string()) {
            string_size(ruby, s)
        } else {
            None
        };
    }
    if let Some(h) = RHash::from_value(v) {
        if !same(class, ruby.class_hash()) {
            return None;
        }
        let mut n = Some(2 + h.len().saturating_sub(1));
        each_entry(h, |k, x| {
            let key = if let Some(s) = RString::from_value(k) {
                if same(k.class(), ruby.class_string()) {
                    string_size(ruby, s)
                } else {
                    None
                }
            } else if let Some(sym) = Symbol::from_value(k) {
                symbol_size(ruby, sym)
            } else {
                None
            };
            n = match (n, key, json_size(ruby, x, depth + 1)) {
                (Some(n), Some(k), Some(x)) => Some(n + k + 1 + x),
                _ => None,
            };
            n.is_some()
        });
        return n;
    }
    if let Some(a) = RArray::from_value(v) {
        if !same(class, ruby.class_array()) {
            return None;
        }
        let mut n = 2 + a.len().saturating_sub(1);
        for i in 0..a.len() {
            n += json_size(ruby, a.entry(i as isize).ok()?, depth + 1)?;
        }
        return Some(n);
    }
    None
}

/// Calls `f` on each entry of `h` until it answers false, through `rb_hash_foreach` itself:
/// `json_size` reads Strings, Symbols and numbers and runs no Ruby code, so nothing can raise
/// (nor change the Hash) while it iterates, and the `rb_protect` and closure boxing of
/// `RHash::foreach` (about 300 instructions a Hash, callgrind) are not needed.
fn each_entry<F: FnMut(Value, Value) -> bool>(h: RHash, mut f: F) {
    unsafe extern "C" fn entry<F: FnMut(Value, Value) -> bool>(
        k: rb_sys::VALUE,
        v: rb_sys::VALUE,
        arg: rb_sys::VALUE,
    ) -> std::ffi::c_int {
        // SAFETY: `arg` is the `&mut F` below, alive for the whole iteration.
        let f = unsafe { &mut *(arg as *mut F) };
        // SAFETY: the Hash's own keys and values.
        let go = f(unsafe { Value::from_raw(k) }, unsafe { Value::from_raw(v) });
        (if go {
            rb_sys::st_retval::ST_CONTINUE
        } else {
            rb_sys::st_retval::ST_STOP
        }) as std::ffi::c_int
    }
    // SAFETY: `h` is a Hash, the callback matches the signature and never raises (above).
    unsafe {
        rb_sys::rb_hash_foreach(
            h.as_raw(),
            Some(entry::<F>),
            &mut f as *mut F as rb_sys::VALUE,
        )
    };
}

/// Whether `a` and `b` are the same object (`equal?`).
fn same(a: impl ReprValue, b: impl ReprValue) -> bool {
    a.as_rb_value() == b.as_rb_value()
}

fn bool_of(ruby: &Ruby, v: Value) -> Option<bool> {
    if same(v, ruby.qtrue()) {
        Some(true)
    } else if same(v, ruby.qfalse()) {
        Some(false)
    } else {
        None
    }
}

/// A Symbol's JSON length: its name's, as a String.
fn symbol_size(ruby: &Ruby, sym: Symbol) -> Option<usize> {
    // SAFETY: `rb_sym2str` takes any Symbol and gives its (frozen, shared) name.
    let name = unsafe { rb_sys::rb_sym2str(sym.as_raw()) };
    string_size(ruby, RString::from_value(unsafe { Value::from_raw(name) })?)
}

/// A String's JSON length, when it is valid UTF-8 (or ASCII-only US-ASCII): Ruby's code range,
/// cached on the String, says so without scanning it again.
fn string_size(ruby: &Ruby, s: RString) -> Option<usize> {
    use rb_sys::ruby_coderange_type::{RUBY_ENC_CODERANGE_7BIT, RUBY_ENC_CODERANGE_VALID};
    let index = s.enc_get();
    // SAFETY: `rb_enc_str_coderange` takes any String; it scans it at most once.
    let range = unsafe { rb_sys::rb_enc_str_coderange(s.as_raw()) } as u32;
    let readable = if index == ruby.utf8_encindex() {
        range == RUBY_ENC_CODERANGE_7BIT as u32 || range == RUBY_ENC_CODERANGE_VALID as u32
    } else {
        index == ruby.usascii_encindex() && range == RUBY_ENC_CODERANGE_7BIT as u32
    };
    // SAFETY: the bytes are read before any Ruby code runs again.
    readable.then(|| json_string_len(unsafe { s.as_slice() }))
}

/// The length of a finite Float as Ruby writes it (`Float#to_s`, which the generator uses): the
/// shortest digits that read back, in fixed point with at least one digit after the point
/// while there are at most 15 digits before it (16 when a fraction follows) or at most 3 zeros
/// after it, else as `d.ddde+XX` (`flo_to_s` in Ruby's numeric.c).
fn float_size(f: f64) -> Option<usize> {
    if !f.is_finite() {
        return None;
    }
    // Rust's `{:e}` gives the same shortest round-trip digits: "1.2345e-7", "5e-324", "0e0".
    let text = format!("{:e}", f.abs());
    let (mantissa, exp) = text.split_once('e')?;
    let digits = mantissa.bytes().filter(u8::is_ascii_digit).count();
    let decpt = exp.parse::<i32>().ok()? + 1;
    let fixed = 0 < decpt && decpt <= 16;
    let body = if fixed && digits > decpt as usize {
        digits + 1
    } else if fixed && decpt <= 15 {
        decpt as usize + 2
    } else if -4 < decpt && decpt <= 0 {
        2 + (-decpt) as usize + digits
    } else {
        let e = (decpt - 1).unsigned_abs();
        2 + (digits - 1).max(1) + 2 + (e.checked_ilog10().unwrap_or(0) as usize + 1).max(2)
    };
    Some(body + usize::from(f.is_sign_negative()))
}

/// `RetryCore._json_size(value)`: `JSON.generate(value).bytesize` counted without writing it,
/// or nil where only the generator knows (for the suite; the front door uses it through
/// `Fleet#_cost` and `Retry.request_bytes`).
fn json_size_of(ruby: &Ruby, value: Value) -> Option<usize> {
    json_size(ruby, value, 0)
}

pub fn init(ruby: &Ruby, module: RModule) -> Result<(), Error> {
    LazyId::force(&MESSAGES, ruby);
    LazyId::force(&MAX_TOKENS, ruby);
    module.define_singleton_method("_json_size", magnus::function!(json_size_of, 1))?;
    Ok(())
}
