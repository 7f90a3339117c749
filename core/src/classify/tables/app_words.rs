//! (batch 33b) Words end-user apps and editor plugins print for a failure, with no status or code
//! beside them: a runtime's own error sentence (Java's helpful NullPointerException, Emacs Lisp,
//! Vim's JSON decoder, the OpenAI .NET SDK's enum mapping), a local server's version mismatch, a
//! server's buffer limit, and the plain words of busy servers and rate limits in English and
//! Chinese.

use super::{said, stated, Phrase};
use crate::category::Category::*;

/// Read after the main permanent tables: each row names a nature they left unnamed.
pub const PERMANENT: &[Phrase] = &[
    // Java's helpful NullPointerException (JEP 358): "Cannot invoke \"X.y()\" because \"z\" is
    // null", "... because the return value of \"X.y()\" is null". The raising code dereferenced
    // a null it did not check: its own bug, whatever wrapper class names the provider.
    said("cannot invoke \"", Programming),
    said("because the return value of \"", Programming),
    said("nullpointerexception", Programming),
    // Emacs Lisp's `format` (src/editfns.c): "Format specifier doesn’t match argument type",
    // "Not enough arguments for format string" (curly or straight quote, as the build prints).
    said("format specifier doesn’t match argument type", Programming),
    said("format specifier doesn't match argument type", Programming),
    said("not enough arguments for format string", Programming),
    // Vim's json_decode() (src/json.c, E474): the reply it was given was blank, cut, or not
    // JSON: "Attempt to decode a blank string", "Unexpected end of input", "Trailing
    // characters". A reply the plugin cannot read.
    said("attempt to decode a blank string", InvalidResponse),
    said("e474: unexpected end of input", InvalidResponse),
    said("e474: trailing characters", InvalidResponse),
    said("e474: unidentified byte", InvalidResponse),
    // The OpenAI .NET SDK maps a reply's string to its enum and throws
    // ArgumentOutOfRangeException "Unknown ChatFinishReason value." for anything else (a null
    // finish_reason of a compatible server): the reply is not in the protocol's form.
    said("unknown chatfinishreason value", InvalidResponse),
    said("unknown chatmessagerole value", InvalidResponse),
    said("unknown chattoolcallkind value", InvalidResponse),
    // Ollama's capability check (server/routes.go: "%s does not support insert|generate|
    // chat|thinking"): the request asks a model for what it cannot do.
    said("does not support insert", BadRequest),
    said("does not support generate", BadRequest),
    said("does not support chat", BadRequest),
    said("does not support thinking", BadRequest),
    // Anthropic's refusal of a browser-origin call without its opt-in header (an
    // authentication_error): "CORS requests must set 'anthropic-dangerous-direct-browser-access'
    // header".
    said("dangerous-direct-browser-access", Unauthorized),
    // A local server whose version cannot load the model (Ollama: "this model may be
    // incompatible with your version of Ollama", "requires a newer version of Ollama"): the
    // remedy is an upgrade or a pull, set-up, under whatever status carries it.
    stated("incompatible with your version of", Configuration),
    stated("requires a newer version of ollama", Configuration),
    // Spring's DataBufferLimitException ("Exceeded limit on max bytes to buffer : 52428800")
    // stated by a server: the request passed the size it buffers, and fails the same way until
    // it is cut (the corpus reads a request too large as a context overflow).
    stated("exceeded limit on max bytes to buffer", ContextOverflow),
];

/// Read before the other transient tables: a busy server or a rate limit in plain words, before
/// the advice to try later that usually follows them.
pub const TRANSIENT: &[Phrase] = &[
    // "Our Servers Are Running Too Hot! Please Check Back After Some Time." (an app's page for
    // OpenAI's throttling); "the model is running way too hot" (a busy Gemini).
    said("running too hot", Overloaded),
    said("way too hot", Overloaded),
    // Chinese "the request rate exceeds the limit" (Cherry Studio's 429 text: 请求速率超过限制,
    // 请稍后再试), in its word orders.
    said("速率超过限制", RateLimited),
    said("超过速率限制", RateLimited),
    said("超出速率限制", RateLimited),
    said("速率超出限制", RateLimited),
    // Chinese "the response was interrupted" (响应中断): an answer cut on its way.
    said("响应中断", StreamInterrupted),
];
