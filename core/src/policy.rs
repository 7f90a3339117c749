//! Retry policies and the five presets of CONTRACT §3.
//!
//! A policy is plain data: the bindings build it from keyword arguments or a JSON/YAML file
//! through [`RetryPolicy::from_config`], so the same configuration means the same thing in
//! all three languages.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::category::Category;
use crate::error::{Error, Result};

/// The longest wait a policy may configure (a backoff delay, a retry-after cap): a day. Longer
/// values (`1e300`) are refused at construction, and drivers clamp to it whatever they are given.
pub const MAX_DELAY_S: f64 = 86_400.0;

/// The longest deadline a policy may configure: a week.
pub const MAX_DEADLINE_S: f64 = 7.0 * 86_400.0;

/// The most calls a policy may allow (the first included).
pub const MAX_ATTEMPTS: u32 = 10_000;

/// SwarmSDK's `call_llm_with_retry(max_retries: 3, delay: 15)`: the values a front door uses
/// for the one of `max_retries` / `delay` it is not given.
pub const SWARM_SDK_DEFAULTS: (u32, f64) = (3, 15.0);
/// The delay before retry number `n` (0 = first retry), before jitter.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Backoff {
    /// The same delay every time (SwarmSDK).
    Fixed {
        /// The delay, in seconds.
        delay: f64,
    },
    /// `min(base * multiplier^n, cap)` (PlanExe's `RetryConfig`).
    Exponential {
        /// The first retry's delay, in seconds.
        base: f64,
        /// The factor applied for each further retry (at least 1).
        multiplier: f64,
        /// The longest delay, in seconds.
        cap: f64,
    },
    /// An explicit list; the last entry repeats (Forgeflare's 2, 4, 8, 16).
    Schedule {
        /// The delays in seconds, one per retry; must not be empty.
        delays: Vec<f64>,
    },
}

impl Backoff {
    /// The delay before retry `n` (0-based), without jitter.
    pub fn delay(&self, n: u32) -> f64 {
        match self {
            Backoff::Fixed { delay } => *delay,
            Backoff::Exponential {
                base,
                multiplier,
                cap,
            } => {
                // powi saturates to infinity for huge n; min() brings it back to the cap.
                (base * multiplier.powi(n.min(1024) as i32)).min(*cap)
            }
            Backoff::Schedule { delays } => delays
                .get(n as usize)
                .or(delays.last())
                .copied()
                .unwrap_or(0.0),
        }
    }

    /// The smallest delay this backoff produces (decorrelated jitter's floor).
    pub fn floor(&self) -> f64 {
        match self {
            Backoff::Fixed { delay } => *delay,
            Backoff::Exponential { base, cap, .. } => base.min(*cap),
            Backoff::Schedule { delays } => delays
                .iter()
                .copied()
                .fold(f64::INFINITY, f64::min)
                .clamp(0.0, 1e9),
        }
    }

    /// The largest delay this backoff produces (jitter never exceeds it).
    pub fn ceiling(&self) -> f64 {
        match self {
            Backoff::Fixed { delay } => *delay,
            Backoff::Exponential { cap, .. } => *cap,
            Backoff::Schedule { delays } => delays.iter().copied().fold(0.0, f64::max),
        }
    }

    fn validate(&self) -> Result<()> {
        let ok = |x: f64| x.is_finite() && (0.0..=MAX_DELAY_S).contains(&x);
        let valid = match self {
            Backoff::Fixed { delay } => ok(*delay),
            Backoff::Exponential {
                base,
                multiplier,
                cap,
            } => ok(*base) && ok(*cap) && multiplier.is_finite() && *multiplier >= 1.0,
            Backoff::Schedule { delays } => !delays.is_empty() && delays.iter().all(|d| ok(*d)),
        };
        if valid {
            Ok(())
        } else {
            Err(Error::invalid_policy(format!(
                "backoff {self:?}: delays must be between 0 and {MAX_DELAY_S} s, multiplier finite and >= 1, schedule non-empty"
            )))
        }
    }
}

/// Randomisation of each delay `d` (AWS architecture blog, "Exponential Backoff And Jitter").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Jitter {
    /// Exactly `d`.
    None,
    /// Uniform in `[0, d)`.
    Full,
    /// `d/2` plus uniform in `[0, d/2)`.
    Equal,
    /// Uniform in `[floor, 3 * previous)`, capped at the backoff's ceiling.
    Decorrelated,
}

/// How the policy reports its limit in events (`max_retries`) and how users count it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Counting {
    /// `max_retries` counts every call (SwarmSDK: 3 means 3 calls).
    Attempts,
    /// `max_retries` counts calls after the first (Forgeflare, PlanExe: 4 means 5 calls).
    Retries,
}

/// What to do when the server asks for a wait longer than `retry_after_cap`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OverCap {
    /// Give up at once (or move to the next model) and report the wait: retrying early only
    /// burns a call.
    GiveUp,
    /// Wait the cap and retry anyway (Forgeflare's spec).
    Clamp,
}

/// Per-category adjustments.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CategoryOverride {
    /// Retry this category (or not), whatever its nature.
    #[serde(default)]
    pub retry: Option<bool>,
    /// A different total-call limit for this category.
    #[serde(default)]
    pub max_attempts: Option<u32>,
    /// A different backoff for this category (e.g. longer waits for rate limits).
    #[serde(default)]
    pub backoff: Option<Backoff>,
}

/// A retry policy. Build one from a preset and adjust it, or from a configuration map.
///
/// # Default
/// [`RetryPolicy::default()`] is the `default` preset: see [`RetryPolicy::recommended`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RetryPolicy {
    /// The preset it came from, or `custom`. Default: `default`.
    pub name: String,
    /// Total calls allowed, the first included. Default: 30.
    pub max_attempts: u32,
    /// Whether `max_retries` counts every call or the calls after the first. Default:
    /// [`Counting::Attempts`].
    pub counting: Counting,
    /// The delay before each retry, before jitter. Default: exponential from 1 s, x1.25, capped
    /// at 30 s.
    pub backoff: Backoff,
    /// How each delay is randomised. Default: [`Jitter::Equal`].
    pub jitter: Jitter,
    /// Use the server's `retry-after` instead of the backoff. Default: `true`.
    pub honor_retry_after: bool,
    /// The longest server-requested wait honoured (`None`: no limit). Default: 60 s.
    pub retry_after_cap: Option<f64>,
    /// What happens when the server asks for a wait longer than `retry_after_cap`. Default:
    /// [`OverCap::GiveUp`].
    pub over_cap: OverCap,
    /// Use provider reset headers as a lower bound on the wait of a rate limit. Default: `true`.
    pub honor_reset_hints: bool,
    /// Retry failures nothing recognises (non-API errors). Default: `false`.
    pub retry_unknown: bool,
    /// Retry unrecognised errors of an LLM client's API-error class without a status.
    /// Default: `false`.
    pub retry_unknown_api: bool,
    /// Retry every failure but cancellation (SwarmSDK's old behaviour, for comparison only).
    /// Default: `false`.
    pub retry_everything: bool,
    /// Give up rather than start a wait that would end past this many seconds since the first call.
    /// Default: 180 s.
    pub deadline: Option<f64>,
    /// Prune orphan tool calls once, for free, on a tool-pairing 400. Default: `true`.
    pub recover_orphans: bool,
    /// Offer a context-overflow failure once to the caller's compaction hook, if it set one.
    /// Default: `true`.
    pub recover_context: bool,
    /// Per-category adjustments of the attempt limit, the backoff and whether to retry.
    /// Default: none.
    pub overrides: BTreeMap<Category, CategoryOverride>,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy::recommended()
    }
}

/// The preset names, in all three languages.
pub const PRESETS: [&str; 5] = [
    "default",
    "swarm_sdk",
    "swarm_sdk_legacy",
    "forgeflare",
    "llm_executor",
];

impl RetryPolicy {
    /// The `default` preset: the project's recommended policy (reasons in the README).
    ///
    /// # Default
    /// - up to 30 calls (`max_attempts`), counted as attempts, within a 180 s deadline;
    /// - exponential backoff 1 s, x1.25, capped at 30 s, with equal jitter: each wait is at most a
    ///   quarter of the time already spent, so recovery is noticed within ~1.25x of the oracle
    ///   (bench/results/REPORT.md, "Candidate defaults");
    /// - `retry-after` honoured up to 60 s; a longer requested wait gives up at once and reports it;
    /// - reset headers of a 429 used as a lower bound;
    /// - unknown failures not retried; orphan tool calls pruned once.
    ///
    /// Many agents polling an outage this patiently would multiply its load: share a
    /// [`crate::fleet::Fleet`] between them (budget, breaker, pauses) and the load falls instead.
    pub fn recommended() -> Self {
        RetryPolicy {
            name: "default".into(),
            max_attempts: 30,
            counting: Counting::Attempts,
            backoff: Backoff::Exponential {
                base: 1.0,
                multiplier: 1.25,
                cap: 30.0,
            },
            jitter: Jitter::Equal,
            honor_retry_after: true,
            retry_after_cap: Some(60.0),
            over_cap: OverCap::GiveUp,
            honor_reset_hints: true,
            retry_unknown: false,
            retry_unknown_api: false,
            retry_everything: false,
            deadline: Some(180.0),
            recover_orphans: true,
            recover_context: true,
            overrides: BTreeMap::new(),
        }
    }

    /// SwarmSDK's `call_llm_with_retry(max_retries: 3, delay: 15)`: `max_retries` counts all
    /// calls, a fixed delay, unknown non-API errors retried, RubyLLM API errors without a status
    /// not retried, one free orphan-pruning recovery.
    pub fn swarm_sdk(max_retries: u32, delay: f64) -> Self {
        RetryPolicy {
            name: "swarm_sdk".into(),
            max_attempts: max_retries.max(1),
            counting: Counting::Attempts,
            backoff: Backoff::Fixed { delay },
            jitter: Jitter::None,
            honor_retry_after: false,
            retry_after_cap: None,
            over_cap: OverCap::Clamp,
            honor_reset_hints: false,
            retry_unknown: true,
            retry_unknown_api: false,
            retry_everything: false,
            deadline: None,
            recover_orphans: true,
            recover_context: false,
            overrides: BTreeMap::new(),
        }
    }

    /// SwarmSDK before Decision 004: 10 calls, fixed 10 s, every error retried.
    pub fn swarm_sdk_legacy() -> Self {
        RetryPolicy {
            name: "swarm_sdk_legacy".into(),
            max_attempts: 10,
            backoff: Backoff::Fixed { delay: 10.0 },
            retry_everything: true,
            recover_orphans: false,
            ..RetryPolicy::swarm_sdk(10, 10.0)
        }
    }

    /// Forgeflare's spec: 4 retries after the first call at 2, 4, 8, 16 s; `retry-after`
    /// overrides, clamped to 60 s; 0 means at once.
    pub fn forgeflare() -> Self {
        RetryPolicy {
            name: "forgeflare".into(),
            max_attempts: 5,
            counting: Counting::Retries,
            backoff: Backoff::Schedule {
                delays: vec![2.0, 4.0, 8.0, 16.0],
            },
            jitter: Jitter::None,
            honor_retry_after: true,
            retry_after_cap: Some(60.0),
            over_cap: OverCap::Clamp,
            honor_reset_hints: false,
            retry_unknown: false,
            retry_unknown_api: false,
            retry_everything: false,
            deadline: None,
            recover_orphans: false,
            recover_context: false,
            overrides: BTreeMap::new(),
        }
    }

    /// PlanExe's `RetryConfig(max_retries, base_delay, max_delay, backoff_multiplier)`:
    /// retries after the first call, `min(base * multiplier^n, max_delay)`, no jitter.
    /// A `retry-after` up to `max_delay` is honoured; a longer one moves on to the next model.
    pub fn llm_executor(
        max_retries: u32,
        base_delay: f64,
        max_delay: f64,
        backoff_multiplier: f64,
    ) -> Self {
        RetryPolicy {
            name: "llm_executor".into(),
            max_attempts: max_retries.saturating_add(1),
            counting: Counting::Retries,
            backoff: Backoff::Exponential {
                base: base_delay,
                multiplier: backoff_multiplier,
                cap: max_delay,
            },
            jitter: Jitter::None,
            honor_retry_after: true,
            retry_after_cap: Some(max_delay),
            over_cap: OverCap::GiveUp,
            honor_reset_hints: false,
            retry_unknown: false,
            retry_unknown_api: false,
            retry_everything: false,
            deadline: None,
            recover_orphans: false,
            recover_context: false,
            overrides: BTreeMap::new(),
        }
    }

    /// A preset by its contract name, with its default arguments.
    pub fn preset(name: &str) -> Result<Self> {
        match name {
            "default" => Ok(Self::recommended()),
            "swarm_sdk" => Ok(Self::swarm_sdk(SWARM_SDK_DEFAULTS.0, SWARM_SDK_DEFAULTS.1)),
            "swarm_sdk_legacy" => Ok(Self::swarm_sdk_legacy()),
            "forgeflare" => Ok(Self::forgeflare()),
            "llm_executor" => Ok(Self::llm_executor(2, 1.0, 30.0, 2.0)),
            other => Err(Error::invalid_policy(format!(
                "unknown preset {other:?}; expected one of {}",
                PRESETS.join(", ")
            ))),
        }
    }

    /// SwarmSDK's `call_llm_with_retry(max_retries:, delay:)` as a front door takes it, with
    /// the bound every front door checks: `max_retries` within 0..=[`MAX_ATTEMPTS`] (0 means
    /// one call, as in SwarmSDK), `delay` finite and within [`MAX_DELAY_S`].
    pub fn swarm_sdk_checked(max_retries: i64, delay: f64) -> Result<Self> {
        let n = u32::try_from(max_retries)
            .ok()
            .filter(|n| *n <= MAX_ATTEMPTS)
            .ok_or_else(|| {
                Error::invalid_policy(format!(
                    "max_retries must be between 0 and {MAX_ATTEMPTS}, got {max_retries}"
                ))
            })?;
        let p = Self::swarm_sdk(n, delay);
        p.validate()?;
        Ok(p)
    }

    /// The policy a `call_llm_with_retry` gets from its arguments (CONTRACT §6), the same in
    /// every front door: the given policy; with none, the `default` preset, unless
    /// `max_retries` / `delay` are given, which mean SwarmSDK's loop
    /// ([`SWARM_SDK_DEFAULTS`] for the one left out). Both forms at once are refused with
    /// [`ErrorCode::InvalidArgument`](crate::ErrorCode::InvalidArgument): a policy carries its
    /// own limit and delays.
    pub fn for_call(
        policy: Option<RetryPolicy>,
        max_retries: Option<i64>,
        delay: Option<f64>,
    ) -> Result<Self> {
        let swarm = max_retries.is_some() || delay.is_some();
        match policy {
            Some(_) if swarm => Err(Error::invalid_argument(
                "takes max_retries / delay or a policy, not both (a policy carries its own)",
            )),
            Some(p) => Ok(p),
            None if !swarm => Ok(Self::recommended()),
            None => Self::swarm_sdk_checked(
                max_retries.unwrap_or(i64::from(SWARM_SDK_DEFAULTS.0)),
                delay.unwrap_or(SWARM_SDK_DEFAULTS.1),
            ),
        }
    }

    /// The limit as the policy's users count it (`max_retries` in events).
    pub fn reported_max(&self) -> u32 {
        match self.counting {
            Counting::Attempts => self.max_attempts,
            Counting::Retries => self.max_attempts.saturating_sub(1),
        }
    }

    /// Checks the policy for values that cannot mean anything.
    pub fn validate(&self) -> Result<()> {
        if self.max_attempts == 0 || self.max_attempts > MAX_ATTEMPTS {
            return Err(Error::invalid_policy(format!(
                "max_attempts must be between 1 and {MAX_ATTEMPTS}, got {}",
                self.max_attempts
            )));
        }
        self.backoff.validate()?;
        let bounded = |name: &str, v: Option<f64>, max: f64| match v {
            Some(x) if !(x.is_finite() && (0.0..=max).contains(&x)) => Err(Error::invalid_policy(
                format!("{name} must be between 0 and {max} s, got {x}"),
            )),
            _ => Ok(()),
        };
        bounded("retry_after_cap", self.retry_after_cap, MAX_DELAY_S)?;
        bounded("deadline", self.deadline, MAX_DEADLINE_S)?;
        for (cat, o) in &self.overrides {
            if let Some(b) = &o.backoff {
                b.validate()?;
            }
            if o.max_attempts == Some(0) {
                return Err(Error::invalid_policy(format!(
                    "overrides.{cat}.max_attempts must be >= 1"
                )));
            }
        }
        Ok(())
    }

    /// Builds a policy from a configuration map (JSON text): `preset` picks the starting point
    /// (default `default`), every other key replaces that field. Unknown keys are errors.
    ///
    /// ```
    /// let p = retry_core::RetryPolicy::from_config(
    ///     r#"{"preset": "forgeflare", "max_attempts": 3, "jitter": "full"}"#).unwrap();
    /// assert_eq!(p.max_attempts, 3);
    /// assert_eq!(p.reported_max(), 2);
    /// ```
    pub fn from_config(json: &str) -> Result<Self> {
        let cfg: PolicyConfig = serde_json::from_str(json)
            .map_err(|e| Error::invalid_policy(format!("invalid policy configuration: {e}")))?;
        cfg.build()
    }

    /// The policy as a configuration map (round-trips through [`RetryPolicy::from_config`]).
    pub fn to_config(&self) -> String {
        serde_json::to_string(self).expect("policy serializes")
    }
}

/// Every field optional: what a user writes in a file or passes as keyword arguments.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct PolicyConfig {
    preset: Option<String>,
    name: Option<String>,
    max_attempts: Option<u32>,
    /// Counted as the preset counts (SwarmSDK: calls; Forgeflare/PlanExe: retries after the first).
    max_retries: Option<u32>,
    counting: Option<Counting>,
    backoff: Option<Backoff>,
    jitter: Option<Jitter>,
    honor_retry_after: Option<bool>,
    #[serde(default, deserialize_with = "some_option")]
    retry_after_cap: Option<Option<f64>>,
    over_cap: Option<OverCap>,
    honor_reset_hints: Option<bool>,
    retry_unknown: Option<bool>,
    retry_unknown_api: Option<bool>,
    retry_everything: Option<bool>,
    #[serde(default, deserialize_with = "some_option")]
    deadline: Option<Option<f64>>,
    recover_orphans: Option<bool>,
    recover_context: Option<bool>,
    overrides: Option<BTreeMap<Category, CategoryOverride>>,
}

/// Distinguishes "absent" (outer None) from an explicit `null` (Some(None)).
fn some_option<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> std::result::Result<Option<Option<f64>>, D::Error> {
    Option::<f64>::deserialize(d).map(Some)
}

impl PolicyConfig {
    fn build(self) -> Result<RetryPolicy> {
        let mut p = RetryPolicy::preset(self.preset.as_deref().unwrap_or("default"))?;
        macro_rules! set {
            ($($field:ident),*) => { $( if let Some(v) = self.$field { p.$field = v; } )* };
        }
        set!(
            name,
            counting,
            backoff,
            jitter,
            honor_retry_after,
            retry_after_cap,
            over_cap,
            honor_reset_hints,
            retry_unknown,
            retry_unknown_api,
            retry_everything,
            deadline,
            recover_orphans,
            recover_context,
            overrides,
            max_attempts
        );
        if let Some(r) = self.max_retries {
            if self.max_attempts.is_some() {
                return Err(Error::invalid_policy(
                    "give max_attempts or max_retries, not both",
                ));
            }
            p.max_attempts = match p.counting {
                Counting::Attempts => r,
                Counting::Retries => r.saturating_add(1),
            };
        }
        p.validate()?;
        Ok(p)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_call_gets_its_policy_by_one_rule() {
        let default = RetryPolicy::for_call(None, None, None).unwrap();
        assert_eq!(default, RetryPolicy::recommended());
        assert_eq!(
            RetryPolicy::for_call(None, Some(5), None).unwrap(),
            RetryPolicy::swarm_sdk(5, 15.0)
        );
        assert_eq!(
            RetryPolicy::for_call(None, None, Some(2.0)).unwrap(),
            RetryPolicy::swarm_sdk(3, 2.0)
        );
        let given = RetryPolicy::forgeflare();
        assert_eq!(
            RetryPolicy::for_call(Some(given.clone()), None, None).unwrap(),
            given
        );
        let both = RetryPolicy::for_call(Some(given), Some(2), None).unwrap_err();
        assert_eq!(both.code, crate::ErrorCode::InvalidArgument);
        for bad in [-1, 20_000, i64::MAX] {
            let e = RetryPolicy::for_call(None, Some(bad), None).unwrap_err();
            assert_eq!(e.code, crate::ErrorCode::InvalidPolicy, "{bad}");
        }
        assert_eq!(
            RetryPolicy::for_call(None, Some(0), None)
                .unwrap()
                .max_attempts,
            1
        );
        let nan = RetryPolicy::for_call(None, None, Some(f64::NAN)).unwrap_err();
        assert_eq!(nan.code, crate::ErrorCode::InvalidPolicy);
    }

    #[test]
    fn presets_count_as_their_users_do() {
        assert_eq!(RetryPolicy::preset("swarm_sdk").unwrap().max_attempts, 3);
        assert_eq!(RetryPolicy::preset("forgeflare").unwrap().max_attempts, 5);
        assert_eq!(RetryPolicy::preset("forgeflare").unwrap().reported_max(), 4);
        assert_eq!(RetryPolicy::preset("llm_executor").unwrap().max_attempts, 3);
        assert_eq!(
            RetryPolicy::preset("swarm_sdk_legacy")
                .unwrap()
                .max_attempts,
            10
        );
        assert!(RetryPolicy::preset("nope").is_err());
    }

    #[test]
    fn exponential_caps() {
        let b = Backoff::Exponential {
            base: 1.0,
            multiplier: 2.0,
            cap: 30.0,
        };
        let got: Vec<f64> = (0..7).map(|n| b.delay(n)).collect();
        assert_eq!(got, vec![1.0, 2.0, 4.0, 8.0, 16.0, 30.0, 30.0]);
        assert_eq!(b.delay(u32::MAX), 30.0);
    }

    #[test]
    fn config_rejects_nonsense() {
        assert!(RetryPolicy::from_config(r#"{"max_attempts": 0}"#).is_err());
        assert!(
            RetryPolicy::from_config(r#"{"backoff": {"kind": "fixed", "delay": -1}}"#).is_err()
        );
        assert!(RetryPolicy::from_config(r#"{"bogus": 1}"#).is_err());
        assert!(RetryPolicy::from_config("not json").is_err());
        let p = RetryPolicy::from_config(
            r#"{"preset": "swarm_sdk", "max_retries": 4, "deadline": null}"#,
        )
        .unwrap();
        assert_eq!(p.max_attempts, 4);
        let round = RetryPolicy::from_config(&p.to_config()).unwrap();
        assert_eq!(round, p);
    }
}
