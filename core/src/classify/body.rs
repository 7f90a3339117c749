//! Reading a provider's error: the error type/code names and the message, whatever the
//! provider's envelope looks like, from the response body or, when only an exception's text
//! reached us, from the envelope that text quotes.
//!
//! Two readers fill the same [`ProviderError`]: a typed, borrowing serde deserialization of just
//! the fields read (`typed.rs`), and a `serde_json::Value` reader for what the typed one refuses
//! (duplicate keys, odd shapes). A hand-written scanner used to sit in front of them; the typed
//! reader keeps most of its speed (see the README's "What it costs") in a tenth of its code.

use std::sync::OnceLock;

use regex::Regex;
use serde_json::{Map, Value};

mod typed;

/// Bodies above this size are not parsed as JSON (only their head is scanned as text).
pub const MAX_JSON_BODY: usize = 1 << 20;

/// How many envelopes deep a nested upstream error is followed (OpenRouter's `metadata.raw`
/// holds the upstream provider's whole body, which could itself be a gateway's).
const MAX_NESTING: usize = 3;

/// What a provider's error says.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct ProviderError {
    /// Codes and type names, most specific first (an upstream provider's nested codes, then
    /// `innererror.code`, `code`, `type`, `status`), normalised by [`normalize_code`].
    pub codes: Vec<String>,
    /// A numeric code inside the envelope (Gemini `error.code`, OpenRouter, vLLM), used as a
    /// status when the failure carried none.
    pub numeric_code: Option<u16>,
    /// The provider's message, with any nested upstream message after it.
    pub message: Option<String>,
    /// The body had an error envelope at all (an SSE `error` event, `{"error": ...}`).
    pub has_error: bool,
    /// The envelope is an event (`{"type": "error", "error": {...}}`, Anthropic's SSE `error`
    /// event and error body alike): quoted without a status, it is read as a stream's error
    /// event, except an error about the request where nothing names a stream.
    pub event: bool,
    /// The envelope is an API's whole answer under HTTP 200, never a stream's event (Tencent
    /// Cloud API 3.0's `Response.Error`): its code decides, as no status does.
    pub answer_in_ok: bool,
}

impl ProviderError {
    fn push_code(&mut self, code: &str) {
        let code = normalize_code(code);
        if !code.is_empty() && !self.codes.contains(&code) {
            self.codes.push(code);
        }
    }

    /// A string in a code position: a name, or a status written as a string (Azure and
    /// LiteLLM: "code": "429").
    fn push_str_value(&mut self, s: &str) {
        if s.len() == 3 && s.bytes().all(|b| b.is_ascii_digit()) {
            if let Ok(n) = s.parse::<u16>() {
                if (100..=599).contains(&n) {
                    self.numeric_code.get_or_insert(n);
                }
            }
        } else {
            self.push_code(s);
        }
    }

    /// A JSON value in a code position: a name, or a number that may be a status.
    fn push_value(&mut self, v: Option<&Value>) {
        match v {
            Some(Value::String(s)) => self.push_str_value(s),
            Some(Value::Number(n)) => {
                if let Some(n) = n.as_u64() {
                    self.push_number(n);
                }
            }
            _ => {}
        }
    }

    /// A number in a code position: a status (100-599), else a provider's own code read as
    /// its digits (Zhipu 1113, SiliconFlow 30011, Mistral 3230). Zero is success, no code.
    pub(crate) fn push_number(&mut self, n: u64) {
        if (100..=599).contains(&n) {
            self.numeric_code.get_or_insert(n as u16);
        } else if n != 0 {
            self.push_code(&n.to_string());
        }
    }

    /// A code of an envelope whose numbers are its own, never statuses (MiniMax `base_resp`,
    /// iFlytek `header`, Baidu `error_code`, Cloudflare `errors[]`): `<field>_<n>`, so that two
    /// providers' equal numbers never meet. A string code is kept as it is.
    pub(crate) fn push_scoped(&mut self, field: &str, code: ScopedCode<'_>) {
        match code {
            ScopedCode::Num(0) | ScopedCode::None => return,
            ScopedCode::Num(n) => self.push_code(&format!("{field}_{n}")),
            ScopedCode::Str(s) if s.is_empty() || s == "0" => return,
            ScopedCode::Str(s) => self.push_code(s),
        }
        self.has_error = true;
    }

    fn add_message(&mut self, text: &str) {
        match &mut self.message {
            Some(m) => {
                m.push('\n');
                m.push_str(text);
            }
            None => self.message = Some(text.to_owned()),
        }
    }

    /// Whether anything was learnt.
    fn says_something(&self) -> bool {
        self.has_error || !self.codes.is_empty() || self.numeric_code.is_some()
    }
}

/// A scoped code's value, whichever reader found it.
pub(crate) enum ScopedCode<'a> {
    Num(u64),
    Str(&'a str),
    None,
}

impl<'a> ScopedCode<'a> {
    fn of(v: Option<&'a Value>) -> Self {
        match v {
            Some(Value::Number(n)) => n.as_u64().map_or(ScopedCode::None, ScopedCode::Num),
            Some(Value::String(s)) => ScopedCode::Str(s),
            _ => ScopedCode::None,
        }
    }
}

/// A code as the tables spell it: lower case, without AWS's namespace (`com.amazon#X`) or
/// documentation suffix (`X:http://internal.amazon.com/...`).
pub fn normalize_code(s: &str) -> String {
    let end = s.find(':').unwrap_or(s.len());
    let start = s[..end].rfind('#').map_or(0, |i| i + 1);
    s[start..end].trim().to_ascii_lowercase()
}

/// Parses `body` if it is a JSON error envelope. Returns `None` for non-JSON bodies.
pub fn parse(body: &str) -> Option<ProviderError> {
    let trimmed = sse_data(body.trim_start());
    if body.len() > MAX_JSON_BODY || !(trimmed.starts_with('{') || trimmed.starts_with('[')) {
        return None;
    }
    typed::parse(trimmed, 0).or_else(|| parse_value(trimmed))
}

/// The `Value` reader alone (what the typed one refuses, and the reference it is tested against).
fn parse_value(trimmed: &str) -> Option<ProviderError> {
    let v: Value = serde_json::from_str(trimmed).ok()?;
    let mut out = ProviderError::default();
    read_envelope(&v, &mut out, 0).then_some(out)
}

/// The payload of an SSE frame kept whole as a body (`event: error\ndata: {...}`): the text
/// after its first `data:`; any other body as it is.
fn sse_data(body: &str) -> &str {
    if !(body.starts_with("event:") || body.starts_with("data:")) {
        return body;
    }
    body.find("data:")
        .map_or(body, |i| body[i + "data:".len()..].trim_start())
}

/// The envelope an exception's text quotes, when no body reached us: the JSON an SSE error
/// event or a gateway put in the message (`stream error: {"type": "error", ...}`), or the
/// Python repr of a body (`Error code: 429 - {'error': {'code': 'rate_limit_exceeded'}}`),
/// or botocore's `An error occurred (ThrottlingException) when calling ...`.
pub fn from_text(text: &str) -> Option<ProviderError> {
    let text = &text[..floor_boundary(text, MAX_JSON_BODY)];
    // (batch 27) A body pasted through a Chinese input method or a word processor, its quotes
    // made typographic (请求大模型 API 失败：{“error”:{“code”:“1214”,...}}): read with plain ones.
    if text.contains(['\u{201c}', '\u{201d}']) {
        return from_text(&text.replace(['\u{201c}', '\u{201d}'], "\""));
    }
    let mut out = ProviderError::default();
    // Quoted JSON, or the Python repr of a body (`{'error': {'message': '...'}}`): the first
    // `{` that starts a whole object holding an envelope. The outermost envelope comes first,
    // so an envelope only quoted inside another's message (a 400 whose message quotes an
    // `overloaded_error` event) never speaks for it.
    for (i, _) in text.match_indices('{').take(8) {
        let mut values = serde_json::Deserializer::from_str(&text[i..]).into_iter::<Value>();
        let v = match values.next() {
            Some(Ok(v @ Value::Object(_))) => Some(v),
            _ => repr_to_json(&text[i..]).and_then(|j| serde_json::from_str::<Value>(&j).ok()),
        };
        if let Some(v @ Value::Object(_)) = v {
            if is_schema_issue(&v) {
                return None;
            }
            if read_envelope(&v, &mut out, 0) && out.says_something() {
                return Some(out);
            }
            out = ProviderError::default();
        }
    }
    // A repr or any other quoting: `'code': 'x'`, `"type": "x"`, `'code': 429` (the regex only
    // runs where one of its field names appears).
    // ("exception-type" and every other field name the regex knows hold one of these words.)
    let named = ["type", "code", "status"].iter().any(|n| text.contains(n));
    for c in named
        .then(|| quoted_fields().captures_iter(text))
        .into_iter()
        .flatten()
    {
        match (c.get(2).or_else(|| c.get(3)), c.get(4)) {
            // (batch 28) An event's `"type": "error"` comes with its `error` object; a logger's
            // record of the same type with no such key (GraphRAG's cut `{"type": "error",
            // "data": "Error Invoking LLM", "stack": ...`) is an app's report, not a stream's.
            (Some(name), _) if &c[1] == "type" && name.as_str() == "error" => {
                out.event |= EVENT_ERROR_KEYS.iter().any(|k| text.contains(k));
            }
            (Some(name), _) => out.push_code(name.as_str()),
            (None, Some(n)) => {
                if let Ok(n) = n.as_str().parse::<u16>() {
                    if (100..=599).contains(&n) {
                        out.numeric_code.get_or_insert(n);
                    }
                }
            }
            _ => {}
        }
        out.has_error = true;
    }
    // Node's util.inspect prints an error object's keys bare: `{ code: 'InvalidEndpoint.NotFound',
    // type: 'NotFound' }` (Volcengine through LobeChat's ProviderBizError).
    // Only where `named` found "code" or "type" can "code:" or "type:" be.
    let code_colon = named && text.contains("code:");
    let bare = code_colon || (named && text.contains("type:"));
    for c in bare
        .then(|| inspected_fields().captures_iter(text))
        .into_iter()
        .flatten()
    {
        if c[2].eq_ignore_ascii_case("error") {
            continue;
        }
        out.push_code(&c[2]);
        out.has_error = true;
    }
    // (batch 31b) openai-python 0.x logs its error as `key=value` fields ("error_code=None
    // error_message='...' error_param=None error_type=invalid_request_error"): the type and
    // code are the provider's, as in the envelope they came from.
    if text.contains("error_type=") || text.contains("error_code=") {
        for c in logged_fields().captures_iter(text) {
            if &c[1] != "None" {
                out.push_code(&c[1]);
                out.has_error = true;
            }
        }
    }
    // SDKs that print the code unquoted before the message: Tencent Cloud's Python SDK
    // "[TencentCloudSDKException] code:LimitExceeded message:... requestId:...", its Go SDK
    // "[TencentCloudSDKError] Code=InternalError, Message=..., RequestId=...".
    // (`code:` was looked for above; `Code=` only where an `=` is.)
    let unquoted = (code_colon || (text.as_bytes().contains(&b'=') && text.contains("Code=")))
        && text.contains("essage");
    if let Some(c) = unquoted
        .then(|| sdk_code_message().captures(text))
        .flatten()
    {
        out.push_code(&c[1]);
        out.has_error = true;
    }
    // AWS's JavaScript SDK prints "ModelStreamErrorException: <message>".
    let head = text.split(':').next().unwrap_or("");
    if head.len() > "Exception".len()
        && head.ends_with("Exception")
        && head.bytes().all(|b| b.is_ascii_alphanumeric())
    {
        out.push_code(head);
        out.has_error = true;
    }
    if let Some(c) = text
        .contains("rror occurred (")
        .then(|| aws_error_code().captures(text))
        .flatten()
    {
        out.push_code(&c[1]);
        out.has_error = true;
    }
    out.says_something().then_some(out)
}

/// The JSON text of the Python literal (a dict of strings, numbers, `None`, `True`, `False`,
/// lists and dicts) that starts `text`, up to its closing brace: how openai-python and its kin
/// print a body ("Error code: 400 - {'error': {...}}"). `None` when `text` does not start
/// with such a literal.
fn repr_to_json(text: &str) -> Option<String> {
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len().min(4096));
    let mut depth = 0usize;
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            c @ (b'{' | b'[') => {
                depth += 1;
                out.push(c as char);
                i += 1;
            }
            c @ (b'}' | b']') => {
                depth = depth.checked_sub(1)?;
                out.push(c as char);
                i += 1;
                if depth == 0 {
                    return Some(out);
                }
            }
            q @ (b'\'' | b'"') => {
                i += 1;
                out.push('"');
                loop {
                    let c = *b.get(i)?;
                    if c == q {
                        i += 1;
                        break;
                    }
                    match c {
                        b'\\' => {
                            let e = *b.get(i + 1)?;
                            match e {
                                b'\'' => out.push('\''),
                                b'"' => out.push_str("\\\""),
                                b'\\' => out.push_str("\\\\"),
                                b'n' => out.push_str("\\n"),
                                b't' => out.push_str("\\t"),
                                b'r' => out.push_str("\\r"),
                                b'x' => {
                                    let hex = text.get(i + 2..i + 4)?;
                                    out.push_str("\\u00");
                                    out.push_str(hex);
                                    i += 2;
                                }
                                b'u' => out.push_str("\\u"),
                                _ => {
                                    out.push_str("\\\\");
                                    i += 1;
                                    continue;
                                }
                            }
                            i += 2;
                        }
                        b'"' => {
                            out.push_str("\\\"");
                            i += 1;
                        }
                        c if c < 0x20 => {
                            out.push_str(&format!("\\u{:04x}", c));
                            i += 1;
                        }
                        _ => {
                            let len = text[i..].chars().next()?.len_utf8();
                            out.push_str(&text[i..i + len]);
                            i += len;
                        }
                    }
                }
                out.push('"');
            }
            _ if text[i..].starts_with("None") => {
                out.push_str("null");
                i += 4;
            }
            _ if text[i..].starts_with("True") => {
                out.push_str("true");
                i += 4;
            }
            _ if text[i..].starts_with("False") => {
                out.push_str("false");
                i += 5;
            }
            c @ (b'0'..=b'9'
            | b'-'
            | b'+'
            | b'.'
            | b'e'
            | b'E'
            | b','
            | b':'
            | b' '
            | b'\n'
            | b'\t'
            | b'\r') => {
                out.push(c as char);
                i += 1;
            }
            _ => return None,
        }
    }
    None
}

/// Builds this module's patterns now (see `crate::warm`).
pub(crate) fn warm() {
    quoted_fields();
    logged_fields();
    inspected_fields();
    sdk_code_message();
    aws_error_code();
}

/// `'code': 'x'`, `"type": "x"`, `'status': 429`: the fields of an envelope, however quoted.
fn quoted_fields() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    R.get_or_init(|| {
        Regex::new(
            r#"(?-u)['"](type|code|status|__type|error_type|:?exception-type)['"][ \t]*:[ \t]*(?:'([A-Za-z][A-Za-z0-9_.#:\-]{0,63})'|"([A-Za-z][A-Za-z0-9_.#:\-]{0,63})"|([1-5][0-9][0-9])\b)"#,
        )
        .expect("valid regex")
    })
}

/// `error_type=x`, `error_code=x`: openai-python 0.x's logged fields (`openai/util.py`
/// `log_info("OpenAI API error received", error_code=..., error_type=...)`).
fn logged_fields() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    R.get_or_init(|| {
        Regex::new(r"(?-u)\berror_(?:type|code)=([A-Za-z][A-Za-z0-9_.]{0,63})")
            .expect("valid regex")
    })
}

/// A string that reads as a code, not a sentence: one token of letters, digits, `_`, `.` or
/// `-` with a `_` or `.` joining its words (`err.not_enough_balance`, `model_not_found`).
fn is_code_shaped(s: &str) -> bool {
    (3..=64).contains(&s.len())
        && s.as_bytes()[0].is_ascii_alphabetic()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'))
        && s.bytes().any(|b| matches!(b, b'_' | b'.'))
}

/// `code: 'x'`, `type: 'x'` with bare keys, as Node's util.inspect prints an object.
fn inspected_fields() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    R.get_or_init(|| {
        Regex::new(r"(?m-u)(?:^|[ \t{,])(code|type)[ \t]*:[ \t]*'([A-Za-z][A-Za-z0-9_.#\-]{0,63})'")
            .expect("valid regex")
    })
}

/// `code:X message:` / `Code=X, Message=`: an SDK's exception text with the code unquoted.
fn sdk_code_message() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    R.get_or_init(|| {
        Regex::new(r"(?-u)\b(?:code:|Code=)[ \t]*([A-Za-z][A-Za-z0-9_.]{0,63}),?[ \t]+(?:message:|Message=)")
            .expect("valid regex")
    })
}

/// botocore's message form: "An error occurred (ThrottlingException) when calling the
/// InvokeModel operation (reached max retries: 4): ..." (botocore/exceptions.py, ClientError).
fn aws_error_code() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    R.get_or_init(|| {
        Regex::new(r"(?-u)rror occurred \(([A-Za-z][A-Za-z0-9_.#:]{0,63})\)").expect("valid regex")
    })
}

fn floor_boundary(s: &str, mut i: usize) -> usize {
    if i >= s.len() {
        return s.len();
    }
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// Reads one envelope into `out`. Returns whether `v` was an object (or an array of one).
/// (batch 28) How a quoted event's `error` object begins: where none is quoted, a `"type":
/// "error"` field is a logger's record, not an SSE error event.
const EVENT_ERROR_KEYS: &[&str] = &["\"error\":", "'error':", "\"error\" :", "'error' :"];

/// (batch 28) Keys that together mark a schema validator's issue, not a provider's envelope:
/// Zod's `ZodIssue` ({"code": "invalid_type", "expected": "object", "received": "array",
/// "path": [], "message": ...}; v4 drops "received"), as an app prints it when the model's JSON
/// failed its schema (Langfuse's "Failed to call LLM: [...]"). Its `code` is the validator's,
/// never the provider's, so the words decide.
const SCHEMA_ISSUE_KEYS: &[&str] = &["code", "expected", "path"];

/// The object is a schema validator's issue ([`SCHEMA_ISSUE_KEYS`]).
fn is_schema_issue(v: &Value) -> bool {
    v.as_object()
        .is_some_and(|o| SCHEMA_ISSUE_KEYS.iter().all(|k| o.contains_key(*k)))
}

fn read_envelope(v: &Value, out: &mut ProviderError, depth: usize) -> bool {
    // Gemini sometimes wraps the envelope in a one-element array.
    let v = match v {
        Value::Array(items) => match items.first() {
            Some(first) => first,
            None => return false,
        },
        v => v,
    };
    let Value::Object(obj) = v else {
        return false;
    };
    match obj.get("error") {
        Some(Value::Object(err)) => {
            out.has_error = true;
            read_error_object(err, out, depth);
        }
        // Ollama, TGI: {"error": "model 'x' not found"}
        Some(Value::String(s)) => {
            out.has_error = true;
            out.add_message(s);
            // (batch 31b) A code in the message's place (aiXplain's `{'error':
            // 'err.not_enough_balance'}`): read as a code too, its words by the code tables.
            if is_code_shaped(s) {
                out.push_code(s);
            }
        }
        _ => {}
    }
    out.push_value(obj.get("__type"));
    out.push_value(obj.get("code"));
    // Anthropic's envelope has "type": "error"; vLLM's has "object": "error", "type": "BadRequestError".
    match obj.get("type") {
        Some(Value::String(t)) if t == "error" => {
            out.has_error = true;
            out.event = true;
        }
        other => out.push_value(other),
    }
    // TGI: {"error": "...", "error_type": "validation"}
    out.push_value(obj.get("error_type"));
    // Envelopes whose numbers are their own: Baidu {"error_code": 18, "error_msg"}, MiniMax
    // {"base_resp": {"status_code", "status_msg"}}, iFlytek {"header": {"code", "message"}},
    // Cloudflare {"errors": [{"code", "message"}]}.
    out.push_scoped("error_code", ScopedCode::of(obj.get("error_code")));
    let base_resp = obj.get("base_resp").and_then(Value::as_object);
    if let Some(b) = base_resp {
        out.push_scoped("base_resp", ScopedCode::of(b.get("status_code")));
    }
    let header = obj.get("header").and_then(Value::as_object);
    if let Some(h) = header {
        out.push_scoped("header", ScopedCode::of(h.get("code")));
    }
    let errors = obj.get("errors").and_then(Value::as_array);
    for e in errors.into_iter().flatten() {
        out.push_scoped("errors", ScopedCode::of(e.get("code")));
    }
    // Tencent Cloud API 3.0: {"Response": {"Error": {"Code", "Message"}, "RequestId"}}.
    let tencent = obj
        .get("Response")
        .and_then(|r| r.get("Error"))
        .and_then(Value::as_object);
    if let Some(e) = tencent {
        out.push_value(e.get("Code"));
        out.has_error = true;
        out.answer_in_ok = true;
    }
    if obj.get("object").and_then(Value::as_str) == Some("error") || obj.contains_key("__type") {
        out.has_error = true;
    }
    // Gemini safety blocks arrive in a 200 body.
    if let Some(reason) = obj.get("promptFeedback").and_then(|f| f.get("blockReason")) {
        out.push_value(Some(reason));
    }
    if let Some(Value::Array(cands)) = obj.get("candidates") {
        for c in cands {
            if let Some(r @ Value::String(s)) = c.get("finishReason") {
                if s != "STOP" && s != "MAX_TOKENS" {
                    out.push_value(Some(r));
                }
            }
        }
    }
    if out.message.is_none() {
        // AWS JSON protocols say "message" or "Message"; FastAPI servers say "detail"; Baidu
        // "error_msg"; MiniMax base_resp.status_msg; iFlytek header.message; Cloudflare
        // errors[0].message.
        let nested = [
            base_resp.and_then(|b| b.get("status_msg")),
            header.and_then(|h| h.get("message")),
            errors
                .and_then(|e| e.first())
                .and_then(|e| e.get("message")),
            tencent.and_then(|e| e.get("Message")),
        ];
        let found = ["message", "Message", "detail", "error_msg"]
            .iter()
            .map(|k| obj.get(*k))
            .chain(nested)
            .find_map(|v| v.and_then(Value::as_str));
        if let Some(m) = found {
            out.add_message(m);
        }
    }
    true
}

fn read_error_object(err: &Map<String, Value>, out: &mut ProviderError, depth: usize) {
    // OpenRouter: the upstream provider's own error, as its raw body (a string, JSON or not)
    // or as an object. It names the failure more precisely than the gateway's wrapper.
    // (batch 34a) A relay's own envelope around the upstream's whole error object
    // (claude-code-hub: {"error":{"type":"request_fail","upstream_error":{"type":"error",
    // "error":{"type":"invalid_request_error",...}}}}) is read the same way.
    let raw = err
        .get("metadata")
        .and_then(|m| m.get("raw"))
        .or_else(|| err.get("upstream_error"));
    let mut upstream_text = None;
    let mut upstream_status = None;
    if depth < MAX_NESTING {
        match raw {
            Some(Value::String(s)) => match parse_nested(s, depth) {
                Some(inner) => upstream_status = merge_upstream(out, inner),
                None => upstream_text = Some(s.as_str()),
            },
            Some(v @ Value::Object(_)) => {
                let mut inner = ProviderError::default();
                if read_envelope(v, &mut inner, depth + 1) {
                    upstream_status = merge_upstream(out, inner);
                }
            }
            _ => {}
        }
    }
    // A gateway that passes the upstream's whole body as its own message (the AI SDK, LiteLLM,
    // Continue: {"error":{"message":"{\n  \"error\": {\"code\": 429, ...}}","code":429}}): the
    // body inside is read like OpenRouter's raw.
    if depth < MAX_NESTING && raw.is_none() {
        if let Some(inner) = err
            .get("message")
            .and_then(Value::as_str)
            .and_then(|m| parse_nested(m, depth))
        {
            let s = merge_upstream(out, inner);
            upstream_status = upstream_status.or(s);
        }
    }
    if let Some(Value::Object(inner)) = err.get("innererror") {
        out.push_value(inner.get("code"));
    }
    // Google's ErrorInfo names the reason (API_KEY_INVALID, SERVICE_DISABLED,
    // INSUFFICIENT_G1_CREDITS_BALANCE): more specific than the status it details, so first.
    if let Some(Value::Array(details)) = err.get("details") {
        for d in details {
            out.push_value(d.get("reason"));
        }
    }
    out.push_value(err.get("code"));
    out.push_value(err.get("type"));
    out.push_value(err.get("status"));
    // (batch 24) MiniMax's Anthropic-shaped envelope states its HTTP status as a string beside
    // the type ({"type":"bad_request_error",...,"http_code":"400"}); a relay that lower-cases
    // keys prints it "httpcode".
    out.push_value(err.get("http_code"));
    out.push_value(err.get("httpcode"));
    if out.numeric_code.is_none() {
        out.numeric_code = upstream_status;
    }
    if let Some(param) = err.get("param").and_then(Value::as_str) {
        relayed_status(out, param);
    }
    let own = err.get("message").and_then(Value::as_str);
    let upstream = out.message.take();
    for text in [own, upstream.as_deref(), upstream_text]
        .into_iter()
        .flatten()
    {
        out.add_message(text);
    }
}

/// one-api / new-api answer an upstream's failure with their own `bad_response_status_code`
/// and the upstream's status in `param` (`{"type":"upstream_error","param":"422",...}`): that
/// status is the failure's, where the envelope has no numeric code of its own.
fn relayed_status(out: &mut ProviderError, param: &str) {
    if out.numeric_code.is_none() && out.codes.iter().any(|c| c == "bad_response_status_code") {
        out.numeric_code = param
            .trim()
            .parse::<u16>()
            .ok()
            .filter(|n| (400..=599).contains(n));
    }
}

fn parse_nested(s: &str, depth: usize) -> Option<ProviderError> {
    let t = s.trim_start();
    if !(t.starts_with('{') || t.starts_with('[')) || t.len() > MAX_JSON_BODY {
        return None;
    }
    if let Some(inner) = typed::parse(t, depth + 1) {
        return Some(inner);
    }
    let v: Value = serde_json::from_str(t).ok()?;
    let mut inner = ProviderError::default();
    read_envelope(&v, &mut inner, depth + 1).then_some(inner)
}

/// The upstream's codes go first (most specific); its message is kept for the phrases. Its
/// numeric code is only a fallback: the gateway's own code is this request's status.
fn merge_upstream(out: &mut ProviderError, inner: ProviderError) -> Option<u16> {
    for c in inner.codes {
        if !out.codes.contains(&c) {
            out.codes.push(c);
        }
    }
    if let Some(m) = inner.message {
        out.add_message(&m);
    }
    inner.numeric_code
}

/// Cloudflare Workers AI's code as its binding prints it, when no `errors[]` envelope reached us:
/// `AiError` words a failure "<code>: <description>" ("3040: Capacity temporarily exceeded,
/// please try again.", "4006: you have used up your daily free allocation of 10,000 neurons"),
/// or "AiError: <description>" with the description of the code's row ("AiError: Request
/// timeout"), inside an OpenAI-style body whose own code is a catch-all (`internal_error`,
/// `invalid_prompt`). The provider's code, read from its own table
/// (developers.cloudflare.com/workers-ai/platform/errors), names the failure before any word.
/// Returns the scoped code `errors_<n>` of a row of that table.
pub fn cloudflare_head(text: &str) -> Option<String> {
    let mut rest = text.trim_start();
    let mut wrapped = false;
    while let Some(r) = strip_prefix_ci(rest, "aierror:")
        .or_else(|| strip_prefix_ci(rest, "inferenceupstreamerror:"))
    {
        rest = r.trim_start();
        wrapped = true;
    }
    let rows = || {
        crate::classify::tables::provider_tables()
            .filter(|t| t.envelope == crate::classify::tables::Envelope::Cloudflare)
            .flat_map(|t| t.rows.iter())
    };
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 4 && rest.as_bytes().get(digits) == Some(&b':') {
        let code = format!("errors_{}", &rest[..digits]);
        return rows().any(|r| r.code == code).then_some(code);
    }
    if !wrapped {
        return None;
    }
    let head = rest.to_ascii_lowercase();
    rows()
        .find(|r| !r.message.is_empty() && head.starts_with(&r.message.to_ascii_lowercase()))
        .map(|r| r.code.to_owned())
}

fn strip_prefix_ci<'a>(s: &'a str, prefix: &str) -> Option<&'a str> {
    let head = s.get(..prefix.len())?;
    head.eq_ignore_ascii_case(prefix)
        .then(|| &s[prefix.len()..])
}

#[cfg(test)]
mod tests {
    #[test]
    fn cloudflare_binding_heads_name_their_code() {
        // Wordings of the Workers AI binding (developers.cloudflare.com/workers-ai/platform/errors;
        // cloudflare/workers-sdk prints AiError's "<code>: <message>").
        let cases = [
            (
                "3040: Capacity temporarily exceeded, please try again.",
                Some("errors_3040"),
            ),
            (
                "AiError: 3036: You have used up your daily free allocation",
                Some("errors_3036"),
            ),
            (
                "AiError: AiError: Request timeout (5f0c)",
                Some("errors_3007"),
            ),
            ("AiError: Request was aborted", Some("errors_3008")),
            (
                "InferenceUpstreamError: 3040: No more data centers",
                Some("errors_3040"),
            ),
            ("AiError: The model name is invalid", Some("errors_3042")),
            // Not a code of the table, or no binding's name before a description.
            ("1113: Your account is in arrears", None),
            ("Request timeout", None),
            ("2024: a year", None),
        ];
        for (text, want) in cases {
            assert_eq!(cloudflare_head(text).as_deref(), want, "{text}");
        }
    }

    use super::*;

    fn codes(p: &ProviderError) -> Vec<&str> {
        p.codes.iter().map(String::as_str).collect()
    }

    #[test]
    fn usual_envelopes() {
        let p = parse(r#"{"error":{"message":"m","type":"insufficient_quota","param":null,"code":"insufficient_quota"}}"#).unwrap();
        assert_eq!(codes(&p), ["insufficient_quota"]);
        assert_eq!(p.message.as_deref(), Some("m"));
        assert!(p.has_error);

        let p = parse(r#"[{"error":{"code":429,"message":"x","status":"RESOURCE_EXHAUSTED"}}]"#)
            .unwrap();
        assert_eq!(
            (codes(&p), p.numeric_code),
            (vec!["resource_exhausted"], Some(429))
        );

        let p =
            parse(r#"{"__type":"com.amazon.coral#ThrottlingException","message":"Rate exceeded"}"#)
                .unwrap();
        assert_eq!(codes(&p), ["throttlingexception"]);

        let p = parse(r#"{"error":{"code":"content_filter","innererror":{"code":"ResponsibleAIPolicyViolation"},"message":"x"}}"#).unwrap();
        assert_eq!(
            codes(&p),
            ["responsibleaipolicyviolation", "content_filter"]
        );

        let p = parse(r#"{"error":"Input validation error: too long","error_type":"validation"}"#)
            .unwrap();
        assert_eq!(codes(&p), ["validation"]);
        assert_eq!(
            p.message.as_deref(),
            Some("Input validation error: too long")
        );

        let p = parse(r#"{"detail":"Not Found"}"#).unwrap();
        assert_eq!(p.message.as_deref(), Some("Not Found"));
        assert!(!p.says_something());

        assert!(parse("<html>502 Bad Gateway</html>").is_none());
        assert!(parse("{not json").is_none());
    }

    /// OpenRouter puts the upstream provider's body in `error.metadata.raw`; its codes come
    /// first and its message is kept.
    #[test]
    fn nested_upstream_errors_are_read() {
        let body = r#"{"error":{"message":"Provider returned error","code":429,"metadata":{"raw":"{\"error\":{\"message\":\"You exceeded your current quota\",\"type\":\"insufficient_quota\",\"code\":\"insufficient_quota\"}}","provider_name":"OpenAI"}}}"#;
        let p = parse(body).unwrap();
        assert_eq!(codes(&p), ["insufficient_quota"]);
        assert_eq!(p.numeric_code, Some(429));
        assert_eq!(
            p.message.as_deref(),
            Some("Provider returned error\nYou exceeded your current quota")
        );

        let body = r#"{"error":{"message":"Provider returned error","code":429,"metadata":{"raw":"google/gemini-2.0-flash-exp:free is temporarily rate-limited upstream"}}}"#;
        let p = parse(body).unwrap();
        assert!(p.codes.is_empty());
        assert!(p.message.unwrap().contains("rate-limited upstream"));

        // A chain of raws deeper than MAX_NESTING stops, without failing.
        let mut raw = r#"{"error":{"code":"deepest"}}"#.to_owned();
        for _ in 0..6 {
            raw = serde_json::json!({"error": {"metadata": {"raw": raw}}}).to_string();
        }
        let p = parse(&raw).unwrap();
        assert!(p.codes.is_empty());
    }

    #[test]
    fn envelopes_quoted_in_text() {
        let p = from_text(r#"stream error: {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}"#).unwrap();
        assert_eq!(codes(&p), ["overloaded_error"]);
        assert!(p.has_error);

        let p = from_text("Error code: 429 - {'error': {'message': 'Rate limit reached', 'type': 'tokens', 'param': None, 'code': 'rate_limit_exceeded'}}").unwrap();
        // Read as the envelope it prints: code before type, and its message.
        assert_eq!(codes(&p), ["rate_limit_exceeded", "tokens"]);
        assert_eq!(p.message.as_deref(), Some("Rate limit reached"));

        // The envelope's own type speaks, never an envelope its message quotes.
        let p = from_text("Error code: 400 - {'error': {'message': 'Invalid tool result: {\"type\": \"error\", \"error\": {\"type\": \"overloaded_error\", \"message\": \"Overloaded\"}}', 'type': 'invalid_request_error', 'param': None, 'code': None}}").unwrap();
        assert_eq!(codes(&p), ["invalid_request_error"]);
        assert!(!p.event);

        let p = from_text("429 RESOURCE_EXHAUSTED. {'error': {'code': 429, 'message': 'Resource has been exhausted', 'status': 'RESOURCE_EXHAUSTED'}}").unwrap();
        assert_eq!(
            (codes(&p), p.numeric_code),
            (vec!["resource_exhausted"], Some(429))
        );

        let p = from_text("An error occurred (ThrottlingException) when calling the InvokeModel operation (reached max retries: 4): Too many requests").unwrap();
        assert_eq!(codes(&p), ["throttlingexception"]);

        assert!(from_text("Connection refused").is_none());
        assert!(from_text("{ nothing here }").is_none());
        assert!(from_text("").is_none());
    }

    /// Tencent Cloud API 3.0's envelope, as a body and as its SDKs print it.
    #[test]
    fn tencent_envelopes() {
        let p = parse(r#"{"Response":{"Error":{"Code":"AuthFailure.SignatureFailure","Message":"The provided credentials could not be validated."},"RequestId":"ed93f3cb"}}"#).unwrap();
        assert_eq!(codes(&p), ["authfailure.signaturefailure"]);
        assert_eq!(
            p.message.as_deref(),
            Some("The provided credentials could not be validated.")
        );
        assert!(p.has_error && p.answer_in_ok);
        // A successful answer has no Error and says nothing.
        assert!(parse(r#"{"Response":{"RequestId":"x","Choices":[]}}"#)
            .map_or(true, |p| !p.says_something()));

        let p = from_text("[TencentCloudSDKException] code:LimitExceeded message:超过配额限制。 requestId:b6fa436c").unwrap();
        assert_eq!(codes(&p), ["limitexceeded"]);
        let p = from_text("[TencentCloudSDKError] Code=InternalError.BackendTimeout, Message=Backend timeout, please retry it later, RequestId=3d46603a").unwrap();
        assert_eq!(codes(&p), ["internalerror.backendtimeout"]);
        // A status after "code:" is no code name.
        assert!(
            from_text("error code: 429 message: slow down").map_or(true, |p| p.codes.is_empty())
        );
    }

    #[test]
    fn codes_are_normalised() {
        assert_eq!(
            normalize_code("com.amazon.coral#ThrottlingException"),
            "throttlingexception"
        );
        assert_eq!(
            normalize_code("ValidationException:http://internal.amazon.com/coral/x/"),
            "validationexception"
        );
        assert_eq!(normalize_code("rate_limit_exceeded"), "rate_limit_exceeded");
        assert_eq!(normalize_code(""), "");
    }

    /// The typed reader and the `Value` reader read every body of the shared vectors and the
    /// public corpus alike (where the typed one answers at all).
    #[test]
    fn typed_and_value_readers_agree() {
        let root = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests");
        let mut bodies = 0;
        for dir in ["vectors", "corpus"] {
            for entry in std::fs::read_dir(root.join(dir)).unwrap() {
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
                            for key in ["body", "message"] {
                                if let Some(Value::String(b)) = m.get(key) {
                                    let t = b.trim_start();
                                    if let Some(fast) = typed::parse(t, 0) {
                                        assert_eq!(Some(fast), parse_value(t), "{b}");
                                        bodies += 1;
                                    }
                                }
                            }
                            stack.extend(m.values());
                        }
                        Value::Array(a) => stack.extend(a),
                        _ => {}
                    }
                }
            }
        }
        assert!(bodies > 200, "only {bodies} bodies read");
    }

    /// Deep nesting is refused by serde_json's recursion limit, never a stack overflow.
    #[test]
    fn deep_nesting_is_refused() {
        let deep = "[".repeat(100_000);
        assert!(parse(&deep).is_none());
        let deep = format!("{}{}", "{\"a\":".repeat(100_000), "1");
        assert!(parse(&deep).is_none());
        assert!(from_text(&deep).is_none());
    }
}

/// (batch 28) A validator's issue and a logger's record are not a provider's envelope.
#[cfg(test)]
mod batch28b_tests {
    use super::from_text;
    use crate::category::Category;
    use crate::classify::classify;
    use crate::failure::Failure;

    #[test]
    fn zod_issues_are_no_envelope() {
        // Zod v3 and v4 ZodIssue JSON as apps print them.
        for text in [
            "Failed to call LLM: [{\"code\": \"invalid_type\", \"expected\": \"object\", \"received\": \"array\", \"path\": [], \"message\": \"Expected object, received array\"}]",
            "[{\"expected\":\"string\",\"code\":\"invalid_type\",\"path\":[\"name\"],\"message\":\"Invalid input\"}]",
        ] {
            assert!(from_text(text).is_none(), "{text}");
        }
        // A provider's envelope with a code is still read.
        assert!(
            from_text("{\"error\": {\"code\": \"invalid_type\", \"message\": \"x\"}}").is_some()
        );
    }

    #[test]
    fn type_error_without_error_object_is_no_stream_event() {
        // GraphRAG's logger record, cut (graphrag#1228): no error object, no stream event.
        let graphrag = "{\"type\": \"error\", \"data\": \"Error Invoking LLM\", \"stack\":";
        assert!(from_text(graphrag).is_some_and(|p| !p.event));
        let c = classify(&Failure::new(graphrag));
        assert_eq!((c.category, c.transient), (Category::Unknown, false));
        // Anthropic's event, cut after its error object began: still an event.
        let cut = "{\"type\": \"error\", \"error\": {\"type\": \"overloaded_error\", \"message\": \"Overl";
        assert!(from_text(cut).is_some_and(|p| p.event));
    }
}
