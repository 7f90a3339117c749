//! `RetryCore._error_message` (core `messages.rs`).

use magnus::{prelude::*, Error, RModule, Ruby};

use crate::category::RbClassification;
use crate::error::guard;
use crate::failure::RbFailure;

/// SwarmSDK's error text for a failure it does not retry (secrets scrubbed).
fn error_message(ruby: &Ruby, failure: &RbFailure, c: &RbClassification) -> Result<String, Error> {
    guard(ruby, || {
        Ok(retry_core::__private::messages::error_message(
            &failure.0, &c.0,
        ))
    })
}

pub fn init(_ruby: &Ruby, module: RModule) -> Result<(), Error> {
    module.define_singleton_method("_error_message", magnus::function!(error_message, 2))?;
    Ok(())
}
