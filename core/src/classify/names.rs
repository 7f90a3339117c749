//! Exception class names the exact table does not know, read by their words
//! (`tables::names`): in the class chain a binding passes, and in a message that prints the
//! name of the class that raised it ("InvokeServerUnavailableError: ...",
//! "org.springframework.ai.retry.TransientAiException: HTTP ...", "Caused by:
//! java.net.http.HttpTimeoutException: request timed out").
//!
//! Read last, where no status, code, known class or phrase decided: a name is the raising
//! layer's own verdict, weaker than anything the server said, stronger than nothing.

use super::tables::names::{NameWord, CLASS_SUFFIXES, NEED_SUFFIX, SILENT, WORDS};
use super::tables::wrappers;
use crate::category::Category;

/// The short name of a class (after its last `.`, `::`, `$`, `/` or PHP's `\`) and whether it carries a
/// class suffix, if `word` reads as a class: a capitalised name ending in a class suffix
/// (longer than the suffix), or a CamelCase one.
fn short_class(word: &str) -> Option<(&str, bool)> {
    let short = word
        .rsplit(['.', ':', '$', '/', '\\'])
        .next()
        .unwrap_or(word);
    let first = short.bytes().next()?;
    let suffixed = CLASS_SUFFIXES
        .iter()
        .any(|s| short.len() > s.len() && short.ends_with(s));
    let camel = short.bytes().all(|b| b.is_ascii_alphanumeric())
        && short.bytes().filter(u8::is_ascii_uppercase).count() >= 2;
    (first.is_ascii_uppercase() && (suffixed || camel) && !SILENT.contains(&short))
        .then_some((short, suffixed))
}

/// The verdict of one name read as a class: its words, where a word that names only a thing
/// counts in a suffixed name alone.
fn name_category(short: &str, suffixed: bool) -> Option<Category> {
    let lower = short.to_ascii_lowercase();
    // Wrappers' own type names first (`tables::wrappers`): "InvalidProviderAPIKey" is the key's.
    let (word, c) = wrappers::NAME_WORDS
        .iter()
        .chain(WORDS)
        .find(|(w, _): &&NameWord| lower.contains(w))?;
    (suffixed || !NEED_SUFFIX.contains(word)).then_some(*c)
}

/// Candidate class names in a text: runs of name characters (letters, digits, `_`, and the
/// `.`, `::`, `$` of qualified names), in text order.
fn words_of(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | ':' | '$')))
        .map(|w| w.trim_matches(|c| matches!(c, '.' | ':' | '$')))
        .filter(|w| !w.is_empty())
}

/// How specific a verdict is when several names are printed: a permanent nature other than a
/// generic request fault first (never retry a refused key because a wrapper said "transient"),
/// then a transient one, then a generic request fault (Dify's `InvokeBadRequestError` around
/// a timeout it names).
fn rank(c: Category) -> u8 {
    match c {
        // A language's own error (JavaScript's TypeError, which undici and the browsers raise
        // for a failed fetch: "TypeError: NetworkError when attempting to fetch resource.") is
        // as generic as a request fault: a transport name beside it says more.
        Category::BadRequest
        | Category::ClientError
        | Category::Unprocessable
        | Category::Programming => 2,
        c if c.is_transient() => 1,
        _ => 0,
    }
}

/// The nature the unknown class names of a failure state: its class chain first, then the
/// names its message and wrapped messages print. `known` says what the exact class table makes
/// of a name (`None`: not listed, or listed as saying nothing); such a name is not re-read by
/// its words.
pub fn category<'a>(
    chain: impl IntoIterator<Item = &'a str>,
    texts: impl IntoIterator<Item = &'a str>,
    known: impl Fn(&str) -> Option<Option<Category>>,
) -> Option<Category> {
    let mut best: Option<Category> = None;
    let mut offer = |c: Category| {
        if best.map_or(true, |b| rank(c) < rank(b)) {
            best = Some(c);
        }
    };
    let mut read = |name: &str, from_text: bool| match known(name) {
        // A listed class decides by its row (in a text, where the chain did not carry it).
        Some(Some(c)) if from_text => offer(c),
        Some(_) => {}
        None => {
            if let Some(c) = short_class(name).and_then(|(s, suffixed)| name_category(s, suffixed))
            {
                offer(c);
            }
        }
    };
    for name in chain {
        read(name, false);
    }
    for text in texts {
        for w in words_of(text).take(MAX_WORDS) {
            read(w, true);
        }
    }
    best
}

/// At most this many words of each text are looked at (a huge message is read by its head).
const MAX_WORDS: usize = 4096;

#[cfg(test)]
mod tests {
    use super::*;
    use Category::*;

    fn read(texts: &[&str]) -> Option<Category> {
        category([], texts.iter().copied(), |_| None)
    }

    /// Names of public wrapper and client sources, not of the corpus: each read by its words.
    #[test]
    fn class_words_from_sources() {
        // Dify's model-runtime family (api/core/model_runtime/errors/invoke.py).
        assert_eq!(
            read(&["InvokeServerUnavailableError: Server Unavailable Error"]),
            Some(ServerError)
        );
        assert_eq!(
            read(&["InvokeConnectionError: Connection Error"]),
            Some(Connection)
        );
        assert_eq!(
            read(&["InvokeRateLimitError: Rate Limit Error"]),
            Some(RateLimited)
        );
        assert_eq!(
            read(&["InvokeAuthorizationError: Incorrect model credentials provided"]),
            Some(Unauthorized)
        );
        // Spring AI's retry pair (spring-ai-retry): the negation is read first.
        assert_eq!(
            read(&["org.springframework.ai.retry.TransientAiException: HTTP error"]),
            Some(ServerError)
        );
        assert_eq!(
            read(&["org.springframework.ai.retry.NonTransientAiException: HTTP error"]),
            Some(ClientError)
        );
        // Vercel AI SDK (packages/provider/src/errors).
        assert_eq!(
            read(&["AI_LoadAPIKeyError: API key is missing"]),
            Some(Configuration)
        );
        assert_eq!(
            read(&["NoSuchModelError: No such languageModel"]),
            Some(NotFound)
        );
        assert_eq!(
            read(&["AI_JSONParseError: JSON parsing failed"]),
            Some(InvalidResponse)
        );
        // JVM and .NET transports.
        assert_eq!(
            read(&["Caused by: java.net.http.HttpTimeoutException: request timed out"]),
            Some(Timeout)
        );
        assert_eq!(
            read(&[
                "okhttp3.internal.http2.StreamResetException: stream was reset: INTERNAL_ERROR"
            ]),
            Some(StreamInterrupted)
        );
        assert_eq!(
            read(&["java.net.UnknownHostException: api.example.com"]),
            Some(Configuration)
        );
        assert_eq!(
            read(&["javax.net.ssl.SSLHandshakeException: PKIX path building failed"]),
            Some(Configuration)
        );
        // LiteLLM (litellm/exceptions.py).
        assert_eq!(
            read(&["litellm.BudgetExceededError: Budget has been exceeded!"]),
            Some(PaymentRequired)
        );
        assert_eq!(
            read(&["ContextWindowExceededError: prompt is too long"]),
            Some(ContextOverflow)
        );
    }

    /// Names without a suffix (Google's api_core exceptions, httpx, http.client), set-up
    /// names, transports, and an "Invalid..." that no capacity word makes transient.
    #[test]
    fn more_names_from_sources() {
        let cases: &[(&str, Category)] = &[
            (
                "ServerError (403 PermissionDenied: aiplatform.models.predict)",
                Forbidden,
            ),
            (
                "google.api_core.exceptions.DeadlineExceeded: 504 Deadline",
                Timeout,
            ),
            ("httpx.ReadTimeout: timed out", Timeout),
            (
                "RemoteDisconnected('Remote end closed connection')",
                Connection,
            ),
            ("ModuleNotFoundError: No module named 'vllm'", Configuration),
            ("%Mint.TransportError{reason: :closed}", Connection),
            (
                "InvalidCapacity: the deployment's capacity is invalid",
                BadRequest,
            ),
            (
                "Custom { kind: InvalidData, error: \"stream did not contain valid UTF-8\" }",
                InvalidResponse,
            ),
            (
                "reactor.netty.http.client.PrematureCloseException: closed",
                Connection,
            ),
        ];
        for (text, want) in cases {
            assert_eq!(read(&[text]), Some(*want), "{text}");
        }
    }

    /// Several names: a specific permanent one wins, a generic request fault yields to a
    /// transient one; silent wrappers and lower-case words are no verdict.
    #[test]
    fn several_names_and_silent_ones() {
        assert_eq!(
            read(&["RetryError: Failed after 3 attempts. Last error: AuthenticationError"]),
            Some(Unauthorized)
        );
        assert_eq!(
            read(&["InvokeBadRequestError: wraps ReadTimeoutError"]),
            Some(Timeout)
        );
        assert_eq!(
            read(&["TransientAiException then AuthenticationError"]),
            Some(Unauthorized)
        );
        for silent in [
            "RetryError: Failed after 3 attempts.",
            "PluginInvokeError: something",
            "APIError: something",
            "an error happened: timeout error while connecting",
            "the connectionError was raised", // not capitalised: not a class
            "Error: bare",
            "OpenAI said Hello", // one capital each: no CamelCase name
            "WebSocket closed with code 1000", // a thing, not a failure
            "ConnectionString is set",
            "OpenAI said Hello", // one capital: no CamelCase name
            "InvokeError: Response output is missing",
        ] {
            assert_eq!(read(&[silent]), None, "{silent}");
        }
    }

    /// A language's generic error beside a transport name is that transport's failure.
    #[test]
    fn generic_language_errors_yield() {
        let known = |n: &str| (n == "TypeError").then_some(Some(Programming));
        assert_eq!(
            category(
                [],
                ["TypeError: NetworkError when attempting to fetch resource."],
                known
            ),
            Some(Connection)
        );
        assert_eq!(
            category([], ["TypeError: x is not a function"], known),
            Some(Programming)
        );
    }

    /// A name the exact table lists decides by its row from a text, and is not re-read by its
    /// words from the chain (the chain's own reading already ran).
    #[test]
    fn exact_rows_first() {
        let known = |n: &str| (n == "openai.RateLimitError").then_some(Some(RateLimited));
        assert_eq!(
            category([], ["openai.RateLimitError: x"], known),
            Some(RateLimited)
        );
        assert_eq!(category(["openai.RateLimitError"], [], known), None);
        assert_eq!(
            category(["my.pkg.UpstreamTimeoutException"], [], |_| None),
            Some(Timeout)
        );
    }
}
