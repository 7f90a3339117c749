//! Every credential format the adversarial probe got through (issue 14), and the public
//! secret-scanning formats, planted in every context a real error text puts them: no fragment of
//! 12 or more characters of a secret's random part may survive `scrub`.

use proptest::prelude::*;
use retry_core::__private::scrub::scrub;

/// (what it is, the planted text, the random part that must not survive).
fn formats() -> Vec<(&'static str, String, String)> {
    let r = "Qx7vT2mN9pL4kR8sW1yZ3bC6dF0gH5jK2lM8nP4qR7sT1uV9wX3yZ6aB0cD5eF8gH2iJ4kL7mN1oP";
    let letters = "QxvTmNpLkRsWyZbCdFgHjKlMnPqRsTuVwXyZaBcDeFgHiJkLmNoP";
    let hex40 = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";
    let mut v: Vec<(&'static str, String, String)> = vec![
        ("openai", format!("sk-proj-{r}"), r.into()),
        (
            "anthropic",
            format!("sk-ant-api03-{}", &r[..60]),
            r[..60].into(),
        ),
        (
            "openrouter",
            format!("sk-or-v1-{}", &r[..64]),
            r[..64].into(),
        ),
        (
            "hugging face",
            format!("hf_{}", &letters[..34]),
            letters[..34].into(),
        ),
        ("groq", format!("gsk_{}", &r[..52]), r[..52].into()),
        ("xai", format!("xai-{}", &r[..70]), r[..70].into()),
        (
            "github classic",
            format!("ghp_{}", &r[..36]),
            r[..36].into(),
        ),
        (
            "github fine-grained",
            format!("github_pat_11AB{}", &r[..60]),
            r[..60].into(),
        ),
        ("replicate", format!("r8_{}", &r[..37]), r[..37].into()),
        ("perplexity", format!("pplx-{}", &r[..48]), r[..48].into()),
        (
            "google oauth",
            format!("ya29.a0{}", &r[..60]),
            r[..60].into(),
        ),
        (
            "google api key",
            "AIzaSyD4r8Tq2Wm6Xn0Bv5Lc9Kj3Hg7Fd1Sa4Pq".into(),
            "SyD4r8Tq2Wm6Xn0Bv5Lc9Kj3Hg7Fd1Sa4Pq".into(),
        ),
        (
            "aws key id",
            "AKIAQ3EXAMPLE7KEYZ2W".into(),
            "AKIAQ3EXAMPLE7KEYZ2W".into(),
        ),
        ("gitlab", format!("glpat-{}", &r[..20]), r[..20].into()),
        (
            "slack",
            format!("xoxb-1234567890-{}", &r[..24]),
            r[..24].into(),
        ),
        ("stripe", format!("sk_live_{}", &r[..24]), r[..24].into()),
        (
            "jwt",
            format!("eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ1c2VyIn0.{}", &r[..40]),
            r[..40].into(),
        ),
    ];
    // Formats given away only by their name.
    let plain = "Hv4Nw8Qp2Ls6Tz0Ym3Kb7Rd1";
    for (what, text) in [
        (
            "azure subscription key",
            format!("Ocp-Apim-Subscription-Key: {plain}"),
        ),
        ("aws secret", format!("aws_secret_access_key={hex40}")),
        ("access_token", format!("access_token={plain}")),
        ("token", format!("?token={plain}&x=1")),
        ("password", format!("password={plain}")),
        (
            "url password",
            format!("https://admin:{plain}@llm.internal/v1"),
        ),
        ("redis password", format!("redis://:{plain}@cache:6379/0")),
        ("invalid api key value", format!("Invalid API key: {plain}")),
        (
            "bare basic",
            "Basic YWRtaW46SHY0Tnc4UXAyTHM2VHowWW0zS2I3UmQx".into(),
        ),
        (
            "header tuple",
            format!("[('X-API-KEY', '{plain}'), ('accept', 'json')]"),
        ),
        (
            "url-encoded api_key",
            format!("GET /v1?api_key%3D{plain}%26x%3D1"),
        ),
    ] {
        let secret = if what == "aws secret" {
            hex40.to_owned()
        } else if what == "bare basic" {
            "YWRtaW46SHY0Tnc4UXAyTHM2VHowWW0zS2I3UmQx".to_owned()
        } else {
            plain.to_owned()
        };
        v.push((what, text, secret));
    }
    v
}

/// The ways an error text carries a secret: as is, in JSON, in a Python repr, JSON-escaped with
/// `\u002d` for '-', URL-encoded, split by a newline (wrapped logs) or a literal `\n` (reprs).
fn contexts(secret: &str) -> Vec<String> {
    let half = secret.len() / 2;
    let (a, b) = secret.split_at(half);
    vec![
        format!("Error code: 401 - Incorrect key provided: {secret}."),
        format!(
            r#"{{"error": {{"message": "bad key {secret}", "type": "invalid_request_error"}}}}"#
        ),
        format!(
            "AuthenticationError(\"Error code: 401 - {{'error': {{'message': 'key {secret}'}}}}\")"
        ),
        format!("{{\"key\": \"{}\"}}", secret.replace('-', "\\u002d")),
        format!(
            "url=https://h/v1?q={}",
            secret.replace(':', "%3A").replace('=', "%3D")
        ),
        format!("The key {a}\n{b} was rejected"),
        format!("'The key {a}\\n{b} was rejected'"),
    ]
}

/// Any run of 12 characters of `secret` found in `text`.
fn fragment(text: &str, secret: &str) -> Option<String> {
    let s: Vec<char> = secret.chars().collect();
    (0..s.len().saturating_sub(11))
        .map(|i| s[i..i + 12].iter().collect::<String>())
        .find(|f| text.contains(f.as_str()))
}

#[test]
fn no_fragment_of_any_format_survives_in_any_context() {
    let mut leaks = Vec::new();
    for (what, planted, secret) in formats() {
        for text in contexts(&planted) {
            let out = scrub(&text);
            if let Some(f) = fragment(&out, &secret) {
                leaks.push(format!("{what}: {f:?} survives in {out:?}"));
            }
            assert_eq!(scrub(&out), out, "scrubbing twice changed {text:?}");
        }
    }
    assert!(
        leaks.is_empty(),
        "{} leaks:\n{}",
        leaks.len(),
        leaks.join("\n")
    );
}

#[test]
fn ordinary_error_texts_are_untouched() {
    for text in [
        "Rate limit reached for gpt-4o in organization org-AbC123 on tokens per min (TPM): Limit 30000, Used 27904, Requested 5000. Please try again in 5.808s.",
        "This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens.",
        "Basic information about the request is unavailable",
        "the server responded with status 503",
        "max_tokens: 1500 is too large",
        "disk-cache-enabled-for-all and task-queue-overflowing-now",
        "caf\\u00e9 costs 100%25",
        "Visit https://platform.openai.com/account/rate-limits to learn more.",
    ] {
        assert_eq!(scrub(text), text);
    }
}

proptest! {
    /// A random key of every prefixed format, in a random context, leaves no 12-character
    /// fragment behind.
    #[test]
    fn random_keys_of_every_prefix_vanish(
        prefix in prop::sample::select(vec![
            "sk-proj-", "sk-ant-api03-", "hf_", "gsk_", "xai-", "ghp_", "github_pat_", "r8_",
            "pplx-", "ya29.", "glpat-", "sk_live_", "fw_",
        ]),
        body in "[A-Za-z0-9]{40,80}",
        context in 0usize..7,
    ) {
        let key = format!("{prefix}{body}");
        let text = contexts(&key).swap_remove(context);
        let out = scrub(&text);
        prop_assert!(fragment(&out, &body).is_none(), "{} -> {}", text, out);
    }
}
