//! `RetryCore._scrub` (core `scrub.rs`): secrets out of a text.

use magnus::{prelude::*, Error, RModule, RString, Ruby};

use crate::convert::rstring_lossy;
use crate::error::guard;

fn scrub(ruby: &Ruby, text: RString) -> Result<String, Error> {
    guard(ruby, || {
        Ok(retry_core::scrub::scrub(&rstring_lossy(text)).into_owned())
    })
}

pub fn init(_ruby: &Ruby, module: RModule) -> Result<(), Error> {
    module.define_singleton_method("_scrub", magnus::function!(scrub, 1))?;
    Ok(())
}
