//! Secrets never leave the engine: every message that enters an event, an error text, a log
//! line or a repr passes through [`scrub`].
//!
//! The rules are a table, one credential format per row, with where the format comes from. Key
//! formats are facts from the providers' docs and from public secret-scanning rule sets
//! (gitleaks' rule names are given); no rule text is copied.

use std::borrow::Cow;
use std::sync::OnceLock;

use regex::{Captures, Regex};

/// The replacement for a secret.
pub const REDACTED: &str = "[REDACTED]";

/// What a rule's match keeps: everything but the secret.
#[derive(Clone, Copy)]
enum Keep {
    /// The whole match is the secret.
    Nothing,
    /// Capture groups 1..=n are kept before the redaction, the rest is the secret.
    Groups(usize),
    /// Groups 1..=n before the redaction and group n+1 after it.
    Between(usize),
    /// As `Nothing`, but only when `looks_random` says the match is a key, not a word.
    IfRandom,
    /// As `Groups(2)`, but only when the third group looks like base64 credentials.
    IfBase64,
}

struct Rule {
    re: Regex,
    keep: Keep,
}

fn rules() -> &'static [Rule] {
    static R: OnceLock<Vec<Rule>> = OnceLock::new();
    R.get_or_init(|| {
        let rule = |pattern: &str, keep: Keep| Rule {
            re: Regex::new(pattern).expect("scrub pattern compiles"),
            keep,
        };
        let key = |prefix: &str, body: &str| rule(&format!("{prefix}{body}"), Keep::Nothing);
        vec![
            // Passwords in URLs: scheme://user:password@host (redis://:pw@host too).
            rule(
                r"(?i)([a-z][a-z0-9+.\-]*://)([^\s:/@]*:)[^\s/@]+(@)",
                Keep::Between(2),
            ),
            // Authorization: Bearer <token> (any case), bare "Bearer <token>", "Bearer: <token>".
            rule(
                r"(?i)(bearer)(\s*[:=]\s*|\s+)[A-Za-z0-9._~+/=\-]{6,}",
                Keep::Groups(2),
            ),
            // JSON Web Tokens wherever they are (header.payload.signature, both JSON objects,
            // so "eyJ"): after "Bearer" a greedy token can swallow the next "Bearer" keyword.
            rule(
                r"eyJ[A-Za-z0-9_\-]{4,}\.[A-Za-z0-9_\-]{4,}\.[A-Za-z0-9_\-]*",
                Keep::Nothing,
            ),
            // A credential's name followed by its value: in headers, JSON (also escaped inside a
            // JSON string), Python reprs (also bytes and header tuples `('X-API-KEY', '...')`),
            // query strings, `.env` lines (also at the end of a longer name: MISTRAL_API_KEY=...,
            // so no `\b` before it). After `authorization` an auth scheme may come first
            // ("Basic <base64>", "Token <t>"): the credentials after it are the secret.
            rule(
                &format!(
                    r#"(?i)({CREDENTIAL_NAMES})((?:\\*["'])?\s*(?:=>|[:=])\s*(?:b?\\*["'])?|\\*["']\s*,\s*b?\\*["'])((?:basic|bearer|token|digest)\s+)?[^\s"',;&}}\\)]{{4,}}"#
                ),
                Keep::Groups(3),
            ),
            // AWS access key ids, wherever they sit: `\b` anchors would let `key_AKIA...` (or a
            // key glued to another one) through, and the regex crate has no lookaround.
            rule(r"(?:AKIA|ASIA)[0-9A-Z]{16}", Keep::Nothing),
            // Google API keys (AIza...) and OAuth access tokens (ya29.).
            rule(r"AIza[0-9A-Za-z_\-]{35}", Keep::Nothing),
            key(r"ya29\.", r"[0-9A-Za-z_\-]{16,}"),
            // Hugging Face user and org tokens (gitleaks: huggingface-access-token, -organization-api-token).
            key(r"hf_", r"[A-Za-z0-9]{16,}"),
            key(r"api_org_", r"[A-Za-z0-9]{16,}"),
            // Groq (gsk_), xAI (xai-), Replicate (r8_), Perplexity (pplx-), Fireworks (fw_).
            // Real keys are 32 to 80 characters; 16 are enough to know one, and a key that a
            // log wrapped can have a short first line.
            key(r"gsk_", r"[A-Za-z0-9]{16,}"),
            key(r"xai-", r"[A-Za-z0-9]{16,}"),
            key(r"r8_", r"[A-Za-z0-9]{16,}"),
            key(r"pplx-", r"[A-Za-z0-9]{16,}"),
            key(r"fw_", r"[A-Za-z0-9]{16,}"),
            // GitHub tokens (gitleaks: github-pat, github-fine-grained-pat, github-oauth, -app-token).
            key(r"gh[pousr]_", r"[A-Za-z0-9]{16,}"),
            key(r"github_pat_", r"[A-Za-z0-9_]{16,}"),
            // GitLab personal access tokens (glpat-), npm tokens, Slack tokens, Stripe keys.
            key(r"glpat-", r"[A-Za-z0-9_\-]{16,}"),
            key(r"npm_", r"[A-Za-z0-9]{36}"),
            key(r"xox[abporse]-", r"[A-Za-z0-9\-]{10,}"),
            key(r"(?:sk|rk)_(?:live|test)_", r"[A-Za-z0-9]{10,}"),
            // A bare HTTP Basic credential ("Basic dXNlcjpwYXNz...") outside any header name. Late,
            // for the reason given for `sk-` below: a key redacted just before it ("AKIA...Basic")
            // makes the word boundary it needs (found by the `classify` fuzz target).
            rule(r"(?i)\b(basic)(\s+)([A-Za-z0-9+/]{8,}={0,2})", Keep::IfBase64),
            // OpenAI (sk-, sk-proj-, sk-svcacct-), Anthropic (sk-ant-), OpenRouter (sk-or-),
            // DeepSeek: last, because a redaction above can make the text before an `sk-` a word
            // boundary ("AKIA...EXAMPLEsk-..."), and scrubbing twice must change nothing.
            rule(r"sk-[A-Za-z0-9_\-]{8,}", Keep::IfRandom),
        ]
    })
}

/// Names a credential goes by. Matched case-insensitively, anywhere in a longer name.
const CREDENTIAL_NAMES: &str = concat!(
    r"x-api-key|x-goog-api-key|api[-_ ]?key(?: provided)?|authorization",
    r"|ocp-apim-subscription-key|subscription[-_]?key", // Azure
    r"|aws[-_]?secret[-_]?access[-_]?key|secret[-_]?access[-_]?key|aws[-_]?session[-_]?token",
    r"|access[-_]?token|refresh[-_]?token|id[-_]?token|auth[-_]?token|session[-_]?token",
    r"|client[-_]?secret|password|passwd|secret|token",
);

/// Whether an `sk-` match at `start` of `text` is a key: one that starts a word, or one whose
/// tail looks random (a digit or a capital: every real key has both), so that a key glued to
/// the text before it (`api_key%3Dsk-proj-...`) still goes, but `disk-cache-enabled` stays.
fn looks_random(text: &str, start: usize, key: &str) -> bool {
    let starts_word = !text[..start]
        .bytes()
        .next_back()
        .is_some_and(|b| b.is_ascii_alphanumeric());
    starts_word
        || key[3..]
            .bytes()
            .any(|b| b.is_ascii_digit() || b.is_ascii_uppercase())
}

/// Base64 credentials, not an English word after "Basic": padding, a digit, or a capital
/// after the first letter.
fn looks_base64(token: &str) -> bool {
    token.ends_with('=')
        || token
            .bytes()
            .any(|b| b.is_ascii_digit() || b == b'+' || b == b'/')
        || token.bytes().skip(1).any(|b| b.is_ascii_uppercase())
}

fn apply<'t>(rule: &Rule, text: Cow<'t, str>) -> Cow<'t, str> {
    if !rule.re.is_match(&text) {
        return text;
    }
    let replaced = rule.re.replace_all(&text, |c: &Captures| {
        let m = c.get(0).expect("the whole match");
        let kept = |n: usize| {
            (1..=n)
                .filter_map(|i| c.get(i))
                .map(|g| g.as_str())
                .collect::<String>()
        };
        match rule.keep {
            Keep::Nothing => REDACTED.to_owned(),
            Keep::Groups(n) => kept(n) + REDACTED,
            Keep::Between(n) => kept(n) + REDACTED + c.get(n + 1).map_or("", |g| g.as_str()),
            Keep::IfRandom if looks_random(&text, m.start(), m.as_str()) => REDACTED.to_owned(),
            Keep::IfBase64 if looks_base64(&c[3]) => kept(2) + REDACTED,
            Keep::IfRandom | Keep::IfBase64 => m.as_str().to_owned(),
        }
    });
    Cow::Owned(replaced.into_owned())
}

fn scrub_plain(text: &str) -> Cow<'_, str> {
    rules()
        .iter()
        .fold(Cow::Borrowed(text), |out, rule| apply(rule, out))
}

/// `text` with JSON `\uXXXX` and URL `%XX` escapes of printable ASCII decoded, so that
/// `sk\u002dproj...` and `api_key%3D...` show their shape. `None` when there were none.
fn unescape(text: &str) -> Option<String> {
    if !text.contains("\\u") && !text.contains('%') {
        return None;
    }
    let hex = |s: &str| u32::from_str_radix(s, 16).ok();
    let printable = |n: u32| (0x20..0x7f).contains(&n);
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    let mut changed = false;
    while let Some(i) = rest.find(['\\', '%']) {
        out.push_str(&rest[..i]);
        rest = &rest[i..];
        // A run of backslashes before `u`: a repr of a repr escapes the escape (`\\u002d`).
        let slashes = rest.bytes().take_while(|b| *b == b'\\').count();
        let (len, decoded) = if slashes > 0 && rest[slashes..].starts_with('u') {
            let at = slashes + 1;
            (at + 4, rest.get(at..at + 4).and_then(hex))
        } else if rest.starts_with('%') {
            (3, rest.get(1..3).and_then(hex))
        } else {
            (1, None)
        };
        match decoded.filter(|n| printable(*n)).and_then(char::from_u32) {
            Some(ch) => {
                out.push(ch);
                rest = &rest[len..];
                changed = true;
            }
            None => {
                let ch = rest.chars().next().expect("not empty");
                out.push(ch);
                rest = &rest[ch.len_utf8()..];
            }
        }
    }
    out.push_str(rest);
    changed.then_some(out)
}

/// A line break between two characters a credential is made of: log wrapping and `repr` (a
/// literal `\n`) put them inside long keys, and a key's tail must go with its head.
fn broken_lines() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    R.get_or_init(|| {
        Regex::new(
            r"([A-Za-z0-9_\-/+=.:@])[ \t]*(?:\r?\n|(?:\\+r)?\\+n)[ \t]*([A-Za-z0-9_\-/+=.:@])",
        )
        .expect("valid regex")
    })
}

/// The text with what hides a credential's shape undone: escapes decoded (to a fixed point,
/// since double encoding happens) and broken lines joined. `None` when that changes nothing.
fn normalized(text: &str) -> Option<String> {
    let mut current = Cow::Borrowed(text);
    for _ in 0..3 {
        match unescape(&current) {
            Some(d) => current = Cow::Owned(d),
            None => break,
        }
    }
    let joined = broken_lines().replace_all(&current, "$1$2").into_owned();
    (joined != text).then_some(joined)
}

/// `text` with every secret replaced by `[REDACTED]`. Borrowed when nothing matched.
///
/// A text whose escapes or line breaks hide a secret (`sk\u002dproj...`, `api_key%3D...`, a key
/// wrapped over two lines) comes back decoded and joined as well as redacted; any other text
/// keeps its form.
pub fn scrub(text: &str) -> Cow<'_, str> {
    if let Some(n) = normalized(text) {
        let scrubbed = scrub_plain(&n);
        if scrubbed != n.as_str() {
            return Cow::Owned(scrubbed.into_owned());
        }
    }
    scrub_plain(text)
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
            ("creds Basic dXNlcjpwYXNzd29yZA==", "creds Basic [REDACTED]"),
            (
                "('X-API-KEY', 'Hv4Nw8Qp2Ls6Tz0Y')",
                "('X-API-KEY', '[REDACTED]')",
            ),
            (
                "redis://:s3cretPassw0rd@cache:6379/0",
                "redis://:[REDACTED]@cache:6379/0",
            ),
            (
                "https://user:hunter2hunter2@example.com/v1",
                "https://user:[REDACTED]@example.com/v1",
            ),
        ] {
            assert_eq!(scrub(input), expected);
        }
        // English after "Basic" is not a credential.
        assert_eq!(
            scrub("Basic information about tiers"),
            "Basic information about tiers"
        );
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
            ("api_key%3Dsk-proj-AbCdEf123456", "api_key=[REDACTED]"),
        ] {
            assert_eq!(scrub(input), expected);
        }
    }

    #[test]
    fn escapes_and_line_breaks_do_not_hide_a_key() {
        let s = scrub(r#"{"key": "sk\u002dproj\u002dAbCdEf1234567890XyZ"}"#);
        assert!(!s.contains("AbCdEf1234567890"), "{s}");
        let s = scrub("Invalid key sk-proj-AbCdEf123456\nGhIjKl7890MnOp please");
        assert!(!s.contains("GhIjKl7890MnOp"), "{s}");
        let s = scrub(r"'gsk_AbCdEf1234567890AbCd\nEf1234567890'");
        assert!(!s.contains("Ef1234567890"), "{s}");
        // Escaped twice (the repr of an exception's args repr): still decoded and joined.
        let s = scrub(r"('key sk\\u002dproj\\u002dAbCdEf1234567890XyZ', 2)");
        assert!(!s.contains("AbCdEf1234567890"), "{s}");
        let s = scrub(r"('key sk-proj-AbCdEf123456\\nGhIjKl7890MnOp', 2)");
        assert!(!s.contains("GhIjKl7890MnOp"), "{s}");
        // Texts without secrets keep their escapes.
        assert_eq!(scrub(r"caf\u00e9 100%25"), r"caf\u00e9 100%25");
    }

    #[test]
    fn scrubbing_twice_changes_nothing() {
        // A redaction before a glued `sk-` makes it start a word (found by the classify fuzzer).
        for text in [
            "value123AKIAIOSFODNN7EXAMPLEsk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789 ",
            "AKIAIOSFODNN7EXAMPLEsk-abcdefghijkl",
            "xsk-abcdefghijkl AIzaSyA1234567890abcdefghijklmnopqrstuvsk-abcdefghij",
            "token=abcdefgh password: hunter22 secret='x1y2z3w4'",
            "https://u:p4ssw0rd@h/api_key%3Dsk-proj-AbCdEf123456",
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
