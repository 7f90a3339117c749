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
    // Every enum of the SDK's generated code throws the same way ("Unknown ReasoningStatus
    // value. (Parameter 'value')", openai/openai-dotnet#993): the parameter's name closes it.
    said("value. (parameter 'value')", InvalidResponse),
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
    stated("no longer compatible with your version of", Configuration),
    // Spring's DataBufferLimitException ("Exceeded limit on max bytes to buffer : 52428800")
    // stated by a server: the request passed the size it buffers, and fails the same way until
    // it is cut (the corpus reads a request too large as a context overflow).
    stated("exceeded limit on max bytes to buffer", ContextOverflow),
    // A plugin's words for a reply it could not read (ProxyAI: "Unknown API response. Code:
    // 200, Body: ..."): a failing status it states is read first (`text_status`), so only an
    // answer that came, and was not understood, is left to these words.
    said("unknown api response", InvalidResponse),
];

/// Read before the other transient tables: a busy server or a rate limit in plain words, before
/// the advice to try later that usually follows them.
pub const TRANSIENT: &[Phrase] = &[
    // "Running too hot" is read with the throttles rewritten as heat (`reply_parsers`).
    // Chinese "the request rate exceeds the limit" (Cherry Studio's 429 text: 请求速率超过限制,
    // 请稍后再试), in its word orders.
    said("速率超过限制", RateLimited),
    said("超过速率限制", RateLimited),
    said("超出速率限制", RateLimited),
    said("速率超出限制", RateLimited),
    // Chinese "the response was interrupted" (响应中断): an answer cut on its way.
    said("响应中断", StreamInterrupted),
    // Chinese "please retry" (请重试) ending an app's catch-all ("抱歉，生成过程中出现了错误，
    // 请重试。"): the advice to try again with no cause, a server's failure by the labelling
    // guide, as "出错了，请重试" and "Something went wrong, please try again" are.
    said("请重试", ServerError),
];

/// A client's own timer running out, in the words of the client that kept it (Go's net/http:
/// "dial tcp ...: i/o timeout", "net/http: timeout awaiting response headers", "(Client.Timeout
/// exceeded while awaiting headers)"; Java's SocketTimeoutException "Read timed out"): read
/// under an app's 500 that relays them. A server's own wait ("timed out waiting for llama
/// runner to start") is not among them.
pub const CLIENT_TIMERS: &[&str] = &[
    "i/o timeout",
    "timeout awaiting response headers",
    "client.timeout exceeded",
    "read timed out",
];

#[cfg(test)]
mod batch33b_tests {
    use crate::category::Category::*;
    use crate::classify::tables::decides::{each, each_with};
    use crate::failure::Failure;

    /// (batch 33b) A runtime's own error sentence names the client's bug: Java's helpful
    /// NullPointerException under any wrapper class, Emacs Lisp's `format`. Texts from other
    /// threads than the corpus's.
    #[test]
    fn runtime_bug_sentences_are_the_clients_own() {
        each(vec![
            // sterlp/eclipse-peon-ai#14 (LangChain4j's Ollama helper).
            (
                Failure::new("LlmConfig(providerType=OLLAMA, model=qwen3.6:latest, url=http://localhost:11434) Cannot invoke \"dev.langchain4j.data.message.ChatMessage.type()\" because \"chatMessage\" is null"),
                Programming,
            ),
            // helidon-io/helidon#10699: a listener unboxing a usage the reply lacked.
            (
                Failure::new("java.lang.NullPointerException: Cannot invoke \"dev.langchain4j.model.output.TokenUsage.inputTokenCount()\" because the return value of \"dev.langchain4j.model.chat.response.ChatResponse.tokenUsage()\" is null"),
                Programming,
            ),
            // spring-projects/spring-ai#827, under a wrapper class that names the provider
            // unavailable (the corpus's DevoxxGenie shape): the bug, not an outage.
            (
                Failure::new("ProviderUnavailableException: Cannot invoke \"java.util.List.stream()\" because the return value of \"com.azure.ai.openai.models.ChatCompletions.getChoices()\" is null")
                    .with_class(["CompletionException", "com.example.ProviderUnavailableException"]),
                Programming,
            ),
            // s-kostyaev/ellama#79: llm-ollama--url formatting a nil port.
            (
                Failure::new("Debugger entered--Lisp error: (error \"Format specifier doesn’t match argument type\")"),
                Programming,
            ),
            (
                Failure::new("error: Not enough arguments for format string"),
                Programming,
            ),
        ]);
    }

    /// (batch 33b) A reply the client could not read, in Vim's json_decode words and the OpenAI
    /// .NET SDK's enum mapping; a stated failing status still decides first.
    #[test]
    fn replies_a_plugin_or_sdk_could_not_read() {
        each(vec![
            // kiteco/issue-tracker#106 (Neovim completion handler given an empty body).
            (
                Failure::new("Error detected while processing function kite#completion#handler:\nline 6\nE747: Attempt to decode a blank string"),
                InvalidResponse,
            ),
            (
                Failure::new("Vim:E474: Trailing characters: }"),
                InvalidResponse,
            ),
            // openai/openai-dotnet#993: the same mapping for another enum.
            (
                Failure::new("Unhandled exception. System.ArgumentOutOfRangeException: Unknown ReasoningStatus value. (Parameter 'value')\n   at OpenAI.Responses.ReasoningStatusExtensions.ToReasoningStatus(String value)"),
                InvalidResponse,
            ),
            // openai/openai-dotnet#267: Together.ai's finish reason "eos".
            (
                Failure::new("System.ArgumentOutOfRangeException: Unknown ChatFinishReason value. (Parameter 'value')\nActual value was eos.\n   at OpenAI.Chat.ChatFinishReasonExtensions.ToChatFinishReason(String value)"),
                InvalidResponse,
            ),
            (
                Failure::new("Connection failed: Unknown API response. Code: 200, Body: {\"object\":\"text_completion\"}"),
                InvalidResponse,
            ),
            // Near miss: the same plugin words around a failing status are that status.
            (
                Failure::new("Connection failed: Unknown API response. Code: 503, Body: {\"error\":\"busy\"}"),
                ServerError,
            ),
        ]);
    }

    /// (batch 33b) Ollama's own words for a request a model cannot serve (bad request) and for a
    /// model its version cannot load (set-up, over a 500 as over a 400).
    #[test]
    fn local_server_capability_and_version_words() {
        each(vec![
            // ollama/ollama#8320.
            (
                Failure::new("{\"error\":\"registry.ollama.ai/library/yi-coder:latest does not support insert\"}"),
                BadRequest,
            ),
            // carlrobertoh/ProxyAI#799.
            (
                Failure::new("{\"error\": codellama:latest does not support insert\"}"),
                BadRequest,
            ),
            // docker/genai-stack#138: under a 500.
            (
                Failure::http(500, "ValueError: Ollama call failed with status code 500. Details: llama runner: failed to load model '/root/.ollama/models/blobs/sha256:c1864a5e': this model may be incompatible with your version of Ollama. If you previously pulled this model, try updating it by running `ollama pull gemma:2b`"),
                Configuration,
            ),
            // ollama/ollama#11953.
            (
                Failure::new("Error: 500 Internal Server Error: 'llama3.2-vision' is no longer compatible with your version of Ollama and has been replaced by a newer version. To re-download, run 'ollama pull llama3.2-vision'"),
                Configuration,
            ),
            // ollama/ollama#1432, no status.
            (
                Failure::new("Error: llama runner: failed to load model '/home/h/.ollama/models/blobs/sha256:6d9189f9': this model may be incompatible with your version of Ollama. If you previously pulled this model, try updating it by running `ollama pull stablelm-zephyr:3b-q6_K`"),
                Configuration,
            ),
        ]);
    }

    /// (batch 33b) A server's stated buffer limit overrules its 500: the request is too large
    /// and fails the same way again. Near miss: a client reading a large answer into a small
    /// buffer is a different nature, but it is not retried either.
    #[test]
    fn a_stated_buffer_limit_is_not_retried() {
        each(vec![
            // opendatadiscovery/odd-collector#114: a 500 for a POST over the server's buffer.
            (
                Failure::http(500, "500 Server Error for HTTP POST \"/ingestion/entities\": org.springframework.core.io.buffer.DataBufferLimitException: Exceeded limit on max bytes to buffer : 20971520"),
                ContextOverflow,
            ),
        ]);
        // spring-projects/spring-boot#24417: a client's WebClient reading an answer.
        let f = Failure::new("org.springframework.core.io.buffer.DataBufferLimitException: Exceeded limit on max bytes to buffer : 262144");
        assert!(!crate::classify::classify(&f).transient);
    }

    /// (batch 33b) A browser's fetch failure ending a one-line message that names a request
    /// (Chatbox's forms); a model that failed to load is not one.
    #[test]
    fn a_browser_fetch_failure_ending_a_request_line() {
        each(vec![
            // chatboxai/chatbox#92.
            (Failure::new("API Request Failed: Load failed"), Connection),
            // chatboxai/chatbox#357.
            (Failure::new("API请求失败：Load failed"), Connection),
            (
                Failure::new("Request to the model failed - Failed to fetch"),
                Connection,
            ),
        ]);
        each_with(vec![(Failure::new("Model load failed"), Unknown, false)]);
    }

    /// (batch 33b) An Anthropic refusal of a browser call without its opt-in header, in the
    /// words alone (NextChat#5429, browserbase/stagehand#2572).
    #[test]
    fn a_browser_call_without_anthropics_opt_in_header() {
        each(vec![
            (
                Failure::new("CORS requests must set 'anthropic-dangerous-direct-browser-access' header"),
                Unauthorized,
            ),
            (
                Failure::new("AI_APICallError: CORS requests must set 'anthropic-dangerous-direct-browser-access' header"),
                Unauthorized,
            ),
        ]);
    }

    /// (batch 33b) An app's 500 around a Go client's timeout it states is the timeout; a bare
    /// 500 stays the server's.
    #[test]
    fn a_500_around_a_stated_client_timeout() {
        each(vec![
            (
                Failure::http(500, "500 do request failed: Post \"https://api.example.com/v1/chat/completions\": dial tcp 10.0.0.7:443: i/o timeout"),
                Timeout,
            ),
            (
                Failure::http(500, "Post \"http://127.0.0.1:11434/api/chat\": net/http: timeout awaiting response headers"),
                Timeout,
            ),
            (Failure::http(500, "Internal Server Error"), ServerError),
        ]);
    }

    /// (batch 33b) Heat words (the throttles apps rewrite so, `reply_parsers`) and Chinese rate,
    /// cut and retry words; near misses keep their
    /// decisions (a balance to top up stays payment, a per-minute limit a rate limit).
    #[test]
    fn busy_rate_cut_and_retry_words() {
        each(vec![
            (
                Failure::new("The model is running way too hot right now. Please try again in a moment."),
                RateLimited,
            ),
            (
                Failure::new("Our servers are running too hot! Please check back after some time."),
                RateLimited,
            ),
            (Failure::new("调用失败：超过速率限制，请稍后再试"), RateLimited),
            (Failure::new("请求速率超出限制"), RateLimited),
            // A chat UI's notice (流式响应中断: the streamed response was interrupted).
            (Failure::new("流式响应中断（60 秒无内容）"), StreamInterrupted),
            (Failure::new("请求失败，请重试。"), ServerError),
            // Near misses.
            (Failure::new("余额不足，请充值后重试"), PaymentRequired),
            (Failure::new("请求错误，请重试。Model error: Error code: 400 - {'error': {'message': 'bad'}}"), BadRequest),
        ]);
    }

    /// (batch 33b) A model not found by a Neovim plugin's own check (a Lua frame before the
    /// words, no status): the configured model is not in the plugin's list, set-up. A
    /// provider's 404 body relayed with its status stays not found.
    #[test]
    fn a_not_found_raised_at_a_plugins_lua_frame() {
        each(vec![
            // CopilotC-Nvim/CopilotChat.nvim#1184 (and #1105's default model gone from the list).
            (
                Failure::new("[ERROR Thu Jul 10 12:22:34 2025] /home/u/.local/share/nvim/lazy/CopilotChat.nvim/lua/CopilotChat/init.lua:913: ...re/nvim/lazy/CopilotChat.nvim/lua/CopilotChat/client.lua:440: Model not found: gpt-4o"),
                Configuration,
            ),
            // Near miss: a provider's 404 that a plugin prints with its status.
            (
                Failure::http(404, "...lua/CopilotChat/init.lua:209: Failed to get response: 404 {\"error\":{\"message\":\"model not found\"}}"),
                NotFound,
            ),
        ]);
    }
}
