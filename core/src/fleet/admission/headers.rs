//! The rate-limit headers providers send on every response (success or 429), read into one
//! shape: per [`Dimension`], the limit, what remains and when it is whole again.
//!
//! Sources of the header names and formats:
//! - OpenAI, "Rate limits" guide (platform.openai.com/docs/guides/rate-limits), section "Rate
//!   limits in headers": `x-ratelimit-{limit,remaining,reset}-{requests,tokens}`, resets as Go
//!   durations ("1s", "6m0s"); responses seen in the wild also carry "12ms", "9ms"
//!   (community.openai.com/t/1268905).
//! - Azure OpenAI sends `x-ratelimit-remaining-{requests,tokens}` (learn.microsoft.com, "Azure
//!   OpenAI quota": "x-ratelimit-remaining-requests"/"-tokens"), sometimes with a reset in bare
//!   seconds and sometimes -1 (learn.microsoft.com/en-us/answers/questions/5625878): -1 is
//!   ignored.
//! - Anthropic, "Rate limits" (docs.anthropic.com/en/api/rate-limits), "Response headers":
//!   `anthropic-ratelimit-{requests,tokens,input-tokens,output-tokens}-{limit,remaining,reset}`,
//!   the reset an RFC 3339 time.
//! - IETF httpapi drafts: `RateLimit-Limit` / `-Remaining` / `-Reset` (delta seconds) up to
//!   draft-ietf-httpapi-ratelimit-headers-06, and `RateLimit-Policy: "p";q=100;w=60` with
//!   `RateLimit: "p";r=50;t=30` from draft 07 on (r remaining, t seconds to reset, q quota, w
//!   window; `qu` other than "requests" is not a request quota and is skipped).

use super::config::MAX_UNITS;
use super::cost::Dimension;
use crate::failure::Headers;
use crate::retry_after::{parse_go_duration, parse_rfc3339, parse_seconds};

/// What one response says of one dimension.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Reading {
    /// The limit per window.
    pub limit: Option<f64>,
    /// What remains of it now.
    pub remaining: Option<f64>,
    /// Seconds until it is whole again (the refill schedule).
    pub reset_s: Option<f64>,
    /// The window, when the headers state it (IETF `w`); otherwise the config's.
    pub window_s: Option<f64>,
}

impl Reading {
    fn is_empty(&self) -> bool {
        self.limit.is_none() && self.remaining.is_none()
    }
}

/// What one response says, per [`Dimension`] (indexed as [`Dimension::ALL`]).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Observed {
    /// Per dimension, what the headers say, if anything.
    pub readings: [Option<Reading>; 4],
}

impl Observed {
    /// Whether no header spoke of a limit.
    pub fn is_empty(&self) -> bool {
        self.readings.iter().all(Option::is_none)
    }

    /// The reading of `d`.
    pub fn get(&self, d: Dimension) -> Option<&Reading> {
        self.readings[d.index()].as_ref()
    }
}

#[derive(Debug, Clone, Copy)]
enum Field {
    Limit,
    Remaining,
    Reset(ResetFormat),
}

#[derive(Debug, Clone, Copy)]
enum ResetFormat {
    /// A Go duration ("6m0s", "20ms") or bare seconds (Azure).
    Duration,
    /// An RFC 3339 time (Anthropic).
    Rfc3339,
    /// Delta seconds (IETF drafts up to 06).
    Seconds,
}

use Dimension::{InputTokens, OutputTokens, Requests, Tokens};
use Field::{Limit, Remaining, Reset};
use ResetFormat::{Duration, Rfc3339, Seconds};

/// Every header read, one row per name: which dimension, which field.
const TABLE: &[(&str, Dimension, Field)] = &[
    // OpenAI, Azure OpenAI
    ("x-ratelimit-limit-requests", Requests, Limit),
    ("x-ratelimit-remaining-requests", Requests, Remaining),
    ("x-ratelimit-reset-requests", Requests, Reset(Duration)),
    ("x-ratelimit-limit-tokens", Tokens, Limit),
    ("x-ratelimit-remaining-tokens", Tokens, Remaining),
    ("x-ratelimit-reset-tokens", Tokens, Reset(Duration)),
    // Anthropic
    ("anthropic-ratelimit-requests-limit", Requests, Limit),
    (
        "anthropic-ratelimit-requests-remaining",
        Requests,
        Remaining,
    ),
    (
        "anthropic-ratelimit-requests-reset",
        Requests,
        Reset(Rfc3339),
    ),
    ("anthropic-ratelimit-tokens-limit", Tokens, Limit),
    ("anthropic-ratelimit-tokens-remaining", Tokens, Remaining),
    ("anthropic-ratelimit-tokens-reset", Tokens, Reset(Rfc3339)),
    ("anthropic-ratelimit-input-tokens-limit", InputTokens, Limit),
    (
        "anthropic-ratelimit-input-tokens-remaining",
        InputTokens,
        Remaining,
    ),
    (
        "anthropic-ratelimit-input-tokens-reset",
        InputTokens,
        Reset(Rfc3339),
    ),
    (
        "anthropic-ratelimit-output-tokens-limit",
        OutputTokens,
        Limit,
    ),
    (
        "anthropic-ratelimit-output-tokens-remaining",
        OutputTokens,
        Remaining,
    ),
    (
        "anthropic-ratelimit-output-tokens-reset",
        OutputTokens,
        Reset(Rfc3339),
    ),
    // IETF drafts up to 06 (the limit may carry a policy: "100, 100;w=60")
    ("ratelimit-limit", Requests, Limit),
    ("ratelimit-remaining", Requests, Remaining),
    ("ratelimit-reset", Requests, Reset(Seconds)),
];

/// The longest header value read; a longer one is garbage.
const MAX_VALUE: usize = 256;
/// The longest reset taken (a week: daily quotas reset within a day).
pub const MAX_RESET_S: f64 = 7.0 * 86_400.0;
/// The most policies of a `RateLimit-Policy` / `RateLimit` list read.
const MAX_ITEMS: usize = 8;

/// A count: digits with an optional fraction, finite, 0 to 1e12 (so "-1" and "inf" are not).
fn count(v: &str) -> Option<f64> {
    let v = v.trim();
    if !v.is_empty() && v.len() <= 15 && v.bytes().all(|b| b.is_ascii_digit()) {
        // Most counts are whole: summed as an integer, a third of a float parse's cost.
        return Some(v.bytes().fold(0u64, |n, d| n * 10 + u64::from(d - b'0')) as f64);
    }
    if v.is_empty() || v.len() > 32 || !v.bytes().all(|b| b.is_ascii_digit() || b == b'.') {
        return None;
    }
    let n: f64 = v.parse().ok()?;
    (n.is_finite() && n <= MAX_UNITS).then_some(n)
}

/// The first number of a value that may carry parameters or a list ("100, 100;w=60").
fn leading_count(v: &str) -> Option<f64> {
    count(v.split([',', ';']).next()?)
}

fn reset(v: &str, format: ResetFormat, now: f64) -> Option<f64> {
    let s = match format {
        Duration => parse_go_duration(v).or_else(|| parse_seconds(v))?,
        Seconds => parse_seconds(v)?,
        Rfc3339 => {
            let at = parse_rfc3339(v)?
                .duration_since(std::time::UNIX_EPOCH)
                .ok()?
                .as_secs_f64();
            (at - now).max(0.0)
        }
    };
    (s.is_finite() && (0.0..=MAX_RESET_S).contains(&s)).then_some(s)
}

/// Reads every rate-limit header of `headers` (a response's, success or error) at wall-clock
/// time `now`. Values that are no number, negative (Azure's -1), absurd (above 1e12, a reset
/// over a week) or over 256 bytes are ignored, never an error.
pub fn read(headers: &Headers, now: f64) -> Observed {
    let mut out = Observed::default();
    if headers.is_empty() {
        return out;
    }
    let mut r: [Reading; 4] = Default::default();
    let (mut policy, mut current) = (None, None);
    let mut anthropic_tokens = false;
    for (name, value) in headers.iter() {
        // A response's other headers (date, content-type, ...) cost one prefix check each.
        if value.len() > MAX_VALUE
            || !(name.starts_with("x-ratelimit-")
                || name.starts_with("anthropic-ratelimit-")
                || name.starts_with("ratelimit"))
        {
            continue;
        }
        match name {
            "ratelimit-policy" => policy = policy.or(Some(value)),
            "ratelimit" => current = current.or(Some(value)),
            _ => {}
        }
        let Some(&(_, d, field)) = TABLE.iter().find(|(n, ..)| *n == name) else {
            continue;
        };
        if d == Tokens && name.starts_with("anthropic-") {
            anthropic_tokens = true;
        }
        let slot = &mut r[d.index()];
        match field {
            Limit if slot.limit.is_none() => {
                slot.limit = leading_count(value);
                if slot.window_s.is_none() {
                    slot.window_s = param(value, "w").filter(|w| *w > 0.0 && *w <= MAX_RESET_S);
                }
            }
            Remaining if slot.remaining.is_none() => slot.remaining = leading_count(value),
            Reset(f) if slot.reset_s.is_none() => slot.reset_s = reset(value, f, now),
            _ => {}
        }
    }
    if policy.is_some() || current.is_some() {
        structured(policy, current, &mut r[Requests.index()]);
    }
    // Anthropic's `tokens` family repeats the most restrictive of its input and output limits
    // ("Rate limits", response headers): with those two read, pacing input plus output at it
    // too would count every token against the smaller limit.
    if anthropic_tokens
        && !(r[InputTokens.index()].is_empty() && r[OutputTokens.index()].is_empty())
    {
        r[Tokens.index()] = Reading::default();
    }
    for (i, reading) in r.into_iter().enumerate() {
        if !reading.is_empty() {
            out.readings[i] = Some(reading);
        }
    }
    out
}

/// The value of parameter `key` (`w=60`) of a structured field item, as a count.
fn param(item: &str, key: &str) -> Option<f64> {
    item.split(';').skip(1).find_map(|p| {
        let (k, v) = p.split_once('=')?;
        (k.trim() == key).then(|| count(v.trim_matches(|c: char| c == '"' || c.is_whitespace())))?
    })
}

/// One item of a structured `RateLimit-Policy` or `RateLimit` list: its name and parameters.
fn items(value: &str) -> impl Iterator<Item = (&str, &str)> {
    value.split(',').take(MAX_ITEMS).filter_map(|item| {
        let units = item.split(';').skip(1).find_map(|p| {
            let (k, v) = p.split_once('=')?;
            (k.trim() == "qu").then(|| v.trim().trim_matches('"'))
        });
        // A quota of bytes or of concurrent requests is no request rate.
        if units.is_some_and(|u| u != "requests") {
            return None;
        }
        let name = item.split(';').next()?.trim().trim_matches('"');
        Some((name, item))
    })
}

/// IETF drafts 07 on: `RateLimit-Policy: "a";q=100;w=60, "b";q=1000;w=86400` and
/// `RateLimit: "a";r=50;t=30`. Of the policies, the one with the shortest window is paced (a
/// daily quota is a budget, not a pace), and the `RateLimit` item of the same name says what
/// remains of it. Items whose quota unit is not requests are skipped.
fn structured(policy: Option<&str>, current: Option<&str>, slot: &mut Reading) {
    let mut chosen: Option<&str> = None;
    if let Some(policy) = policy {
        for (name, item) in items(policy) {
            let Some(q) = param(item, "q") else {
                continue;
            };
            let w = param(item, "w").filter(|w| *w > 0.0 && *w <= MAX_RESET_S);
            let shorter = match (slot.limit, slot.window_s, w) {
                (None, ..) => true,
                (Some(_), Some(cur), Some(w)) => w < cur,
                (Some(_), None, Some(w)) => w < 60.0,
                _ => false,
            };
            if shorter {
                slot.limit = Some(q);
                slot.window_s = w;
                chosen = Some(name);
            }
        }
    }
    let Some(current) = current else {
        return;
    };
    for (name, item) in items(current) {
        if chosen.is_some_and(|c| c != name) {
            continue;
        }
        let r = param(item, "r");
        if r.is_some() && slot.remaining.map_or(true, |cur| r < Some(cur)) {
            slot.remaining = r;
            slot.reset_s = param(item, "t").filter(|t| *t <= MAX_RESET_S);
        }
    }
}
