//! What a call costs: the estimate before it (requests, input tokens, output tokens) and the
//! usage it reports after.

use serde::{Deserialize, Serialize};

use super::config::MAX_UNITS;
use crate::error::{Error, Result};

/// A quantity providers limit per window.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Dimension {
    /// Requests (RPM).
    Requests,
    /// Input plus output tokens (OpenAI's TPM).
    Tokens,
    /// Input tokens (Anthropic's ITPM).
    InputTokens,
    /// Output tokens (Anthropic's OTPM).
    OutputTokens,
}

impl Dimension {
    /// Every dimension, in the order of the per-key state.
    pub const ALL: [Dimension; 4] = [
        Dimension::Requests,
        Dimension::Tokens,
        Dimension::InputTokens,
        Dimension::OutputTokens,
    ];

    /// The snake_case name (`requests`, `tokens`, `input_tokens`, `output_tokens`).
    pub fn as_str(self) -> &'static str {
        match self {
            Dimension::Requests => "requests",
            Dimension::Tokens => "tokens",
            Dimension::InputTokens => "input_tokens",
            Dimension::OutputTokens => "output_tokens",
        }
    }

    pub(crate) fn index(self) -> usize {
        self as usize
    }
}

/// The cost of one call as providers count it at admission: one request, the input tokens,
/// and `max_tokens` output tokens.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Cost {
    /// Requests (1 for one call).
    pub requests: f64,
    /// Input tokens.
    pub input_tokens: f64,
    /// Output tokens (the request's `max_tokens`).
    pub output_tokens: f64,
}

impl Default for Cost {
    /// One request, no tokens: what a call costs when nothing is known of its tokens.
    fn default() -> Self {
        Cost::REQUEST
    }
}

fn checked(what: &str, x: f64) -> Result<f64> {
    if x.is_finite() && (0.0..=MAX_UNITS).contains(&x) {
        Ok(x)
    } else {
        Err(Error::invalid_policy(format!(
            "{what} must be a finite number between 0 and 1e12, got {x}"
        )))
    }
}

/// A number as admission takes it from anywhere: NaN, infinities and negatives are 0, and
/// nothing is above [`MAX_UNITS`].
pub(crate) fn sane(x: f64) -> f64 {
    if x.is_finite() {
        x.clamp(0.0, MAX_UNITS)
    } else if x == f64::INFINITY {
        MAX_UNITS
    } else {
        0.0
    }
}

impl Cost {
    /// One request and no tokens.
    pub const REQUEST: Cost = Cost {
        requests: 1.0,
        input_tokens: 0.0,
        output_tokens: 0.0,
    };

    /// One request of `input_tokens` in and at most `output_tokens` out, checked (finite,
    /// between 0 and 1e12).
    pub fn new(input_tokens: f64, output_tokens: f64) -> Result<Cost> {
        Ok(Cost {
            requests: 1.0,
            input_tokens: checked("input_tokens", input_tokens)?,
            output_tokens: checked("output_tokens", output_tokens)?,
        })
    }

    /// The default estimate ([`BytesOverFour`]): a request body of `request_bytes` bytes in, and
    /// `max_tokens` out.
    pub fn estimate(request_bytes: usize, max_tokens: u64) -> Cost {
        BytesOverFour.estimate(request_bytes, max_tokens)
    }

    /// The amount of `d` (input plus output for [`Dimension::Tokens`]).
    pub fn amount(&self, d: Dimension) -> f64 {
        match d {
            Dimension::Requests => self.requests,
            Dimension::Tokens => self.input_tokens + self.output_tokens,
            Dimension::InputTokens => self.input_tokens,
            Dimension::OutputTokens => self.output_tokens,
        }
    }

    /// Every field made sane (NaN and negatives 0, nothing above 1e12).
    pub fn sanitized(self) -> Cost {
        Cost {
            requests: sane(self.requests),
            input_tokens: sane(self.input_tokens),
            output_tokens: sane(self.output_tokens),
        }
    }
}

/// The tokens a call used, as its response reports them. `None`: not reported.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Usage {
    /// Input tokens that count toward the limit.
    pub input_tokens: Option<f64>,
    /// Output tokens.
    pub output_tokens: Option<f64>,
}

/// The most bytes of a response body searched for its usage.
const MAX_USAGE_SCAN: usize = 1 << 20;

impl Usage {
    /// A usage of `input_tokens` in and `output_tokens` out.
    pub fn new(input_tokens: f64, output_tokens: f64) -> Self {
        Usage {
            input_tokens: Some(input_tokens),
            output_tokens: Some(output_tokens),
        }
    }

    /// The `usage` object of a response body, in the shapes the providers send: OpenAI's Chat
    /// Completions (`prompt_tokens`, `completion_tokens`), OpenAI's Responses and Anthropic's
    /// Messages (`input_tokens`, `output_tokens`). Anthropic's input limit counts
    /// `cache_creation_input_tokens` too but not cache reads (docs.anthropic.com, "Rate
    /// limits": cache reads do not count toward ITPM for most models), so the former is added.
    /// `None` when the body holds no usage (or is over 1 MiB).
    pub fn from_json(body: &serde_json::Value) -> Option<Usage> {
        let u = body.get("usage")?;
        Usage::from_fields(|k| u.get(k).and_then(serde_json::Value::as_f64))
    }

    /// The fields of a `usage` object [`Usage::from_fields`] reads: a binding reads these
    /// from the host's own object (an attribute, a key) and hands over their numbers.
    pub const FIELDS: [&'static str; 5] = [
        "prompt_tokens",
        "completion_tokens",
        "input_tokens",
        "output_tokens",
        "cache_creation_input_tokens",
    ];

    /// [`Usage::from_json`]'s rule over a `usage` object's numeric fields, read by `field`
    /// (one of [`Usage::FIELDS`]; `None`: absent or not a number).
    pub fn from_fields(field: impl Fn(&str) -> Option<f64>) -> Option<Usage> {
        let num = |k: &str| field(k).map(sane);
        let input = num("prompt_tokens").or_else(|| {
            num("input_tokens").map(|i| i + num("cache_creation_input_tokens").unwrap_or(0.0))
        });
        let output = num("completion_tokens").or_else(|| num("output_tokens"));
        (input.is_some() || output.is_some()).then_some(Usage {
            input_tokens: input,
            output_tokens: output,
        })
    }

    /// [`Usage::from_json`] on a body's text.
    pub fn from_body(text: &str) -> Option<Usage> {
        if text.len() > MAX_USAGE_SCAN || !text.contains("usage") {
            return None;
        }
        Usage::from_json(&serde_json::from_str(text).ok()?)
    }

    /// The amount of `d` used, when reported (`Requests`: always 1).
    pub fn amount(&self, d: Dimension) -> Option<f64> {
        match d {
            Dimension::Requests => Some(1.0),
            Dimension::Tokens => match (self.input_tokens, self.output_tokens) {
                (None, None) => None,
                (i, o) => Some(i.unwrap_or(0.0) + o.unwrap_or(0.0)),
            },
            Dimension::InputTokens => self.input_tokens,
            Dimension::OutputTokens => self.output_tokens,
        }
        .map(sane)
    }
}

/// What each byte adds to its own length when written inside a JSON string: 1 for the two-byte
/// escapes (`\"`, `\\`, `\n`, `\r`, `\t`, `\b`, `\f`), 5 for the other control characters
/// (`\u00XX`), 0 for the rest (non-ASCII text as its UTF-8 bytes, unescaped).
const JSON_EXTRA: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut b = 0;
    while b < 0x20 {
        t[b] = 5;
        b += 1;
    }
    let short = [b'"', b'\\', b'\n', b'\r', b'\t', 0x08, 0x0c];
    let mut i = 0;
    while i < short.len() {
        t[short[i] as usize] = 1;
        i += 1;
    }
    t
};

/// The length in bytes of `text` (UTF-8) written as a compact JSON string without ASCII
/// escaping, quotes included: what Python's `json.dumps(..., ensure_ascii=False)`, Ruby's
/// `JSON.generate` and serde_json write. The request bytes of [`Cost::estimate`] are counted
/// with it by both bindings, without writing the JSON.
pub fn json_string_len(text: &[u8]) -> usize {
    // Most text escapes nothing: eight bytes at a time say so (measured with callgrind: a
    // message's short strings cost a third of a byte-by-byte pass).
    let mut words = text.chunks_exact(8);
    let plain = words
        .by_ref()
        .all(|w| !escapes(u64::from_le_bytes(w.try_into().expect("eight bytes"))));
    // The last bytes one by one (a copy into a padded word cost a `memcpy` call).
    let plain = plain
        && words
            .remainder()
            .iter()
            .all(|&b| JSON_EXTRA[usize::from(b)] == 0);
    if plain {
        return 2 + text.len();
    }
    2 + text.len()
        + text
            .iter()
            .map(|&b| usize::from(JSON_EXTRA[usize::from(b)]))
            .sum::<usize>()
}

/// Whether any of the eight bytes of `w` is written escaped (a control character, a quote, a
/// backslash): the "has a byte less than n" and "has a zero byte" word tricks, exact as a yes
/// or no (a borrow may mark the neighbour of a byte that matched, never a word without one).
fn escapes(w: u64) -> bool {
    const ONES: u64 = u64::from_le_bytes([0x01; 8]);
    const HIGHS: u64 = u64::from_le_bytes([0x80; 8]);
    let zero = |x: u64| x.wrapping_sub(ONES) & !x;
    let control = w.wrapping_sub(ONES * 0x20) & !w;
    let quote = zero(w ^ (ONES * u64::from(b'"')));
    let backslash = zero(w ^ (ONES * u64::from(b'\\')));
    (control | quote | backslash) & HIGHS != 0
}

/// The length of an integer written in JSON (its decimal digits, and a minus sign).
pub fn json_int_len(i: i64) -> usize {
    i.unsigned_abs().checked_ilog10().unwrap_or(0) as usize + 1 + usize::from(i < 0)
}

/// Estimates a call's cost before it is made. Injectable ([`super::super::Fleet::with_estimator`]);
/// the fleet corrects the input tokens estimated by the ratio of reported to estimated usage
/// it observes per key.
pub trait TokenEstimator: Send + Sync {
    /// The cost of a call whose request body is `request_bytes` bytes and whose `max_tokens` is
    /// `max_tokens`.
    fn estimate(&self, request_bytes: usize, max_tokens: u64) -> Cost;
}

/// The default estimate: a token per 4 bytes of request in (the rule of thumb OpenAI gives
/// for English text), `max_tokens` out. No tokenizer.
#[derive(Debug, Clone, Copy, Default)]
pub struct BytesOverFour;

impl TokenEstimator for BytesOverFour {
    fn estimate(&self, request_bytes: usize, max_tokens: u64) -> Cost {
        Cost {
            requests: 1.0,
            input_tokens: sane((request_bytes as f64 / 4.0).ceil()),
            output_tokens: sane(max_tokens as f64),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_lengths_are_what_serde_json_writes() {
        let mut texts: Vec<String> = (0u8..0x80).map(|b| format!("a{}b", b as char)).collect();
        texts.extend(
            [
                "",
                "plain text",
                "é ü 漢字 🦀",
                "\"quoted\" \\ path\n\ttab \u{7f}",
            ]
            .map(String::from),
        );
        texts.push("x".repeat(1000) + "\u{1}");
        for t in &texts {
            let written = serde_json::to_string(t).unwrap().len();
            assert_eq!(json_string_len(t.as_bytes()), written, "{t:?}");
        }
        // Every byte at every place of the first words, against the byte-by-byte count.
        for len in 1..20 {
            for at in 0..len {
                for b in 0..=255u8 {
                    let mut text = vec![b'a'; len];
                    text[at] = b;
                    let each: usize = text
                        .iter()
                        .map(|&b| usize::from(JSON_EXTRA[usize::from(b)]))
                        .sum();
                    assert_eq!(json_string_len(&text), 2 + len + each, "{text:?}");
                }
            }
        }
        for i in [0, 7, -7, 10, 99, -100, i64::MAX, i64::MIN] {
            assert_eq!(json_int_len(i), i.to_string().len(), "{i}");
        }
    }
}
