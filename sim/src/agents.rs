//! N agents on virtual time, each making a logical call through its client stack, thinking, and
//! calling again, against a provider that answers 503 to every call in `[0, outage)`. The fleet
//! and recovery experiments drive the same agents and differ only in what they watch.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use retry_core::__private::rng::SplitMix64;
use retry_core::Failure;

use crate::client::{ClientSpec, Gate, Next, Stack, VirtualClock};
use crate::scenario::{Fault, Latency};

/// When the agents make their calls.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Start {
    /// Call, think, call again, at uniformly spread phases (the fleet experiment's agents): the
    /// outage meets whoever is calling.
    Steady,
    /// Every agent starts a logical call at the outage's first instant (a batch job, a swarm
    /// fanning out): the worst case for a breaker, which opens at once.
    Together,
}

impl Start {
    pub fn as_str(self) -> &'static str {
        match self {
            Start::Steady => "steady",
            Start::Together => "together",
        }
    }
}

/// What an agent did, as the watching experiment sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// A call left for the provider.
    Called,
    /// The outage held the agent up: a call failed.
    HeldUp,
    /// The outage held the agent up at the fleet's gate: a gate check made it wait or stop.
    Gated,
    /// A call succeeded.
    Succeeded,
}

/// One run's agents and provider.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Agents {
    pub count: usize,
    /// Seconds an agent thinks between two logical calls (after a success or a give-up).
    pub think: f64,
    pub latency: Latency,
    pub start: Start,
    /// The provider answers 503 to every call in `[0, outage)`.
    pub outage: f64,
    /// The run stops at the first event at or after this time.
    pub end: f64,
    pub seed: u64,
}

impl Agents {
    /// Runs repetition `rep` of `client`, telling `watch` each step with its agent and time.
    pub fn drive(&self, client: &ClientSpec, rep: u64, mut watch: impl FnMut(Step, usize, f64)) {
        let mut rng = SplitMix64::new(self.seed ^ rep.wrapping_mul(0x9E37_79B9));
        let clock = VirtualClock::default();
        let fleet = client.fleet(clock.wall());
        let mut agents: Vec<Agent> = (0..self.count)
            .map(|i| Agent {
                stack: client.build(rng.next_u64() ^ i as u64, fleet.as_ref()),
                state: State::Idle,
            })
            .collect();
        let mut heap: BinaryHeap<Ev> = (0..self.count)
            .map(|agent| Ev {
                t: self.first_call(&mut rng),
                agent,
            })
            .collect();
        let failure = Fault::Unavailable.failure();
        while let Some(Ev { t, agent }) = heap.pop() {
            if t >= self.end {
                break;
            }
            clock.set(t);
            let (step, delay) = agents[agent].act(t, self, &failure);
            watch(step, agent, t);
            heap.push(Ev {
                t: t + delay,
                agent,
            });
        }
    }

    /// Steady agents enter well before t = 0 at spread phases, so that the healthy fleet is in
    /// its steady state by then.
    fn first_call(&self, rng: &mut SplitMix64) -> f64 {
        let cycle = self.latency.ok + self.think;
        let warmup = (4.0 * cycle).max(20.0);
        match self.start {
            Start::Steady => -warmup + rng.next_f64() * cycle,
            Start::Together => 0.0,
        }
    }
}

#[derive(Clone, Copy, PartialEq)]
struct Ev {
    t: f64,
    agent: usize,
}
impl Eq for Ev {}
impl Ord for Ev {
    // Min-heap on time; ties by agent so every run is reproducible.
    fn cmp(&self, o: &Self) -> Ordering {
        o.t.total_cmp(&self.t).then(o.agent.cmp(&self.agent))
    }
}
impl PartialOrd for Ev {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}

enum State {
    /// The next logical call starts at the event.
    Idle,
    /// A call (the first or a retry) is due at the event, once the gate lets it through.
    Due,
    /// A call arrived earlier and its answer comes at the event.
    InFlight { ok: bool },
}

struct Agent {
    stack: Stack,
    state: State,
}

impl Agent {
    /// The agent's move at its event `t`: what it did, and seconds until its next event.
    fn act(&mut self, t: f64, run: &Agents, failure: &Failure) -> (Step, f64) {
        match self.state {
            State::Idle => {
                self.stack.begin(t);
                self.try_call(t, run)
            }
            State::Due => self.try_call(t, run),
            State::InFlight { ok: true } => {
                self.stack.on_success();
                self.then(State::Idle, Step::Succeeded, run.think)
            }
            State::InFlight { ok: false } => match self.stack.on_failure(t, failure, &mut || 0) {
                Next::Wait(d) => self.then(State::Due, Step::HeldUp, d),
                Next::GaveUp => self.then(State::Idle, Step::HeldUp, run.think),
            },
        }
    }

    fn try_call(&mut self, t: f64, run: &Agents) -> (Step, f64) {
        match self.stack.gate(t) {
            Gate::Go => {
                self.stack.calling();
                let ok = !(0.0..run.outage).contains(&t);
                let latency = if ok { run.latency.ok } else { run.latency.err };
                self.then(State::InFlight { ok }, Step::Called, latency)
            }
            Gate::Wait(w) => self.then(State::Due, Step::Gated, w),
            Gate::Reject => self.then(State::Idle, Step::Gated, run.think),
        }
    }

    /// Moves to `state`, reporting `step`, with the next event `delay` seconds on.
    fn then(&mut self, state: State, step: Step, delay: f64) -> (Step, f64) {
        self.state = state;
        (step, delay)
    }
}
