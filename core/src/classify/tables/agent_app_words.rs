//! (batch 34b) Words agent frameworks, coding agents and chat apps print for a failure, with no
//! status or a relay's status beside them: a plan's cap in the words of the service that keeps
//! it, a relay's empty account pool, a tool-call/result pairing refused, litellm's context
//! exception named bare, Python's unbound local, a service's outage page, a code for an empty
//! reply.

use super::{said, stated, Phrase};
use crate::category::Category::*;

/// Read after the other permanent tables: each row names a nature they left unnamed.
pub const PERMANENT: &[Phrase] = &[
    // A plan's usage cap (Claude's "You've hit your limit · resets 3pm", its older "Claude AI
    // usage limit reached" is labelled the same; Flowise Cloud's "Predictions limit exceeded",
    // a free plan's calls per period): only the next period or a plan change restores it, so
    // a relay's transient status around it does not make it pass.
    stated("you've hit your limit", PaymentRequired),
    stated("you’ve hit your limit", PaymentRequired),
    stated("you have hit your limit", PaymentRequired),
    stated("predictions limit exceeded", PaymentRequired),
    stated("prediction limit exceeded", PaymentRequired),
    stated("predictions limit reached", PaymentRequired),
    // Funds words with "account" between ("Insufficient account funds", OpenCode Zen's upstream;
    // "insufficient funds" alone is in the main table): the account must be topped up.
    stated("insufficient account funds", PaymentRequired),
    stated("not enough funds", PaymentRequired),
    // A relay's pool with no account left to serve (sub2api / claude-relay-service: "No
    // available accounts", under its own 503): every upstream account is out of quota or
    // disabled, and no retry adds one; the cheaper mistake is not to spend retries on it.
    stated("no available accounts", PaymentRequired),
    // Tool calls and tool results that do not pair up, in Ollama's words ("Invalid tool usage:
    // mismatch between tool calls and tool results").
    stated(
        "mismatch between tool calls and tool results",
        OrphanToolCalls,
    ),
    stated("mismatch between tool calls and results", OrphanToolCalls),
    // litellm's context exception named bare after its wrapper ("litellm.BadRequestError:
    // ContextWindowExceededError"): the class says the prompt is over the window.
    stated("contextwindowexceedederror", ContextOverflow),
    // Python's UnboundLocalError, in 3.11+ ("cannot access local variable 'r' where it is not
    // associated with a value") and before ("local variable 'r' referenced before
    // assignment"): the raising code's own bug, under whatever runtime wrapper carries it.
    said("where it is not associated with a value", Programming),
    said("referenced before assignment", Programming),
    // A code for a reply with no text (OpenCommit's EMPTY_MESSAGE, as "empty_response").
    said("empty_message", InvalidResponse),
    // Anthropic's refusal of an empty turn ("all messages must have non-empty content except
    // for the optional final assistant message", "text content blocks must be non-empty"):
    // the request's history, the same on every try.
    said("must have non-empty content", BadRequest),
    said("content blocks must be non-empty", BadRequest),
    // An agent that needs a tool-calling model and was given another (LlamaIndex's "LLM must be
    // a FunctionCallingLLM"): the set-up names the wrong model.
    said("must be a functioncallingllm", Configuration),
    // A model's tool call that named a tool the request did not offer (Groq's "Tool call
    // validation failed: attempted to call tool 'x' which was not in request.tools"): the
    // model's output failed the request's schema.
    said("tool call validation failed", Validation),
    said("which was not in request.tools", Validation),
    // OpenAI's project without access to a model ("Project proj_x does not have access to model
    // gpt-4o", 403 `model_not_found`): no access, whatever status carries it.
    said("does not have access to model", Forbidden),
    // A client's own statement that the reply it got was not what it reads ("Invalid response:
    // )]}'..." of Gemini's web protocol): the reply, whatever it held; a nature the reply states
    // (a refusal, a limit) is read first by the tables above.
    said("invalid response:", InvalidResponse),
    // An app's pool of API keys with none left to use (DriveLM's evaluator: "No available key
    // left!", its keys expired): set-up, until keys are added.
    said("no available key left", Configuration),
    said("no available api key", Configuration),
    // Apple Shortcuts reading a key the reply lacks ("Could not evaluate the key path. In \",
    // no value was found for dictionary key 'choices'."): an error body where a completion
    // was read.
    said("no value was found for dictionary key", InvalidResponse),
    // (batch 35b) A conversation or a tool result over a host's length cap (Claude's "Claude hit
    // the maximum length for this conversation"; an MCP client's "result exceeds maximum length
    // of 1048576"): the same input stays too long.
    said("maximum length for this conversation", ContextOverflow),
    said("result exceeds maximum length", ContextOverflow),
    said("result exceeds the maximum length", ContextOverflow),
    // (batch 35b) OpenAI's 400 for a tool's parameters that are no JSON Schema object ("Invalid
    // schema for function 'AgentOutput': [] is not of type 'object'."): the request as built.
    said("invalid schema for function", BadRequest),
    // (batch 35b) A tool result whose call id the previous assistant message does not hold, in
    // OCI Generative AI's words ("'toolCallId' of 'call_x' not found in 'toolCalls' of previous
    // message"): the calls and results do not pair up.
    said(
        "not found in 'toolcalls' of previous message",
        OrphanToolCalls,
    ),
    // (batch 35b) Bedrock's ValidationException for a model that serves only through an
    // inference profile ("Invocation of model ID X with on-demand throughput isn't supported"):
    // the request names the model the wrong way, whatever its "Retry your request" advice says.
    said("with on-demand throughput isn't supported", BadRequest),
    said("with on-demand throughput isn’t supported", BadRequest),
    // (batch 35b) An app's own advice naming the set-up it suspects ("make sure you don't have a
    // typo in the name of the model or the host url", ollama-logseq).
    said("typo in the name of the model", Configuration),
    // (batch 35b) A framework's check on a streamed tool call that came without its id (Letta's
    // "No tool call ID available" over tabbyAPI): the reply lacks what a tool call must carry,
    // whatever stream-error frame logs it.
    said("no tool call id available", InvalidResponse),
];

/// Read with the other transient tables: a service's own outage page, in its words.
pub const TRANSIENT: &[Phrase] = &[
    // Claude's outage page ("Claude will return soon"), maintenance pages ("We'll be back
    // soon"): the service is down for now and says it will return.
    said("will return soon", ServerError),
    said("will be back soon", ServerError),
    said("we'll be back soon", ServerError),
    said("be back shortly", ServerError),
    // (batch 35b) Gemini CLI's InvalidStreamError for a stream that stopped without a proper end
    // (geminiChat.ts: "Model stream was invalid or completed without valid content.", "Model
    // stream ended without a finish reason."); the CLI retries it itself.
    said("model stream was invalid", StreamInterrupted),
    said(
        "model stream ended without a finish reason",
        StreamInterrupted,
    ),
];

#[cfg(test)]
mod batch34b_tests {
    use crate::category::Category::*;
    use crate::classify::tables::decides::{each, each_with};
    use crate::failure::Failure;

    /// (batch 34b) A plan's cap in Claude's own words, straight or curly quote, with its reset
    /// time; the account's per-minute rate limit stays a rate limit.
    #[test]
    fn a_plans_cap_is_not_retried() {
        each(vec![
            // anthropics/claude-code#80062.
            (
                Failure::new("You’ve hit your limit for Claude messages. Limits will reset at 9:30 AM.  View your usage details."),
                PaymentRequired,
            ),
            // anthropics/claude-code#21562.
            (
                Failure::new("You've hit your limit · resets Jan 30, 11:30am (Asia/Calcutta)"),
                PaymentRequired,
            ),
            // Under a relay's 503, the cap still decides.
            (
                Failure::http(503, "{\"error\":{\"message\":\"You have hit your limit\",\"type\":\"api_error\"}}"),
                PaymentRequired,
            ),
        ]);
        // Near miss (anthropics/claude-code#54698): the account's rate limit, retried.
        each(vec![(
            Failure::http(429, "{\"type\":\"error\",\"error\":{\"type\":\"rate_limit_error\",\"message\":\"This request would exceed your account's rate limit. Please try again later.\"}}"),
            RateLimited,
        )]);
    }

    /// (batch 34b) A relay's empty account pool, in sub2api's and Antigravity-Manager's bodies
    /// and as Claude Code prints it with its own advice: no retry buys an account.
    #[test]
    fn a_relays_empty_account_pool_is_not_retried() {
        each(vec![
            // Wei-Shaw/sub2api#2559.
            (
                Failure::http(503, "{\"error\":{\"message\":\"No available accounts: no available accounts\",\"type\":\"api_error\"},\"type\":\"error\"}"),
                PaymentRequired,
            ),
            // lbjlaq/Antigravity-Manager#2341: under an overloaded_error type.
            (
                Failure::http(503, "{\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"No available accounts: All accounts failed or unhealthy.\"}}"),
                PaymentRequired,
            ),
            // anthropics/claude-code#57554: the client's "usually temporary" advice does not
            // outweigh the pool's statement.
            (
                Failure::new("API Error: 503 No available accounts: no available accounts. This is a server-side issue, usually temporary — try again in a moment. If it persists, check status.claude.com."),
                PaymentRequired,
            ),
        ]);
    }

    /// (batch 34b) Funds words with "account" between them.
    #[test]
    fn account_funds_words_are_billing() {
        each(vec![
            (
                Failure::http(502, "{\"type\":\"server_error\",\"message\":\"Upstream request failed: Insufficient account funds\"}"),
                PaymentRequired,
            ),
            (
                Failure::new("Error: not enough funds on the account to run this model"),
                PaymentRequired,
            ),
        ]);
    }

    /// (batch 34b) Ollama's pairing refusal as LobeHub relays it; Python's unbound local in
    /// both its wordings; litellm's context exception named bare.
    #[test]
    fn pairing_unbound_locals_and_bare_context_class() {
        each(vec![
            // lobehub/lobehub#9531.
            (
                Failure::http(400, "{\"error\":{\"name\":\"ResponseError\",\"message\":\"Invalid tool usage: mismatch between tool calls and tool results\",\"status_code\":400},\"provider\":\"ollama\"}"),
                OrphanToolCalls,
            ),
            // springfall2008/batpred#3234.
            (
                Failure::new("Error: Exception raised cannot access local variable 'tried_list' where it is not associated with a value"),
                Programming,
            ),
            // knownsec/aipyapp#10 (a server's 500 around such words stays the server's fault).
            (
                Failure::new("UnboundLocalError: cannot access local variable 'usage' where it is not associated with a value"),
                Programming,
            ),
            // CPython before 3.11 (Python/ceval.c UNBOUNDLOCAL_ERROR_MSG).
            (
                Failure::new("local variable 'response' referenced before assignment"),
                Programming,
            ),
            (
                Failure::new("Agent step failed: litellm.ContextWindowExceededError: ContextWindowExceededError"),
                ContextOverflow,
            ),
        ]);
    }

    /// (batch 34b) A catch-all that names a failed generation and asks to try again; an outage
    /// page's promise to return. A generation failure with a stated cause keeps the cause.
    #[test]
    fn failed_generation_with_advice_and_outage_pages() {
        each_with(vec![
            (
                Failure::new("Generation failed. Please try again."),
                ServerError,
                true,
            ),
            (Failure::new("We'll be back soon!"), ServerError, true),
            // Near miss: the cause stated after the catch-all decides.
            (
                Failure::new(
                    "Failed to generate the summary. Please try again.\nError: insufficient_quota",
                ),
                PaymentRequired,
                false,
            ),
            // A client's version floor is set-up.
            (
                Failure::new("This extension requires Node.js version 18 or later."),
                Configuration,
                false,
            ),
        ]);
    }

    /// (batch 34b) A reply a client could not read: Gemini-API's "Invalid response:" with the
    /// web protocol's body, Shortcuts' missing key, a reply key after "failed."; a key that is
    /// no reply's stays undecided.
    #[test]
    fn replies_a_client_could_not_read() {
        each(vec![
            // HanaokaYuzu/Gemini-API#216.
            (
                Failure::new("gemini_webapi.client:generate_content:406 - Invalid response: )]}'\n\n[[\"wrb.fr\",null,\"[null,null,null,[0]]\"],[\"di\",200378]]"),
                InvalidResponse,
            ),
            // Yue-Yang/ChatGPT-Siri#31.
            (
                Failure::new("Could not evaluate the key path. In \", no value was found for dictionary key 'choices'."),
                InvalidResponse,
            ),
            // OpenDriveLab/DriveLM#129 (its keys had no quota; the judge's reply had no choices).
            (
                Failure::new("Repeatedly getting [ERROR] Evaluation failed. 'choices'"),
                InvalidResponse,
            ),
        ]);
        // Near miss: a quoted word that is no reply's key after "failed." decides nothing.
        each_with(vec![(
            Failure::new("[ERROR] Evaluation failed. 'banana'"),
            Unknown,
            false,
        )]);
    }
}

#[cfg(test)]
mod batch35b_tests {
    use crate::category::Category::*;
    use crate::classify::tables::decides::{each, each_with};
    use crate::failure::Failure;

    fn typeerror(message: &str) -> Failure {
        let mut f = Failure::new(message);
        f.error_class = vec!["TypeError".into()];
        f
    }

    /// (batch 35b) The fetch API's network failure in each engine's words, in wrappers no
    /// corpus case holds: the TypeError class never makes it a bug.
    #[test]
    fn a_fetch_failure_is_the_network_whatever_wraps_it() {
        each(vec![
            // google-gemini/generative-ai-js src/requests/request.ts: "Error fetching from
            // ${url}: ${e.message}", with Firefox's and Chromium's words as e.message.
            (
                Failure::new("[GoogleGenerativeAI Error]: Error fetching from https://generativelanguage.googleapis.com/v1beta/models/gemini-1.5-flash:generateContent: NetworkError when attempting to fetch resource."),
                Connection,
            ),
            (
                Failure::new("[GoogleGenerativeAI Error]: Error fetching from https://generativelanguage.googleapis.com/v1beta/models/gemini-1.5-flash:streamGenerateContent?alt=sse: Failed to fetch"),
                Connection,
            ),
            // An app's JSON of the error object, Firefox's words, TypeError second in the chain.
            (
                {
                    let mut f = Failure::new("{\"name\":\"TypeError\",\"message\":\"NetworkError when attempting to fetch resource.\"}");
                    f.error_class = vec!["ChatError".into(), "TypeError".into()];
                    f
                },
                Connection,
            ),
            // nodejs/undici lib/web/fetch/index.js: `new TypeError('fetch failed', { cause })`
            // in Node's inspect form behind an app's tag.
            (
                typeerror("Chat error: [TypeError: fetch failed] { cause: [Error: socket hang up] }"),
                Connection,
            ),
            (typeerror("Langchain error: TypeError: Load failed."), Connection),
        ]);
        // A more specific cause beside the words decides: a connect timeout is a timeout.
        each(vec![(
            typeerror("Langchain error: TypeError: fetch failed. [cause]: ConnectTimeoutError: Connect Timeout Error"),
            Timeout,
        )]);
        // Near misses: words that go on are another clause, and a bug stays a bug.
        each_with(vec![
            (typeerror("TypeError: Failed to fetch dynamically imported module: /assets/chat.js"), Programming, false),
            (typeerror("Langchain error: TypeError: Cannot read properties of undefined (reading 'choices')"), Programming, false),
            (Failure::new("Plugin error: Model load failed"), Unknown, false),
        ]);
    }

    /// (batch 35b) Gemini CLI's InvalidStreamError (geminiChat.ts) and undici's "terminated" in
    /// the CLI's brackets: a stream that stopped, retried.
    #[test]
    fn a_stream_that_stopped_in_a_clis_brackets_is_retried() {
        each(vec![
            (
                Failure::new("✕ [API Error: Model stream ended without a finish reason.]"),
                StreamInterrupted,
            ),
            (
                Failure::new(
                    "[API Error: Model stream was invalid or completed without valid content.]",
                ),
                StreamInterrupted,
            ),
            (Failure::new("✕ [API Error: terminated]"), StreamInterrupted),
        ]);
        // Near miss: the CLI's other InvalidStreamError is the model's own output, not a cut.
        each_with(vec![(
            Failure::new("[API Error: Model stream ended with malformed function call.]"),
            InvalidResponse,
            false,
        )]);
    }

    /// (batch 35b) Length caps, a function schema refused, a pairing refused, a model named the
    /// wrong way, an overload under a wrapper's 400 and a reply's missing tool call id. The
    /// library search was spent: these variants are the same families in other wording,
    /// unsourced, with near misses that must keep their decision.
    #[test]
    fn the_other_batch35b_families_keep_their_nature() {
        each(vec![
            (Failure::new("Error: tool result exceeds maximum length of 100000"), ContextOverflow),
            (Failure::http(400, "Claude hit the maximum length for this conversation."), ContextOverflow),
            (
                Failure::http(400, "{\"error\":{\"message\":\"Invalid schema for function 'search': In context=(), 'additionalProperties' is required to be supplied and to be false.\",\"type\":\"invalid_request_error\"}}"),
                BadRequest,
            ),
            (
                Failure::http(400, "Invalid parameter: 'toolCallId' of 'call_abc' not found in 'toolCalls' of previous message."),
                OrphanToolCalls,
            ),
            (
                Failure::new("ValidationException: Invocation of model ID anthropic.claude-3-7-sonnet-20250219-v1:0 with on-demand throughput isn't supported. Retry your request with the ID or ARN of an inference profile that contains this model."),
                BadRequest,
            ),
            (
                Failure::http(400, "{\"error\":{\"code\":400,\"message\":\"APP_ERROR(14) The model is overloaded. Please try again later.\",\"status\":\"INVALID_ARGUMENT\"}}"),
                Overloaded,
            ),
            (
                {
                    let mut f = Failure::new("Unhandled Streaming Error\nValueError: No tool call ID available");
                    f.error_class = vec!["ValueError".into()];
                    f
                },
                InvalidResponse,
            ),
        ]);
        // Near misses: a 400 that names a length without a result or a conversation stays the
        // request's; a 429 that says the model is busy stays retried.
        each_with(vec![
            (Failure::http(400, "Invalid 'tools[0].function.name': string too long. Expected a string with maximum length 64."), BadRequest, false),
            (Failure::http(429, "The model is overloaded. Please try again later."), Overloaded, true),
        ]);
    }
}
