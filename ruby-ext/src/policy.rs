//! `RetryCore::Policy` (core `policy.rs`): a retry policy from a preset or a configuration map.

use magnus::{prelude::*, Error, RModule, RString, Ruby};
use retry_core::__private::policy::{PRESETS, SWARM_SDK_DEFAULTS};
use retry_core::RetryPolicy;

use crate::convert::rstring_lossy;
use crate::error::{guard, to_ruby};

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

    /// SwarmSDK's `call_llm_with_retry(max_retries:, delay:)`, bounded by the core.
    fn swarm_sdk(ruby: &Ruby, max_retries: i64, delay: f64) -> Result<Self, Error> {
        guard(ruby, || {
            RetryPolicy::swarm_sdk_checked(max_retries, delay)
                .map(RbPolicy)
                .map_err(|e| to_ruby(ruby, e))
        })
    }

    /// The policy a `call_llm_with_retry` gets from its arguments: the core's one rule
    /// (`RetryPolicy::for_call`).
    fn for_call(
        ruby: &Ruby,
        policy: Option<&RbPolicy>,
        max_retries: Option<i64>,
        delay: Option<f64>,
    ) -> Result<Self, Error> {
        let given = policy.map(|p| p.0.clone());
        guard(ruby, || {
            RetryPolicy::for_call(given, max_retries, delay)
                .map(RbPolicy)
                .map_err(|e| to_ruby(ruby, e))
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
    class.define_singleton_method("_for_call", magnus::function!(RbPolicy::for_call, 3))?;
    let (max_retries, delay) = SWARM_SDK_DEFAULTS;
    class.const_set("SWARM_SDK_MAX_RETRIES", max_retries)?;
    // SwarmSDK reports the delay as it was given: 15, an Integer.
    class.const_set("SWARM_SDK_DELAY", delay as i64)?;
    class.define_method("name", magnus::method!(RbPolicy::name, 0))?;
    class.define_method("max_attempts", magnus::method!(RbPolicy::max_attempts, 0))?;
    class.define_method("max_retries", magnus::method!(RbPolicy::max_retries, 0))?;
    class.define_method("to_config", magnus::method!(RbPolicy::to_config, 0))?;
    class.define_method("_eq", magnus::method!(RbPolicy::eq, 1))?;
    class.const_set("PRESETS", PRESETS.to_vec())?;
    Ok(())
}
