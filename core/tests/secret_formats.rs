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
    // Issue 24: the rest of the field the classifier covers, and the cloud keys next to them.
    let hex32 = "0f1e2d3c4b5a69788796a5b4c3d2e1f0";
    let hex48 = "9c8b7a6f5e4d3c2b1a0f9e8d7c6b5a4f3e2d1c0b9a8f7e6d";
    let hex64 = "5d2f8a1c9e3b7d4f0a6c2e8b4d1f7a3c9e5b0d6f2a8c4e1b7d3f9a5c0e6b2d8f";
    let pem = format!("MIIEvQIBADANBgkqhkiG9w0BAQEFAASC{}", &r[..60]);
    v.extend([
        (
            "openai admin",
            format!("sk-admin-{}", &r[..64]),
            r[..64].to_owned(),
        ),
        (
            "openai service account",
            format!("sk-svcacct-{r}"),
            r.to_owned(),
        ),
        (
            "anthropic admin",
            format!("sk-ant-admin01-{}AA", &r[..70]),
            r[..70].to_owned(),
        ),
        ("deepseek", format!("sk-{hex32}"), hex32.to_owned()),
        ("moonshot", format!("sk-{}", &r[..48]), r[..48].to_owned()),
        ("elevenlabs", format!("sk_{hex48}"), hex48.to_owned()),
        ("nvidia", format!("nvapi-{}", &r[..64]), r[..64].to_owned()),
        ("databricks", format!("dapi{hex32}"), hex32.to_owned()),
        (
            "tavily",
            format!("tvly-dev-{}", &r[..32]),
            r[..32].to_owned(),
        ),
        ("voyage", format!("pa-{}", &r[..43]), r[..43].to_owned()),
        (
            "langsmith pat",
            format!("lsv2_pt_{hex32}_{}", &hex48[..10]),
            hex32.to_owned(),
        ),
        (
            "langsmith service key",
            format!("lsv2_sk_{hex32}_{}", &hex48[..10]),
            hex32.to_owned(),
        ),
        ("tencent", format!("AKID{}", &r[..32]), r[..32].to_owned()),
        ("alibaba", format!("LTAI{}", &r[..20]), r[..20].to_owned()),
        (
            "volcengine",
            format!("AKLT{}", &r[..40]),
            r[..40].to_owned(),
        ),
        (
            "baidu qianfan",
            format!("bce-v3/ALTAK-{}/{}", &r[..21], &hex48[..40]),
            hex48[..40].to_owned(),
        ),
        (
            "together",
            format!("tgp_v1_{}", &r[..43]),
            r[..43].to_owned(),
        ),
        ("fireworks", format!("fw_{}", &r[..24]), r[..24].to_owned()),
        (
            "aws session token",
            format!("IQoJb3JpZ2luX2VjE{}", &r[..70]),
            r[..70].to_owned(),
        ),
        (
            "pem private key",
            format!("-----BEGIN PRIVATE KEY-----\n{pem}\n-----END PRIVATE KEY-----"),
            pem.clone(),
        ),
        // No prefix and no name: the key's shape alone.
        ("azure 32 hex", hex32.to_owned(), hex32.to_owned()),
        ("together 64 hex", hex64.to_owned(), hex64.to_owned()),
        (
            "zhipu id.secret",
            format!("{hex32}.{}", &r[..16]),
            format!("{hex32}.{}", &r[..16]),
        ),
        ("aws secret key", hex40.to_owned(), hex40.to_owned()),
        ("mistral", r[..32].to_owned(), r[..32].to_owned()),
        ("cohere", r[4..44].to_owned(), r[4..44].to_owned()),
    ]);
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
        (
            "google ?key=",
            format!("GET /v1beta/models?key={plain}&alt=sse"),
        ),
        (
            "azure sas sig=",
            format!("https://a.blob.core.windows.net/c/b?sv=2022-11-02&sig={plain}&se=2026"),
        ),
        (
            "aws presigned",
            format!("?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Signature={plain}"),
        ),
        (
            "aws security token header",
            format!("X-Amz-Security-Token: {plain}"),
        ),
        ("tencent SecretKey", format!("SecretKey={plain}")),
        ("alibaba access_key", format!("access_key={plain}")),
        (
            "service account json",
            format!("{{\"private_key\": \"{plain}\"}}"),
        ),
        ("azure functions", format!("x-functions-key: {plain}")),
        ("azure api-key", format!("api-key: {plain}")),
        ("elevenlabs header", format!("xi-api-key: {plain}")),
        ("client secret", format!("client_secret={plain}")),
        ("bearer", format!("Authorization: Bearer {plain}")),
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
        // Issue 24: a space or a tab inside the key, an echoed header, JSON quoted in JSON.
        format!("The key {a} {b} was rejected"),
        format!("The key {a}\t{b} was rejected"),
        format!("Headers({{'x-echo': '{secret}', 'accept': 'application/json'}})"),
        serde_json::json!({"detail": serde_json::json!({"message": secret}).to_string()})
            .to_string(),
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
    let mut texts = 0;
    let formats = formats();
    for (what, planted, secret) in &formats {
        let (what, secret) = (*what, secret.as_str());
        for text in contexts(planted) {
            texts += 1;
            let out = scrub(&text);
            if let Some(f) = fragment(&out, secret) {
                leaks.push(format!("{what}: {f:?} survives in {out:?}"));
            }
            assert_eq!(scrub(&out), out, "scrubbing twice changed {text:?}");
        }
    }
    // The figure: cargo test -p llm-retry-core --test secret_formats -- --nocapture
    println!(
        "leaks: {} of {texts} planted texts ({} formats x {} contexts)",
        leaks.len(),
        formats.len(),
        texts / formats.len()
    );
    assert!(texts >= 66 * 11, "only {texts} planted texts");
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
            "pplx-", "ya29.", "glpat-", "sk_live_", "fw_", "sk-ant-admin01-", "sk-svcacct-",
            "sk_", "nvapi-", "tvly-", "pa-", "lsv2_pt_", "lsv2_sk_", "AKLT", "tgp_v1_",
            "IQoJb3JpZ2luX2Vj",
        ]),
        body in "[A-Za-z0-9]{40,80}",
        context in 0usize..11,
    ) {
        let key = format!("{prefix}{body}");
        let text = contexts(&key).swap_remove(context);
        let out = scrub(&text);
        prop_assert!(fragment(&out, &body).is_none(), "{} -> {}", text, out);
    }
}
