//! Natures said in a client's or app's own words, as a subject and what happened to it within
//! one clause ("the stream unexpectedly ended", "connection to the server was lost", "request
//! rate too high", "llama runner process has terminated", "API key is invalid"), read where no
//! status, code, class or phrase of the other tables decided (`classify::nearby`).
//!
//! The phrase tables list whole wordings as each source prints them; these rows list the
//! parts, so a wording nobody here has read ("SSE stream was closed before completion", "the
//! backend worker crashed") is read as its parts say. Each family names its sources: the
//! transport libraries' and servers' own messages (RFC 9110 for the reason phrases; aiohttp,
//! httpx, undici, OkHttp, .NET, Go net/http and Ollama for the transport and process words;
//! the Chinese, Japanese, Korean, Spanish, Portuguese, French, German and Russian words of
//! "try again" as the main tables' `words` rows give them). Families are tried in order, the
//! permanent ones first: a text that names money and asks to try again is a bill.

use crate::category::Category::{self, *};

/// One family: a subject, then (unless `outcomes` is empty) one of its outcomes in the same
/// clause, within `span` bytes, after it (or before it when `either_order`).
pub struct Family {
    /// What the clause is about ("stream", "connection", "api key").
    pub subjects: &'static [&'static str],
    /// What happened to it ("ended", "lost", "invalid"); empty: the subject alone says it.
    pub outcomes: &'static [&'static str],
    /// The nature the two say together.
    pub category: Category,
    /// How many bytes may lie between subject and outcome.
    pub span: usize,
    /// Whether the outcome may come first ("lost connection", "invalid api key").
    pub either_order: bool,
    /// Whether subject and outcome must stand in one clause (no sentence's stop between).
    pub one_clause: bool,
}

const fn alone(subjects: &'static [&'static str], category: Category) -> Family {
    Family {
        subjects,
        outcomes: &[],
        category,
        span: 0,
        either_order: false,
        one_clause: true,
    }
}

const fn near(
    subjects: &'static [&'static str],
    outcomes: &'static [&'static str],
    category: Category,
    either_order: bool,
) -> Family {
    Family {
        subjects,
        outcomes,
        category,
        span: 48,
        either_order,
        one_clause: true,
    }
}

/// A failure named in one sentence and the ask to retry in the next ("Something went wrong.
/// Please try again."): subject first, within two short sentences.
const fn then(
    subjects: &'static [&'static str],
    outcomes: &'static [&'static str],
    category: Category,
) -> Family {
    Family {
        subjects,
        outcomes,
        category,
        span: 64,
        either_order: false,
        one_clause: false,
    }
}

/// Words of a key or credential, for the two key families.
const KEY: &[&str] = &[
    "api key",
    "api-key",
    "apikey",
    "api_key",
    "access key",
    "secret key",
    "access token",
    "credential",
    "credentials",
    "密钥",
    "令牌",
    "凭证",
    "凭据",
];

/// The families, in priority order.
pub const FAMILIES: &[Family] = &[
    // Money: a bill, a balance, credits (the words of `tables::BILLING_HINTS` that name money
    // and nothing else; "plan" and "upgrade" also name rate tiers, so they are not here).
    alone(
        &[
            "invoice",
            "invoices",
            "billing",
            "payment",
            "credit balance",
            "insufficient credits",
            "out of credits",
            "no credits",
            "top up",
            "recharge",
            "余额",
            "充值",
            "欠费",
        ],
        PaymentRequired,
    ),
    // (batch 31a) A relay's quota of credits spent, in its words: one-api / new-api "user
    // quota is not enough" (`insufficient_user_quota`), "token quota is not enough", 额度不足;
    // "insufficient user quota" whatever words stand between. A relay's quota is money it
    // holds for the user; a window's quota says per minute or day, read by the families above
    // and the main tables first.
    near(
        &["quota", "额度"],
        &["is not enough", "not enough", "insufficient", "不足"],
        PaymentRequired,
        true,
    ),
    // A key refused (openai-python "Incorrect API key provided", DashScope "Invalid API-key
    // provided", "The API key you provided is invalid", "credentials have expired").
    near(
        KEY,
        &[
            "invalid",
            "incorrect",
            "expired",
            "revoked",
            "wrong",
            "not valid",
            "rejected",
            "无效",
            "错误",
            "不正确",
            "过期",
        ],
        Unauthorized,
        true,
    ),
    // A key never given ("OPENAI_API_KEY is not set", the AI SDK's "API key is missing",
    // "No API key provided").
    near(
        KEY,
        &[
            "missing",
            "not set",
            "not provided",
            "not configured",
            "no ",
            "required",
            "未设置",
            "未配置",
        ],
        Configuration,
        true,
    ),
    // Input over the model's length ("the prompt is too long", "input exceeds the maximum
    // length", "conversation too large", 输入过长): permanent, and read before any "please try
    // again" that comes with it.
    near(
        &[
            "context",
            "prompt",
            "input",
            "conversation",
            "message",
            "messages",
            "输入",
            "上下文",
        ],
        &[
            "too long",
            "too large",
            "exceeds",
            "maximum length",
            "max length",
            "过长",
            "超长",
            "超出",
        ],
        ContextOverflow,
        false,
    ),
    // An allowance of a day or more, used up ("daily limit reached", "monthly quota
    // exhausted", 今日额度已用完): no retry budget outlasts it (CONTRACT §2).
    near(
        &[
            "daily",
            "monthly",
            "today's",
            "today",
            "tomorrow",
            "next month",
            "per day",
            "per month",
            "今日",
            "每日",
            "本月",
        ],
        &[
            "limit",
            "quota",
            "exceeded",
            "reached",
            "exhausted",
            "used up",
            "上限",
            "用完",
            "额度",
        ],
        PaymentRequired,
        true,
    ),
    // Access refused ("access denied", "permission denied", "not allowed in your region"):
    // the same key gets the same answer.
    near(
        &[
            "access",
            "permission",
            "region",
            "country",
            "location",
            "account",
            "organization",
            "权限",
        ],
        &[
            "denied",
            "forbidden",
            "not allowed",
            "restricted",
            "not supported",
            "not available",
            "unavailable",
            "拒绝",
        ],
        Forbidden,
        true,
    ),
    // Content refused ("your prompt was flagged", "output blocked as unsafe", "request
    // violates our policy", 内容违规 / 敏感).
    near(
        &[
            "content", "prompt", "request", "image", "input", "output", "response", "内容",
        ],
        &[
            "flagged",
            "blocked",
            "violates",
            "violation",
            "unsafe",
            "inappropriate",
            "违规",
            "敏感",
        ],
        ContentFiltered,
        true,
    ),
    // A server's missing part ("backend not found: llama-cpp", "failed to load model weights",
    // "library not found"), then a model or route that does not exist ("the model `x` does not
    // exist", "deployment not found"): the same on every retry, read before any transient
    // family a wrapper's words bring ("Stream ended with error ... backend not found").
    near(
        &["backend", "module", "library", "weights", "loader", "file"],
        &[
            "not found",
            "failed to load",
            "could not load",
            "unable to load",
            "cannot load",
            "can't load",
            "no such",
            "missing",
        ],
        Configuration,
        true,
    ),
    near(
        &["model", "deployment", "endpoint", "route", "模型"],
        &[
            "not found",
            "does not exist",
            "no such",
            "not exist",
            "不存在",
        ],
        NotFound,
        true,
    ),
    // An answer that came but could not be read ("json: cannot unmarshal", "failed to parse
    // response", "could not deserialize", "malformed response"): the same answer again, read
    // before the stream family's "response body ... failed".
    alone(
        &[
            "unmarshal",
            "deserialize",
            "deserialization",
            "failed to parse",
            "could not parse",
            "unable to parse",
            "cannot parse",
            "parse error",
            "while parsing",
            "malformed",
        ],
        InvalidResponse,
    ),
    // (batch 19) An answer that came with nothing in it, said of the reply ("response.choices is
    // empty", "the completion was empty", "reply came back empty"), the parts of the phrase
    // tables' "empty response".
    near(
        &[
            "response",
            "reply",
            "completion",
            "choices",
            "candidates",
            "output",
        ],
        &[
            "is empty",
            "was empty",
            "are empty",
            "were empty",
            "came back empty",
        ],
        InvalidResponse,
        false,
    ),
    // A rate in words ("request rate too high", "too many concurrent requests", "concurrency
    // limit reached", "QPS exceeded"). Token counts are no subject: "tokens exceeded" is as
    // often a context as a rate.
    near(
        &[
            "requests",
            "request rate",
            "request limit",
            "rate",
            "concurrency",
            "concurrent",
            "qps",
            "rpm",
            "frequency",
            "请求",
            "并发",
            "频率",
        ],
        &[
            "too many",
            "too high",
            "too frequent",
            "too fast",
            "too quickly",
            "too often",
            "too frequently",
            "high",
            "exceeded",
            "limit reached",
            "reached",
            "over limit",
            "over the limit",
            "过多",
            "过高",
            "过快",
            "超限",
        ],
        RateLimited,
        true,
    ),
    // The ask to send less ("Slow down", "you are sending too quickly"): only a throttle asks.
    alone(&["slow down", "slowdown"], RateLimited),
    // A busy server in words ("the server is under heavy load", "service busy", 系统繁忙).
    alone(
        &[
            "busy",
            "heavy load",
            "high load",
            "under load",
            "high traffic",
            "at capacity",
            "繁忙",
            "过载",
            "拥挤",
        ],
        Overloaded,
    ),
    // A stream cut ("stream ended unexpectedly", "SSE connection closed before completion",
    // "unexpected end of stream", node-fetch's "Premature close", OkHttp's "stream was reset").
    near(
        &[
            "stream",
            "streaming",
            "sse",
            "event stream",
            "event-stream",
            "response body",
            "chunked",
        ],
        &[
            "ended",
            "failed",
            "closed",
            "terminated",
            "interrupted",
            "aborted",
            "broken",
            "broke",
            "cut",
            "reset",
            "dropped",
            "disconnected",
            "unexpected end",
            "error decoding",
            "premature",
            "prematurely",
            "incomplete",
            "中断",
            "断开",
        ],
        StreamInterrupted,
        true,
    ),
    // A reply that stopped before its end, in a client's words ("the response ended
    // prematurely", .NET's "The response ended prematurely", "completion finished without a
    // finish reason", "output interrupted"). Not "truncated" or "cut off": a length limit says
    // those of a complete reply.
    near(
        &["response", "reply", "completion", "output", "message"],
        &[
            "ended early",
            "ended before",
            "ended prematurely",
            "ended unexpectedly",
            "interrupted",
            "completed without",
            "finished without",
            "before completion",
            "closed before",
        ],
        StreamInterrupted,
        false,
    ),
    // A far end not reached, whoever it is ("Ollama at ... could not be reached", "network is
    // unreachable", ENETUNREACH / EHOSTUNREACH as Node and Go word them).
    alone(
        &[
            "unreachable",
            "could not be reached",
            "cannot be reached",
            "can't be reached",
            "not reachable",
            // MemGPT's "Make sure that the vLLM server is running and reachable at ..."
            // (letta-ai/letta#1185): the hint it gives when the endpoint did not answer.
            "running and reachable",
        ],
        Connection,
    ),
    // Go's `io.EOF` and `io.ErrUnexpectedEOF` as clients print them ("Post ...: EOF",
    // "unexpected EOF"): the peer closed the connection under the exchange. (A parser's "EOF
    // while parsing" is read above, as an answer that could not be read.)
    alone(&["eof"], Connection),
    // axios's "Network Error" (lib/core/AxiosError.js ERR_NETWORK) and okio's EOF on a closed
    // connection as OkHttp reports it ("\n not found: limit=0 content=…").
    alone(&["network error", "not found: limit="], Connection),
    // A connection failed, lost or never made ("connection to the server was lost", "lost
    // connection", "failed to connect", "network connection failed", Go's "connection reset by
    // peer", a browser's "Failed to fetch", undici's "fetch failed"; 连接失败).
    near(
        &[
            "connection",
            "connect",
            "network",
            "socket",
            "fetch",
            "连接",
            "网络",
        ],
        &[
            "lost",
            "dropped",
            "refused",
            "reset",
            "failed",
            // Tabby's chat UI: "Fail to fetch" (TabbyML/tabby#3153).
            "fail to",
            "closed",
            "changed",
            "interrupted",
            "失败",
            "断开",
            "中断",
        ],
        Connection,
        true,
    ),
    // A server not reached ("could not reach the server", "host unreachable", "the provider is
    // offline", "endpoint is down"): said of the far end, not of its answer.
    near(
        &[
            "server",
            "host",
            "endpoint",
            "provider",
            "service",
            "model",
            "服务器",
        ],
        &[
            "unreachable",
            "not reachable",
            "cannot reach",
            "can't reach",
            "could not reach",
            "unable to reach",
            "failed to reach",
            "could not be reached",
            "cannot be reached",
            "can't be reached",
            "not connected",
            "is down",
            "offline",
            // (batch 25) Claude Desktop: "MCP server image-downloader disconnected"; the MCP
            // SDKs' "Server disconnected".
            "disconnected",
            "不可达",
            "无法访问",
        ],
        Connection,
        true,
    ),
    // A service not there for now ("language model unavailable", "the model is warming up",
    // "worker is not ready", "service under maintenance"): an account, region or plan that
    // refuses it is read above, as access refused.
    near(
        &[
            "model", "service", "server", "provider", "api", "endpoint", "engine", "backend",
            "worker",
        ],
        &[
            "unavailable",
            "not available right now",
            "currently not available",
            "under maintenance",
            "warming up",
            "not ready",
            "starting up",
            "is loading",
        ],
        ServerError,
        false,
    ),
    // A server process that died under the request ("llama runner process has terminated",
    // "worker crashed", "backend exited unexpectedly", "engine died"): the next request gets a
    // new one.
    near(
        &[
            "runner",
            "worker",
            "engine",
            "backend",
            "process",
            "subprocess",
            "server",
            "instance",
            "replica",
        ],
        &[
            "terminated",
            "crashed",
            "died",
            "dead",
            "exited unexpectedly",
            "killed",
            "segmentation fault",
            "崩溃",
        ],
        ServerError,
        false,
    ),
    // The author says it passes, by time: "try again later", "come back later", "temporarily
    // unable", in the languages the main tables read (`tables::words`, `tables::TRY_LATER`).
    alone(
        &[
            "try again later",
            "retry later",
            "try later",
            "come back later",
            "check back later",
            "try again shortly",
            "try again in a few",
            "please wait",
            "temporarily unable",
            "temporary failure",
            "temporary error",
            "请稍后",
            "しばらくしてから",
            "잠시 후",
        ],
        ServerError,
    ),
    // A bare "please try again" says it passes only beside a failure that names nothing
    // ("Something went wrong. Please try again", "Sorry, your request failed. Please try
    // again", "An unexpected error occurred; retry your request"): after "Invalid request" or
    // "Your session has expired" it asks the caller to change something first.
    then(
        &[
            "something went wrong",
            "went wrong",
            "error occurred",
            "an error has occurred",
            "unexpected error",
            "unknown error",
            "internal error",
            "internal failure",
            "unknown failure",
            "request failed",
            // (batch 27) "Request to OpenAI failed. Please try again." (ResearchGPT): the
            // request and its target, nothing of what went wrong.
            "request to",
            // (batch 29) EmbedAI's "Error Fetching Answer. Please try again."; Junie's "The task
            // was stopped due to an error. Try again.": a failure that names nothing.
            "error fetching",
            "due to an error",
            // (batch 31b) A bot's "That's an error! Try again.": an error exclaimed and nothing
            // more ("Error! Please try again"). (A bare "an error" is no subject: "OpenAI
            // returned an error. Try modifying your parameters and try again" asks for a change.)
            "error!",
            "sorry",
            "oops",
            "unfortunately",
            "出了点问题",
            "出错了",
            "发生错误",
            "未知错误",
            "请求失败",
            "algo salió mal",
            "ocurrió un error",
            "ocorreu um erro",
            "une erreur",
            "ein fehler ist aufgetreten",
            "etwas ist schiefgelaufen",
            "что-то пошло не так",
            "произошла ошибка",
            "エラーが発生",
            "問題が発生",
            "오류가 발생",
            // (batch 34b) Grafana's "Failed to generate content using LLM / Please try again or
            // if the problem persists, contact ...": a generation that failed and nothing of why.
            "failed to generate",
            "generation failed",
        ],
        &[
            "please try again",
            "try again",
            "please retry",
            "try your request again",
            "retry your request",
            "try the request again",
            "retry the request",
            "请重试",
            "重试",
            "再试",
            "もう一度お試し",
            "再度お試し",
            "다시 시도",
            "tente novamente",
            "intente de nuevo",
            "inténtelo de nuevo",
            "vuelva a intentarlo",
            "réessayez",
            "réessayer",
            "erneut versuchen",
            "versuchen sie es erneut",
            "попробуйте еще раз",
            "попробуйте ещё раз",
            "повторите попытку",
            // (batch 26) ChatGPT's "Something went wrong. If this issue persists please contact
            // us through our help center": try again first, only then ask for help.
            "if this issue persists",
            "if the issue persists",
        ],
        ServerError,
    ),
    // (batch 19) A local server's model that would not load (LM Studio's "Failed to load model",
    // "Failed to load the model ... Error loading model"; llama.cpp's "unable to load model";
    // LocalAI's "could not load model"): the model or its settings (context size, memory), the
    // same on every try. Last: a cause the text names ("rpc error: code = Unavailable ... EOF",
    // a backend that died while loading) is read first, by the tables or the families above.
    near(
        &["model", "the model"],
        &[
            "failed to load",
            "unable to load",
            "could not load",
            "cannot load",
            "error loading",
        ],
        Configuration,
        true,
    ),
    // (batch 25) A relay or app that does not serve a model yet (bypass's "model
    // 'windsurf/claude-3-7-sonnet' is not yet supported"; "model X not supported yet"): its own
    // list of models lacks it until a release adds it, set-up on every try.
    near(
        &["model"],
        &[
            "not yet supported",
            "not supported yet",
            "not yet available in",
        ],
        Configuration,
        false,
    ),
    // (batch 25) A provider's own words for a model it does not serve (SambaNova: "The
    // requested model (X) is not available on SambaNova Cloud"; "The requested model X is not
    // supported"; "requested model does not exist"): not found where the request went.
    near(
        &["requested model", "the model you requested"],
        &[
            "is not available on",
            "not available on this",
            "is not supported",
            "is no longer available",
        ],
        NotFound,
        false,
    ),
    // (batch 31a) A local model server that is not running ("The server of local inference
    // endpoints is not running, please start it first", JARVIS's health check; "LM Studio
    // server is not running"): nothing answers at its address, as a refused connection says.
    // An app the relay needs ("Windsurf IDE is not running") is set-up, read by the main tables.
    near(
        &["server", "endpoint", "endpoints", "服务", "服务器"],
        &[
            "is not running",
            "not running",
            "isn't running",
            "未运行",
            "未启动",
        ],
        Connection,
        false,
    ),
    // (batch 34b) A client that refuses to run with an old tool or runtime ("You need curl
    // version 7.76 or newer", "requires Node.js version 18 or later"): the set-up must change.
    near(
        &["version"],
        &["or newer", "or later"],
        Configuration,
        false,
    ),
];

/// HTTP reason phrases (RFC 9110 §15, with the older wordings servers still send): a whole
/// message, or a whole quoted value (`{"detail":"Not Found"}`, Starlette's HTTPException
/// default detail is its status's phrase), is that status.
pub const REASON_PHRASES: &[(&str, u16)] = &[
    ("bad request", 400),
    ("unauthorized", 401),
    ("payment required", 402),
    ("forbidden", 403),
    ("not found", 404),
    ("method not allowed", 405),
    ("request timeout", 408),
    ("conflict", 409),
    ("gone", 410),
    ("content too large", 413),
    ("payload too large", 413),
    ("request entity too large", 413),
    ("unsupported media type", 415),
    ("unprocessable entity", 422),
    ("unprocessable content", 422),
    ("too many requests", 429),
    ("internal server error", 500),
    ("not implemented", 501),
    ("bad gateway", 502),
    ("service unavailable", 503),
    ("gateway timeout", 504),
];

/// Words that say the number after them is an answer's status, in the clients' own words and
/// languages ("The server responded with 503", "Server returned 529", "upstream error: 502",
/// "Request failed (503)", "Erreur 503", 服务器返回 502, 状态码 429, "Ошибка 503"). Read
/// last, and only for a number of three digits standing alone that no unit follows
/// ([`NOT_STATUS_UNITS`]).
pub const ANSWER_WORDS: &[&str] = &[
    "responded",
    "responded with",
    "returned",
    "answered",
    "response",
    "replied",
    "error",
    "failed",
    "failure",
    "status",
    "code",
    "http",
    "erreur",
    "fehler",
    "código",
    "ошибка",
    "返回",
    "状态",
    "状态码",
    "错误",
    "错误码",
    "失败",
];

/// Words after a number that make it a count, not a status ("returned 500 tokens").
pub const NOT_STATUS_UNITS: &[&str] = &[
    "token",
    "tokens",
    "ms",
    "s",
    "sec",
    "secs",
    "seconds",
    "bytes",
    "kb",
    "mb",
    "items",
    "results",
    "rows",
    "records",
    "words",
    "characters",
    "chars",
    "lines",
    "times",
    "requests",
    "calls",
    "files",
    "messages",
    "%",
    "个",
    "条",
    "次",
];

/// Words that name the caller's own fault or a standing refusal: where any of them is said, no
/// transient family of [`FAMILIES`] decides, and the text stays unknown (not retried: the
/// cheaper mistake). "Your account has been suspended. Please try again later", "Token
/// expired, please retry", "Unsupported file type. Please retry with a PDF".
pub const CALLER_FAULT: &[&str] = &[
    "invalid",
    "expired",
    "authentication",
    "unauthorized",
    "unauthenticated",
    "login",
    "log in",
    "sign in",
    "signing in",
    "not support",
    "not supported",
    "does not support",
    "unsupported",
    "disallowed",
    "not allowed",
    "missing",
    "required",
    "unknown parameter",
    "subscription",
    "renew",
    "renewing",
    "suspended",
    "disabled",
    "banned",
    "blocked",
    "deactivated",
    "permission",
    "no access",
    "do not have access",
    "does not have access",
    "quota",
    "balance",
    "credits",
    "billing",
    "payment",
    "tomorrow",
    "next month",
    "usage cap",
    "could not be processed",
    "too large",
    "too long",
    "maximum length",
    "api key",
    "wrong password",
    "wrong key",
    "wrong credentials",
    "password",
    "plan",
    "upgrade",
    "trial",
    "arrears",
    "debt",
    "overdue",
    "unpaid",
    "invoice",
    "out of memory",
    "oom",
    "corrupt",
    "corrupted",
    "deprecated",
    "decommissioned",
    "no longer",
    "not found",
    "does not exist",
    "无效",
    "过期",
    "未授权",
    "不支持",
    "余额",
    "额度",
    "欠费",
    "封禁",
];

#[cfg(test)]
mod batch25a_tests {
    use crate::category::Category::*;
    use crate::classify::classify;
    use crate::failure::Failure;

    /// (batch 25) A provider's words for a model it does not serve (SambaNova's deprecations).
    #[test]
    fn requested_model_not_served() {
        for m in [
            "The requested model (DeepSeek-R1-Distill-Llama-70B) is not available on SambaNova Cloud. For more information, please visit the deprecations page.",
            "The requested model Meta-Llama-3.1-405B-Instruct is no longer available.",
            "The requested model 'gpt-x' is not supported.",
        ] {
            let c = classify(&Failure::new(m).with_class(["openai.APIStatusError"]));
            assert_eq!((c.category, c.transient), (NotFound, false), "{m}");
        }
    }
}

#[cfg(test)]
mod batch26b_tests {
    use crate::category::Category::*;
    use crate::failure::Failure;

    use crate::classify::tables::decides::each_with as check;

    /// (batch 26) Catch-alls that ask to try again in other words.
    #[test]
    fn catch_alls_that_ask_again() {
        check(vec![
            (Failure::new("Something went wrong. If this issue persists please contact us through our help center at help.openai.com."), ServerError, true),
            (Failure::new("An error occurred. If the issue persists, contact support."), ServerError, true),
            (Failure::new("Unfortunately, the request could not be completed. Please try again."), ServerError, true),
        ]);
    }
}

#[cfg(test)]
mod batch29b_tests {
    use crate::category::Category::*;
    use crate::classify::classify;
    use crate::failure::Failure;

    /// (batch 29) "Try again" catch-alls in new wordings (EmbedAI "Error Fetching Answer.
    /// Please try again."; JetBrains Junie "The task was stopped due to an error. Try again."):
    /// a failure that names nothing, with the advice to retry.
    #[test]
    fn new_catch_alls_that_say_try_again() {
        for text in [
            "Error Fetching Answer. Please try again.",
            "Error fetching results, please try again",
            "The task was stopped due to an error. Try again.",
            "Generation stopped due to an error. Please retry.",
        ] {
            let c = classify(&Failure::new(text));
            assert_eq!((c.category, c.transient), (ServerError, true), "{text}");
        }
    }
}
