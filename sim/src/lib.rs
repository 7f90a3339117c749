//! # retry-sim
//!
//! The numbers that prove the policies. A scenario simulator on virtual time drives retry-core's
//! [`Run`](retry_core::Run) (sans-IO: it is fed failures and elapsed time and answers with its
//! next step: call, wait, prune, give up) through the scenarios of issue 5, and compares every preset and
//! the stacked baselines (SwarmSDK over RubyLLM's own retries, PlanExe, Forgeflare) with an
//! oracle that knows when the provider recovers. A fleet simulator measures load amplification
//! during an outage and recovery after a short one; [`live`] repeats both against the real
//! retry-lab over loopback.
//!
//! ```
//! use retry_sim::{client::ClientSpec, run::run_call, scenario::{Latency, Scenario}};
//!
//! let outage = Scenario::by_id("outage_20s").unwrap();
//! let o = run_call(&ClientSpec::preset("swarm_sdk"), 0, &outage, Latency::default());
//! // Calls at 0, 15.2 and 30.4 s; the third one succeeds.
//! assert_eq!((o.calls, o.success), (3, true));
//! assert!((o.end - 30.9).abs() < 1e-9);
//! ```

pub mod admission;
pub mod agents;
pub mod candidates;
pub mod client;
pub mod fleet;
pub mod live;
pub mod recovery;
pub mod report;
pub mod run;
pub mod scenario;
