//! Secrets never leave the engine: every message that enters an event or an error text passes
//! through [`scrub`].

use std::borrow::Cow;
use std::sync::OnceLock;

use regex::Regex;

/// The replacement for a secret.
pub const REDACTED: &str = "[REDACTED]";

fn patterns() -> &'static [(Regex, &'static str)] {
    static P: OnceLock<Vec<(Regex, &'static str)>> = OnceLock::new();
    P.get_or_init(|| {
        let r = |s: &str| Regex::new(s).expect("scrub pattern compiles");
        vec![
            // OpenAI (sk-..., sk-proj-...) and Anthropic (sk-ant-...) keys.
            (r(r"sk-[A-Za-z0-9_\-]{8,}"), REDACTED),
            // Authorization: Bearer <token> (any case), and bare "Bearer <token>".
            (r(r"(?i)(bearer)\s+[A-Za-z0-9._~+/=\-]{6,}"), "$1 [REDACTED]"),
            // JSON Web Tokens wherever they are (header.payload.signature, both JSON objects, so
            // "eyJ"): after "Bearer" a greedy token can swallow the next "Bearer" keyword.
            (r(r"eyJ[A-Za-z0-9_\-]{4,}\.[A-Za-z0-9_\-]{4,}\.[A-Za-z0-9_\-]*"), REDACTED),
            // x-api-key / api-key / api_key / apikey / authorization followed by a value (also at the
            // end of a longer name: MISTRAL_API_KEY=..., so no `\b` before it), in headers,
            // JSON (also escaped inside a JSON string: `\"x-api-key\": \"...\"`), Python reprs
            // (also bytes: `b'...'`) or query strings.
            (
                r(r#"(?i)(x-api-key|x-goog-api-key|api[-_]?key|authorization)((?:\\*["'])?\s*(?:=>|[:=])\s*(?:b?\\*["'])?)([^\s"',;&}\\]{4,})"#),
                "$1$2[REDACTED]",
            ),
            // AWS access key ids, wherever they sit: `\b` anchors let `key_AKIA...` (or a key glued
            // to another one) through, and the regex crate has no lookaround to say "not inside a
            // longer token".
            (r(r"(?:AKIA|ASIA)[0-9A-Z]{16}"), REDACTED),
            // Google API keys.
            (r(r"AIza[0-9A-Za-z_\-]{35}"), REDACTED),
        ]
    })
}

/// `text` with every secret replaced by `[REDACTED]`. Borrowed when nothing matched.
pub fn scrub(text: &str) -> Cow<'_, str> {
    let mut out = Cow::Borrowed(text);
    for (re, rep) in patterns() {
        if re.is_match(&out) {
            out = Cow::Owned(re.replace_all(&out, *rep).into_owned());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn removes_every_kind_of_secret() {
        let cases = [
            "Incorrect API key provided: sk-proj-abcdefghijklmnop1234.",
            "key sk-ant-api03-AAAAAAAAAAAAAAAAAAAA-BBBB",
            "Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.payload.sig",
            r#"{"x-api-key": "supersecretvalue"}"#,
            "x-api-key: plainsecretvalue",
            "aws AKIAIOSFODNN7EXAMPLE here",
            "google AIzaSyA1234567890abcdefghijklmnopqrstuv",
            "https://h/v1?api_key=abcd1234efgh",
        ];
        for c in cases {
            let s = scrub(c);
            for secret in [
                "abcdefghijklmnop1234",
                "AAAAAAAAAAAAAAAAAAAA",
                "eyJhbGci",
                "supersecretvalue",
                "plainsecretvalue",
                "AKIAIOSFODNN7EXAMPLE",
                "AIzaSyA123",
                "abcd1234efgh",
            ] {
                assert!(!s.contains(secret), "{c} -> {s}");
            }
            assert!(s.contains(REDACTED), "{c} -> {s}");
        }
        assert_eq!(
            scrub("Rate limit reached for gpt-4"),
            "Rate limit reached for gpt-4"
        );
    }
}
