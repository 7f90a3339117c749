//! One whole logical call as a sans-IO step machine: the loop every front door runs.
//!
//! A [`Run`] says what to do next ([`Step`]); the front door does it its own way (a call, a
//! `time.sleep`, a tokio sleep, `Kernel#sleep`, pruning its history) and reports back. The run
//! covers the fleet's gate before every call, the free recoveries (orphan pruning, context
//! compaction), validation retries, the model fallback chain, the deadline, and the wait events.
//! A front door only translates: it never decides.
//!
//! ```
//! use retry_core::{Run, Step, WaitReason};
//! use retry_core::{Failure, RetryPolicy};
//!
//! let mut run = Run::new(RetryPolicy::forgeflare()).seed(1);
//! assert_eq!(run.start(0.0), Step::Call { model: 0 });
//! let busy = Failure::http(503, "Service Unavailable");
//! assert_eq!(run.failed(&busy, 0.0), Step::Wait { seconds: 2.0, reason: WaitReason::Backoff });
//! assert_eq!(run.resume(2.0), Step::Call { model: 0 });
//! assert_eq!(run.succeeded(2.5), Step::Return);
//! ```

use std::sync::Arc;

use serde::Deserialize;
use serde_json::Value;

use crate::category::Category;
use crate::classify::classify;
pub use crate::error_names::ErrorNames;
use crate::events::{Event, EventKind};
use crate::failure::Failure;
use crate::failure::Headers;
use crate::fallback::{ModelChain, ModelSpec};
use crate::fleet::{Cost, Fleet, Reservation, Usage};
use crate::machine::{Action, Decision, GiveUpReason, Retrier};
use crate::policy::RetryPolicy;

/// What the front door does next.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Step {
    /// Call model `model` (an index into the chain; 0 without one), then report
    /// [`Run::succeeded`] or [`Run::failed`].
    Call {
        /// Which model to call.
        model: usize,
    },
    /// Wait `seconds`, then report [`Run::resume`].
    Wait {
        /// How long.
        seconds: f64,
        /// Why.
        reason: WaitReason,
    },
    /// The fleet holds model `model` back for `seconds`, longer than this run waits
    /// ([`Run::max_gate_wait`]): the model is skipped. Report [`Run::resume`].
    Skip {
        /// The model skipped.
        model: usize,
        /// How long the fleet would have made it wait.
        seconds: f64,
    },
    /// Prune orphan tool calls from the history, then report [`Run::pruned`].
    PruneOrphans,
    /// Compact the history with the caller's hook, then report [`Run::compacted`].
    CompactContext,
    /// The last call succeeded: return its value.
    Return,
    /// Stop: raise the last error, with [`Run::decision`] and [`Run::note`] attached. Without a
    /// decision (every model skipped by the fleet), there was no call to blame.
    GiveUp {
        /// Why the run stopped.
        reason: GiveUpReason,
    },
    /// Cancellation: re-raise the original error untouched.
    Reraise,
    /// The host's sleep does not sleep: the fleet's gate waits ended with its clock where they
    /// began, [`STALLED_WAITS`](crate::testing::STALLED_WAITS) times in a row (a patched
    /// `time.sleep` with a fleet on the real clock). Raise the misuse error of
    /// [`testing::stalled_message`](crate::testing::stalled_message), the last error (if any)
    /// as its cause. The run is over.
    Stalled {
        /// What the run was waiting for.
        reason: WaitReason,
    },
}

impl Step {
    /// The snake_case name of the step (`call`, `wait`, `give_up`, ...).
    pub fn name(&self) -> &'static str {
        match self {
            Step::Call { .. } => "call",
            Step::Wait { .. } => "wait",
            Step::Skip { .. } => "skip",
            Step::PruneOrphans => "prune_orphans",
            Step::CompactContext => "compact_context",
            Step::Return => "return",
            Step::GiveUp { .. } => "give_up",
            Step::Reraise => "reraise",
            Step::Stalled { .. } => "stalled",
        }
    }

    /// Whether the run is over (return, give up, re-raise, stalled).
    pub fn is_final(&self) -> bool {
        matches!(
            self,
            Step::Return | Step::GiveUp { .. } | Step::Reraise | Step::Stalled { .. }
        )
    }
}

/// Why a run waits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WaitReason {
    /// The policy's backoff before a retry.
    Backoff,
    /// The server's `retry-after` (or a reset hint) before a retry.
    RetryAfter,
    /// A pause the fleet shares after a peer's 429.
    FleetPause,
    /// The key's circuit is open.
    CircuitOpen,
    /// The fleet's admission gives the call a later slot, to stay under the provider's limits.
    Admission,
}

impl WaitReason {
    /// The snake_case name (`backoff`, `retry_after`, `fleet_pause`, `circuit_open`,
    /// `admission`).
    pub fn as_str(self) -> &'static str {
        match self {
            WaitReason::Backoff => "backoff",
            WaitReason::RetryAfter => "retry_after",
            WaitReason::FleetPause => "fleet_pause",
            WaitReason::CircuitOpen => "circuit_open",
            WaitReason::Admission => "admission",
        }
    }

    /// Whether the fleet's gate asked for this wait (a pause, an open circuit, admission): a
    /// wait that may repeat until the fleet's clock reaches its end.
    pub fn is_gate(self) -> bool {
        matches!(
            self,
            WaitReason::FleetPause | WaitReason::CircuitOpen | WaitReason::Admission
        )
    }
}

/// `elapsed` as the inputs of a run and a retrier take it: finite seconds, at least 0. The
/// bindings check what their callers pass with this, and raise its message.
pub fn check_elapsed(elapsed: f64) -> Result<f64, String> {
    if elapsed.is_finite() && elapsed >= 0.0 {
        Ok(elapsed)
    } else {
        Err(format!(
            "elapsed must be a finite number of seconds >= 0, got {elapsed}"
        ))
    }
}

/// What the run expects to hear next.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Expect {
    Start,
    Outcome,
    /// After a wait: ask the gate again.
    Resume,
    /// After a skip: the next model.
    Skipped,
    Pruned,
    Compacted,
    Done,
}

/// The largest pruned count a run takes (any larger number means the same: something was
/// pruned).
pub const MAX_PRUNED: usize = 1 << 31;

/// What an `on_orphans` hook answered when it was given no history to prune, as every host
/// reads it: a whole number is how many calls it pruned (below zero: none; above
/// [`MAX_PRUNED`]: that many); any other answer is one change when the host's language holds it
/// true (Python's `bool()`, Ruby's truthiness), none otherwise.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HookAnswer {
    /// A whole number: how many calls the hook pruned.
    Count(i128),
    /// Any other answer: whether the host's language holds it true.
    Truthy(bool),
}

impl HookAnswer {
    /// How many calls the answer says were pruned, as [`Run::pruned`] takes it.
    pub fn pruned(self) -> usize {
        match self {
            HookAnswer::Count(n) => n.clamp(0, MAX_PRUNED as i128) as usize,
            HookAnswer::Truthy(t) => usize::from(t),
        }
    }
}

/// How a run is set up, beyond its policy. Every field has a default; [`RunConfig::from_json`]
/// reads the shape the shared run vectors use.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RunConfig {
    /// The models, most preferred first; empty means one unnamed model and no fallback.
    pub models: Vec<ModelSpec>,
    /// On `context_overflow`, skip to the next model with a larger window.
    pub larger_window_on_overflow: bool,
    /// A programming error moves on to the next model instead of stopping the chain (PlanExe).
    pub move_on_programming_errors: bool,
    /// Calls of the same model after output that failed validation (PlanExe's
    /// `max_validation_retries`).
    pub max_validation_retries: u32,
    /// The caller can compact its history on `context_overflow`.
    pub context_hook: bool,
    /// A fleet wait longer than this skips the model instead ([`Step::Skip`]); `None` waits.
    pub max_gate_wait: Option<f64>,
    /// Fixes the jitter seed (tests, shared vectors).
    pub seed: Option<u64>,
    /// How many times the wrapped client retries each request on its own, when known.
    pub client_max_retries: u32,
    /// Unix time at `elapsed` 0, for the `ends_at` of wait events; `None` leaves it out.
    pub started_at: Option<f64>,
    /// How `llm_request_failed` names its `error_type`: the contract's names, or SwarmSDK's.
    pub error_names: ErrorNames,
    /// What each attempt costs, for a fleet with admission on (`{"input_tokens": 1200,
    /// "output_tokens": 512}`); `None`: one request ([`Run::estimate`]).
    pub estimate: Option<Cost>,
}

impl RunConfig {
    /// Reads a configuration from JSON (unknown keys are refused).
    pub fn from_json(json: &str) -> crate::error::Result<Self> {
        let cfg: RunConfig = serde_json::from_str(json)
            .map_err(|e| crate::error::Error::invalid_policy(format!("run configuration: {e}")))?;
        cfg.validate()?;
        Ok(cfg)
    }

    /// Checks the limits: every number finite and non-negative, model names non-empty.
    pub fn validate(&self) -> crate::error::Result<()> {
        let bad = |x: Option<f64>| x.is_some_and(|x| !(x.is_finite() && x >= 0.0));
        if bad(self.max_gate_wait) || bad(self.started_at) {
            return Err(crate::error::Error::invalid_policy(
                "max_gate_wait and started_at must be finite and >= 0",
            ));
        }
        if self.models.iter().any(|m| m.name.is_empty()) {
            return Err(crate::error::Error::invalid_policy(
                "a model's name must not be empty",
            ));
        }
        if self.max_validation_retries > 1000 || self.client_max_retries > 1000 {
            return Err(crate::error::Error::invalid_policy(
                "max_validation_retries and client_max_retries must be at most 1000",
            ));
        }
        if let Some(c) = &self.estimate {
            Cost::new(c.input_tokens, c.output_tokens)?;
            if !(c.requests.is_finite() && (0.0..=1e12).contains(&c.requests)) {
                return Err(crate::error::Error::invalid_policy(
                    "estimate.requests must be finite, between 0 and 1e12",
                ));
            }
        }
        Ok(())
    }
}

/// One logical call, from its first attempt to its end. See the module documentation.
pub struct Run {
    policy: RetryPolicy,
    cfg: RunConfig,
    chain: Option<ModelChain>,
    fleet: Option<(Arc<Fleet>, Vec<String>)>,
    model: usize,
    retrier: Retrier,
    validation_left: u32,
    expect: Expect,
    /// The last failure and the decision it got (for recoveries and a give-up at the gate).
    last: Option<(Failure, Decision)>,
    /// The wait under way, for its `retry_wait_finished` event.
    waiting: Option<(f64, WaitReason)>,
    stacked_reported: bool,
    events: Vec<Event>,
    /// The final step, once the run is over.
    ended: Option<Step>,
    /// What each attempt is estimated to cost, for the fleet's admission (one request when
    /// not given).
    estimate: Cost,
    /// The admission slot the next (or current) call holds, and whether the call was made.
    ticket: Option<(Reservation, bool)>,
    /// The last gate made this attempt the breaker's half-open probe.
    probe: bool,
    /// The gate wait under way since the last call: its reason and how many times the gate
    /// was asked again (its repeats log at DEBUG: one line per caller per wait).
    gate_wait: Option<(WaitReason, u32)>,
    /// The fleet's clock when the current gate wait began, to see that it moved.
    gate_clock: Option<f64>,
    /// Gate waits in a row that ended with the fleet's clock short of half their length.
    stalled: u32,
}

/// Waits shorter than this go at once (a millisecond: less than any host's sleep).
const ADMISSION_EPSILON_S: f64 = crate::fleet_engine::admission::GO_NOW_S;

/// The fleet and key of model `model` (one key serves every model when only one is given).
fn key_of(fleet: &Option<(Arc<Fleet>, Vec<String>)>, model: usize) -> Option<(&Arc<Fleet>, &str)> {
    let (fleet, keys) = fleet.as_ref()?;
    let key = keys.get(model).or_else(|| keys.first())?;
    Some((fleet, key.as_str()))
}

impl std::fmt::Debug for Run {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Run")
            .field("policy", &self.policy.name)
            .field("model", &self.model)
            .field("expect", &self.expect)
            .finish_non_exhaustive()
    }
}

impl Run {
    /// A run under `policy`, one model, no fleet.
    pub fn new(policy: RetryPolicy) -> Self {
        Self::with_config(policy, RunConfig::default())
    }

    /// A run under `policy` with `cfg` (models, validation retries, ...).
    pub fn with_config(policy: RetryPolicy, cfg: RunConfig) -> Self {
        let chain = (cfg.models.len() > 1).then(|| {
            ModelChain::new(cfg.models.clone())
                .prefer_larger_window_on_overflow(cfg.larger_window_on_overflow)
                .move_on_programming_errors_too(cfg.move_on_programming_errors)
        });
        let mut run = Run {
            retrier: Retrier::new(policy.clone()),
            policy,
            validation_left: cfg.max_validation_retries,
            cfg,
            chain,
            fleet: None,
            model: 0,
            expect: Expect::Start,
            last: None,
            waiting: None,
            stacked_reported: false,
            events: Vec::new(),
            ended: None,
            estimate: Cost::REQUEST,
            ticket: None,
            probe: false,
            gate_wait: None,
            gate_clock: None,
            stalled: 0,
        };
        if let Some(cost) = run.cfg.estimate {
            run.estimate = cost.sanitized();
        }
        run.retrier = run.new_retrier(0);
        run
    }

    /// The run of a call whose first attempt was made on a slot [`Fleet::admits_freely_with`]
    /// gave (the success path of the one protocol) and failed: the run settles that slot
    /// with the failure, as if it had reserved it itself. Call it after [`Run::fleet`]; a
    /// slot that holds nothing (admission off) changes nothing.
    pub fn holding(mut self, r: Reservation) -> Self {
        if r.holds() {
            self.ticket = Some((r, true));
        }
        self
    }

    /// Fixes the jitter seed.
    pub fn seed(mut self, seed: u64) -> Self {
        self.cfg.seed = Some(seed);
        self.retrier = self.new_retrier(self.model);
        self
    }

    /// Shares budget, breaker and pauses on `fleet`: model `i` under `keys[i]` (one key is
    /// used for every model when only one is given).
    pub fn fleet(mut self, fleet: Arc<Fleet>, keys: Vec<String>) -> Self {
        self.fleet = Some((fleet, keys));
        self.retrier = self.new_retrier(self.model);
        self
    }

    /// What each attempt costs, for a fleet with admission on ([`Fleet::reserve`]): one
    /// request, its input tokens, its `max_tokens` ([`Fleet::estimate`] gives the default
    /// estimate from the request's size). Default: [`Cost::REQUEST`].
    pub fn estimate(mut self, cost: Cost) -> Self {
        self.estimate = cost;
        self
    }

    /// A fleet wait longer than `seconds` skips the model ([`Step::Skip`]).
    pub fn max_gate_wait(mut self, seconds: Option<f64>) -> Self {
        self.cfg.max_gate_wait = seconds;
        self
    }

    fn new_retrier(&self, model: usize) -> Retrier {
        let mut r = Retrier::new(self.policy.clone())
            .with_context_hook(self.cfg.context_hook)
            .with_error_names(self.cfg.error_names);
        // Under the testing switch, a run given no seed takes the switch's.
        if let Some(seed) = self.cfg.seed.or_else(crate::testing::seed) {
            // Each model its own jitter stream, reproducible from the one seed.
            r = r.with_seed(seed.wrapping_add(model as u64));
        }
        if let Some((fleet, keys)) = &self.fleet {
            if let Some(key) = keys.get(model).or_else(|| keys.first()) {
                r = r.with_fleet(Arc::clone(fleet), key.clone());
            }
        }
        r
    }

    /// The policy the run follows.
    pub fn policy(&self) -> &RetryPolicy {
        &self.policy
    }

    /// The model being tried.
    pub fn model(&self) -> usize {
        self.model
    }

    /// The name of model `i`, when the run has named models.
    pub fn model_name(&self, i: usize) -> Option<&str> {
        self.cfg.models.get(i).map(|m| m.name.as_str())
    }

    /// The fleet key of the model being tried, when the run has a fleet.
    pub fn key(&self) -> Option<&str> {
        key_of(&self.fleet, self.model).map(|(_, k)| k)
    }

    /// Failed calls of the current model counted so far (free recoveries do not count).
    pub fn attempts(&self) -> u32 {
        self.retrier.attempts()
    }

    /// The decision of the last failure, if any call failed.
    pub fn decision(&self) -> Option<&Decision> {
        self.last.as_ref().map(|(_, d)| d)
    }

    /// The note for the error raised at [`Step::GiveUp`]: what the engine made of it and why
    /// it stopped. `None` before the end, after a success or a cancellation, and when no call
    /// failed (every model skipped).
    pub fn note(&self) -> Option<String> {
        match self.ended {
            Some(Step::GiveUp { .. }) => self.decision().map(crate::messages::give_up_note),
            _ => None,
        }
    }

    /// The events emitted since the last call of this method, in order.
    pub fn take_events(&mut self) -> Vec<Event> {
        let events = std::mem::take(&mut self.events);
        crate::testing::record(&events);
        events
    }

    /// Whether events are waiting for [`Run::take_events`].
    pub fn has_events(&self) -> bool {
        !self.events.is_empty()
    }

    /// The first step. `elapsed` is seconds since the run began (0 here, usually).
    pub fn start(&mut self, elapsed: f64) -> Step {
        if self.expect != Expect::Start {
            return self.misuse("start");
        }
        self.gate(elapsed)
    }

    /// The run ends here without an outcome to report (Ctrl-C, `Thread#kill`, a timeout from
    /// outside, a cancelled task): frees the half-open probe's slot if the run holds it, so the
    /// key's next caller may probe at once. The front doors call it whenever a call ends by an
    /// exception (Ruby `ensure`, Python `finally`), whatever the caller then keeps. Idempotent;
    /// a run that reported its outcome holds no probe.
    pub fn abandon(&mut self) {
        let events = self.retrier.abandon();
        self.events.extend(events);
        // A slot never used goes back; a call cut short counts as spent.
        self.settle_ticket(None, &Headers::new(), false);
    }

    /// The call asked for succeeded.
    pub fn succeeded(&mut self, elapsed: f64) -> Step {
        self.succeeded_with(elapsed, None, &Headers::new())
    }

    /// The call asked for succeeded, and its response reported `usage` and carried `headers`:
    /// a fleet with admission on settles the call's reservation against the usage (refunding
    /// what was not used) and learns the limits the headers state.
    pub fn succeeded_with(
        &mut self,
        _elapsed: f64,
        usage: Option<&Usage>,
        headers: &Headers,
    ) -> Step {
        if !matches!(self.expect, Expect::Outcome | Expect::Start) {
            return self.misuse("succeeded");
        }
        self.settle_ticket(usage, headers, false);
        self.gate_wait = None;
        let events = self.retrier.on_success();
        self.events.extend(events);
        self.finish(Step::Return)
    }

    /// The call asked for failed with `failure`. A run that has not been started may be told
    /// of a failure at once: without a fleet, the first step is always the first call, so a
    /// front door can make it before building the run.
    pub fn failed(&mut self, failure: &Failure, elapsed: f64) -> Step {
        if !matches!(self.expect, Expect::Outcome | Expect::Start) {
            return self.misuse("failed");
        }
        let c = classify(failure);
        self.gate_wait = None;
        let throttled = matches!(c.category, Category::RateLimited | Category::Overloaded);
        self.settle_ticket(None, &failure.headers, throttled);
        self.report_stacked(failure);
        if c.category == Category::Validation && self.validation_left > 0 {
            // The provider answered; only the output was wrong: for the fleet, a success.
            self.validation_left -= 1;
            let events = self.retrier.on_success();
            self.events.extend(events);
            let used = self.cfg.max_validation_retries - self.validation_left;
            let e = self
                .model_event(EventKind::ValidationRetry)
                .with("validation_retry", used)
                .with("max_validation_retries", self.cfg.max_validation_retries);
            self.events.push(e);
            return self.gate(elapsed);
        }
        let d = self.retrier.on_classified(failure, c, elapsed);
        self.follow(failure.clone(), d, false, elapsed)
    }

    /// The wait asked for ([`Step::Wait`]) or the skip ([`Step::Skip`]) is over.
    pub fn resume(&mut self, elapsed: f64) -> Step {
        match self.expect {
            Expect::Resume => {
                let mut reason = None;
                if let Some((seconds, r)) = self.waiting {
                    if self.clock_stalled(seconds, r) {
                        self.waiting = None;
                        return self.finish(Step::Stalled { reason: r });
                    }
                }
                if let Some((seconds, r)) = self.waiting.take() {
                    let e = self
                        .model_event(EventKind::WaitFinished)
                        .with("seconds", seconds)
                        .with("reason", r.as_str());
                    self.events.push(e);
                    reason = Some(r);
                }
                if self.probe && reason == Some(WaitReason::Admission) {
                    // The breaker's probe waited for its admission slot: it stays the probe
                    // (asking the gate again would find a probe out, itself, and wait).
                    if let Some(step) = self.admit(0.0, WaitReason::Admission, elapsed) {
                        return step;
                    }
                    self.expect = Expect::Outcome;
                    return Step::Call { model: self.model };
                }
                self.gate(elapsed)
            }
            Expect::Skipped => self.next_model(GiveUpReason::CircuitOpen, elapsed),
            _ => self.misuse("resume"),
        }
    }

    /// The history was pruned after [`Step::PruneOrphans`]: `pruned` calls removed.
    pub fn pruned(&mut self, pruned: usize, elapsed: f64) -> Step {
        let pruned = pruned.min(MAX_PRUNED);
        if self.expect != Expect::Pruned {
            return self.misuse("pruned");
        }
        let Some((failure, _)) = self.last.take() else {
            return self.misuse("pruned");
        };
        let d = self.retrier.on_orphans_pruned(pruned, &failure, elapsed);
        self.follow(failure, d, pruned > 0, elapsed)
    }

    /// The compaction hook ran after [`Step::CompactContext`]; `compacted`: it changed the history.
    pub fn compacted(&mut self, compacted: bool, elapsed: f64) -> Step {
        if self.expect != Expect::Compacted {
            return self.misuse("compacted");
        }
        let Some((failure, _)) = self.last.take() else {
            return self.misuse("compacted");
        };
        let d = self
            .retrier
            .on_context_compacted(compacted, &failure, elapsed);
        self.follow(failure, d, compacted, elapsed)
    }

    /// Acts on a decision of the retrier.
    fn follow(&mut self, failure: Failure, d: Decision, recovered: bool, elapsed: f64) -> Step {
        self.events.extend(d.events.iter().cloned());
        let action = d.action;
        let used = d.retry_after_used;
        self.last = Some((failure, d));
        match action {
            // A backoff of 0 s is still a wait (SwarmSDK's `sleep(0)` with `delay: 0`); a
            // retry-after of 0 and a retry after a recovery go at once.
            Action::Retry { delay } if delay > 0.0 || (used.is_none() && !recovered) => {
                let reason = if used.is_some() {
                    WaitReason::RetryAfter
                } else {
                    WaitReason::Backoff
                };
                self.wait(delay, reason, elapsed)
            }
            Action::Retry { .. } => self.gate(elapsed),
            Action::PruneOrphans => {
                self.expect = Expect::Pruned;
                Step::PruneOrphans
            }
            Action::CompactContext => {
                self.expect = Expect::Compacted;
                Step::CompactContext
            }
            Action::Reraise => self.finish(Step::Reraise),
            Action::GiveUp { reason } => self.next_model(reason, elapsed),
        }
    }

    /// Before each call: ask the fleet.
    fn gate(&mut self, elapsed: f64) -> Step {
        let g = self.retrier.before_attempt(elapsed);
        self.probe = g.probe;
        self.events.extend(g.events);
        if g.reject {
            if let Some((failure, d)) = self.last.take() {
                let d = self.retrier.give_up_at_gate(&failure, d.classification);
                self.events.extend(d.events.iter().cloned());
                self.last = Some((failure, d));
                return self.next_model(GiveUpReason::CircuitOpen, elapsed);
            }
        }
        match g.wait {
            Some(w) if w > 0.0 => {
                if self.cfg.max_gate_wait.is_some_and(|max| w > max) {
                    let e = self.model_event(EventKind::ModelSkipped).with("seconds", w);
                    self.events.push(e);
                    self.expect = Expect::Skipped;
                    return Step::Skip {
                        model: self.model,
                        seconds: w,
                    };
                }
                if g.paused && self.admission_on() {
                    // Paused callers get admission slots spread after the pause, not one wake-up.
                    let now = key_of(&self.fleet, self.model).map_or(0.0, |(f, _)| f.now());
                    if let Some(step) = self.admit(now + w, WaitReason::FleetPause, elapsed) {
                        return step;
                    }
                    self.expect = Expect::Outcome;
                    return Step::Call { model: self.model };
                }
                let reason = if g.paused {
                    WaitReason::FleetPause
                } else {
                    WaitReason::CircuitOpen
                };
                self.wait(w, reason, elapsed)
            }
            _ => {
                if let Some(step) = self.admit(0.0, WaitReason::Admission, elapsed) {
                    return step;
                }
                self.expect = Expect::Outcome;
                Step::Call { model: self.model }
            }
        }
    }

    fn admission_on(&self) -> bool {
        key_of(&self.fleet, self.model).is_some_and(|(f, _)| f.admission_on())
    }

    /// Admission before a call: `None` when it may go now (holding its slot), else the wait
    /// (or the skip) for its slot. `not_before`: a shared pause's end (wall clock).
    fn admit(&mut self, not_before: f64, reason: WaitReason, elapsed: f64) -> Option<Step> {
        let (fleet, key) = key_of(&self.fleet, self.model)?;
        if !fleet.admission_on() {
            return None;
        }
        let (held, wait) = match self.ticket.take() {
            // A slot held from an earlier wait, not before the pause: still ours.
            Some((r, false)) if r.at >= not_before => {
                // Its slot follows the key's rate as learned since (admission's `replan`).
                let (r, events) = fleet.replan(key, r, not_before);
                self.events.extend(events);
                let wait = r.at - fleet.now();
                (r, wait)
            }
            stale => {
                if let Some((r, false)) = stale {
                    self.events.extend(fleet.cancel(key, &r));
                }
                // Its wait is measured on the clock reading it was made at: a thread preempted
                // between two readings must not turn "go now" into a wait.
                let (r, events) = fleet.reserve_after(key, &self.estimate, not_before);
                self.events.extend(events);
                let wait = r.wait_s;
                (r, wait)
            }
        };
        if wait <= ADMISSION_EPSILON_S {
            self.ticket = Some((held, true));
            return None;
        }
        if self.retrier.attempts() > 0 && self.policy.deadline.is_some_and(|d| elapsed + wait > d) {
            // A retry whose slot comes past the deadline is not slept (as a retry's own wait
            // past it is not): its slot goes back, and the last failure surfaces. A first call
            // waits its turn, as at the fleet's gate.
            if let Some((failure, d)) = self.last.take() {
                self.events.extend(fleet.cancel(key, &held));
                let d = self
                    .retrier
                    .give_up_past_deadline(&failure, d.classification);
                self.events.extend(d.events.iter().cloned());
                self.last = Some((failure, d));
                return Some(self.next_model(GiveUpReason::Deadline, elapsed));
            }
        }
        if self.cfg.max_gate_wait.is_some_and(|max| wait > max) {
            self.events.extend(fleet.cancel(key, &held));
            let e = self
                .model_event(EventKind::ModelSkipped)
                .with("seconds", wait);
            self.events.push(e);
            self.expect = Expect::Skipped;
            return Some(Step::Skip {
                model: self.model,
                seconds: wait,
            });
        }
        // A long wait on a learned rate is slept in slices, asking again after each.
        let sleep = wait - (held.at - held.recheck_at).max(0.0);
        self.ticket = Some((held, false));
        Some(self.wait(sleep, reason, elapsed))
    }

    /// The call's outcome is known (or never will be): settles its admission slot against
    /// `usage` and learns from the response. A slot whose call was never made is given back.
    fn settle_ticket(&mut self, usage: Option<&Usage>, headers: &Headers, throttled: bool) {
        let Some((fleet, key)) = key_of(&self.fleet, self.model) else {
            return;
        };
        if !fleet.admission_on() {
            return;
        }
        let events = match self.ticket.take() {
            Some((r, true)) => fleet.settle(key, &r, usage, headers, throttled),
            Some((r, false)) => fleet.cancel(key, &r),
            None if throttled || !headers.is_empty() => fleet.learn(key, headers, throttled),
            None => Vec::new(),
        };
        self.events.extend(events);
    }

    /// Whether the gate wait that just ended is one more whose fleet clock did not move by half
    /// its length, and they now make [`STALLED_WAITS`](crate::testing::STALLED_WAITS) in a row.
    /// Waits under a millisecond prove nothing; waits not asked by the gate do not count.
    fn clock_stalled(&mut self, seconds: f64, reason: WaitReason) -> bool {
        let began = self.gate_clock.take();
        let now = key_of(&self.fleet, self.model).map(|(f, _)| f.now());
        let (Some(began), Some(now)) = (began, now) else {
            return false;
        };
        if !reason.is_gate() || seconds <= ADMISSION_EPSILON_S {
            return false;
        }
        if now - began < seconds / 2.0 {
            self.stalled += 1;
        } else {
            self.stalled = 0;
        }
        self.stalled >= crate::testing::STALLED_WAITS
    }

    fn wait(&mut self, seconds: f64, reason: WaitReason, elapsed: f64) -> Step {
        let mut e = self
            .model_event(EventKind::WaitStarted)
            .with("seconds", seconds)
            .with("reason", reason.as_str())
            .with("attempt", self.retrier.attempts());
        if reason.is_gate() {
            // The same wait asked again (the gate rechecks until its end): counted, so that
            // its line logs at DEBUG after the first (core `messages::log_line`).
            let checks = match self.gate_wait {
                Some((r, n)) if r == reason => n + 1,
                _ => 0,
            };
            self.gate_wait = Some((reason, checks));
            if checks > 0 {
                e = e.with("recheck", checks);
            }
            self.gate_clock = key_of(&self.fleet, self.model).map(|(f, _)| f.now());
        } else {
            self.gate_wait = None;
            self.gate_clock = None;
        }
        if let Some(t0) = self.cfg.started_at {
            // Milliseconds are enough for a countdown, and keep the vectors exact.
            let ends = ((t0 + elapsed + seconds) * 1000.0).round() / 1000.0;
            e = e.with("ends_at", ends);
        }
        self.events.push(e);
        self.waiting = Some((seconds, reason));
        self.expect = Expect::Resume;
        Step::Wait { seconds, reason }
    }

    /// The current model gave up (or was skipped): the next model of the chain, or the end.
    fn next_model(&mut self, reason: GiveUpReason, elapsed: f64) -> Step {
        let skipped = self.expect == Expect::Skipped;
        let next = match &self.chain {
            None => None,
            Some(chain) if skipped => {
                (self.model + 1 < chain.models.len()).then_some(self.model + 1)
            }
            Some(chain) => match &self.last {
                Some((_, d)) => chain.next(self.model, &d.classification, reason),
                None => None,
            },
        };
        let Some(next) = next else {
            return self.finish(Step::GiveUp { reason });
        };
        let mut e = Event::new(EventKind::ModelFallback)
            .with("from", self.model_name(self.model).unwrap_or_default())
            .with("to", self.model_name(next).unwrap_or_default())
            .with("reason", reason.as_str());
        e = e.with(
            "category",
            match (&self.last, skipped) {
                (Some((_, d)), false) => Value::from(d.classification.category.as_str()),
                _ => Value::Null,
            },
        );
        self.events.push(e);
        self.model = next;
        self.gate_wait = None;
        self.retrier = self.new_retrier(next);
        self.validation_left = self.cfg.max_validation_retries;
        self.gate(elapsed)
    }

    /// Reports once that the wrapped client retries on its own: known from the configuration,
    /// or seen on a failure (`client_retries`).
    fn report_stacked(&mut self, failure: &Failure) {
        if self.stacked_reported {
            return;
        }
        let (client, source) = match failure.client_retries {
            Some(n) if n > 0 => (u32::from(n).max(self.cfg.client_max_retries), "observed"),
            _ if self.cfg.client_max_retries > 0 => (self.cfg.client_max_retries, "configured"),
            _ => return,
        };
        self.stacked_reported = true;
        let calls = self.policy.max_attempts.max(1);
        let requests = u64::from(calls) * (u64::from(client) + 1);
        self.events.push(
            Event::new(EventKind::LayersStacked)
                .with("client_retries", client)
                .with("attempts", calls)
                .with("requests", requests)
                .with("source", source),
        );
    }

    fn model_event(&self, kind: EventKind) -> Event {
        let e = Event::new(kind);
        match self.model_name(self.model) {
            Some(name) => e.with("model", name),
            None => e,
        }
    }

    fn finish(&mut self, step: Step) -> Step {
        self.expect = Expect::Done;
        self.ended = Some(step);
        step
    }

    /// An input the run did not ask for (a front door's bug): the run ends, giving up with
    /// what it has rather than panicking across a binding.
    fn misuse(&mut self, _what: &str) -> Step {
        let step = match &self.last {
            Some((_, d)) => match d.action {
                Action::GiveUp { reason } => Step::GiveUp { reason },
                Action::Reraise => Step::Reraise,
                _ => Step::GiveUp {
                    reason: GiveUpReason::Permanent,
                },
            },
            None => Step::GiveUp {
                reason: GiveUpReason::Permanent,
            },
        };
        self.finish(step)
    }
}

impl Drop for Run {
    /// A run dropped mid-wait (a cancelled task) gives its admission slot back.
    fn drop(&mut self) {
        if self.ticket.is_some() {
            self.settle_ticket(None, &Headers::new(), false);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_input_out_of_turn_ends_the_run_without_panicking() {
        let mut run = Run::new(RetryPolicy::forgeflare());
        assert_eq!(run.resume(0.0).name(), "give_up");
        let mut run = Run::new(RetryPolicy::forgeflare());
        let busy = Failure::http(503, "busy");
        assert!(matches!(run.failed(&busy, 0.0), Step::Wait { .. }));
        // A call reported while the run waits: the run ends with what it knows.
        assert_eq!(
            run.succeeded(0.0),
            Step::GiveUp {
                reason: GiveUpReason::Permanent
            }
        );
        assert!(run.failed(&busy, 0.0).is_final());
    }

    #[test]
    fn a_bad_configuration_is_refused() {
        for bad in [
            r#"{"max_gate_wait": -1}"#,
            r#"{"models": [{"name": ""}]}"#,
            r#"{"max_validation_retries": 5000}"#,
            r#"{"modles": []}"#,
        ] {
            assert!(RunConfig::from_json(bad).is_err(), "{bad}");
        }
        assert!(RunConfig::from_json(r#"{"models": [{"name": "a"}], "seed": 1}"#).is_ok());
    }
}
