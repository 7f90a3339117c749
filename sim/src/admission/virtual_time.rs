//! The admission benchmark on virtual time, in one process: the agents, the core's `Run`
//! (sans-IO: it asks for admission before each attempt and settles after it) over one
//! in-process `Fleet` on a virtual clock, and the provider's quota enforced by the lab's own
//! bucket rule (`retry_lab::quota`) with the lab's own headers and 429 bodies
//! (`retry_lab::quota_wire`). Minutes of traffic in well under a second, so admission can be
//! tuned without the lab; the live run (`harness`) stays the measure of record.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::sync::Arc;

use retry_core::fleet::{Fleet, Usage};
use retry_core::{Failure, Headers, RetryPolicy, Run, Step};
use retry_lab::quota::{Buckets, Cost as LabCost};
use retry_lab::quota_wire;

use super::agents::{fleet_config, request_body, FLEET_KEY};
use super::{CallRecord, Mode, Workload};
use crate::client::VirtualClock;

/// How long one call takes on virtual time (the lab answers in about this on loopback).
pub const LATENCY_S: f64 = 0.02;

enum Next {
    Begin,
    Resume,
    Answer(Result<(Usage, Headers), Failure>),
}

struct Agent {
    run: Option<Run>,
    next: Next,
    t0: f64,
    last_start: f64,
    attempts: u32,
    throttled: u32,
    body_len: usize,
    seq: u64,
}

/// Runs `mode`'s agents (all of them, in this one process) for `w.seconds` of virtual time.
pub fn simulate(mode: Mode, w: &Workload) -> Vec<CallRecord> {
    let clock = VirtualClock::default();
    let mut cfg = fleet_config(mode, w, "", "");
    cfg.redis_url = None;
    let fleet = Arc::new(Fleet::in_process(cfg).with_clock(clock.wall()));
    let mut quota = Buckets::new(w.lab_script(mode).rate_limits.expect("quota").limits());
    let shape = mode.lab_shape();
    let n = w.agents();
    let mut agents: Vec<Agent> = (0..n)
        .map(|_| Agent {
            run: None,
            next: Next::Begin,
            t0: 0.0,
            last_start: 0.0,
            attempts: 0,
            throttled: 0,
            body_len: 0,
            seq: 0,
        })
        .collect();
    // (time in µs, rounded up so that a wait is never cut short, tie-breaker, agent)
    let mut queue: BinaryHeap<Reverse<(u64, u64, usize)>> = BinaryHeap::new();
    let mut tie = 0u64;
    let mut push = |q: &mut BinaryHeap<Reverse<(u64, u64, usize)>>, t: f64, a: usize| {
        tie += 1;
        q.push(Reverse(((t.max(0.0) * 1e6).ceil() as u64, tie, a)));
    };
    for a in 0..n {
        push(&mut queue, 0.0, a);
    }
    let mut out = Vec::new();
    let end = w.seconds + super::agents::DRAIN_S;
    // RETRY_SIM_TRACE=1: the key's admission state every 2 s of virtual time, on stderr.
    let trace = std::env::var_os("RETRY_SIM_TRACE").is_some();
    let mut next_trace = 0.0;
    while let Some(Reverse((us, _, a))) = queue.pop() {
        let t = us as f64 / 1e6;
        if t > end {
            break;
        }
        clock.set(t);
        if trace && t >= next_trace {
            next_trace += 2.0;
            if let Some(st) = fleet.admission_state(FLEET_KEY) {
                let ahead: Vec<String> = st
                    .lanes
                    .iter()
                    .map(|l| format!("{:.1}", l.pace - VirtualClock::EPOCH - t))
                    .collect();
                eprintln!(
                    "t={t:5.1} {} cubic on={} rate={:.2}/s measured={:.2}/s; pace ahead of now per lane [{}] s",
                    mode.name(),
                    st.cubic.enabled,
                    st.cubic.rate,
                    st.cubic.measured,
                    ahead.join(", ")
                );
            }
        }
        let ag = &mut agents[a];
        let step = match std::mem::replace(&mut ag.next, Next::Resume) {
            Next::Begin => {
                if t >= w.seconds {
                    continue;
                }
                ag.seq += 1;
                // The same spread of prompt lengths as the live agents, deterministic per agent.
                let span = (w.prompt_max - w.prompt_min + 1) as u64;
                let len = w.prompt_min + ((a as u64 * 7919 + ag.seq * 104_729) % span) as usize;
                ag.body_len = request_body(len, w.max_tokens).len();
                ag.t0 = t;
                ag.attempts = 0;
                ag.throttled = 0;
                let mut run = Run::new(RetryPolicy::recommended())
                    .fleet(Arc::clone(&fleet), vec![FLEET_KEY.to_string()])
                    .estimate(fleet.estimate(ag.body_len, w.max_tokens));
                let s = run.start(0.0);
                ag.run = Some(run);
                s
            }
            Next::Resume => ag.run.as_mut().expect("run").resume(t - ag.t0),
            Next::Answer(Ok((usage, headers))) => {
                let run = ag.run.as_mut().expect("run");
                run.succeeded_with(t - ag.t0, Some(&usage), &headers)
            }
            Next::Answer(Err(f)) => ag.run.as_mut().expect("run").failed(&f, t - ag.t0),
        };
        match step {
            Step::Call { .. } => {
                ag.attempts += 1;
                ag.last_start = t;
                // The lab's rule: input = bytes / 4, max_tokens reserved, the rest given back.
                let input = (ag.body_len as u64 / 4).max(1);
                let cost = LabCost {
                    input,
                    max_output: w.max_tokens,
                };
                let used = w.reply_tokens.min(w.max_tokens);
                let answer = match quota.admit("bench", cost, t) {
                    Ok(snap) => {
                        quota.settle("bench", cost, used, t);
                        let mut h = Headers::new();
                        if shape == retry_lab::LimitShape::Provider {
                            for (k, v) in quota_wire::openai_headers(&snap) {
                                h.insert(&k, v);
                            }
                        }
                        Ok((Usage::new(input as f64, used as f64), h))
                    }
                    Err(r) => {
                        ag.throttled += 1;
                        if trace {
                            eprintln!("t={t:.3} a={a} throttled (attempt {})", ag.attempts);
                        }
                        let mut f = Failure::http(429, "");
                        if shape == retry_lab::LimitShape::Gemini {
                            f = f.with_body(quota_wire::gemini_body("gpt-4o", &r).to_string());
                        } else {
                            f = f.with_body(quota_wire::openai_body("gpt-4o", &r).to_string());
                            for (k, v) in quota_wire::openai_headers(&r.snapshot) {
                                f = f.with_header(&k, v);
                            }
                            f = f
                                .with_header("retry-after", quota_wire::whole_secs(&r).to_string());
                        }
                        Err(f)
                    }
                };
                ag.next = Next::Answer(answer);
                push(&mut queue, t + LATENCY_S, a);
            }
            Step::Wait { seconds, reason } => {
                if trace {
                    eprintln!("t={t:.3} a={a} wait {seconds:.3} {reason:?}");
                }
                ag.next = Next::Resume;
                // At least a microsecond: the fleet's clock is virtual time plus an epoch of 1e6
                // s, where a nanosecond wait rounds to nothing and would come back for ever.
                push(&mut queue, t + seconds.max(1e-6), a);
            }
            Step::Skip { .. } => {
                ag.next = Next::Resume;
                push(&mut queue, t, a);
            }
            step => {
                let ok = matches!(step, Step::Return);
                let tokens = if ok {
                    (ag.body_len as u64 / 4).max(1) + w.reply_tokens.min(w.max_tokens)
                } else {
                    0
                };
                out.push(CallRecord {
                    start: ag.t0,
                    wait: if ok { ag.last_start - ag.t0 } else { t - ag.t0 },
                    attempt: if ok { LATENCY_S } else { 0.0 },
                    ok,
                    tokens,
                    end: t,
                    attempts: ag.attempts,
                    throttled: ag.throttled,
                });
                ag.run = None;
                ag.next = Next::Begin;
                push(&mut queue, t, a);
            }
        }
    }
    // Calls still under way when the run ends failed, with what they sent (as the live agents
    // count a call cut off at the end).
    for ag in agents.iter().filter(|ag| ag.run.is_some()) {
        out.push(CallRecord {
            start: ag.t0,
            wait: end - ag.t0,
            attempt: 0.0,
            ok: false,
            tokens: 0,
            end,
            attempts: ag.attempts,
            throttled: ag.throttled,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_mode_is_served_more_than_the_quota_allows() {
        let w = Workload {
            processes: 1,
            agents_per_process: 40,
            rpm: 600,
            tpm: 60_000,
            seconds: 30.0,
            warmup: 5.0,
            ..Workload::default()
        };
        for mode in [Mode::RetryOnly, Mode::StaticWrong] {
            let calls = simulate(mode, &w);
            assert!(!calls.is_empty(), "{}", mode.name());
            // Served in any window: at most what the bucket held plus its refill.
            let served: u64 = calls
                .iter()
                .filter(|c| c.ok && c.end < w.seconds)
                .map(|c| c.tokens)
                .sum();
            let most = w.tpm as f64 * (w.burst_s + w.seconds) / 60.0 + 1.0;
            assert!(
                (served as f64) <= most,
                "{}: {served} > {most}",
                mode.name()
            );
        }
        // Retrying blindly at 40 agents against 600 RPM meets 429s.
        let calls = simulate(Mode::RetryOnly, &w);
        assert!(calls.iter().any(|c| c.throttled > 0));
    }
}
