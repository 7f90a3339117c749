//! `RetryCore._retry_after` (core `retry_after.rs`): the server's wait from response headers.

use magnus::{prelude::*, Error, RHash, RModule, Ruby, Value};
use retry_core::__private::failure::Headers;

use crate::classify::system_time;
use crate::convert::to_s;
use crate::error::guard;

/// `[seconds, :header | :reset_hint]`, or nil when the headers say nothing usable.
fn retry_after(ruby: &Ruby, headers: RHash, now: f64) -> Result<Option<(f64, Value)>, Error> {
    guard(ruby, || {
        let now = system_time(ruby, now)?;
        let mut pairs = Vec::with_capacity(headers.len());
        headers.foreach(|k: Value, v: Value| {
            pairs.push((to_s(k), v));
            Ok(magnus::r_hash::ForEach::Continue)
        })?;
        let mut h = Headers::new();
        for (k, v) in pairs {
            if !v.is_nil() {
                h.insert(&k, to_s(v));
            }
        }
        Ok(retry_core::__private::retry_after::from_headers(&h, now)
            .map(|(secs, src)| (secs, ruby.to_symbol(src.as_str()).as_value())))
    })
}

pub fn init(_ruby: &Ruby, module: RModule) -> Result<(), Error> {
    module.define_singleton_method("_retry_after", magnus::function!(retry_after, 2))?;
    Ok(())
}
