//! Clients: stacks of retry layers, each a small sans-IO decider, and the state machine of one
//! logical call through a stack.
//!
//! A stack lists its layers outermost first. A failed HTTP call goes to the innermost layer; if
//! it gives up, the same failure goes to the layer around it, and so on. When a layer retries,
//! every layer inside it starts afresh, so stacked layers multiply calls: SwarmSDK's 3 attempts
//! over RubyLLM's 4 are 12 HTTP calls (CONTRACT §4).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use retry_core::__private::rng::SplitMix64;
use retry_core::fleet::{Fleet, FleetConfig, WallClock};
use retry_core::{Failure, RetryPolicy, Run, Step, WaitReason};

/// A layer's answer to a failure.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Verdict {
    /// Wait this many seconds, then call again (through the layers inside this one).
    Retry(f64),
    /// Prune orphan tool calls from the history, then report with [`Layer::after_prune`].
    Prune,
    /// Pass the failure to the layer outside (or to the caller).
    GiveUp,
}

/// What a layer says before a call.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Gate {
    /// Call now.
    Go,
    /// Wait this long, then ask again (a shared pause, an open circuit).
    Wait(f64),
    /// Do not call: stop and surface the last error.
    Reject,
}

/// One retry loop.
pub trait Layer: Send {
    /// A fresh loop of this layer begins (a new logical call, or the layer outside retried).
    fn begin(&mut self);
    /// A call under this layer is about to go; `elapsed` is seconds since this loop began.
    fn gate(&mut self, _elapsed: f64) -> Gate {
        Gate::Go
    }
    /// A call under this layer failed; `elapsed` is seconds since this loop began.
    fn on_failure(&mut self, f: &Failure, elapsed: f64) -> Verdict;
    /// The history was pruned after [`Verdict::Prune`]: `pruned` orphan calls went.
    fn after_prune(&mut self, _pruned: usize, _f: &Failure, _elapsed: f64) -> Verdict {
        Verdict::GiveUp
    }
    /// A call under this layer succeeded.
    fn on_success(&mut self) {}
}

/// The provider/model key every simulated call uses with a fleet.
pub const FLEET_KEY: &str = "anthropic:claude-sim";

/// The core's [`Run`]: one per loop, seeded from the layer's own seed sequence so that a run is
/// reproducible; with a [`Fleet`], it shares budget, breaker and pauses. The layer interprets
/// the run's steps as the front doors do: a wait the run asks for before a retry is the layer's
/// `Retry`, a wait it asks for at the gate (a shared pause, an open circuit) the layer's
/// `Gate::Wait`.
pub struct CoreLayer {
    policy: RetryPolicy,
    seeds: SplitMix64,
    fleet: Option<Arc<Fleet>>,
    run: Run,
    /// Where the run is: what the next `gate` does.
    at: At,
}

/// What the run expects next, as the layer sees it.
#[derive(Debug, Clone, Copy, PartialEq)]
enum At {
    /// Not started: the first gate starts it.
    Fresh,
    /// The run asked for a call: the next gate lets it go.
    Call,
    /// The run asked for a wait at its gate, not yet passed on: the next gate returns it.
    GateWait(f64),
    /// A wait is over when the next gate comes: resume the run.
    Waiting,
    /// The run ended (gave up): any further gate rejects.
    Over,
}

impl CoreLayer {
    pub fn new(policy: RetryPolicy, seed: u64) -> Self {
        Self::with_fleet(policy, seed, None)
    }

    pub fn with_fleet(policy: RetryPolicy, seed: u64, fleet: Option<Arc<Fleet>>) -> Self {
        let mut seeds = SplitMix64::new(seed);
        let run = Self::run(&policy, seeds.next_u64(), &fleet);
        CoreLayer {
            policy,
            seeds,
            fleet,
            run,
            at: At::Fresh,
        }
    }

    fn run(policy: &RetryPolicy, seed: u64, fleet: &Option<Arc<Fleet>>) -> Run {
        let r = Run::new(policy.clone()).seed(seed);
        match fleet {
            Some(f) => r.fleet(Arc::clone(f), vec![FLEET_KEY.to_owned()]),
            None => r,
        }
    }

    /// A step the run took at its gate (start, resume, or at once after a free retry).
    fn at_gate(&mut self, step: Step) -> Gate {
        match step {
            Step::Call { .. } => {
                self.at = At::Call;
                Gate::Go
            }
            Step::Wait { seconds, .. } => {
                self.at = At::Waiting;
                Gate::Wait(seconds)
            }
            _ => {
                self.at = At::Over;
                Gate::Reject
            }
        }
    }

    /// A step the run took after a failure or a recovery.
    fn after_failure(&mut self, step: Step) -> Verdict {
        match step {
            Step::Wait {
                seconds,
                reason: WaitReason::Backoff | WaitReason::RetryAfter,
            } => {
                self.at = At::Waiting;
                Verdict::Retry(seconds)
            }
            // A free retry (a retry-after of 0, a recovery) went straight to the gate, which
            // said wait: the retry goes at once and its gate waits.
            Step::Wait { seconds, .. } => {
                self.at = At::GateWait(seconds);
                Verdict::Retry(0.0)
            }
            Step::Call { .. } => {
                self.at = At::Call;
                Verdict::Retry(0.0)
            }
            Step::PruneOrphans => Verdict::Prune,
            // The simulated agent has no compaction hook, so the core never asks for it; one
            // model, no skipping.
            _ => {
                self.at = At::Over;
                Verdict::GiveUp
            }
        }
    }
}

impl Layer for CoreLayer {
    fn begin(&mut self) {
        self.run = Self::run(&self.policy, self.seeds.next_u64(), &self.fleet);
        self.at = At::Fresh;
    }
    fn gate(&mut self, elapsed: f64) -> Gate {
        match self.at {
            At::Fresh => {
                let step = self.run.start(elapsed);
                self.at_gate(step)
            }
            At::Call => Gate::Go,
            At::GateWait(w) => {
                self.at = At::Waiting;
                Gate::Wait(w)
            }
            At::Waiting => {
                let step = self.run.resume(elapsed);
                self.at_gate(step)
            }
            At::Over => Gate::Reject,
        }
    }
    fn on_failure(&mut self, f: &Failure, elapsed: f64) -> Verdict {
        if self.at == At::Waiting {
            // The caller called again without asking the gate (a stack driven by hand): the
            // wait is over.
            let step = self.run.resume(elapsed);
            self.at_gate(step);
        }
        let step = self.run.failed(f, elapsed);
        self.after_failure(step)
    }
    fn after_prune(&mut self, pruned: usize, _f: &Failure, elapsed: f64) -> Verdict {
        let step = self.run.pruned(pruned, elapsed);
        self.after_failure(step)
    }
    fn on_success(&mut self) {
        self.run.succeeded(0.0);
    }
}

fn header_seconds(f: &Failure, name: &str) -> Option<f64> {
    f.headers
        .get(name)
        .and_then(|v| v.trim().parse::<f64>().ok())
        .filter(|v| v.is_finite())
}

/// RubyLLM 1.13+'s own retries: faraday-retry with `max 3`, `interval 0.1`, `backoff_factor 2`,
/// `interval_randomness 0.5`, `max_interval 30`, on RubyLLM's `RateLimitError` (429),
/// `ServerError` (500), `ServiceUnavailableError` (502-504), `OverloadedError` (529), timeouts
/// and refused connections. Delay `min(0.1·2ⁿ, 30) + U(0, 0.5·0.1)`; a `Retry-After` at least
/// that long replaces it, one over 30 s fails at once (anchors §2, RubyLLM).
pub struct RubyLlmLayer {
    seeds: SplitMix64,
    rng: SplitMix64,
    retries: u32,
}

impl RubyLlmLayer {
    pub const MAX_RETRIES: u32 = 3;

    pub fn new(seed: u64) -> Self {
        let mut seeds = SplitMix64::new(seed ^ 0x5255_4259);
        let rng = SplitMix64::new(seeds.next_u64());
        RubyLlmLayer {
            seeds,
            rng,
            retries: 0,
        }
    }
}

impl Layer for RubyLlmLayer {
    fn begin(&mut self) {
        self.rng = SplitMix64::new(self.seeds.next_u64());
        self.retries = 0;
    }
    fn on_failure(&mut self, f: &Failure, _elapsed: f64) -> Verdict {
        use retry_core::Transport;
        let retried = match f.status {
            Some(s) => matches!(s, 429 | 500 | 502..=504 | 529),
            None => matches!(f.transport, Some(Transport::Timeout | Transport::Connect)),
        };
        if !retried || self.retries >= Self::MAX_RETRIES {
            return Verdict::GiveUp;
        }
        let interval =
            (0.1 * 2f64.powi(self.retries as i32)).min(30.0) + self.rng.next_f64() * 0.5 * 0.1;
        let delay = match header_seconds(f, "retry-after") {
            Some(ra) if ra > 30.0 => return Verdict::GiveUp,
            Some(ra) if ra >= interval => ra,
            _ => interval,
        };
        self.retries += 1;
        Verdict::Retry(delay)
    }
}

/// The openai-python client's own loop (v3.3.1): `max_retries 2` (3 calls), on 408, 409, 429
/// and ≥500; `retry-after-ms` / `retry-after` used when in (0, 120] s, else
/// `min(0.5·2ⁿ, 8) × (1 − 0.25·U)` (anchors §2, openai-python).
pub struct OpenAiSdkLayer {
    seeds: SplitMix64,
    rng: SplitMix64,
    retries: u32,
}

impl OpenAiSdkLayer {
    pub const MAX_RETRIES: u32 = 2;

    pub fn new(seed: u64) -> Self {
        let mut seeds = SplitMix64::new(seed ^ 0x4f41_4931);
        let rng = SplitMix64::new(seeds.next_u64());
        OpenAiSdkLayer {
            seeds,
            rng,
            retries: 0,
        }
    }
}

impl Layer for OpenAiSdkLayer {
    fn begin(&mut self) {
        self.rng = SplitMix64::new(self.seeds.next_u64());
        self.retries = 0;
    }
    fn on_failure(&mut self, f: &Failure, _elapsed: f64) -> Verdict {
        let retried = match f.status {
            Some(s) => matches!(s, 408 | 409 | 429) || s >= 500,
            None => true,
        };
        if !retried || self.retries >= Self::MAX_RETRIES {
            return Verdict::GiveUp;
        }
        let ra = header_seconds(f, "retry-after-ms")
            .map(|ms| ms / 1000.0)
            .or_else(|| header_seconds(f, "retry-after"));
        let delay = match ra {
            Some(ra) if ra > 0.0 && ra <= 120.0 => ra,
            _ => {
                (0.5 * 2f64.powi(self.retries as i32)).min(8.0) * (1.0 - 0.25 * self.rng.next_f64())
            }
        };
        self.retries += 1;
        Verdict::Retry(delay)
    }
}

/// Virtual time the core's [`Fleet`] reads (its wall clock), set by the simulation loop.
#[derive(Debug, Clone, Default)]
pub struct VirtualClock(Arc<AtomicU64>);

impl VirtualClock {
    /// Seconds added to virtual time before the fleet sees it, so that the fleet's wall clock
    /// never goes below zero during a warm-up that starts at negative virtual time.
    pub const EPOCH: f64 = 1.0e6;

    pub fn set(&self, t: f64) {
        self.0.store(t.to_bits(), Ordering::Relaxed)
    }
    pub fn get(&self) -> f64 {
        f64::from_bits(self.0.load(Ordering::Relaxed))
    }
    /// The clock as a fleet's wall clock.
    pub fn wall(&self) -> WallClock {
        let c = self.clone();
        Arc::new(move || c.get() + Self::EPOCH)
    }
}

/// How a client is built: the layers, outermost first.
#[derive(Debug, Clone, PartialEq)]
pub enum LayerSpec {
    Core(RetryPolicy),
    RubyLlm,
    OpenAiSdk,
    /// The core policy with the core's [`Fleet`] (retry budget, circuit breaker, shared pauses),
    /// one per fleet of agents.
    /// Boxed: a fleet's configuration is several times the size of a policy.
    CoreFleet(RetryPolicy, Box<FleetConfig>),
}

/// A named client.
#[derive(Debug, Clone, PartialEq)]
pub struct ClientSpec {
    /// Short id (CSV, charts).
    pub id: String,
    /// What a reader sees.
    pub label: String,
    pub layers: Vec<LayerSpec>,
}

impl ClientSpec {
    pub fn preset(name: &str) -> ClientSpec {
        let policy = RetryPolicy::preset(name).expect("known preset");
        ClientSpec {
            id: name.into(),
            label: format!("`{name}` preset"),
            layers: vec![LayerSpec::Core(policy)],
        }
    }

    pub fn custom(id: &str, label: &str, policy: RetryPolicy) -> ClientSpec {
        ClientSpec {
            id: id.into(),
            label: label.into(),
            layers: vec![LayerSpec::Core(policy)],
        }
    }

    /// One call, no retry (the reference for amplification).
    pub fn no_retry() -> ClientSpec {
        let policy = RetryPolicy::from_config(
            r#"{"name": "no_retry", "max_attempts": 1, "recover_orphans": false}"#,
        )
        .expect("valid policy");
        ClientSpec::custom("no_retry", "no retry (1 call)", policy)
    }

    /// `policy` sharing the core's [`Fleet`] with its default configuration.
    pub fn with_core_fleet(id: &str, label: &str, policy: RetryPolicy) -> ClientSpec {
        ClientSpec {
            id: id.into(),
            label: label.into(),
            layers: vec![LayerSpec::CoreFleet(policy, Box::default())],
        }
    }

    /// The presets, the stacked baselines and the references, in report order.
    pub fn all() -> Vec<ClientSpec> {
        let mut v: Vec<ClientSpec> = [
            "default",
            "swarm_sdk",
            "swarm_sdk_legacy",
            "forgeflare",
            "llm_executor",
        ]
        .into_iter()
        .map(ClientSpec::preset)
        .collect();
        v.push(ClientSpec {
            id: "swarm_sdk+ruby_llm".into(),
            label: "SwarmSDK 3×15 s over RubyLLM 1.13+ (4 calls)".into(),
            layers: vec![
                LayerSpec::Core(RetryPolicy::preset("swarm_sdk").unwrap()),
                LayerSpec::RubyLlm,
            ],
        });
        v.push(ClientSpec {
            id: "swarm_sdk_legacy+ruby_llm".into(),
            label: "SwarmSDK legacy 10×10 s over RubyLLM 1.13+ (4 calls)".into(),
            layers: vec![
                LayerSpec::Core(RetryPolicy::preset("swarm_sdk_legacy").unwrap()),
                LayerSpec::RubyLlm,
            ],
        });
        v.push(ClientSpec {
            id: "ruby_llm".into(),
            label: "RubyLLM 1.13+ alone (4 calls, 0.1·2ⁿ s)".into(),
            layers: vec![LayerSpec::RubyLlm],
        });
        v.push(ClientSpec {
            id: "openai_sdk".into(),
            label: "openai-python alone (3 calls, 0.5·2ⁿ ≤ 8 s)".into(),
            layers: vec![LayerSpec::OpenAiSdk],
        });
        v.push(ClientSpec::no_retry());
        v.push(ClientSpec::with_core_fleet(
            "default+fleet",
            "`default` with the core's `Fleet` (defaults: budget 500 tokens, breaker after 5 failures, open 0.5 s growing to 30 s, shared pauses)",
            RetryPolicy::recommended(),
        ));
        v
    }

    /// A fleet for a run of this client, if any layer shares one; `clock` is its wall clock.
    pub fn fleet(&self, clock: WallClock) -> Option<Arc<Fleet>> {
        self.layers.iter().find_map(|l| match l {
            LayerSpec::CoreFleet(_, cfg) => Some(Arc::new(
                Fleet::in_process((**cfg).clone()).with_clock(Arc::clone(&clock)),
            )),
            _ => None,
        })
    }

    /// Whether any layer draws random numbers (then runs are averaged over seeds).
    pub fn jittered(&self) -> bool {
        self.layers.iter().any(|l| match l {
            LayerSpec::Core(p) | LayerSpec::CoreFleet(p, _) => p.jitter != retry_core::Jitter::None,
            LayerSpec::RubyLlm | LayerSpec::OpenAiSdk => true,
        })
    }

    /// Builds the layers, seeded; `fleet` (from [`ClientSpec::fleet`]) is shared by every agent
    /// of a fleet. A fleet layer given no fleet runs without one.
    pub fn build(&self, seed: u64, fleet: Option<&Arc<Fleet>>) -> Stack {
        let mut seeds = SplitMix64::new(seed);
        let layers = self
            .layers
            .iter()
            .map(|l| -> Box<dyn Layer> {
                let s = seeds.next_u64();
                match l {
                    LayerSpec::Core(p) => Box::new(CoreLayer::new(p.clone(), s)),
                    LayerSpec::RubyLlm => Box::new(RubyLlmLayer::new(s)),
                    LayerSpec::OpenAiSdk => Box::new(OpenAiSdkLayer::new(s)),
                    LayerSpec::CoreFleet(p, _) => {
                        Box::new(CoreLayer::with_fleet(p.clone(), s, fleet.cloned()))
                    }
                }
            })
            .collect();
        Stack::new(layers)
    }
}

/// What the caller does next.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Next {
    /// Wait this long, then make the next HTTP call.
    Wait(f64),
    /// The logical call is over: it gave up.
    GaveUp,
}

/// A stack of layers and the state of the logical call going through it.
pub struct Stack {
    layers: Vec<Box<dyn Layer>>,
    starts: Vec<f64>,
    /// HTTP calls made in this logical call.
    pub calls: u32,
    /// Seconds waited in this logical call.
    pub waited: f64,
}

impl Stack {
    pub fn new(layers: Vec<Box<dyn Layer>>) -> Self {
        let n = layers.len();
        Stack {
            layers,
            starts: vec![0.0; n],
            calls: 0,
            waited: 0.0,
        }
    }

    /// A logical call begins at `t` (every layer starts a fresh loop).
    pub fn begin(&mut self, t: f64) {
        for (l, s) in self.layers.iter_mut().zip(self.starts.iter_mut()) {
            l.begin();
            *s = t;
        }
        self.calls = 0;
        self.waited = 0.0;
    }

    /// Before each HTTP call, at `t`: may it go? Layers are asked outermost first; a wait is
    /// counted as waited.
    pub fn gate(&mut self, t: f64) -> Gate {
        for (l, s) in self.layers.iter_mut().zip(&self.starts) {
            match l.gate(t - s) {
                Gate::Go => {}
                Gate::Wait(w) => {
                    let w = w.max(0.0);
                    self.waited += w;
                    return Gate::Wait(w);
                }
                Gate::Reject => return Gate::Reject,
            }
        }
        Gate::Go
    }

    /// The caller is making an HTTP call.
    pub fn calling(&mut self) {
        self.calls += 1;
    }

    /// The last HTTP call succeeded.
    pub fn on_success(&mut self) {
        for l in &mut self.layers {
            l.on_success();
        }
    }

    /// The last HTTP call failed at `t` (when its answer arrived). `prune` prunes the caller's
    /// history and returns how many orphan calls went.
    pub fn on_failure(&mut self, t: f64, f: &Failure, prune: &mut dyn FnMut() -> usize) -> Next {
        for i in (0..self.layers.len()).rev() {
            let elapsed = t - self.starts[i];
            let mut v = self.layers[i].on_failure(f, elapsed);
            if v == Verdict::Prune {
                let n = prune();
                v = self.layers[i].after_prune(n, f, elapsed);
            }
            if let Verdict::Retry(d) = v {
                let d = d.max(0.0);
                for j in i + 1..self.layers.len() {
                    self.layers[j].begin();
                    self.starts[j] = t + d;
                }
                self.waited += d;
                return Next::Wait(d);
            }
        }
        Next::GaveUp
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn busy() -> Failure {
        Failure::http(503, "API returned 503 Service Unavailable")
    }

    #[test]
    fn stacked_layers_multiply() {
        let spec = ClientSpec::all()
            .into_iter()
            .find(|c| c.id == "swarm_sdk+ruby_llm")
            .unwrap();
        let mut s = spec.build(1, None);
        s.begin(0.0);
        let mut t = 0.0;
        let mut prune = || 0;
        loop {
            s.calling();
            t += 0.2;
            match s.on_failure(t, &busy(), &mut prune) {
                Next::Wait(d) => t += d,
                Next::GaveUp => break,
            }
        }
        assert_eq!(s.calls, 12, "3 outer x 4 inner");
        // Two outer waits of 15 s, and three inner rounds of 0.1 + 0.2 + 0.4 s plus at most 0.05 each.
        assert!(
            s.waited >= 30.0 + 3.0 * 0.7 && s.waited <= 30.0 + 3.0 * 0.85,
            "{}",
            s.waited
        );
    }

    #[test]
    fn a_shared_fleet_opens_its_circuit_for_everyone() {
        let clock = VirtualClock::default();
        let spec = ClientSpec::all()
            .into_iter()
            .find(|c| c.id == "default+fleet")
            .unwrap();
        let fleet = spec.fleet(clock.wall()).expect("a fleet client");
        let mut agents: Vec<Stack> = (0..6).map(|i| spec.build(i, Some(&fleet))).collect();
        let mut prune = || 0;
        // Five agents fail once each: five consecutive transient failures open the circuit.
        for (i, a) in agents.iter_mut().take(5).enumerate() {
            clock.set(i as f64 * 0.1);
            a.begin(clock.get());
            assert_eq!(a.gate(clock.get()), Gate::Go);
            a.calling();
            assert!(matches!(
                a.on_failure(clock.get() + 0.2, &busy(), &mut prune),
                Next::Wait(_)
            ));
        }
        // The sixth agent is told to wait (the breaker opened at 0.4 s, the fleet's clock, for
        // 0.5 s: its first, shortest open period) instead of calling.
        clock.set(0.6);
        agents[5].begin(0.6);
        match agents[5].gate(0.6) {
            Gate::Wait(w) => assert!((w - 0.3).abs() < 1e-9, "{w}"),
            g => panic!("expected a wait, got {g:?}"),
        }
    }
}
