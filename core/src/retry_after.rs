//! How long the server asked us to wait (CONTRACT §2, `retry_after`).
//!
//! `retry-after-ms` (milliseconds), else `retry-after` as delta seconds (integer or decimal) or an
//! HTTP-date. Unparseable, negative, non-finite or absurd (over [`MAX_SECONDS`]) values are
//! ignored. Without either, provider reset headers are hints.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::category::RetryAfterSource;
use crate::failure::Headers;

/// Values above this many seconds (~31 years) are treated as garbage, not as instructions.
pub const MAX_SECONDS: f64 = 1e9;

/// `(seconds, source)` from the headers, or `None`.
pub fn from_headers(headers: &Headers, now: SystemTime) -> Option<(f64, RetryAfterSource)> {
    if headers.is_empty() {
        return None;
    }
    if let Some(ms) = headers.get("retry-after-ms").and_then(parse_seconds) {
        return Some((ms / 1000.0, RetryAfterSource::Header));
    }
    if let Some(v) = headers.get("retry-after") {
        if let Some(secs) = parse_retry_after(v, now) {
            return Some((secs, RetryAfterSource::Header));
        }
    }
    reset_hint(headers, now).map(|s| (s, RetryAfterSource::ResetHint))
}

/// How many bytes of a body or message are searched for a stated wait.
const MAX_WAIT_SCAN: usize = 64 * 1024;

/// Builds this module's patterns now (see `crate::warm`).
pub(crate) fn warm() {
    from_body("retryDelay");
    reset_field("seconds");
    wait_in_text("");
    wait_in_hours_or_days("");
}

/// (batch 29) A wait the words ask for in hours or days ("Please wait 269 hours 20 minutes
/// before trying again", GitHub Copilot's rate-limit notice; "try again in 3 days"): the unit
/// itself says the window is long. Seconds are not read here, so a per-minute limit's
/// boilerplate "retry after 86400 seconds" (Azure S0) stays the rate limit it is.
pub fn wait_in_hours_or_days(text: &str) -> Option<f64> {
    let text = head(text);
    static R: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    let r = R.get_or_init(|| {
        regex::Regex::new(concat!(
            r"(?i)\b(?:try\s+again|retry|wait|resets?)\s+(?:again\s+)?(?:in|after|for)?\s*",
            r"(?:about\s+|approximately\s+|at\s+least\s+|~\s*)?",
            r"(?P<n>[0-9]+(?:\.[0-9]+)?)\s*(?P<unit>hours?|hrs?|days?)\b",
        ))
        .expect("valid regex")
    });
    let c = r.captures(text)?;
    let n: f64 = c["n"].parse().ok()?;
    let per = match c["unit"].to_ascii_lowercase().as_bytes()[0] {
        b'd' => 86400.0,
        _ => 3600.0,
    };
    Some(n * per)
}

/// (batch 24) A reset or wait an error body gives as a number of seconds in a field of its own:
/// ChatGPT's Codex backend `usage_limit_reached` (`"resets_in_seconds": 529498`, beside
/// `resets_at`), a relay's queue answer (`"retryAfterSeconds": 30`), `retry_after_seconds`.
/// JSON, a Python repr or an escaped quote (`\"retryAfterSeconds\":`) alike.
pub fn reset_field(text: &str) -> Option<f64> {
    let text = head(text);
    if !text.contains("econds") {
        return None;
    }
    static R: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    let r = R.get_or_init(|| {
        regex::Regex::new(
            r#"(?i-u)["']\\*(?:resets?_in_seconds|resets?_after_seconds|retry_?after_?seconds)\\*["']\s*:\s*"?([0-9]+(?:\.[0-9]+)?)"#,
        )
        .expect("valid regex")
    });
    r.captures(text)
        .and_then(|c| c[1].parse::<f64>().ok())
        .filter(|s| s.is_finite() && *s <= MAX_SECONDS)
}

/// The wait an error body gives as data: `google.rpc.RetryInfo.retryDelay` ("36s", "0.5s"),
/// as JSON or as the Python repr an exception prints (`'retryDelay': '36s'`).
pub fn from_body(text: &str) -> Option<f64> {
    let text = head(text);
    if !text.contains("retryDelay") {
        return None;
    }
    static R: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    let r = R.get_or_init(|| {
        regex::Regex::new(r#"(?-u)["']retryDelay["']\s*:\s*["']([0-9]+(?:\.[0-9]+)?s)["']"#)
            .expect("valid regex")
    });
    r.captures(text).and_then(|c| parse_go_duration(&c[1]))
}

/// A wait the error's words state, in the forms providers write: "Please try again in 6.5s",
/// "try again in 20ms", "try again in 1m30s", "please try again after 1 seconds",
/// "retry in 30s", "Please retry in 36.429760048s.", "请20秒后重试", "请在 2 分钟后重试".
/// Only a number the phrase introduces counts: a bare number is never a wait.
pub fn from_text(text: &str) -> Option<f64> {
    wait_in_text(text).map(|(secs, _)| secs)
}

/// A wait the words *ask for* ("Please try again in 20s", "Please wait 8s", 请20秒后重试), not a
/// client's own schedule ("Retrying in 1 seconds… (attempt 1/10)").
pub fn instructed_wait(text: &str) -> Option<f64> {
    wait_in_text(text)
        .filter(|(_, instruction)| *instruction)
        .map(|(secs, _)| secs)
}

/// The first wait the words state, and whether it is an instruction to the reader.
fn wait_in_text(text: &str) -> Option<(f64, bool)> {
    let text = head(text);
    static R: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    let r = R.get_or_init(|| {
        regex::Regex::new(concat!(
            // English: an introducer, then a Go-style duration or a number and a unit word.
            // ("Your rate limit resets in ~30s": Replicate's 429, replicate.com/docs/topics/
            // predictions/rate-limits.)
            r"(?i)\b(?:try\s+again|retry(?:ing)?|wait|resets?)\s+(?:again\s+)?(?:in|after|for)?\s*",
            r"(?:about\s+|approximately\s+|at\s+least\s+|~\s*)?",
            r"(?P<go>(?:[0-9]+(?:\.[0-9]+)?(?:ms|h|m|s))+)\b",
            r"|(?i)\b(?:try\s+again|retry(?:ing)?|wait|resets?)\s+(?:again\s+)?(?:in|after|for)?\s*",
            r"(?:about\s+|approximately\s+|at\s+least\s+|~\s*)?",
            r"(?P<n>[0-9]+(?:\.[0-9]+)?)\s*",
            r"(?P<unit>milliseconds?|millis|msecs?|seconds?|secs?|minutes?|mins?|hours?|hrs?)\b",
            // Chinese: 请 20 秒后重试 / 请在2分钟后再试 / 10秒后重试
            r"|(?P<zn>[0-9]+(?:\.[0-9]+)?)\s*(?P<zunit>毫秒|秒钟|秒|分钟|小时)后\s*(?:再|重新)?(?:重试|再试|尝试|试)",
            // Japanese and Korean: 30秒後に再試行してください / 30초 후에 다시 시도하세요.
            r"|(?P<jn>[0-9]+(?:\.[0-9]+)?)\s*(?P<junit>ミリ秒|秒|分|時間)後に?\s*(?:再試行|もう一度|再度)",
            r"|(?P<kn>[0-9]+(?:\.[0-9]+)?)\s*(?P<kunit>밀리초|초|분|시간)\s*(?:후에?|뒤에?)\s*다시",
        ))
        .expect("valid regex")
    });
    let c = r.captures(text)?;
    let instruction = !c
        .get(0)
        .is_some_and(|m| m.as_str().to_ascii_lowercase().starts_with("retrying"));
    let secs = if let Some(go) = c.name("go") {
        parse_go_duration(&go.as_str().to_ascii_lowercase())?
    } else if let (Some(n), Some(unit)) = (c.name("n"), c.name("unit")) {
        let n: f64 = n.as_str().parse().ok()?;
        let unit = unit.as_str().to_ascii_lowercase();
        n * match unit.as_bytes()[0] {
            b'm' if unit.starts_with("mil") || unit.starts_with("ms") => 0.001,
            b'm' => 60.0,
            b'h' => 3600.0,
            _ => 1.0,
        }
    } else {
        // The CJK forms: the number, then its unit word in Chinese, Japanese or Korean.
        let (n, unit) = [("zn", "zunit"), ("jn", "junit"), ("kn", "kunit")]
            .iter()
            .find_map(|(n, u)| Some((c.name(n)?, c.name(u)?)))?;
        let n: f64 = n.as_str().parse().ok()?;
        n * match unit.as_str() {
            "毫秒" | "ミリ秒" | "밀리초" => 0.001,
            "分钟" | "分" | "분" => 60.0,
            "小时" | "時間" | "시간" => 3600.0,
            _ => 1.0,
        }
    };
    (secs.is_finite() && (0.0..=MAX_SECONDS).contains(&secs)).then_some((secs, instruction))
}

/// The first [`MAX_WAIT_SCAN`] bytes of `text`, cut on a char boundary.
fn head(text: &str) -> &str {
    let mut end = text.len().min(MAX_WAIT_SCAN);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// A non-negative finite decimal number of seconds ("7", "1.5", " 0 ").
pub fn parse_seconds(v: &str) -> Option<f64> {
    let v = v.trim();
    if v.is_empty() || !v.bytes().all(|b| b.is_ascii_digit() || b == b'.') {
        return None;
    }
    let n: f64 = v.parse().ok()?;
    (n.is_finite() && (0.0..=MAX_SECONDS).contains(&n)).then_some(n)
}

/// One `retry-after` value: delta seconds or an HTTP-date (a date in the past means "now").
pub fn parse_retry_after(v: &str, now: SystemTime) -> Option<f64> {
    if let Some(n) = parse_seconds(v) {
        return Some(n);
    }
    let date = httpdate::parse_http_date(v.trim()).ok()?;
    Some(seconds_until(date, now))
}

fn seconds_until(t: SystemTime, now: SystemTime) -> f64 {
    let secs = t
        .duration_since(now)
        .map(|d| d.as_secs_f64())
        .unwrap_or(0.0);
    if secs > MAX_SECONDS {
        MAX_SECONDS
    } else {
        secs
    }
}

/// Go-style durations as OpenAI sends them in `x-ratelimit-reset-*`: "6m0s", "1s", "20ms",
/// "1h2m3s", "0.5s".
pub fn parse_go_duration(v: &str) -> Option<f64> {
    let v = v.trim();
    if v.is_empty() {
        return None;
    }
    let mut total = 0.0;
    let mut rest = v;
    while !rest.is_empty() {
        let num_len = rest
            .bytes()
            .take_while(|b| b.is_ascii_digit() || *b == b'.')
            .count();
        if num_len == 0 {
            return None;
        }
        let n: f64 = rest[..num_len].parse().ok()?;
        rest = &rest[num_len..];
        // Go writes microseconds as "µs" (U+00B5) and also reads "μs" (U+03BC): not ASCII.
        let unit_len = rest
            .char_indices()
            .find(|(_, c)| !c.is_alphabetic())
            .map_or(rest.len(), |(i, _)| i);
        let factor = match &rest[..unit_len] {
            "h" => 3600.0,
            "m" => 60.0,
            "s" => 1.0,
            "ms" => 0.001,
            "us" | "µs" | "μs" => 0.000_001,
            "ns" => 0.000_000_001,
            _ => return None,
        };
        rest = &rest[unit_len..];
        total += n * factor;
    }
    (total.is_finite() && total <= MAX_SECONDS).then_some(total)
}

/// RFC 3339 timestamps as Anthropic sends them in `anthropic-ratelimit-*-reset`
/// ("2026-11-22T12:00:30Z", "2026-11-22T12:00:30.5+00:00").
pub fn parse_rfc3339(v: &str) -> Option<SystemTime> {
    let b = v.trim().as_bytes();
    if b.len() < 20
        || b[4] != b'-'
        || b[7] != b'-'
        || !matches!(b[10], b'T' | b't' | b' ')
        || b[13] != b':'
        || b[16] != b':'
    {
        return None;
    }
    // Digits only: `str::parse` would also take a sign ("+1").
    let num = |r: std::ops::Range<usize>| -> Option<i64> {
        let digits = b.get(r)?;
        digits
            .iter()
            .all(u8::is_ascii_digit)
            .then(|| digits.iter().fold(0, |n, d| n * 10 + i64::from(d - b'0')))
    };
    let (year, month, day) = (num(0..4)?, num(5..7)?, num(8..10)?);
    let (hour, min, sec) = (num(11..13)?, num(14..16)?, num(17..19)?);
    if !(1..=12).contains(&month)
        || !(1..=days_in_month(year, month)).contains(&day)
        || hour > 23
        || min > 59
        || sec > 60
    {
        return None;
    }
    let mut i = 19;
    let mut frac = 0.0;
    if b.get(i) == Some(&b'.') {
        let start = i + 1;
        i = start;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        frac = format!("0.{}", std::str::from_utf8(&b[start..i]).ok()?)
            .parse()
            .ok()?;
    }
    let offset = match b.get(i)? {
        b'Z' | b'z' if i + 1 == b.len() => 0,
        b'+' | b'-' if i + 6 == b.len() && b[i + 3] == b':' => {
            let sign = if b[i] == b'-' { -1 } else { 1 };
            sign * (num(i + 1..i + 3)? * 3600 + num(i + 4..i + 6)? * 60)
        }
        _ => return None,
    };
    // Days from civil (Howard Hinnant's algorithm).
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    let secs = days * 86_400 + hour * 3600 + min * 60 + sec - offset;
    if secs < 0 {
        return None;
    }
    Some(UNIX_EPOCH + Duration::from_secs(secs as u64) + Duration::from_secs_f64(frac))
}

/// Days in `month` (1-12) of the proleptic Gregorian `year`: "2026-02-31" is no date.
fn days_in_month(year: i64, month: i64) -> i64 {
    match month {
        2 if year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Provider reset headers. When a `remaining` header says which limit is exhausted, its reset
/// wins; otherwise the latest reset (the wait that surely clears the limit).
fn reset_hint(headers: &Headers, now: SystemTime) -> Option<f64> {
    const OPENAI: &[(&str, &str)] = &[
        (
            "x-ratelimit-reset-requests",
            "x-ratelimit-remaining-requests",
        ),
        ("x-ratelimit-reset-tokens", "x-ratelimit-remaining-tokens"),
    ];
    const ANTHROPIC: &[(&str, &str)] = &[
        (
            "anthropic-ratelimit-requests-reset",
            "anthropic-ratelimit-requests-remaining",
        ),
        (
            "anthropic-ratelimit-tokens-reset",
            "anthropic-ratelimit-tokens-remaining",
        ),
        (
            "anthropic-ratelimit-input-tokens-reset",
            "anthropic-ratelimit-input-tokens-remaining",
        ),
        (
            "anthropic-ratelimit-output-tokens-reset",
            "anthropic-ratelimit-output-tokens-remaining",
        ),
    ];
    let mut all = Vec::new();
    let mut exhausted = Vec::new();
    let mut consider = |value: Option<f64>, remaining: Option<&str>| {
        if let Some(v) = value {
            all.push(v);
            if remaining.map(str::trim) == Some("0") {
                exhausted.push(v);
            }
        }
    };
    for (reset, remaining) in OPENAI {
        consider(
            headers.get(reset).and_then(parse_go_duration),
            headers.get(remaining),
        );
    }
    for (reset, remaining) in ANTHROPIC {
        let v = headers
            .get(reset)
            .and_then(parse_rfc3339)
            .map(|t| seconds_until(t, now));
        consider(v, headers.get(remaining));
    }
    let pick = if exhausted.is_empty() { all } else { exhausted };
    pick.into_iter().fold(None, |acc: Option<f64>, v| {
        Some(acc.map_or(v, |a| a.max(v)))
    })
}

/// The civil date (year, month, day) of a count of days since 1970-01-01: Howard Hinnant's
/// `civil_from_days`, the inverse of the days-from-civil step above. For the tests, the fuzz
/// targets and the simulator, which write dates in reset headers and reports.
pub fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_durations() {
        assert_eq!(parse_go_duration("6m0s"), Some(360.0));
        assert_eq!(parse_go_duration("20ms"), Some(0.02));
        assert_eq!(parse_go_duration("1h2m3s"), Some(3723.0));
        assert_eq!(parse_go_duration("soon"), None);
        assert_eq!(parse_go_duration("5"), None);
    }

    #[test]
    fn rfc3339() {
        let t = parse_rfc3339("1970-01-02T00:00:01Z").unwrap();
        assert_eq!(t.duration_since(UNIX_EPOCH).unwrap().as_secs(), 86_401);
        let t = parse_rfc3339("1970-01-01T01:00:00+01:00").unwrap();
        assert_eq!(t.duration_since(UNIX_EPOCH).unwrap().as_secs(), 0);
        assert!(parse_rfc3339("2026-13-01T00:00:00Z").is_none());
        assert!(parse_rfc3339("yesterday").is_none());
        // Days that do not exist, and signs where digits belong.
        for bad in [
            "2026-02-29T00:00:00Z",
            "2026-02-31T00:00:00Z",
            "2026-04-31T00:00:00Z",
            "1900-02-29T00:00:00Z",
            "+026-01-01T00:00:00Z",
            "2026-+1-01T00:00:00Z",
            "2026-01-01T+1:00:00Z",
        ] {
            assert!(parse_rfc3339(bad).is_none(), "{bad}");
        }
        for good in [
            "2024-02-29T00:00:00Z",
            "2000-02-29T00:00:00Z",
            "2026-12-31T23:59:59Z",
        ] {
            assert!(parse_rfc3339(good).is_some(), "{good}");
        }
    }

    #[test]
    fn waits_in_bodies() {
        let gemini = r#"{"error":{"code":429,"status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"36s"}]}}"#;
        assert_eq!(from_body(gemini), Some(36.0));
        assert_eq!(
            from_body(
                "{'@type': 'type.googleapis.com/google.rpc.RetryInfo', 'retryDelay': '0.5s'}"
            ),
            Some(0.5)
        );
        assert_eq!(from_body(r#"{"retryDelay": "soon"}"#), None);
        assert_eq!(from_body("no delay here: 36s"), None);
    }

    #[test]
    fn waits_in_words() {
        let cases: &[(&str, Option<f64>)] = &[
            ("Rate limit reached for gpt-4o on tokens per min (TPM): Limit 30000, Used 29000, Requested 1500. Please try again in 6.5s.", Some(6.5)),
            ("Please try again in 20ms.", Some(0.02)),
            ("Please try again in 1m30s.", Some(90.0)),
            ("Please try again in 7m12.5s", Some(432.5)),
            ("request reached organization max RPM: 3, please try again after 1 seconds", Some(1.0)),
            ("Please retry in 36.429760048s.", Some(36.429760048)),
            ("retry in 30s", Some(30.0)),
            ("Please wait 2 minutes before retrying", Some(120.0)),
            ("请20秒后重试", Some(20.0)),
            ("请求过于频繁，请在 2 分钟后再试", Some(120.0)),
            ("Request was throttled. Your rate limit resets in ~30s.", Some(30.0)),
            ("しばらくしてから、30秒後に再試行してください", Some(30.0)),
            ("2分後にもう一度お試しください", Some(120.0)),
            ("요청이 너무 많습니다. 30초 후에 다시 시도하세요", Some(30.0)),
            ("max_tokens 1500 is too large", None),
            ("try again later", None),
            ("retry 3 of 5", None),
        ];
        for (text, want) in cases {
            assert_eq!(from_text(text), *want, "{text}");
        }
    }

    #[test]
    fn seconds_reject_garbage() {
        assert_eq!(parse_seconds("1.5"), Some(1.5));
        assert_eq!(parse_seconds("-3"), None);
        assert_eq!(parse_seconds("99999999999999999999"), None);
        assert_eq!(parse_seconds("NaN"), None);
        assert_eq!(parse_seconds(""), None);
    }

    /// Reset fields as bodies give them: the Codex backend's `usage_limit_reached`
    /// (CLIProxyAPI#1666), a relay's queue answer, escaped once in a quoted message.
    #[test]
    fn reset_fields_in_bodies() {
        let cases: &[(&str, Option<f64>)] = &[
            (
                r#"{"error":{"type":"usage_limit_reached","resets_at":1772180859,"resets_in_seconds":529498}}"#,
                Some(529498.0),
            ),
            (
                r#"{"isQueued":false,"queueType":"slow","retryAfterSeconds":30}"#,
                Some(30.0),
            ),
            (
                r#"[qoder error 403: {\"retryAfterSeconds\":12}"#,
                Some(12.0),
            ),
            ("{'retry_after_seconds': 2.5}", Some(2.5)),
            (r#"{"reset_after_seconds": "60"}"#, Some(60.0)),
            // A field with no number (a log cut it off), or another name, is no wait.
            (r#"{\"retryAfterSeconds\":"#, None),
            (r#"{"timeout_seconds": 30}"#, None),
            ("resets in 30 seconds", None),
        ];
        for (text, want) in cases {
            assert_eq!(reset_field(text), *want, "{text}");
        }
    }
}
