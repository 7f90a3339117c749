//! The usage an answer reports, read by the core's rule (`Usage::from_fields`, `Usage::from_body`)
//! from what the front door found (`Retry.settlement`): the answer's usage Hash or object, a
//! response's body text, or an Array of those to try in order. The fields are read where they
//! are (Hash keys as Strings or Symbols, or reader methods), without writing JSON: this runs
//! after every success with admission on.

use std::cell::Cell;

use magnus::r_hash::ForEach;
use magnus::{
    prelude::*, Error, Float, Integer, RArray, RHash, RModule, RString, Ruby, Symbol, TryConvert,
    Value,
};
use retry_core::fleet::Usage;

use crate::convert::rstring_lossy;
use magnus::value::{IntoId, LazyId};

/// The other names a field goes by in Ruby: RubyLLM's Message says `cache_creation_tokens` for
/// Anthropic's cache writes.
const ALIASES: [(&str, &str); 1] = [("cache_creation_input_tokens", "cache_creation_tokens")];

/// The usage `v` reports, or None. Never raises: an answer whose usage cannot be read (a reader
/// that raises, a token count that is not finite) reports none, and is settled as spent.
pub(crate) fn usage_of(ruby: &Ruby, v: Value) -> Option<Usage> {
    if v.is_nil() {
        return None;
    }
    if let Some(text) = RString::from_value(v) {
        return Usage::from_body(&rstring_lossy(text));
    }
    if let Some(candidates) = RArray::from_value(v) {
        return (0..candidates.len())
            .filter_map(|i| candidates.entry::<Value>(i as isize).ok())
            .find_map(|c| usage_of(ruby, c));
    }
    let unreadable = Cell::new(false);
    let hash = RHash::from_value(v).map(|h| HashFields::of(ruby, h));
    let usage = Usage::from_fields(|field| {
        let alias = ALIASES.iter().find(|(f, _)| *f == field).map(|(_, a)| *a);
        [Some(field), alias].into_iter().flatten().find_map(|name| {
            let value = match &hash {
                Some(fields) => Ok(fields.get(ruby, name)),
                None => read(ruby, v, name),
            };
            number(ruby, value).unwrap_or_else(|_| {
                unreadable.set(true);
                None
            })
        })
    });
    if unreadable.get() {
        None
    } else {
        usage
    }
}

/// Every name a usage field goes by: the core's, then the aliases.
fn names() -> impl Iterator<Item = &'static str> {
    Usage::FIELDS
        .into_iter()
        .chain(ALIASES.iter().map(|(_, a)| *a))
}

/// Every name of `names()`, interned once (`init`), in the same order.
static NAME_IDS: [LazyId; 6] = [
    LazyId::new(Usage::FIELDS[0]),
    LazyId::new(Usage::FIELDS[1]),
    LazyId::new(Usage::FIELDS[2]),
    LazyId::new(Usage::FIELDS[3]),
    LazyId::new(Usage::FIELDS[4]),
    LazyId::new(ALIASES[0].1),
];

const _: () = assert!(Usage::FIELDS.len() + ALIASES.len() == NAME_IDS.len());

/// A usage Hash's fields, found in one pass over it (a usage Hash holds a few entries; looking
/// each name up as a String and a Symbol would cost a dozen lookups): for each name, its value
/// under a String key, else under a Symbol key (as `h.key?(name) ? h[name] : h[name.to_sym]`).
struct HashFields {
    by_string: [Option<Value>; 6],
    by_symbol: [Option<Value>; 6],
}

impl HashFields {
    fn of(ruby: &Ruby, h: RHash) -> Self {
        let mut out = HashFields {
            by_string: [None; 6],
            by_symbol: [None; 6],
        };
        let _ = h.foreach(|k: Value, v: Value| {
            let (index, by_string) = if let Some(s) = RString::from_value(k) {
                let name = rstring_lossy(s);
                (names().position(|n| n == name), true)
            } else if let Some(sym) = Symbol::from_value(k) {
                // By its id: the names are interned at load, so a Symbol of one of them is
                // that static Symbol (callgrind: reading and comparing names cost more).
                let id = sym.as_static().map(|s| s.into_id_with(ruby));
                (
                    id.and_then(|id| NAME_IDS.iter().position(|n| **n == id)),
                    false,
                )
            } else {
                return Ok(ForEach::Continue);
            };
            if let Some(i) = index {
                let slot = if by_string {
                    &mut out.by_string[i]
                } else {
                    &mut out.by_symbol[i]
                };
                slot.get_or_insert(v);
            }
            Ok(ForEach::Continue)
        });
        out
    }

    fn get(&self, ruby: &Ruby, name: &str) -> Value {
        let nil = ruby.qnil().as_value();
        names().position(|n| n == name).map_or(nil, |i| {
            self.by_string[i].or(self.by_symbol[i]).unwrap_or(nil)
        })
    }
}

/// `usage.name` when it has such a reader, else nil.
fn read(ruby: &Ruby, usage: Value, name: &str) -> Result<Value, Error> {
    if usage.respond_to(name, false)? {
        return usage.funcall_public(name, ());
    }
    Ok(ruby.qnil().as_value())
}

/// A token count: an Integer or a finite Float (what JSON holds); None for anything else. A
/// Float that is not finite makes the whole usage unreadable (an `Err`).
fn number(ruby: &Ruby, v: Result<Value, Error>) -> Result<Option<f64>, Error> {
    let v = v?;
    if Integer::from_value(v).is_some() {
        return Ok(Some(f64::try_convert(v)?));
    }
    if let Some(f) = Float::from_value(v) {
        let f = f.to_f64();
        if !f.is_finite() {
            return Err(crate::error::invalid_argument(
                ruby,
                "a token count is not finite",
            ));
        }
        return Ok(Some(f));
    }
    Ok(None)
}

/// `RetryCore._usage(source)`: `[input_tokens, output_tokens]` as the core reads them from
/// `source` (nil for either when not reported), or nil.
fn usage_pair(ruby: &Ruby, source: Value) -> Option<(Option<f64>, Option<f64>)> {
    usage_of(ruby, source).map(|u| (u.input_tokens, u.output_tokens))
}

pub fn init(ruby: &Ruby, module: RModule) -> Result<(), Error> {
    for id in &NAME_IDS {
        LazyId::force(id, ruby);
    }
    module.define_singleton_method("_usage", magnus::function!(usage_pair, 1))?;
    Ok(())
}
