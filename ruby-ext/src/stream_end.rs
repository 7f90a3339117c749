//! `RetryCore._stream_incomplete` and `RetryCore::STREAM_APIS` (core `stream_end.rs`): whether a
//! stream ended properly, and the table of reasons that end one.

use magnus::{prelude::*, Error, RModule, Ruby, Value};
use retry_core::stream_end;

use crate::convert::to_s;
use crate::error::{guard, to_ruby};

/// `nil` when a stream of `api` whose last reason was `reason` (a String, a Symbol or nil)
/// ended properly, else the message of its `StreamIncomplete`.
fn stream_incomplete(ruby: &Ruby, api: Value, reason: Value) -> Result<Option<String>, Error> {
    let api = to_s(api);
    let reason = (!reason.is_nil()).then(|| to_s(reason));
    guard(ruby, || {
        let reason = reason.as_deref();
        match stream_end::ends(&api, reason) {
            Ok(true) => Ok(None),
            Ok(false) => stream_end::incomplete_message(&api, reason)
                .map(Some)
                .map_err(|e| to_ruby(ruby, e)),
            Err(e) => Err(to_ruby(ruby, e)),
        }
    })
}

/// `{"openai" => ["choices[].finish_reason", [ends...], [fails...]], ...}`, frozen.
fn table(ruby: &Ruby) -> Result<magnus::RHash, Error> {
    let h = ruby.hash_new();
    for a in stream_end::APIS {
        let row = ruby.ary_new();
        row.push(a.field)?;
        row.push(ruby.ary_from_iter(a.ends.iter().copied()))?;
        row.push(ruby.ary_from_iter(a.fails.iter().copied()))?;
        h.aset(a.name, row)?;
    }
    Ok(h)
}

pub fn init(ruby: &Ruby, module: RModule) -> Result<(), Error> {
    module.define_singleton_method(
        "_stream_incomplete",
        magnus::function!(stream_incomplete, 2),
    )?;
    module.const_set("STREAM_APIS", table(ruby)?)?;
    module.const_set("STREAM_INCOMPLETE_CLASS", stream_end::RUBY_CLASS)?;
    Ok(())
}
