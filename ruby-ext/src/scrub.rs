//! `RetryCore._scrub` (core `scrub.rs`): secrets out of a text.

use magnus::{prelude::*, Error, RModule, Ruby, Value};

use crate::convert::to_s;
use crate::error::guard;

/// Any value's text (a String as it is, anything else by `to_s`, Hashes and Arrays as JSON)
/// with its secrets replaced.
fn scrub(ruby: &Ruby, text: Value) -> Result<String, Error> {
    let text = to_s(text);
    guard(ruby, || {
        Ok(retry_core::__private::scrub::scrub(&text).into_owned())
    })
}

pub fn init(_ruby: &Ruby, module: RModule) -> Result<(), Error> {
    module.define_singleton_method("_scrub", magnus::function!(scrub, 1))?;
    Ok(())
}
