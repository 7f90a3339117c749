//! One model's retry loop inside a [`Run`](crate::Run): each failure decided ([`Decision`]).
//! Private to the core: `Run` is the one public machine; its [`Run::decision`](crate::Run::decision)
//! shows the decision of the last failure.

use serde_json::Value;

use crate::category::{Category, Classification, RetryAfterSource};
use crate::classify::classify;
use std::sync::Arc;

use crate::error_names::ErrorNames;
use crate::events::{Event, EventKind};
use crate::failure::Failure;
use crate::fleet::{Admit, Fleet};
use crate::policy::{Backoff, Jitter, OverCap, RetryPolicy};
use crate::rng::SplitMix64;
use crate::scrub::scrub;

/// Why the engine stopped retrying.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum GiveUpReason {
    /// Not worth retrying (a 401, a 400, ...).
    Permanent,
    /// The attempt limit was reached.
    Exhausted,
    /// The server asked for a wait longer than the policy's cap (the wait is reported).
    RetryAfterTooLong,
    /// The next wait would end past the policy's deadline.
    Deadline,
    /// The fleet's retry budget for this key is spent.
    BudgetExhausted,
    /// The key's circuit is open and will not close before the deadline.
    CircuitOpen,
}

use serde::Serialize;

impl GiveUpReason {
    /// The snake_case name of the reason (`exhausted`, `retry_after_too_long`, ...), as events
    /// report it.
    pub fn as_str(self) -> &'static str {
        match self {
            GiveUpReason::Permanent => "permanent",
            GiveUpReason::Exhausted => "exhausted",
            GiveUpReason::RetryAfterTooLong => "retry_after_too_long",
            GiveUpReason::Deadline => "deadline",
            GiveUpReason::BudgetExhausted => "budget_exhausted",
            GiveUpReason::CircuitOpen => "circuit_open",
        }
    }

    /// The reason named `name` (the inverse of [`GiveUpReason::as_str`]).
    pub fn from_name(name: &str) -> Option<Self> {
        [
            GiveUpReason::Permanent,
            GiveUpReason::Exhausted,
            GiveUpReason::RetryAfterTooLong,
            GiveUpReason::Deadline,
            GiveUpReason::BudgetExhausted,
            GiveUpReason::CircuitOpen,
        ]
        .into_iter()
        .find(|r| r.as_str() == name)
    }
}

/// What the caller should do next.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Action {
    /// Wait `delay` seconds, then call again.
    Retry {
        /// Seconds to wait before the next call.
        delay: f64,
    },
    /// Prune orphan tool calls from the history (the run's [`Step::PruneOrphans`](crate::Step::PruneOrphans)).
    PruneOrphans,
    /// Compact the history with the caller's hook (the run's [`Step::CompactContext`](crate::Step::CompactContext)).
    CompactContext,
    /// Stop and surface the failure.
    GiveUp {
        /// Why the engine stopped.
        reason: GiveUpReason,
    },
    /// Cancellation: re-raise the original exception untouched, emit nothing.
    Reraise,
}

impl Action {
    /// The snake_case name of the action (`retry`, `prune_orphans`, `compact_context`,
    /// `give_up`, `reraise`): the recoveries are named as the run's steps are.
    pub fn name(&self) -> &'static str {
        match self {
            Action::Retry { .. } => "retry",
            Action::PruneOrphans => "prune_orphans",
            Action::CompactContext => "compact_context",
            Action::GiveUp { .. } => "give_up",
            Action::Reraise => "reraise",
        }
    }
}

/// One answer of the state machine.
#[derive(Debug, Clone, PartialEq)]
pub struct Decision {
    /// What to do next.
    pub action: Action,
    /// How the failure was classified.
    pub classification: Classification,
    /// The number of the call that just failed, 1-based (free recoveries do not count).
    pub attempt: u32,
    /// The limit as the policy counts it.
    pub max_retries: u32,
    /// The server's wait, when it replaced the backoff (Forgeflare logs "Using retry-after").
    pub retry_after_used: Option<f64>,
    /// Events to emit, in order.
    pub events: Vec<Event>,
}

/// A recovery the state machine asked for and is waiting to hear about.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Pending {
    Orphans,
    Context,
}

/// The per-model state of a run: one `Retrier` per model of a [`Run`](crate::Run). Not public
/// API (reachable through `__private` for the repository's tests and fuzz targets only).
#[derive(Debug, Clone)]
pub struct Retrier {
    policy: RetryPolicy,
    rng: SplitMix64,
    failed: u32,
    prev_delay: Option<f64>,
    orphans_tried: bool,
    context_tried: bool,
    context_hook: bool,
    error_names: ErrorNames,
    pending: Option<(Pending, Classification)>,
    fleet: Option<(Arc<Fleet>, String)>,
    waited: f64,
    /// Seconds the fleet's gate made the current attempt wait.
    gate_waited: f64,
    /// This call holds the circuit's half-open probe.
    probing: bool,
}

/// What the fleet says before a call ([`Retrier::before_attempt`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Gate {
    /// Wait this many seconds, then ask again (a pause or an open circuit).
    pub wait: Option<f64>,
    /// A retry's wait would end past the deadline: stop and surface the last error.
    pub reject: bool,
    /// This call is the circuit's half-open probe.
    pub probe: bool,
    /// The wait is a shared pause (a peer's 429), not an open circuit.
    pub paused: bool,
    /// Fleet events to emit, in order.
    pub events: Vec<Event>,
}

impl Retrier {
    /// A state machine for one logical call under `policy`, with an entropy-seeded jitter source
    /// and no fleet.
    pub fn new(policy: RetryPolicy) -> Self {
        Retrier {
            policy,
            rng: SplitMix64::from_entropy(),
            failed: 0,
            prev_delay: None,
            orphans_tried: false,
            context_tried: false,
            context_hook: false,
            error_names: ErrorNames::Contract,
            pending: None,
            fleet: None,
            waited: 0.0,
            gate_waited: 0.0,
            probing: false,
        }
    }

    /// Shares budget, breaker and pauses with every other call of `key` on `fleet`.
    pub fn with_fleet(mut self, fleet: Arc<Fleet>, key: impl Into<String>) -> Self {
        self.fleet = Some((fleet, key.into()));
        self
    }

    /// Before each call (the first included): may it go now? Without a fleet, always.
    /// `elapsed` is seconds since the first call began.
    pub fn before_attempt(&mut self, elapsed: f64) -> Gate {
        let Some((fleet, key)) = &self.fleet else {
            return Gate {
                wait: None,
                reject: false,
                probe: false,
                paused: false,
                events: vec![],
            };
        };
        let (admit, events) = fleet.admit(key);
        match admit {
            Admit::Go => Gate {
                wait: None,
                reject: false,
                probe: false,
                paused: false,
                events,
            },
            Admit::Probe => {
                self.probing = true;
                Gate {
                    wait: None,
                    reject: false,
                    probe: true,
                    paused: false,
                    events,
                }
            }
            Admit::WaitUntil(until) | Admit::Paused(until) => {
                let mut wait = (until - fleet.now()).max(0.0);
                // The policy's own patience bounds what a peer's pause makes this attempt wait:
                // a peer's 429 with retry-after 250 does not make a call under a 60 s cap wait
                // 250 s. Once the cap is spent, the call goes. (An open circuit is no server's
                // request to wait: its wait is bounded by the breaker's `open_s`.)
                let paused = matches!(admit, Admit::Paused(_));
                if let (true, Some(cap)) = (paused, self.policy.retry_after_cap) {
                    let left = (cap - self.gate_waited).max(0.0);
                    if left <= 0.0 {
                        return Gate {
                            wait: None,
                            reject: false,
                            probe: false,
                            paused,
                            events,
                        };
                    }
                    wait = wait.min(left);
                }
                self.gate_waited += wait;
                // The deadline bounds retrying: a first call waits its turn; a retry whose wait
                // would overrun it stops and surfaces the last error.
                let reject =
                    self.failed > 0 && self.policy.deadline.is_some_and(|d| elapsed + wait > d);
                if !reject {
                    self.waited += wait;
                }
                Gate {
                    wait: Some(wait),
                    reject,
                    probe: false,
                    paused,
                    events,
                }
            }
        }
    }

    /// The call succeeded: earn budget back, close a half-open circuit, count it.
    pub fn on_success(&mut self) -> Vec<Event> {
        self.gate_waited = 0.0;
        self.probing = false;
        let Some((fleet, key)) = &self.fleet else {
            return vec![];
        };
        fleet.succeeded(key, self.failed > 0)
    }

    /// Fixes the jitter seed (tests, shared vectors).
    pub fn with_seed(mut self, seed: u64) -> Self {
        self.rng = SplitMix64::new(seed);
        self
    }

    /// Tells the engine the caller can compact its history on `context_overflow`.
    pub fn with_context_hook(mut self, present: bool) -> Self {
        self.context_hook = present;
        self
    }

    /// How `llm_request_failed` names its `error_type`.
    pub fn with_error_names(mut self, names: ErrorNames) -> Self {
        self.error_names = names;
        self
    }

    /// Failed calls counted so far.
    pub fn attempts(&self) -> u32 {
        self.failed
    }

    /// A call failed. `elapsed` is seconds since the first call began (for the deadline).
    pub fn on_failure(&mut self, failure: &Failure, elapsed: f64) -> Decision {
        let c = classify(failure);
        self.on_classified(failure, c, elapsed)
    }

    /// Like [`Retrier::on_failure`] with a classification the caller already has.
    pub fn on_classified(
        &mut self,
        failure: &Failure,
        c: Classification,
        elapsed: f64,
    ) -> Decision {
        self.pending = None;
        self.gate_waited = 0.0;
        let probing = std::mem::take(&mut self.probing);
        if c.category == Category::Cancelled {
            // A cancelled probe says nothing about the provider: free the slot now.
            let events = match (&self.fleet, probing) {
                (Some((fleet, key)), true) => fleet.release_probe(key),
                _ => vec![],
            };
            return self.decision(Action::Reraise, c, None, events);
        }
        self.failed = self.failed.saturating_add(1);
        let fleet_events = match &self.fleet {
            Some((fleet, key)) => {
                fleet.metrics().update(key, c.category.as_str(), |m| {
                    m.calls += 1;
                    m.failures += 1;
                });
                fleet.record_failure(key, &c)
            }
            None => vec![],
        };
        let mut d = self.decide(failure, c, elapsed);
        if !fleet_events.is_empty() {
            d.events.splice(0..0, fleet_events);
        }
        d
    }

    fn decide(&mut self, failure: &Failure, c: Classification, elapsed: f64) -> Decision {
        if c.category == Category::OrphanToolCalls
            && self.policy.recover_orphans
            && !self.orphans_tried
        {
            self.orphans_tried = true;
            self.pending = Some((Pending::Orphans, c.clone()));
            return self.decision(Action::PruneOrphans, c, None, vec![]);
        }
        if c.category == Category::ContextOverflow
            && self.policy.recover_context
            && self.context_hook
            && !self.context_tried
        {
            self.context_tried = true;
            self.pending = Some((Pending::Context, c.clone()));
            return self.decision(Action::CompactContext, c, None, vec![]);
        }
        self.retry_or_give_up(failure, c, elapsed)
    }

    /// The caller pruned `pruned` orphan tool calls after [`Action::PruneOrphans`].
    /// Some pruned: retry at once, and the failed call does not count. None: decide as usual.
    pub fn on_orphans_pruned(
        &mut self,
        pruned: usize,
        failure: &Failure,
        elapsed: f64,
    ) -> Decision {
        self.after_recovery(Pending::Orphans, pruned > 0, failure, elapsed, |msg| {
            Event::new(EventKind::OrphansPruned)
                .with("pruned_count", pruned as u64)
                .with("original_error", msg)
        })
    }

    /// The caller's compaction hook ran after [`Action::CompactContext`]; `compacted` says
    /// whether it changed the history.
    pub fn on_context_compacted(
        &mut self,
        compacted: bool,
        failure: &Failure,
        elapsed: f64,
    ) -> Decision {
        self.after_recovery(Pending::Context, compacted, failure, elapsed, |msg| {
            Event::new(EventKind::ContextCompacted).with("original_error", msg)
        })
    }

    fn after_recovery(
        &mut self,
        kind: Pending,
        recovered: bool,
        failure: &Failure,
        elapsed: f64,
        event: impl FnOnce(String) -> Event,
    ) -> Decision {
        let c = match self.pending.take() {
            Some((k, c)) if k == kind => c,
            // Reported without being asked: no recovery was due, so none is rewarded with a
            // retry. The failure is decided as it stands (a 401 gives up, a cancellation is
            // re-raised), never the caller's call failed for the misuse.
            _ => {
                let c = classify(failure);
                if c.category == Category::Cancelled {
                    return self.decision(Action::Reraise, c, None, vec![]);
                }
                return self.retry_or_give_up(failure, c, elapsed);
            }
        };
        if recovered {
            self.failed = self.failed.saturating_sub(1);
            let e = event(scrub(&failure.message).into_owned());
            return self.decision(Action::Retry { delay: 0.0 }, c, None, vec![e]);
        }
        self.retry_or_give_up(failure, c, elapsed)
    }

    fn retryable(&self, c: &Classification) -> bool {
        if self.policy.retry_everything {
            return true;
        }
        if let Some(r) = self.policy.overrides.get(&c.category).and_then(|o| o.retry) {
            return r;
        }
        if c.transient {
            return true;
        }
        c.category == Category::Unknown
            && if c.api_error {
                self.policy.retry_unknown_api
            } else {
                self.policy.retry_unknown
            }
    }

    /// Metrics of a sequence that failed in the end: its calls and waits were wasted.
    fn count_give_up(&self, c: &Classification) {
        if let Some((fleet, key)) = &self.fleet {
            let (calls, waited) = (u64::from(self.failed), self.waited);
            fleet.metrics().update(key, c.category.as_str(), |m| {
                m.gave_up += 1;
                m.wasted_calls += calls;
                m.wasted_s += waited;
            });
        }
    }

    fn retry_or_give_up(&mut self, failure: &Failure, c: Classification, elapsed: f64) -> Decision {
        if !self.retryable(&c) {
            self.count_give_up(&c);
            let e = self
                .base_event(EventKind::RequestFailed, failure, &c)
                .with("error_type", self.error_names.error_type(failure, &c))
                .with("retryable", false);
            return self.decision(
                Action::GiveUp {
                    reason: GiveUpReason::Permanent,
                },
                c,
                None,
                vec![e],
            );
        }
        let o = self.policy.overrides.get(&c.category);
        let max = o
            .and_then(|o| o.max_attempts)
            .unwrap_or(self.policy.max_attempts);
        if self.failed >= max {
            return self.give_up(GiveUpReason::Exhausted, failure, c, None);
        }
        let backoff = o
            .and_then(|o| o.backoff.clone())
            .unwrap_or_else(|| self.policy.backoff.clone());
        let mut delay = self.jittered(&backoff);
        let mut used = None;
        if let Some(ra) = c.retry_after {
            match c.retry_after_source {
                Some(src) if src.is_instruction() && self.policy.honor_retry_after => {
                    let cap = self.policy.retry_after_cap.unwrap_or(f64::INFINITY);
                    if ra > cap {
                        if self.policy.over_cap == OverCap::GiveUp {
                            return self.give_up(
                                GiveUpReason::RetryAfterTooLong,
                                failure,
                                c,
                                Some(ra),
                            );
                        }
                        delay = cap;
                    } else {
                        delay = ra;
                    }
                    used = Some(delay);
                }
                Some(RetryAfterSource::ResetHint) if self.policy.honor_reset_hints => {
                    let cap = self.policy.retry_after_cap.unwrap_or(backoff.ceiling());
                    delay = delay.max(ra.min(cap));
                }
                _ => {}
            }
        }
        if let Some(deadline) = self.policy.deadline {
            if elapsed + delay > deadline {
                return self.give_up(GiveUpReason::Deadline, failure, c, used);
            }
        }
        let mut pre = Vec::new();
        if let Some((fleet, key)) = &self.fleet {
            let (ok, ev) = fleet.try_retry(key, &c);
            pre = ev;
            if !ok {
                let mut d = self.give_up(GiveUpReason::BudgetExhausted, failure, c, used);
                d.events.splice(0..0, pre);
                return d;
            }
            fleet.metrics().update(key, c.category.as_str(), |m| {
                m.retries += 1;
                m.waited_s += delay;
            });
        }
        self.waited += delay;
        self.prev_delay = Some(delay);
        if used.is_some() {
            // The server's own wait counts against the policy's patience for pauses: the shared
            // pause this 429 leaves in the fleet is not waited out a second time.
            self.gate_waited = delay;
        }
        let e = self
            .base_event(EventKind::RetryAttempt, failure, &c)
            .with("attempt", self.failed)
            .with("max_retries", self.policy.reported_max())
            .with("retry_delay", delay)
            .with("retry_after", used.map_or(Value::Null, Value::from));
        pre.push(e);
        self.decision(Action::Retry { delay }, c, used, pre)
    }

    /// The fleet's gate refused a retry (its wait would pass the deadline): give up with the
    /// last failure, reason `circuit_open`, with the usual `llm_retry_exhausted` event.
    pub(crate) fn give_up_at_gate(&mut self, failure: &Failure, c: Classification) -> Decision {
        self.give_up(GiveUpReason::CircuitOpen, failure, c, None)
    }

    /// An admission slot would come past the deadline: give up with the last failure, reason
    /// `deadline`, as a retry's own wait past it does.
    pub(crate) fn give_up_past_deadline(
        &mut self,
        failure: &Failure,
        c: Classification,
    ) -> Decision {
        self.give_up(GiveUpReason::Deadline, failure, c, None)
    }

    fn give_up(
        &mut self,
        reason: GiveUpReason,
        failure: &Failure,
        c: Classification,
        wait: Option<f64>,
    ) -> Decision {
        self.count_give_up(&c);
        let mut e = self
            .base_event(EventKind::RetryExhausted, failure, &c)
            .with("attempts", self.failed)
            .with("reason", reason.as_str());
        if let Some(w) = wait.or(c.retry_after) {
            e = e.with("retry_after", w);
        }
        self.decision(Action::GiveUp { reason }, c, None, vec![e])
    }

    fn jittered(&mut self, backoff: &Backoff) -> f64 {
        let d = backoff.delay(self.failed.saturating_sub(1));
        match self.policy.jitter {
            Jitter::None => d,
            Jitter::Full => self.rng.between(0.0, d),
            Jitter::Equal => d / 2.0 + self.rng.between(0.0, d / 2.0),
            Jitter::Decorrelated => {
                let floor = backoff.floor();
                let prev = self.prev_delay.unwrap_or(floor).max(floor);
                self.rng
                    .between(floor, prev * 3.0)
                    .min(backoff.ceiling())
                    .max(0.0)
            }
        }
    }

    fn base_event(&self, kind: EventKind, failure: &Failure, c: &Classification) -> Event {
        Event::new(kind)
            .with("category", c.category.as_str())
            .with("status_code", c.status.map_or(Value::Null, Value::from))
            .with(
                "error_class",
                failure
                    .error_class
                    .first()
                    .map_or(Value::Null, |s| Value::from(s.as_str())),
            )
            .with("error_message", scrub(&failure.message).into_owned())
    }

    fn decision(
        &self,
        action: Action,
        c: Classification,
        used: Option<f64>,
        events: Vec<Event>,
    ) -> Decision {
        Decision {
            action,
            classification: c,
            attempt: self.failed,
            max_retries: self.policy.reported_max(),
            retry_after_used: used,
            events,
        }
    }

    /// The call ended without an outcome to report (an exception the front door does not
    /// classify, such as Ctrl-C, `Thread#kill`, `Timeout.timeout`, a cancelled task): frees the
    /// half-open probe's slot if this call holds it, at once rather than when the retrier is
    /// dropped (a caller keeping the exception keeps the retrier). Idempotent.
    pub fn abandon(&mut self) -> Vec<Event> {
        match (std::mem::take(&mut self.probing), &self.fleet) {
            (true, Some((fleet, key))) => fleet.release_probe(key),
            _ => vec![],
        }
    }
}

/// A call dropped while it held the half-open probe (its task cancelled, its code panicked)
/// frees the slot, so that the key is not stalled for `probe_timeout_s`.
impl Drop for Retrier {
    fn drop(&mut self) {
        if let (true, Some((fleet, key))) = (self.probing, &self.fleet) {
            let _ = fleet.release_probe(key);
        }
    }
}
