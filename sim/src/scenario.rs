//! The provider on virtual time: what each call gets, and when the provider recovers.
//!
//! Failures carry the shapes retry-lab sends on Anthropic's `/v1/messages` path (status, body,
//! headers, and the message `failure_from_response` writes), so the core classifies exactly
//! what it would classify on the wire.

use retry_core::Failure;

/// How long one call takes on virtual time.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Latency {
    /// Seconds a successful call takes.
    pub ok: f64,
    /// Seconds a failed call takes (errors come back faster than answers).
    pub err: f64,
}

impl Default for Latency {
    /// 0.5 s for a success, 0.2 s for an error.
    fn default() -> Self {
        Latency { ok: 0.5, err: 0.2 }
    }
}

/// The error a provider sends.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Fault {
    /// 401 `authentication_error`.
    Unauthorized,
    /// 503 `api_error` (retry-lab's `unavailable`).
    Unavailable,
    /// 529 `overloaded_error`.
    Overloaded,
    /// 429 `rate_limit_error` with `retry-after: N`.
    RateLimited { retry_after: u32 },
    /// 400: a `tool_use` without its `tool_result`.
    ToolPairing,
    /// 400: prompt is too long.
    ContextOverflow,
}

impl Fault {
    /// The failure record a client builds from this response.
    pub fn failure(self) -> Failure {
        let (status, reason, etype, msg) = match self {
            Fault::Unauthorized => (401, "Unauthorized", "authentication_error", "invalid x-api-key"),
            Fault::Unavailable => (503, "Service Unavailable", "api_error", "Service Unavailable"),
            Fault::Overloaded => (529, "", "overloaded_error", "Overloaded"),
            Fault::RateLimited { .. } => (
                429,
                "Too Many Requests",
                "rate_limit_error",
                "Number of requests has exceeded your rate limit. Please try again later.",
            ),
            Fault::ToolPairing => (
                400,
                "Bad Request",
                "invalid_request_error",
                "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_1. Each `tool_use` block must have a corresponding `tool_result` block in the next message.",
            ),
            Fault::ContextOverflow => (
                400,
                "Bad Request",
                "invalid_request_error",
                "prompt is too long: 210000 tokens > 200000 maximum",
            ),
        };
        let body = serde_json::json!({"type": "error", "error": {"type": etype, "message": msg}});
        let message = format!("API returned {status} {reason}")
            .trim_end()
            .to_owned();
        let mut f = Failure::http(status, message)
            .with_body(body.to_string())
            .with_header("content-type", "application/json");
        if let Fault::RateLimited { retry_after } = self {
            f = f.with_header("retry-after", retry_after.to_string());
        }
        f
    }

    /// The HTTP status of this fault.
    pub fn status(self) -> u16 {
        match self {
            Fault::Unauthorized => 401,
            Fault::Unavailable => 503,
            Fault::Overloaded => 529,
            Fault::RateLimited { .. } => 429,
            Fault::ToolPairing | Fault::ContextOverflow => 400,
        }
    }
}

/// What the provider does over time.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Behaviour {
    /// Every call gets this fault, forever (the request itself is wrong).
    Permanent(Fault),
    /// Every call arriving before `until` seconds gets `fault`; later calls succeed.
    Outage { until: f64, fault: Fault },
    /// Every call fails with a tool-pairing 400 until the client prunes its history; after that
    /// they succeed. (A blind retry sends the same broken history and gets the same 400.)
    Orphan,
}

/// A named scenario.
#[derive(Debug, Clone, PartialEq)]
pub struct Scenario {
    /// Short id (CSV, charts).
    pub id: &'static str,
    /// What a reader sees in the tables.
    pub label: &'static str,
    pub behaviour: Behaviour,
}

impl Scenario {
    /// The seven scenarios of issue 5, in report order.
    pub fn all() -> Vec<Scenario> {
        vec![
            Scenario {
                id: "client_error",
                label: "client error (401)",
                behaviour: Behaviour::Permanent(Fault::Unauthorized),
            },
            Scenario {
                id: "outage_20s",
                label: "20 s outage (503)",
                behaviour: Behaviour::Outage {
                    until: 20.0,
                    fault: Fault::Unavailable,
                },
            },
            Scenario {
                id: "outage_2min",
                label: "2 min outage (503)",
                behaviour: Behaviour::Outage {
                    until: 120.0,
                    fault: Fault::Unavailable,
                },
            },
            Scenario {
                id: "rate_limit_7s",
                label: "rate limit, retry-after 7 s (429)",
                behaviour: Behaviour::Outage {
                    until: 7.0,
                    fault: Fault::RateLimited { retry_after: 7 },
                },
            },
            Scenario {
                id: "overload_45s",
                label: "overload storm 45 s (529)",
                behaviour: Behaviour::Outage {
                    until: 45.0,
                    fault: Fault::Overloaded,
                },
            },
            Scenario {
                id: "orphan_tool_call",
                label: "orphan tool call (400 once, then pruned)",
                behaviour: Behaviour::Orphan,
            },
            Scenario {
                id: "context_overflow",
                label: "context overflow (400, always)",
                behaviour: Behaviour::Permanent(Fault::ContextOverflow),
            },
        ]
    }

    /// A scenario by id.
    pub fn by_id(id: &str) -> Option<Scenario> {
        Scenario::all().into_iter().find(|s| s.id == id)
    }

    /// Whether no retry can ever help (the oracle makes one call and stops).
    pub fn is_permanent(&self) -> bool {
        matches!(self.behaviour, Behaviour::Permanent(_))
    }

    /// Whether this is an outage or a rate limit (the 1.25x target applies).
    pub fn is_outage(&self) -> bool {
        matches!(self.behaviour, Behaviour::Outage { .. })
    }

    /// A fresh provider for one logical call.
    pub fn provider(&self) -> Provider {
        Provider {
            behaviour: self.behaviour,
            orphan_present: true,
        }
    }

    /// What an agent that knows the future does: on an outage it waits until the provider
    /// recovers and calls once; with orphans it prunes first and calls once; on a permanent error
    /// it calls once and stops.
    pub fn oracle(&self, lat: Latency) -> Outcome {
        match self.behaviour {
            Behaviour::Permanent(_) => Outcome {
                calls: 1,
                waited: 0.0,
                end: lat.err,
                success: false,
            },
            Behaviour::Outage { until, .. } => Outcome {
                calls: 1,
                waited: until,
                end: until + lat.ok,
                success: true,
            },
            Behaviour::Orphan => Outcome {
                calls: 1,
                waited: 0.0,
                end: lat.ok,
                success: true,
            },
        }
    }
}

/// The provider's state for one logical call (the orphan is in the caller's history).
#[derive(Debug, Clone)]
pub struct Provider {
    behaviour: Behaviour,
    orphan_present: bool,
}

impl Provider {
    /// The answer to a call arriving at `t`: `None` for success, or the fault.
    pub fn respond(&self, t: f64) -> Option<Fault> {
        match self.behaviour {
            Behaviour::Permanent(f) => Some(f),
            Behaviour::Outage { until, fault } => (t < until).then_some(fault),
            Behaviour::Orphan => self.orphan_present.then_some(Fault::ToolPairing),
        }
    }

    /// The caller pruned its history; returns how many orphan tool calls went.
    pub fn prune_orphans(&mut self) -> usize {
        let n = usize::from(self.orphan_present && self.behaviour == Behaviour::Orphan);
        self.orphan_present = false;
        n
    }
}

/// What one logical call came to.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Outcome {
    /// HTTP calls made (every layer's).
    pub calls: u32,
    /// Seconds spent waiting between calls (every layer's).
    pub waited: f64,
    /// When the call succeeded, or gave up (seconds since it began).
    pub end: f64,
    pub success: bool,
}

#[cfg(test)]
mod tests {
    use super::*;
    use retry_core::{classify, Category};

    #[test]
    fn faults_classify_as_the_lab_sends_them() {
        let cat = |f: Fault| classify(&f.failure()).category;
        assert_eq!(cat(Fault::Unauthorized), Category::Unauthorized);
        assert_eq!(cat(Fault::Unavailable), Category::ServerError);
        assert_eq!(cat(Fault::Overloaded), Category::Overloaded);
        assert_eq!(
            cat(Fault::RateLimited { retry_after: 7 }),
            Category::RateLimited
        );
        assert_eq!(cat(Fault::ToolPairing), Category::OrphanToolCalls);
        assert_eq!(cat(Fault::ContextOverflow), Category::ContextOverflow);
        let c = classify(&Fault::RateLimited { retry_after: 7 }.failure());
        assert_eq!(c.retry_after, Some(7.0));
    }

    #[test]
    fn oracle_waits_for_recovery() {
        let lat = Latency::default();
        let s = Scenario::by_id("outage_20s").unwrap();
        let o = s.oracle(lat);
        assert_eq!((o.calls, o.waited, o.end, o.success), (1, 20.0, 20.5, true));
        let p = s.provider();
        assert_eq!(p.respond(19.999), Some(Fault::Unavailable));
        assert_eq!(p.respond(20.0), None);
        let perm = Scenario::by_id("client_error").unwrap().oracle(lat);
        assert_eq!((perm.calls, perm.waited, perm.success), (1, 0.0, false));
        let orphan = Scenario::by_id("orphan_tool_call").unwrap();
        assert_eq!(orphan.oracle(lat).end, 0.5);
        let mut p = orphan.provider();
        assert_eq!(p.respond(0.0), Some(Fault::ToolPairing));
        assert_eq!(p.respond(100.0), Some(Fault::ToolPairing));
        assert_eq!(p.prune_orphans(), 1);
        assert_eq!(p.respond(0.0), None);
        assert_eq!(p.prune_orphans(), 0);
    }
}
