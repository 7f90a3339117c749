//! `RetryCore::Policy` (core `policy.rs`): a retry policy from a preset or a configuration map.

use magnus::{prelude::*, Error, RModule, RString, Ruby};
use retry_core::__private::policy::PRESETS;
use retry_core::RetryPolicy;

use crate::convert::rstring_lossy;
use crate::error::{guard, invalid_argument, to_ruby};

/// A validated policy. Immutable from Ruby; cheap to share between calls and threads.
#[magnus::wrap(class = "RetryCore::Policy", free_immediately, size, frozen_shareable)]
pub struct RbPolicy(pub RetryPolicy);

impl RbPolicy {
    fn preset(ruby: &Ruby, name: RString) -> Result<Self, Error> {
        guard(ruby, || {
            RetryPolicy::preset(&rstring_lossy(name))
                .map(RbPolicy)
                .map_err(|e| to_ruby(ruby, e))
        })
    }

    fn from_config(ruby: &Ruby, json: RString) -> Result<Self, Error> {
        guard(ruby, || {
            RetryPolicy::from_config(&rstring_lossy(json))
                .map(RbPolicy)
                .map_err(|e| to_ruby(ruby, e))
        })
    }

    /// SwarmSDK's `call_llm_with_retry(max_retries:, delay:)`.
    fn swarm_sdk(ruby: &Ruby, max_retries: i64, delay: f64) -> Result<Self, Error> {
        guard(ruby, || {
            if !(0..=10_000).contains(&max_retries) {
                return Err(invalid_argument(
                    ruby,
                    format!("max_retries must be between 0 and 10000, got {max_retries}"),
                ));
            }
            let p = RetryPolicy::swarm_sdk(max_retries as u32, delay);
            p.validate().map_err(|e| to_ruby(ruby, e))?;
            Ok(RbPolicy(p))
        })
    }

    fn name(&self) -> String {
        self.0.name.clone()
    }

    fn max_attempts(&self) -> u32 {
        self.0.max_attempts
    }

    fn max_retries(&self) -> u32 {
        self.0.reported_max()
    }

    fn to_config(&self) -> String {
        self.0.to_config()
    }

    fn eq(&self, other: &RbPolicy) -> bool {
        self.0 == other.0
    }
}

pub fn init(ruby: &Ruby, module: RModule) -> Result<(), Error> {
    let class = module.define_class("Policy", ruby.class_object())?;
    class.undef_default_alloc_func();
    class.define_singleton_method("_preset", magnus::function!(RbPolicy::preset, 1))?;
    class.define_singleton_method("_from_config", magnus::function!(RbPolicy::from_config, 1))?;
    class.define_singleton_method("_swarm_sdk", magnus::function!(RbPolicy::swarm_sdk, 2))?;
    class.define_method("name", magnus::method!(RbPolicy::name, 0))?;
    class.define_method("max_attempts", magnus::method!(RbPolicy::max_attempts, 0))?;
    class.define_method("max_retries", magnus::method!(RbPolicy::max_retries, 0))?;
    class.define_method("to_config", magnus::method!(RbPolicy::to_config, 0))?;
    class.define_method("_eq", magnus::method!(RbPolicy::eq, 1))?;
    class.const_set("PRESETS", PRESETS.to_vec())?;
    Ok(())
}
