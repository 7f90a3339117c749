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

/// OpenAI (`sk-...`, `sk-proj-...`) and Anthropic (`sk-ant-...`) keys.
fn sk_keys() -> &'static Regex {
    static P: OnceLock<Regex> = OnceLock::new();
    P.get_or_init(|| Regex::new(r"sk-[A-Za-z0-9_\-]{8,}").expect("scrub pattern compiles"))
}

/// Whether an `sk-` match at `start` of `text` is a key: one that starts a word, or one whose
/// tail looks random (a digit or a capital: every real key has both), so that a key glued to
/// the text before it (`api_key%3Dsk-proj-...`) still goes, but `disk-cache-enabled` stays.
fn is_key(text: &str, start: usize, key: &str) -> bool {
    let starts_word = !text[..start]
        .bytes()
        .next_back()
        .is_some_and(|b| b.is_ascii_alphanumeric());
    starts_word
        || key[3..]
            .bytes()
            .any(|b| b.is_ascii_digit() || b.is_ascii_uppercase())
}

/// `text` with every secret replaced by `[REDACTED]`. Borrowed when nothing matched.
pub fn scrub(text: &str) -> Cow<'_, str> {
    let mut out = Cow::Borrowed(text);
    for (re, rep) in patterns() {
        if re.is_match(&out) {
            out = Cow::Owned(re.replace_all(&out, *rep).into_owned());
        }
    }
    // Last: a redaction above can turn the text before an `sk-` into a word boundary
    // ("AKIA...EXAMPLEsk-..."), and scrubbing must give the same text when run again.
    let re = sk_keys();
    if re.is_match(&out) {
        let replaced = re.replace_all(&out, |c: &regex::Captures| {
            let m = c.get(0).expect("the whole match");
            if is_key(&out, m.start(), m.as_str()) {
                REDACTED.to_owned()
            } else {
                m.as_str().to_owned()
            }
        });
        if let Cow::Owned(s) = replaced {
            out = Cow::Owned(s);
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
            (
                "Authorization: Basic dXNlcjpwYXNzd29yZA==",
                "Authorization: Basic [REDACTED]",
            ),
            (
                "authorization=Token abcdef123456",
                "authorization=Token [REDACTED]",
            ),
            ("Bearer: abcdef123456", "Bearer: [REDACTED]"),
            ("bearer=abcdef123456", "bearer=[REDACTED]"),
            (
                "Authorization: Bearer abcdef123456",
                "Authorization: Bearer [REDACTED]",
            ),
        ] {
            assert_eq!(scrub(input), expected);
        }
    }

    #[test]
    fn sk_keys_only_as_words_of_their_own() {
        for kept in [
            "disk-cache-enabled-for-all",
            "task-queue-overflowing-now",
            "risk-assessment-failed",
        ] {
            assert_eq!(scrub(kept), kept);
        }
        for (input, expected) in [
            ("sk-proj-abcdefgh1234 leaked", "[REDACTED] leaked"),
            ("key=\"sk-ant-api03-abcdefgh\"", "key=\"[REDACTED]\""),
            (
                "keys sk-aaaaaaaaaa,sk-bbbbbbbbbb",
                "keys [REDACTED],[REDACTED]",
            ),
            ("MY_KEY:sk-abcdefgh12", "MY_KEY:[REDACTED]"),
            // Glued to the text before it, but random: still a key.
            ("api_key%3Dsk-proj-AbCdEf123456", "api_key%3D[REDACTED]"),
        ] {
            assert_eq!(scrub(input), expected);
        }
    }

    #[test]
    fn scrubbing_twice_changes_nothing() {
        // A redaction before a glued `sk-` makes it start a word (found by the classify fuzzer).
        for text in [
            "value123AKIAIOSFODNN7EXAMPLEsk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789 ",
            "AKIAIOSFODNN7EXAMPLEsk-abcdefghijkl",
            "xsk-abcdefghijkl AIzaSyA1234567890abcdefghijklmnopqrstuvsk-abcdefghij",
        ] {
            let once = scrub(text).into_owned();
            assert_eq!(scrub(&once), once, "{text}");
            assert!(
                !once.contains("sk-proj-AbCd") && !once.contains("EXAMPLEsk"),
                "{once}"
            );
        }
    }
}
