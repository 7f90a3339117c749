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
            // OpenAI (sk-..., sk-proj-...) and Anthropic (sk-ant-...) keys, not inside a longer
            // word ("disk-cache-..."): the regex crate has no lookbehind, so the character
            // before is matched and put back.
            (r(r"(^|[^A-Za-z0-9])sk-[A-Za-z0-9_\-]{8,}"), "$1[REDACTED]"),
            // Authorization: Bearer <token> (any case), bare "Bearer <token>", "Bearer: <token>".
            (r(r"(?i)(bearer)(\s*[:=]\s*|\s+)[A-Za-z0-9._~+/=\-]{6,}"), "$1$2[REDACTED]"),
            // JSON Web Tokens wherever they are (header.payload.signature, both JSON objects, so
            // "eyJ"): after "Bearer" a greedy token can swallow the next "Bearer" keyword.
            (r(r"eyJ[A-Za-z0-9_\-]{4,}\.[A-Za-z0-9_\-]{4,}\.[A-Za-z0-9_\-]*"), REDACTED),
            // x-api-key / api-key / api_key / apikey / authorization followed by a value (also at the
            // end of a longer name: MISTRAL_API_KEY=..., so no `\b` before it), in headers,
            // JSON (also escaped inside a JSON string: `\"x-api-key\": \"...\"`), Python reprs
            // (also bytes: `b'...'`) or query strings.
            // After `authorization` an auth scheme may come first ("Basic <base64>", "Token <t>"):
            // the credentials after it are the secret.
            (
                r(r#"(?i)(x-api-key|x-goog-api-key|api[-_]?key|authorization)((?:\\*["'])?\s*(?:=>|[:=])\s*(?:b?\\*["'])?)((?:basic|bearer|token|digest)\s+)?([^\s"',;&}\\]{4,})"#),
                "$1$2$3[REDACTED]",
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

    #[test]
    fn auth_schemes_and_separators() {
        for (input, expected) in [
            ("Authorization: Basic dXNlcjpwYXNzd29yZA==", "Authorization: Basic [REDACTED]"),
            ("authorization=Token abcdef123456", "authorization=Token [REDACTED]"),
            ("Bearer: abcdef123456", "Bearer: [REDACTED]"),
            ("bearer=abcdef123456", "bearer=[REDACTED]"),
            ("Authorization: Bearer abcdef123456", "Authorization: Bearer [REDACTED]"),
        ] {
            assert_eq!(scrub(input), expected);
        }
    }

    #[test]
    fn sk_keys_only_as_words_of_their_own() {
        for kept in ["disk-cache-enabled-for-all", "task-queue-overflowing-now", "risk-assessment-failed"] {
            assert_eq!(scrub(kept), kept);
        }
        for (input, expected) in [
            ("sk-proj-abcdefgh1234 leaked", "[REDACTED] leaked"),
            ("key=\"sk-ant-api03-abcdefgh\"", "key=\"[REDACTED]\""),
            ("keys sk-aaaaaaaaaa,sk-bbbbbbbbbb", "keys [REDACTED],[REDACTED]"),
            ("MY_KEY:sk-abcdefgh12", "MY_KEY:[REDACTED]"),
        ] {
            assert_eq!(scrub(input), expected);
        }
    }
}
