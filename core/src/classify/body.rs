//! Reading a provider's error body: the error type/code names and the message, whatever the
//! provider's envelope looks like.

use std::borrow::Cow;

use serde_json::Value;

use super::swar::{has_byte, has_upper, word};

mod scan;

/// Bodies above this size are not parsed as JSON (only their head is scanned as text).
pub const MAX_JSON_BODY: usize = 1 << 20;

/// What a provider's error body says.
#[derive(Debug, Default)]
pub struct ProviderError<'a> {
    /// Codes and type names in order of specificity (e.g. `innererror.code`, `code`, `type`),
    /// normalised by [`normalize_code`] (borrowed from the body when already in that form).
    pub codes: Codes<'a>,
    /// A numeric code inside the body (Gemini `error.code`, OpenRouter, vLLM), used as a status
    /// when the failure carried none.
    pub numeric_code: Option<u16>,
    pub message: Option<Cow<'a, str>>,
    /// The body had an error envelope at all (an SSE `error` event, `{"error": ...}`).
    pub has_error: bool,
}

/// How many codes [`Codes`] holds without allocating (envelopes name one to three).
const INLINE_CODES: usize = 4;

/// A provider's codes in order: a few inline, any more in a `Vec`.
#[derive(Default, Clone)]
pub struct Codes<'a> {
    len: usize,
    inline: [Cow<'a, str>; INLINE_CODES],
    more: Vec<Cow<'a, str>>,
}

impl<'a> Codes<'a> {
    pub fn push(&mut self, code: Cow<'a, str>) {
        if self.len < INLINE_CODES {
            self.inline[self.len] = code;
        } else {
            self.more.push(code);
        }
        self.len += 1;
    }

    pub fn iter(&self) -> impl Iterator<Item = &Cow<'a, str>> + '_ {
        self.inline[..self.len.min(INLINE_CODES)]
            .iter()
            .chain(&self.more)
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

impl<'s, 'a> IntoIterator for &'s Codes<'a> {
    type Item = &'s Cow<'a, str>;
    type IntoIter =
        std::iter::Chain<std::slice::Iter<'s, Cow<'a, str>>, std::slice::Iter<'s, Cow<'a, str>>>;
    fn into_iter(self) -> Self::IntoIter {
        self.inline[..self.len.min(INLINE_CODES)]
            .iter()
            .chain(&self.more)
    }
}

impl PartialEq for Codes<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.iter().eq(other.iter())
    }
}

impl std::fmt::Debug for Codes<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

/// A code as the tables spell it: lower case, without AWS's namespace ("com.amazon#X") or
/// documentation suffix ("X:http://internal.amazon.com/..."). Borrows when `s` already is
/// (OpenAI's and Anthropic's codes are).
pub fn normalize_code(s: &str) -> Cow<'_, str> {
    // A word at a time: is there a ':' or '#', and any capital letter?
    let b = s.as_bytes();
    let (mut marks, mut upper, mut i) = (0u64, 0u64, 0);
    while i + 8 <= b.len() {
        let w = word(b, i);
        marks |= has_byte(w, b':') | has_byte(w, b'#');
        if marks != 0 {
            break; // (also keeps this loop scalar: codes are short)
        }
        upper |= has_upper(w);
        i += 8;
    }
    if marks == 0 && i < b.len() {
        // The last 8 bytes again if there are 8 (re-reading some is harmless), else the tail
        // zero-padded (a zero byte is neither a mark nor a capital).
        let w = if b.len() >= 8 {
            word(b, b.len() - 8)
        } else {
            b.iter().rev().fold(0u64, |w, c| (w << 8) | u64::from(*c))
        };
        marks |= has_byte(w, b':') | has_byte(w, b'#');
        upper |= has_upper(w);
    }
    let code = if marks == 0 {
        s
    } else {
        // The code starts after the last '#' before the first ':' and ends there.
        let end = b.iter().position(|c| *c == b':').unwrap_or(b.len());
        let start = b[..end]
            .iter()
            .rposition(|c| *c == b'#')
            .map_or(0, |i| i + 1);
        let code = &s[start..end];
        upper = u64::from(code.bytes().any(|c| c.is_ascii_uppercase()));
        code
    };
    if upper == 0 {
        Cow::Borrowed(code)
    } else {
        Cow::Owned(code.to_ascii_lowercase())
    }
}

/// [`normalize_code`] of an owned or borrowed string, keeping the borrow when there is one.
fn normalize_cow<'a>(s: &Cow<'a, str>) -> Cow<'a, str> {
    match s {
        Cow::Borrowed(b) => normalize_code(b),
        Cow::Owned(o) => Cow::Owned(normalize_code(o).into_owned()),
    }
}

/// Pushes a code named outside the body (AWS's `x-amzn-errortype` header); the same as
/// [`push_code`] with a JSON string.
pub fn push_code_str<'a>(out: &mut ProviderError<'a>, s: &'a str) {
    if !s.is_empty() {
        out.codes.push(normalize_code(s));
    }
}

pub fn push_code(out: &mut ProviderError<'_>, v: Option<&Value>) {
    match v {
        Some(Value::String(s)) if !s.is_empty() => {
            out.codes.push(Cow::Owned(normalize_code(s).into_owned()))
        }
        Some(Value::Number(n)) => {
            if let Some(n) = n.as_u64().filter(|n| (100..=599).contains(n)) {
                out.numeric_code.get_or_insert(n as u16);
            }
        }
        _ => {}
    }
}

fn message_of(v: Option<&Value>) -> Option<Cow<'static, str>> {
    v.and_then(Value::as_str).map(|s| Cow::Owned(s.to_owned()))
}

/// Parses `body` if it is a JSON error envelope. Returns `None` for non-JSON bodies.
pub fn parse(body: &str) -> Option<ProviderError<'_>> {
    let mut out = ProviderError::default();
    parse_into(body, &mut out).then_some(out)
}

/// [`parse`] into `out` (a default one, filled in place: a `ProviderError` is large enough for
/// its moves to cost). Returns whether `body` was a JSON envelope; if not, `out` is untouched.
pub fn parse_into<'a>(body: &'a str, out: &mut ProviderError<'a>) -> bool {
    let trimmed = body.trim_start();
    if body.len() > MAX_JSON_BODY || !(trimmed.starts_with('{') || trimmed.starts_with('[')) {
        return false;
    }
    // Fastest path: a hand-written scanner for the usual envelopes, which reads the few fields
    // the classifier needs (borrowed) and skips the rest without building it. It gives up (and the serde paths below
    // decide) on anything it is not sure to read exactly as they would: escaped keys, duplicate
    // known keys, odd shapes, unusual numbers, surrogate escapes, invalid JSON.
    let mut env = typed::Envelope::default();
    if scan::envelope(trimmed, &mut env).is_some() {
        typed::assemble(&env, out);
        return true;
    }
    match parse_serde(trimmed) {
        Some(p) => {
            *out = p;
            true
        }
        None => false,
    }
}

/// The serde paths alone: the typed borrowing deserialisation, then the generic `Value` one for
/// what the typed one refuses (duplicate keys, odd shapes). [`parse`] answers exactly as this.
fn parse_serde(trimmed: &str) -> Option<ProviderError<'_>> {
    if let Some(p) = typed::parse(trimmed) {
        return Some(p);
    }
    parse_value(trimmed)
}

fn parse_value(trimmed: &str) -> Option<ProviderError<'static>> {
    let mut v: Value = serde_json::from_str(trimmed).ok()?;
    // Gemini sometimes wraps the envelope in a one-element array.
    if let Value::Array(items) = &mut v {
        v = items.first().cloned()?;
    }
    let obj = v.as_object()?;
    let mut out = ProviderError::default();
    match obj.get("error") {
        Some(Value::Object(err)) => {
            out.has_error = true;
            if let Some(Value::Object(inner)) = err.get("innererror") {
                push_code(&mut out, inner.get("code"));
            }
            push_code(&mut out, err.get("code"));
            push_code(&mut out, err.get("type"));
            push_code(&mut out, err.get("status"));
            out.message = message_of(err.get("message"));
        }
        // Ollama: {"error": "model 'x' not found"}
        Some(Value::String(s)) => {
            out.has_error = true;
            out.message = Some(Cow::Owned(s.clone()));
        }
        _ => {}
    }
    push_code(&mut out, obj.get("__type"));
    push_code(&mut out, obj.get("code"));
    // Anthropic's envelope has "type": "error"; vLLM's has "object": "error", "type": "BadRequestError".
    match obj.get("type").and_then(Value::as_str) {
        Some("error") => out.has_error = true,
        Some(_) => push_code(&mut out, obj.get("type")),
        None => {}
    }
    if obj.get("object").and_then(Value::as_str) == Some("error") || obj.contains_key("__type") {
        out.has_error = true;
    }
    // Gemini safety blocks arrive in a 200 body.
    if let Some(reason) = obj.get("promptFeedback").and_then(|f| f.get("blockReason")) {
        push_code(&mut out, Some(reason));
    }
    if let Some(Value::Array(cands)) = obj.get("candidates") {
        for c in cands {
            if let Some(r @ Value::String(s)) = c.get("finishReason") {
                if s != "STOP" && s != "MAX_TOKENS" {
                    push_code(&mut out, Some(r));
                }
            }
        }
    }
    if out.message.is_none() {
        out.message = message_of(obj.get("message")).or_else(|| message_of(obj.get("Message")));
    }
    Some(out)
}

/// Typed, borrowing deserialisation of the envelope fields the classifier reads.
mod typed {
    use std::borrow::Cow;
    use std::fmt;

    use serde::de::{
        self, value::MapAccessDeserializer, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor,
    };
    use serde::Deserialize;

    use super::{normalize_cow, ProviderError};

    /// A string or a number; any other shape is skipped.
    #[derive(Default)]
    pub enum Scalar<'a> {
        Str(Cow<'a, str>),
        Num(u64),
        #[default]
        Other,
    }

    struct ScalarVisitor;

    impl<'de> Visitor<'de> for ScalarVisitor {
        type Value = Scalar<'de>;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("any JSON value")
        }
        fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Self::Value, E> {
            Ok(Scalar::Str(Cow::Borrowed(v)))
        }
        fn visit_str<E>(self, v: &str) -> Result<Self::Value, E> {
            Ok(Scalar::Str(Cow::Owned(v.to_owned())))
        }
        fn visit_string<E>(self, v: String) -> Result<Self::Value, E> {
            Ok(Scalar::Str(Cow::Owned(v)))
        }
        fn visit_u64<E>(self, v: u64) -> Result<Self::Value, E> {
            Ok(Scalar::Num(v))
        }
        fn visit_i64<E>(self, v: i64) -> Result<Self::Value, E> {
            Ok(u64::try_from(v).map_or(Scalar::Other, Scalar::Num))
        }
        fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
            Ok(Scalar::Other)
        }
        fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
            Ok(Scalar::Other)
        }
        fn visit_unit<E>(self) -> Result<Self::Value, E> {
            Ok(Scalar::Other)
        }
        fn visit_none<E>(self) -> Result<Self::Value, E> {
            Ok(Scalar::Other)
        }
        fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
            d.deserialize_any(self)
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
            while seq.next_element::<IgnoredAny>()?.is_some() {}
            Ok(Scalar::Other)
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
            Ok(Scalar::Other)
        }
    }

    impl<'de: 'a, 'a> Deserialize<'de> for Scalar<'a> {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            d.deserialize_any(ScalarVisitor)
        }
    }

    #[derive(Deserialize, Default)]
    pub struct Inner<'a> {
        #[serde(borrow, default)]
        pub(in crate::classify::body) code: Scalar<'a>,
    }

    #[derive(Deserialize, Default)]
    pub struct ErrObj<'a> {
        #[serde(borrow, default)]
        pub(in crate::classify::body) innererror: Option<Inner<'a>>,
        #[serde(borrow, default)]
        pub(in crate::classify::body) code: Scalar<'a>,
        #[serde(borrow, default, rename = "type")]
        pub(in crate::classify::body) kind: Scalar<'a>,
        #[serde(borrow, default)]
        pub(in crate::classify::body) status: Scalar<'a>,
        #[serde(borrow, default)]
        pub(in crate::classify::body) message: Scalar<'a>,
    }

    /// `"error"` is an object (most providers) or a string (Ollama).
    pub enum ErrorField<'a> {
        Obj(ErrObj<'a>),
        Str(Cow<'a, str>),
        Other,
    }

    impl<'de: 'a, 'a> Deserialize<'de> for ErrorField<'a> {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            struct V;
            impl<'de> Visitor<'de> for V {
                type Value = ErrorField<'de>;
                fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                    f.write_str("an error object or string")
                }
                fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                    ErrObj::deserialize(MapAccessDeserializer::new(map)).map(ErrorField::Obj)
                }
                fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
                    Ok(ErrorField::Str(Cow::Borrowed(v)))
                }
                fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                    Ok(ErrorField::Str(Cow::Owned(v.to_owned())))
                }
                fn visit_unit<E>(self) -> Result<Self::Value, E> {
                    Ok(ErrorField::Other)
                }
                fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
                    Ok(ErrorField::Other)
                }
                fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
                    Ok(ErrorField::Other)
                }
                fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
                    Ok(ErrorField::Other)
                }
                fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
                    Ok(ErrorField::Other)
                }
                fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                    while seq.next_element::<IgnoredAny>()?.is_some() {}
                    Ok(ErrorField::Other)
                }
            }
            d.deserialize_any(V)
        }
    }

    #[derive(Deserialize, Default)]
    pub struct Feedback<'a> {
        #[serde(borrow, default, rename = "blockReason")]
        pub(in crate::classify::body) block_reason: Scalar<'a>,
    }

    #[derive(Deserialize, Default)]
    pub struct Candidate<'a> {
        #[serde(borrow, default, rename = "finishReason")]
        pub(in crate::classify::body) finish_reason: Scalar<'a>,
    }

    #[derive(Deserialize, Default)]
    pub struct Envelope<'a> {
        #[serde(borrow, default)]
        pub(in crate::classify::body) error: Option<ErrorField<'a>>,
        #[serde(borrow, default, rename = "__type")]
        pub(in crate::classify::body) aws_type: Scalar<'a>,
        #[serde(borrow, default)]
        pub(in crate::classify::body) code: Scalar<'a>,
        #[serde(borrow, default, rename = "type")]
        pub(in crate::classify::body) kind: Scalar<'a>,
        #[serde(borrow, default)]
        pub(in crate::classify::body) object: Scalar<'a>,
        #[serde(borrow, default)]
        pub(in crate::classify::body) message: Scalar<'a>,
        #[serde(borrow, default, rename = "Message")]
        pub(in crate::classify::body) message_aws: Scalar<'a>,
        #[serde(borrow, default, rename = "promptFeedback")]
        pub(in crate::classify::body) prompt_feedback: Option<Feedback<'a>>,
        #[serde(borrow, default)]
        pub(in crate::classify::body) candidates: Option<Vec<Candidate<'a>>>,
    }

    fn push<'a>(out: &mut ProviderError<'a>, s: &Scalar<'a>) {
        match s {
            Scalar::Str(v) if !v.is_empty() => out.codes.push(normalize_cow(v)),
            Scalar::Num(n) if (100..=599).contains(n) => {
                out.numeric_code.get_or_insert(*n as u16);
            }
            _ => {}
        }
    }

    fn text<'a>(s: &Scalar<'a>) -> Option<Cow<'a, str>> {
        match s {
            Scalar::Str(v) => Some(v.clone()),
            _ => None,
        }
    }

    pub fn parse(body: &str) -> Option<ProviderError<'_>> {
        let env: Envelope = if body.starts_with('[') {
            serde_json::from_str::<Vec<Envelope>>(body)
                .ok()?
                .into_iter()
                .next()?
        } else {
            serde_json::from_str(body).ok()?
        };
        let mut out = ProviderError::default();
        assemble(&env, &mut out);
        Some(out)
    }

    /// What an envelope says, whichever parser read it, into `out` (a default one).
    pub fn assemble<'a>(env: &Envelope<'a>, out: &mut ProviderError<'a>) {
        match &env.error {
            Some(ErrorField::Obj(e)) => {
                out.has_error = true;
                if let Some(inner) = &e.innererror {
                    push(out, &inner.code);
                }
                push(out, &e.code);
                push(out, &e.kind);
                push(out, &e.status);
                out.message = text(&e.message);
            }
            Some(ErrorField::Str(s)) => {
                out.has_error = true;
                out.message = Some(s.clone());
            }
            _ => {}
        }
        push(out, &env.aws_type);
        push(out, &env.code);
        match &env.kind {
            Scalar::Str(k) if k == "error" => out.has_error = true,
            other => push(out, other),
        }
        if matches!(&env.object, Scalar::Str(o) if o == "error")
            || matches!(env.aws_type, Scalar::Str(_))
        {
            out.has_error = true;
        }
        if let Some(f) = &env.prompt_feedback {
            push(out, &f.block_reason);
        }
        for c in env.candidates.iter().flatten() {
            if let Scalar::Str(r) = &c.finish_reason {
                if r != "STOP" && r != "MAX_TOKENS" {
                    push(out, &c.finish_reason);
                }
            }
        }
        if out.message.is_none() {
            out.message = text(&env.message).or_else(|| text(&env.message_aws));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The typed fast path and the generic path read the same envelopes the same way.
    #[test]
    fn typed_and_generic_paths_agree() {
        let bodies = [
            r#"{"error":{"message":"m","type":"insufficient_quota","param":null,"code":"insufficient_quota"}}"#,
            r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#,
            r#"[{"error":{"code":429,"message":"x","status":"RESOURCE_EXHAUSTED"}}]"#,
            r#"{"__type":"com.amazon.coral#ThrottlingException","message":"Rate exceeded"}"#,
            r#"{"error":{"code":"content_filter","innererror":{"code":"ResponsibleAIPolicyViolation"},"message":"x"}}"#,
            r#"{"error":"model 'x' not found"}"#,
            r#"{"object":"error","message":"too long","type":"BadRequestError","code":400}"#,
            r#"{"promptFeedback":{"blockReason":"SAFETY"}}"#,
            r#"{"candidates":[{"finishReason":"SAFETY"}]}"#,
            r#"{"error":{"code":402,"message":"Insufficient credits","metadata":{"a":[1,2]}}}"#,
            r#"{"error": null, "message": 5}"#,
        ];
        for b in bodies {
            let fast = typed::parse(b).unwrap();
            let slow = parse_value(b).unwrap();
            assert_eq!(fast.codes, slow.codes, "{b}");
            assert_eq!(fast.numeric_code, slow.numeric_code, "{b}");
            assert_eq!(fast.message, slow.message, "{b}");
            assert_eq!(fast.has_error, slow.has_error, "{b}");
        }
    }

    /// What `parse` answered before the scanner: the serde paths alone, after the same checks.
    fn reference(body: &str) -> Option<ProviderError<'_>> {
        let trimmed = body.trim_start();
        if body.len() > MAX_JSON_BODY || !(trimmed.starts_with('{') || trimmed.starts_with('[')) {
            return None;
        }
        parse_serde(trimmed)
    }

    /// The scanner alone: `Some` when it is sure.
    fn scanned(body: &str) -> Option<ProviderError<'_>> {
        let mut env = typed::Envelope::default();
        scan::envelope(body.trim_start(), &mut env)?;
        let mut out = ProviderError::default();
        typed::assemble(&env, &mut out);
        Some(out)
    }

    /// Codes, numeric code, message, has_error.
    type Summary = (Vec<String>, Option<u16>, Option<String>, bool);

    fn summary(p: &Option<ProviderError<'_>>) -> Option<Summary> {
        p.as_ref().map(|p| {
            (
                p.codes.iter().map(|c| c.to_string()).collect(),
                p.numeric_code,
                p.message.as_ref().map(|m| m.to_string()),
                p.has_error,
            )
        })
    }

    /// `parse` (scanner first) answers exactly as the serde paths do, and when the scanner
    /// answers at all, it answers the same.
    fn assert_same(body: &str) {
        let want = summary(&reference(body));
        assert_eq!(summary(&parse(body)), want, "parse vs serde on {body:?}");
        let fast = scanned(body);
        if fast.is_some() {
            assert_eq!(summary(&fast), want, "scanner vs serde on {body:?}");
        }
    }

    fn fast_path(body: &str) -> bool {
        scanned(body).is_some()
    }

    /// The usual envelopes never leave the scanner.
    #[test]
    fn the_scanner_reads_the_usual_envelopes() {
        for b in [
            r#"{"error":{"message":"Rate limit reached for gpt-4o in organization org-x on tokens per min (TPM): Limit 30000, Used 29000, Requested 1500.","type":"tokens","param":null,"code":"rate_limit_exceeded"}}"#,
            r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#,
            r#"{"error":{"code":429,"message":"Resource has been exhausted (e.g. check quota).","status":"RESOURCE_EXHAUSTED"}}"#,
            r#"[{"error":{"code":429,"message":"x","status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"7s"}]}}]"#,
            r#"{"__type":"com.amazon.coral.service#ThrottlingException","message":"Rate exceeded"}"#,
            r#"{"Message":"User is not authorized"}"#,
            r#"{"error":{"code":"content_filter","innererror":{"code":"ResponsibleAIPolicyViolation","content_filter_result":{"hate":{"filtered":true,"severity":"high"}}},"message":"x","param":"prompt","status":400}}"#,
            r#"{"error":"model 'llama3' not found, try pulling it first"}"#,
            r#"{"object":"error","message":"This model's maximum context length is 4096 tokens.","type":"BadRequestError","param":null,"code":400}"#,
            r#"{"promptFeedback":{"blockReason":"SAFETY","safetyRatings":[]},"usageMetadata":{"promptTokenCount":5}}"#,
            r#"{"candidates":[{"content":{"parts":[{"text":""}]},"finishReason":"SAFETY","index":0}]}"#,
            r#"{"error":{"message":"Insufficient credits","code":402,"metadata":{"provider_name":null,"raw":1.5e3}}}"#,
            "{\n  \"error\": {\n    \"message\": \"He said \\\"no\\\" \\u00e9\\n\",\n    \"type\": \"invalid_request_error\"\n  }\n}\n",
            " \t{\"error\": null, \"message\": 5, \"x\": -0.5e-3, \"y\": [true, false, {\"\\u0041\": 0}]}",
        ] {
            assert!(fast_path(b), "the scanner gave up on {b}");
            assert_same(b);
        }
    }

    /// Edge cases: the scanner answers as serde_json would or leaves them to it.
    #[test]
    fn scanner_edge_cases_match_serde() {
        let cases: &[(&str, Option<bool>)] = &[
            // Escaped quotes and backslashes inside values (decoded, owned).
            (
                r#"{"error":{"message":"a \"quoted\" \\ word","type":"x\"y"}}"#,
                Some(true),
            ),
            // Unicode escapes: BMP decoded; surrogates (paired or not) left to serde_json.
            (r#"{"error":{"message":"caf\u00e9 \u2019"}}"#, Some(true)),
            (r#"{"error":{"message":"\ud83d\ude00"}}"#, Some(false)),
            (r#"{"error":{"message":"\ud83d"}}"#, Some(false)),
            (r#"{"error":{"message":"\udc00x"}}"#, Some(false)),
            (r#"{"error":{"message":"ok"},"junk":"\ud83d"}"#, Some(false)),
            (r#"{"error":{"message":"\u00G0"}}"#, Some(false)),
            (r#"{"error":{"message":"\x"}}"#, Some(false)),
            // Raw control characters are invalid JSON strings.
            ("{\"error\":{\"message\":\"a\u{1}b\"}}", Some(false)),
            ("{\"error\":{\"message\":\"tab\tin\"}}", Some(false)),
            // Non-ASCII text passes through borrowed.
            (
                r#"{"error":{"message":"überlastet — 过载","type":"overloaded_error"}}"#,
                Some(true),
            ),
            // Nested objects and arrays under known and unknown keys.
            (
                r#"{"error":{"code":{"a":{"b":[1,{"c":"d"}]}},"type":["x"],"message":{"m":1}}}"#,
                Some(true),
            ),
            (
                r#"{"meta":{"error":{"type":"rate_limit_error"}},"error":{"type":"api_error"}}"#,
                Some(true),
            ),
            // Truncated JSON: invalid, no envelope.
            (
                r#"{"error":{"type":"overloaded_error","message":"Overl"#,
                Some(false),
            ),
            (r#"{"error":{"type":"overloaded_error"}"#, Some(false)),
            (r#"{"error":"#, Some(false)),
            ("{", Some(false)),
            ("[", Some(false)),
            // Trailing garbage, trailing commas, comments.
            (r#"{"error":"x"} x"#, Some(false)),
            (r#"{"error":"x",}"#, Some(false)),
            (r#"{"error":["x",]}"#, Some(false)),
            (r#"{"error":"x"}/**/"#, Some(false)),
            ("{\"error\":\"x\"}\u{a0}", Some(false)),
            (r#"{"error":"x"} "#, Some(true)),
            // Duplicate keys: the typed path refuses them, the Value path keeps the last.
            (
                r#"{"error":{"type":"a","type":"rate_limit_error"}}"#,
                Some(false),
            ),
            (r#"{"error":{"type":"a"},"error":"b"}"#, Some(false)),
            (r#"{"type":"error","type":"overloaded_error"}"#, Some(false)),
            (
                r#"{"error":{"innererror":{"code":"a","code":"b"}}}"#,
                Some(false),
            ),
            (
                r#"{"candidates":[{"finishReason":"SAFETY","finishReason":"STOP"}]}"#,
                Some(false),
            ),
            // Duplicate unknown keys are fine for both.
            (
                r#"{"error":{"param":1,"param":2,"type":"x"},"extra":1,"extra":2}"#,
                Some(true),
            ),
            // Escaped keys: left to serde_json (which decodes them).
            (r#"{"\u0065rror":{"type":"overloaded_error"}}"#, Some(false)),
            (r#"{"error":{"ty\u0070e":"overloaded_error"}}"#, Some(false)),
            (r#"{"x":{"\u0065rror":1},"error":"y"}"#, Some(true)),
            // Numbers: plain u64 read, others left to serde_json where read, skipped elsewhere.
            (r#"{"error":{"code":429}}"#, Some(true)),
            (r#"{"error":{"code":0429}}"#, Some(false)),
            (r#"{"error":{"code":429.0}}"#, Some(false)),
            (r#"{"error":{"code":4.29e2}}"#, Some(false)),
            (r#"{"error":{"code":-429}}"#, Some(false)),
            (r#"{"error":{"code":18446744073709551615}}"#, Some(true)),
            (r#"{"error":{"code":18446744073709551616}}"#, Some(false)),
            (r#"{"error":{"code":1e400}}"#, Some(false)),
            (r#"{"error":{"code":429},"x":1e400}"#, Some(true)),
            (r#"{"error":{"code":429},"x":-0}"#, Some(true)),
            (r#"{"error":{"code":429},"x":01}"#, Some(false)),
            (r#"{"error":{"code":429},"x":1.}"#, Some(false)),
            (r#"{"error":{"code":429},"x":.5}"#, Some(false)),
            (r#"{"error":{"code":429},"x":1e}"#, Some(false)),
            (r#"{"error":{"code":429},"x":-}"#, Some(false)),
            (r#"{"error":{"code":429},"x":+1}"#, Some(false)),
            (r#"{"type":429,"code":"x"}"#, Some(true)),
            // Odd shapes of known fields.
            (r#"{"error":5}"#, Some(true)),
            (r#"{"error":true}"#, Some(true)),
            (r#"{"error":[1,"x"]}"#, Some(true)),
            (r#"{"error":-5}"#, Some(false)),
            (r#"{"error":{"innererror":"x"}}"#, Some(false)),
            (r#"{"error":{"innererror":["x"]}}"#, Some(false)),
            (r#"{"error":{"innererror":null,"code":"x"}}"#, Some(true)),
            (r#"{"promptFeedback":"SAFETY"}"#, Some(false)),
            (r#"{"promptFeedback":null}"#, Some(true)),
            (r#"{"candidates":{"finishReason":"SAFETY"}}"#, Some(false)),
            (r#"{"candidates":[null]}"#, Some(false)),
            (r#"{"candidates":[]}"#, Some(true)),
            (r#"{"candidates":null}"#, Some(true)),
            (r#"{"__type":null,"message":"m"}"#, Some(true)),
            (r#"{"__type":"","message":"m"}"#, Some(true)),
            (r#"{"error":{"type":""},"Message":"M"}"#, Some(true)),
            // Arrays at the top: exactly one object is read; the rest is left to serde_json.
            (r#"[{"error":{"status":"UNAVAILABLE"}}]"#, Some(true)),
            (r#"[]"#, Some(false)),
            (r#"[{"error":"a"},{"error":"b"}]"#, Some(false)),
            (r#"[1]"#, Some(false)),
            (r#"[[{"error":"a"}]]"#, Some(false)),
            (r#"{}"#, Some(true)),
            // Literals.
            (r#"{"error":nul}"#, Some(false)),
            (r#"{"error":nulll}"#, Some(false)),
            (r#"{"error":True}"#, Some(false)),
            // Keys must be strings; colons and commas where they belong.
            (r#"{error:"x"}"#, Some(false)),
            (r#"{"error" "x"}"#, Some(false)),
            (r#"{"error":"x" "type":"y"}"#, Some(false)),
            (r#"{"a":[1 2]}"#, Some(false)),
        ];
        for (body, fast) in cases {
            assert_same(body);
            if let Some(fast) = fast {
                assert_eq!(fast_path(body), *fast, "fast path on {body}");
            }
        }
        // Duplicates: the last one wins (serde_json's Value maps), as before the scanner.
        let p = parse(r#"{"error":{"type":"a","type":"rate_limit_error"}}"#).unwrap();
        assert_eq!(
            summary(&Some(p)).unwrap().0,
            vec!["rate_limit_error".to_owned()]
        );
        let p = parse(r#"{"error":{"type":"a"},"error":"b"}"#).unwrap();
        assert_eq!(p.message.as_deref(), Some("b"));
        assert!(p.codes.is_empty());
    }

    /// Nesting: the scanner stops at its own limit, well inside serde_json's.
    #[test]
    fn deep_nesting_is_left_to_serde() {
        for depth in [10, 63, 64, 65, 127, 128, 129, 200, 5000] {
            let deep = format!(
                "{{\"error\":{{\"type\":\"overloaded_error\"}},\"x\":{}{}}}",
                "[".repeat(depth),
                "]".repeat(depth)
            );
            assert_same(&deep);
            assert_eq!(fast_path(&deep), depth < 64, "depth {depth}");
            let deep = format!(
                "{{\"error\":{{\"type\":\"overloaded_error\"}},\"x\":{}1{}}}",
                "{\"a\":".repeat(depth),
                "}".repeat(depth)
            );
            assert_same(&deep);
        }
    }

    #[test]
    fn codes_are_normalised_and_borrowed_when_they_can_be() {
        for (raw, want, borrowed) in [
            ("rate_limit_exceeded", "rate_limit_exceeded", true),
            ("RESOURCE_EXHAUSTED", "resource_exhausted", false),
            (
                "com.amazon.coral.service#ThrottlingException",
                "throttlingexception",
                false,
            ),
            (
                "ThrottlingException:http://internal.amazon.com/coral/com.amazon.bedrock/",
                "throttlingexception",
                false,
            ),
            ("a#b#c:d#e", "c", true),
            ("x:", "x", true),
            (":X", "", true),
            ("#", "", true),
            ("Ab", "ab", false),
            ("abcdefgH", "abcdefgh", false),
            ("abcdefghI", "abcdefghi", false),
            ("abcdefghijklmnoP", "abcdefghijklmnop", false),
            ("ÄÖ@[`{Z", "ÄÖ@[`{z", false),
            ("ÄÖ@[`{", "ÄÖ@[`{", true),
            ("1234567890_-./", "1234567890_-./", true),
        ] {
            let got = normalize_code(raw);
            // The plain definition: after the last '#' before the first ':', lower-cased.
            let end = raw.find(':').unwrap_or(raw.len());
            let start = raw[..end].rfind('#').map_or(0, |i| i + 1);
            assert_eq!(got, raw[start..end].to_ascii_lowercase(), "{raw}");
            assert_eq!(got, want, "{raw}");
            assert_eq!(matches!(got, Cow::Borrowed(_)), borrowed, "{raw}");
        }
    }

    #[test]
    fn codes_spill_past_the_inline_ones_in_order() {
        let mut c = Codes::default();
        let names: Vec<String> = (0..9).map(|i| format!("c{i}")).collect();
        for (i, n) in names.iter().enumerate() {
            assert_eq!(c.len(), i);
            c.push(Cow::Borrowed(n));
        }
        assert!(c
            .iter()
            .map(|c| c.as_ref())
            .eq(names.iter().map(String::as_str)));
        assert!((&c).into_iter().count() == 9 && !c.is_empty());
    }

    /// Every body of the shared vectors: the same answer with and without the scanner.
    #[test]
    fn shared_vector_bodies_read_the_same() {
        let dir = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/vectors");
        let mut bodies = 0;
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().and_then(|e| e.to_str()) != Some("json") {
                continue;
            }
            let doc: Value =
                serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
            let mut stack = vec![&doc];
            while let Some(v) = stack.pop() {
                match v {
                    Value::Object(m) => {
                        if let Some(Value::String(b)) = m.get("body") {
                            assert_same(b);
                            bodies += 1;
                        }
                        stack.extend(m.values());
                    }
                    Value::Array(a) => stack.extend(a),
                    _ => {}
                }
            }
        }
        assert!(
            bodies > 100,
            "only {bodies} bodies found in {}",
            dir.display()
        );
    }

    mod differential {
        use super::*;
        use proptest::prelude::*;

        /// A JSON tree whose strings and keys are raw JSON text (escapes included).
        #[derive(Debug, Clone)]
        enum J {
            Null,
            Bool(bool),
            Num(&'static str),
            Str(&'static str),
            Arr(Vec<J>),
            Obj(Vec<(&'static str, J)>),
        }

        const KEYS: &[&str] = &[
            "error",
            "error",
            "type",
            "type",
            "code",
            "code",
            "message",
            "message",
            "status",
            "innererror",
            "__type",
            "object",
            "Message",
            "promptFeedback",
            "blockReason",
            "candidates",
            "finishReason",
            "param",
            "details",
            "",
            "er\\u0072or",
            "typ\\\"e",
            "ключ",
        ];
        const NUMS: &[&str] = &[
            "0",
            "1",
            "429",
            "529",
            "99",
            "600",
            "-1",
            "-0",
            "0.5",
            "4e2",
            "1E+2",
            "1e-2",
            "1e400",
            "-1e400",
            "18446744073709551615",
            "18446744073709551616",
            "123456789012345678901234",
        ];
        const STRS: &[&str] = &[
            "",
            "error",
            "STOP",
            "MAX_TOKENS",
            "SAFETY",
            "RESOURCE_EXHAUSTED",
            "overloaded_error",
            "rate_limit_exceeded",
            "insufficient_quota",
            "com.amazon.coral#ThrottlingException",
            "ValidationException:http://x",
            "a\\\"b",
            "\\\\",
            "\\/",
            "\\b\\f\\n\\r\\t",
            "caf\\u00e9",
            "\\u0000",
            "\\u0041PI_error",
            "é — 过载",
            "Overloaded",
            "Rate limit reached for gpt-4o in organization org-x",
        ];
        /// Strings serde_json reads differently or refuses (surrogates, bad escapes).
        const ODD_STRS: &[&str] = &["\\ud83d\\ude00", "\\ud83d", "\\udc00", "\\uZZZZ", "\\q"];
        const WS: &[&str] = &["", "", "", " ", "\n", "\t", "\r\n  "];

        fn gap(ws: &[u8], k: &mut usize, out: &mut String) {
            if !ws.is_empty() {
                out.push_str(WS[ws[*k % ws.len()] as usize % WS.len()]);
                *k += 1;
            }
        }

        fn render(j: &J, ws: &[u8], k: &mut usize, out: &mut String) {
            match j {
                J::Null => out.push_str("null"),
                J::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
                J::Num(n) => out.push_str(n),
                J::Str(s) => {
                    out.push('"');
                    out.push_str(s);
                    out.push('"');
                }
                J::Arr(items) => {
                    out.push('[');
                    for (i, item) in items.iter().enumerate() {
                        if i > 0 {
                            out.push(',');
                        }
                        gap(ws, k, out);
                        render(item, ws, k, out);
                        gap(ws, k, out);
                    }
                    out.push(']');
                }
                J::Obj(fields) => {
                    out.push('{');
                    for (i, (key, v)) in fields.iter().enumerate() {
                        if i > 0 {
                            out.push(',');
                        }
                        gap(ws, k, out);
                        out.push('"');
                        out.push_str(key);
                        out.push('"');
                        gap(ws, k, out);
                        out.push(':');
                        gap(ws, k, out);
                        render(v, ws, k, out);
                        gap(ws, k, out);
                    }
                    out.push('}');
                }
            }
        }

        fn json() -> BoxedStrategy<J> {
            let leaf = prop_oneof![
                1 => Just(J::Null),
                1 => any::<bool>().prop_map(J::Bool),
                1 => prop::sample::select(NUMS).prop_map(J::Num),
                1 => prop::sample::select(ODD_STRS).prop_map(J::Str),
                12 => prop::sample::select(STRS).prop_map(J::Str),
            ];
            leaf.prop_recursive(4, 40, 6, |inner| {
                prop_oneof![
                    prop::collection::vec(inner.clone(), 0..4).prop_map(J::Arr),
                    prop::collection::vec((prop::sample::select(KEYS), inner.clone()), 0..6)
                        .prop_map(J::Obj),
                    prop::collection::vec((prop::sample::select(KEYS), inner), 0..6)
                        .prop_map(J::Obj),
                ]
            })
            .boxed()
        }

        /// An envelope-like top level: an object (sometimes wrapped in an array) whose values
        /// are random trees.
        fn body() -> impl Strategy<Value = J> {
            // An `error` object made of the fields an envelope's error has, with random values.
            let error = prop::collection::vec(
                (
                    prop::sample::select(
                        &["type", "code", "message", "status", "innererror", "param"][..],
                    ),
                    prop_oneof![3 => prop::sample::select(STRS).prop_map(J::Str), 2 => json()],
                ),
                0..5,
            )
            .prop_map(|fields| ("error", J::Obj(fields)));
            let field = prop_oneof![
                3 => (prop::sample::select(KEYS), json()),
                2 => error,
            ];
            let obj = prop::collection::vec(field, 0..7).prop_map(J::Obj).boxed();
            prop_oneof![
                4 => obj.clone(),
                1 => obj.clone().prop_map(|o| J::Arr(vec![o])),
                1 => prop::collection::vec(obj, 0..3).prop_map(J::Arr),
                1 => json(),
            ]
        }

        /// One edit of the rendered text: truncate, delete a char, or insert a JSON-ish byte.
        fn perturb(text: &str, edit: Option<(u8, usize, u8)>) -> String {
            let Some((op, at, byte)) = edit else {
                return text.to_owned();
            };
            let chars: Vec<char> = text.chars().collect();
            let at = if chars.is_empty() {
                0
            } else {
                at % (chars.len() + 1)
            };
            const BYTES: &[u8] = b"\"\\{}[],: 0-.eEnu\x01\x1fx";
            let c = char::from(BYTES[byte as usize % BYTES.len()]);
            let mut out: Vec<char> = chars.clone();
            match op % 3 {
                0 => out.truncate(at),
                1 => {
                    if at < out.len() {
                        out.remove(at);
                    }
                }
                _ => out.insert(at, c),
            }
            out.into_iter().collect()
        }

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(4000))]

            /// The scanner never changes what `parse` answers, on random and perturbed
            /// envelopes (duplicates, escapes, odd shapes and numbers, truncations).
            #[test]
            fn scanner_and_serde_agree(
                j in body(),
                ws in prop::collection::vec(any::<u8>(), 0..8),
                edit in prop::option::weighted(0.4, (any::<u8>(), any::<usize>(), any::<u8>())),
            ) {
                let mut text = String::new();
                render(&j, &ws, &mut 0, &mut text);
                let text = perturb(&text, edit);
                let want = summary(&reference(&text));
                prop_assert_eq!(summary(&parse(&text)), want.clone(), "parse on {:?}", text);
                if let Some(fast) = scanned(&text) {
                    prop_assert_eq!(summary(&Some(fast)), want, "scanner on {:?}", text);
                }
            }
        }
    }
}
