//! `RetryCore._classify` (core `classify/`).

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use magnus::{prelude::*, Error, RModule, Ruby};

use crate::category::RbClassification;
use crate::error::{guard, invalid_argument};
use crate::failure::RbFailure;

/// A Unix time in seconds as a `SystemTime`.
pub fn system_time(ruby: &Ruby, unix_seconds: f64) -> Result<SystemTime, Error> {
    if !unix_seconds.is_finite() || !(0.0..=1e12).contains(&unix_seconds) {
        return Err(invalid_argument(
            ruby,
            format!("now must be a Unix time in seconds, got {unix_seconds}"),
        ));
    }
    Ok(UNIX_EPOCH + Duration::from_secs_f64(unix_seconds))
}

fn classify(ruby: &Ruby, failure: &RbFailure) -> Result<RbClassification, Error> {
    guard(ruby, || {
        Ok(RbClassification(retry_core::classify(&failure.0)))
    })
}

fn classify_at(ruby: &Ruby, failure: &RbFailure, now: f64) -> Result<RbClassification, Error> {
    guard(ruby, || {
        let now = system_time(ruby, now)?;
        Ok(RbClassification(
            retry_core::__private::classify::classify_at(&failure.0, now),
        ))
    })
}

pub fn init(_ruby: &Ruby, module: RModule) -> Result<(), Error> {
    module.define_singleton_method("_classify", magnus::function!(classify, 1))?;
    module.define_singleton_method("_classify_at", magnus::function!(classify_at, 2))?;
    Ok(())
}
