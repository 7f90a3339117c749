//! (batch 32b) Refusals stated in words that the main tables did not hold: a part of the
//! request over its own size or length limit (a tool's result, a tool's name, the user's
//! message), an access policy that refuses a model, a Responses-API item replayed without the
//! item it belongs to, and faults of the caller's own making (a JavaScript stack overflow, a
//! judge model's reply that failed the evaluator's JSON parsing). Read before the main
//! permanent tables, so a wrapper's words ("Failed to connect to API.") or a broad code
//! (`INVALID_INPUT`) beside them do not speak first.

use super::{said, stated, Phrase};
use crate::category::Category::*;

/// Read before every other permanent table (`text::permanent`, `text::stated`).
pub const PERMANENT: &[Phrase] = &[
    // A part of the input over its own size cap: the same request meets the same cap, and
    // trimming the input is the remedy, as for any input too long (Claude Code's MCP bridge
    // "Tool result is too large. Maximum size is 1MB."; IBM BAM's "The user message is too
    // long" under its INVALID_INPUT code).
    stated("tool result is too large", ContextOverflow),
    stated("tool result too large", ContextOverflow),
    stated("tool result exceeds", ContextOverflow),
    stated("tool output is too large", ContextOverflow),
    stated("tool output exceeds", ContextOverflow),
    // Claude Code's cap on an MCP tool's answer ("MCP tool \"list\" response (171718 tokens)
    // exceeds maximum allowed tokens (25000)"): the same tool call answers the same size.
    stated("exceeds maximum allowed tokens", ContextOverflow),
    stated("user message is too long", ContextOverflow),
    stated("message is too long", ContextOverflow),
    // A field of the request over its length limit, by the validator that checks it
    // (pydantic's `string_too_long` "String should have at most 64 characters", as Anthropic's
    // API reports a tool's name): the request is malformed until the field is shortened. (A
    // message's content over its length is the input too long: `stated_faults`.)
    stated("string should have at most", BadRequest),
    // An access policy that refuses the model or the feature (GitHub Copilot: "model access is
    // not permitted per policy settings", "access denied by Copilot policy"): a person must
    // change the policy; no retry does, whatever connection words the client puts first.
    said("access is not permitted", Forbidden),
    said("not permitted per policy", Forbidden),
    said("denied by copilot policy", Forbidden),
    // OpenAI Responses: an item replayed without the item it belongs to ("Item 'fc_..' of type
    // 'function_call' was provided without its required 'reasoning' item", "... of type
    // 'reasoning' was provided without its required following item"), and an item a Zero Data
    // Retention organisation never stored: the request's history is malformed, under any
    // wrapper's status (Mastra's API relays it as its own 500).
    stated("was provided without its required", BadRequest),
    stated("items are not persisted", BadRequest),
    // The caller's own stack overflowing (JavaScript's RangeError "Maximum call stack size
    // exceeded"; Python's RecursionError "maximum recursion depth exceeded"): a bug of the
    // app, not of the call.
    said("maximum call stack size exceeded", Programming),
    said("maximum recursion depth exceeded", Programming),
    // An evaluator's judge model whose answer failed the evaluator's JSON parsing (DeepEval's
    // "Evaluation LLM outputted an invalid JSON. Please use a better evaluation model."): the
    // model's output failed the app's parser, validation (not a reply the transport broke).
    said("outputted an invalid json", Validation),
    said("outputted invalid json", Validation),
];

/// Words that place a failure after the answer had started streaming ("The response was
/// cancelled mid-stream", "Server error mid-response", "Error during streamed response"): a
/// connection or server failure said this way is a stream cut mid-answer (CONTRACT §2,
/// `stream_interrupted`), retried the same way but resumed differently.
pub const MID_ANSWER: &[&str] = &[
    "mid-stream",
    "mid stream",
    "midstream",
    "mid-response",
    "mid response",
    "mid-answer",
    "mid-generation",
    "during streamed response",
    "during the streamed response",
    // LiteLLM's `MidStreamFallbackError`: raised once chunks were relayed (no fallback can
    // replace an answer already half sent), whatever transport error it wraps.
    "midstreamfallbackerror",
    // (batch 35a) A traceback through the stream iterator of a Stainless-generated Python SDK
    // (openai, anthropic, groq, together...: `File ".../openai/_streaming.py", line 147, in
    // __aiter__`, BerriAI/litellm#3986 under an httpx.ReadError): the response had begun and
    // its events were being read when the socket failed, so the cut is mid-answer.
    "_streaming.py",
];

#[cfg(test)]
mod batch32b_tests {
    use crate::category::Category::*;
    use crate::classify::tables::decides::each;
    use crate::failure::Failure;

    /// The batch's own texts, and texts of the same families from other threads.
    #[test]
    fn stated_refusals_decide_permanent() {
        each(vec![
            // Copilot CLI's policy refusal (github/copilot-cli#1720), and behind a client's
            // connect-failure words (zed#21127's shape with the policy words of #1720).
            (
                Failure::new("Failed to load models: access denied by Copilot policy."),
                Forbidden,
            ),
            (
                Failure::new("Failed to connect to API. access denied by Copilot policy."),
                Forbidden,
            ),
            // Responses-API items replayed without their pair: a 400 (continuedev/continue#8933,
            // omnigent-ai/omnigent#5066) and the same words under a wrapper's 500
            // (TanStack/ai#1212's text relayed the way Mastra relays it).
            (
                Failure::http(
                    400,
                    "Item 'rs_0c38' of type 'reasoning' was provided without its required following item.",
                ),
                BadRequest,
            ),
            (
                Failure::new("Error code: 400 - {'error_code': 'BAD_REQUEST', 'message': '{\"external_model_provider\":\"openai\",\"external_model_error\":{\"error\":{\"message\":\"Item \\'fc_X\\' of type \\'function_call\\' was provided without its required \\'reasoning\\' item: \\'rs_Y\\'.\",\"type\":\"invalid_request_error\"}}}'}"),
                BadRequest,
            ),
            (
                Failure::http(
                    500,
                    "Failed to call agent API: 500 {\"error\":\"400 Item 'fc_04c5' of type 'function_call' was provided without its required 'reasoning' item: 'rs_0bf7'.\"}",
                ),
                BadRequest,
            ),
        ]);
    }

    /// Size and length caps on a part of the request, faults of the app's own making, and a
    /// judge's reply that failed the evaluator's parser, from other threads than the batch's.
    #[test]
    fn parts_over_their_caps_and_callers_own_faults() {
        each(vec![
            // Claude Code's cap on an MCP tool's answer (dbt-labs/dbt-mcp#178,
            // rollbar/rollbar-mcp-server#28).
            (Failure::new("Error: MCP tool \"list\" response (171718 tokens) exceeds maximum allowed tokens (25000). Please use pagination, filtering, or limit parameters to reduce the response size."), ContextOverflow),
            (Failure::new("Error: MCP tool \"get-item-details\" response (30608 tokens) exceeds maximum allowed tokens (25000). Please use pagination, filtering, or limit parameters to reduce the response size."), ContextOverflow),
            // A tool's name over 64 characters, statusless as an agent logs it
            // (anthropics/claude-code#3102), and inside a tool_result's reference, which is no
            // pairing error (mims-harvard/ToolUniverse#65).
            (Failure::new("tools.17.custom.name: String should have at most 64 characters"), BadRequest),
            (Failure::new("{\"type\":\"error\",\"error\":{\"type\":\"invalid_request_error\",\"message\":\"messages.18.content.0.tool_result.content.0.tool_reference.tool_name: String should have at most 64 characters\"}}"), BadRequest),
            // The app's own stack (microsoft/vscode-copilot-release#693; acheong08/ChatGPT#544).
            (Failure::new("[extension] RangeError: Maximum call stack size exceeded\n    at y7 (extension.js:508:2409)"), Programming),
            (Failure::new("RecursionError: maximum recursion depth exceeded in comparison"), Programming),
            // A judge model's invalid JSON (confident-ai/deepeval#872), with and without its class.
            (Failure::new("ValueError: Evaluation LLM outputted an invalid JSON. Please use a better evaluation model."), Validation),
            (Failure::new("Evaluation LLM outputted an invalid JSON. Please use a better evaluation model.").with_class(["ValueError"]), Validation),
        ]);
    }

    /// A connection or server failure said to fall mid-answer is a cut stream; undici's
    /// TypeError behind an app's tag is read by its printed cause.
    #[test]
    fn mid_answer_cuts_and_tagged_undici_errors() {
        each(vec![
            // node-fetch's premature close during a streamed answer (pomerium/mcp-app-demo#144).
            (Failure::new("Error during streamed response: Error: Premature close\n    at IncomingMessage.<anonymous> (node-fetch/lib/index.js:1748:18) {\n  code: 'ERR_STREAM_PREMATURE_CLOSE'\n}"), StreamInterrupted),
            // LiteLLM's mid-stream wrapper around a peer's cut (preloop/preloop#117).
            (Failure::new("MidStreamFallbackError: litellm.MidStreamFallbackError: litellm.APIConnectionError: DeepseekException - peer closed connection without sending complete message body (incomplete chunked read)"), StreamInterrupted),
            // undici behind an app's log tag, read by its cause (a connect that timed out)
            // (Heroic-Games-Launcher/HeroicGamesLauncher#3873; nodejs/undici#2777's cause).
            (Failure::new("[LogUploader]:      Failed to send data to 0x0.st: TypeError: fetch failed\n    at Object.fetch (node:internal/deps/undici/undici:12293:11) {\n  cause: AggregateError: \n      at internalConnectMultiple (node:net:1114:18) {\n    code: 'ETIMEDOUT'\n  }\n}").with_class(["TypeError"]), Timeout),
            // The same inspect form behind a tag, from two public repositories' logs (found by
            // the library's find_string, ids 60907383991 and 56375690570): a resolver failing
            // for now is the connection's; a host that does not exist is set-up, as the corpus
            // holds ENOTFOUND.
            (Failure::new("[reportError] [TypeError: fetch failed] { [cause]: Error: getaddrinfo EAI_AGAIN monitor-api.test.local").with_class(["TypeError"]), Connection),
            (Failure::new("[photon-sidecar] [TypeError: fetch failed] {\n  [cause]: Error: getaddrinfo ENOTFOUND spectrum.photon.codes").with_class(["TypeError"]), Configuration),
        ]);
    }

    /// A wrapper's catch-all server code around a named error type that states a permanent
    /// nature: the named type decides (tRPC's INTERNAL_SERVER_ERROR around LobeChat's agent
    /// runtime types, which cross the tRPC boundary by name, lobehub/lobehub#18049).
    #[test]
    fn a_named_permanent_type_under_a_catch_all_server_code() {
        let trpc = |name: &str| {
            Failure::new(format!(
                "Error [TRPCError]: {name}\n    at async resolveMiddleware (.next/server/chunks/33649.js:1441:30) {{\n  cause: undefined,\n  code: 'INTERNAL_SERVER_ERROR'\n}}"
            ))
            .with_class(["TRPCError"])
        };
        each(vec![
            // The knowledge-base search of lobehub/lobehub#7058 (its error type in the title).
            (trpc("InvalidProviderAPIKey"), Unauthorized),
            (trpc("InvalidBedrockCredentials"), Unauthorized),
            (trpc("LocationNotSupportError"), Forbidden),
            // Near misses: the catch-all with nothing named, or a transient name, stays the
            // server's.
            (trpc("Something went wrong"), ServerError),
            (trpc("QuotaLimitReached"), ServerError),
        ]);
    }

    /// What must not change: a policy that names content is a content filter's business, a
    /// connection that failed with no refusal stays a connection, and a stack of a server
    /// that says overloaded stays its overload.
    #[test]
    fn near_misses_keep_their_decision() {
        each(vec![
            (Failure::new("Failed to connect to API."), Connection),
            // A stream lost while the prompt was still processed (ggml-org/llama.cpp#25158): no
            // mid-answer words, the connection's.
            (
                Failure::new("Stream connection lost and could not be resumed"),
                Connection,
            ),
            (Failure::new("socket hang up"), Connection),
            // An app's own TypeError behind a tag stays the app's bug.
            (
                Failure::new("[OpenAI] [TypeError: Cannot read properties of undefined (reading 'choices')]")
                    .with_class(["TypeError"]),
                Programming,
            ),
            // A message that is too long for a non-request reason is not read here: a pairing
            // error's own words stay a pairing error.
            (
                Failure::new("messages.3: `tool_use` ids were found without `tool_result` blocks immediately after"),
                OrphanToolCalls,
            ),
        ]);
    }
}
