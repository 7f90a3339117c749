//! (batch 31b) Words apps and SDKs print for a failure with no code beside them, in families
//! the main tables did not hold: a history whose tool ids repeat, a reply body that failed the
//! SDK's own completion model, a far end the app could not reach.

use super::{said, stated, Phrase};
use crate::category::Category::*;

/// Read before the main permanent tables, so their broader rows ("validation errors for")
/// do not speak first.
pub const PERMANENT: &[Phrase] = &[
    // Anthropic's 400 when two `tool_use` blocks of the history share an id (a client that
    // stored empty ids, or replayed a turn after switching providers): the tool history is
    // malformed the way an unanswered call is, and pruning it is the remedy
    // (anthropics/claude-code#20901 "messages.1.content.1: `tool_use` ids must be unique").
    stated("`tool_use` ids must be unique", OrphanToolCalls),
    stated("tool_use ids must be unique", OrphanToolCalls),
    // Speakeasy-generated SDKs (OpenRouter's, Mistral's) unmarshal a reply into a model whose
    // one field is `body`: "validation errors for Unmarshaller\nbody.id\n  Field required" says
    // the reply lacks a completion's own fields, a reply not in the protocol's form.
    said("body.choices field required", InvalidResponse),
    said("body.id field required", InvalidResponse),
    // A model's own token limit, said of the model ("You have exceeded your token limit for
    // this model", bionic-gpt; "Exceeds the maximum allowed token limit"): its window, which
    // no wait widens. A limit per minute or per day names its window and is read as a rate.
    said("token limit for this model", ContextOverflow),
    said("token limit of this model", ContextOverflow),
    said("maximum allowed token limit", ContextOverflow),
    // An app's words for a model that answered nothing ("Error sending message: No response
    // received from the model", Jan; "[unknown] No response from model", Cursor): an empty
    // reply, not a far end that never answered (a server's "no response" stays the network's).
    said("no response received from the model", InvalidResponse),
    said("no response from the model", InvalidResponse),
    said("no response from model", InvalidResponse),
    // A feature an app keeps for its paid plan ("For this feature, API keys are not supported.
    // Please upgrade to Pro.", Cursor): refused until the plan changes, never by waiting.
    said("please upgrade to pro", PaymentRequired),
];

/// Transient words, read with the main transient table.
pub const TRANSIENT: &[Phrase] = &[
    // An app that could not reach its service by name ("Unable to reach Bard at this time.",
    // "Failed to reach OpenAI"): the far end not reached, whoever it is; a cause the text
    // names beside it (a quota, a blocked address) is read first by the permanent tables.
    said("unable to reach", Connection),
    said("failed to reach", Connection),
];

#[cfg(test)]
mod batch31b_tests {
    use crate::category::Category::*;
    use crate::classify::tables::decides::{each, each_with};
    use crate::failure::Failure;

    /// (batch 31b) Each family in texts other than the corpus case's, with near misses that
    /// must keep their decision.
    #[test]
    fn tool_ids_reply_models_and_unreached_services() {
        each(vec![
            // anthropics/claude-code#20901
            (Failure::new("API Error: 400 {\"type\":\"error\",\"error\":{\"type\":\"invalid_request_error\",\"message\":\"messages.1.content.1: `tool_use` ids must be unique\"}}"), OrphanToolCalls),
            (Failure::http(400, "messages.3.content.0: tool_use ids must be unique"), OrphanToolCalls),
            // nomic-ai/gpt4all#1317 (a reply's model) by class; a builtin scalar given None
            (Failure::new("3 validation errors for ChatCompletionResponse\nchoices.0.message\n  field required").with_class(["pydantic.error_wrappers.ValidationError"]), InvalidResponse),
            (Failure::new("1 validation error for int\n  Input should be a valid integer [type=int_type, input_value=None, input_type=NoneType]").with_class(["pydantic_core._pydantic_core.ValidationError"]), InvalidResponse),
            (Failure::new("2 validation errors for Unmarshaller\nbody.choices\n  Field required [type=missing, input_value={'error': {}}, input_type=dict]"), InvalidResponse),
            (Failure::new("Failed to reach OpenAI. Check that the service is up."), Connection),
            (Failure::new("Unable to reach the Anthropic API right now"), Connection),
            // cursor/cursor#3217 without its RPC class
            (Failure::new("[unknown] No response from model"), InvalidResponse),
            // hustcer/deepseek-review#97
            (Failure::new("Exceeds the maximum allowed token limit"), ContextOverflow),
            (Failure::new("Prompt exceeds the token limit for this model (8192)."), ContextOverflow),
            (Failure::new("This feature requires a subscription. Please upgrade to Pro to continue."), PaymentRequired),
            // A bot's exclaimed catch-all
            (Failure::new("Error! Please try again."), ServerError),
        ]);
        // Near misses: the model's own output failing the app's schema stays validation; a
        // cause named beside "unable to reach" is read first; a bare "an error" asking for a
        // change is no catch-all.
        each_with(vec![
            (Failure::new("1 validation error for int\n  Input should be a valid integer, unable to parse string as an integer [type=int_parsing, input_value='about forty', input_type=str]").with_class(["pydantic_core._pydantic_core.ValidationError"]), Validation, false),
            (Failure::new("1 validation error for UserDetail\nage\n  Input should be a valid integer").with_class(["pydantic_core._pydantic_core.ValidationError"]), Validation, false),
            (Failure::new("Unable to reach OpenAI: You exceeded your current quota, please check your plan and billing details."), PaymentRequired, false),
            (Failure::new("OpenAI returned an error. Try modifying your parameters and try again."), Unknown, false),
            (Failure::new("Rate limit reached for gpt-4o in organization org-x on tokens per min (TPM): Limit 30000, Used 29937, Requested 385. Please try again in 644ms."), RateLimited, true),
        ]);
    }

    /// (batch 31b) A request under its per-minute limit is throttled; one over it can never
    /// pass. The figures decide, under either status.
    #[test]
    fn request_too_large_by_its_figures() {
        each(vec![
            // TheR1D/shell_gpt#653: over the limit
            (Failure::http(429, "Error code: 429 - {'error': {'message': 'Request too large for gpt-4o in organization org-x on tokens per min (TPM): Limit 30000, Requested 31538. The input or output tokens must be reduced in order to run successfully.', 'type': 'tokens', 'param': None, 'code': 'rate_limit_exceeded'}}"), ContextOverflow),
            (Failure::http(413, "Request too large for model `llama-3.1-8b-instant` in organization `org_x` on tokens per minute (TPM): Limit 6000, Requested 7591, please reduce your message size and try again."), ContextOverflow),
            // under it
            (Failure::http(429, "Request too large for gpt-4o in organization org-x on tokens per min (TPM): Limit 30,000, Requested 1,200. The input or output tokens must be reduced in order to run successfully."), RateLimited),
            (Failure::new("Request too large for model `llama3-70b-8192` on tokens per minute (TPM): Limit 6000, Requested 900"), RateLimited),
        ]);
    }

    /// (batch 31b) Texts that lost a space, codes where a message stands, logged fields, a
    /// retry loop's last client error, a timeout class a wrapper's 500 quotes.
    #[test]
    fn codes_and_statuses_however_printed() {
        each_with(vec![
            (Failure::new("request to http://localhost:11434/api/chat failed, reason: connect ECONNREFUSED127.0.0.1:11434"), Connection, true),
            (Failure::new("Error: read ECONNRESET10.0.0.2:443"), Connection, true),
            (Failure::new("{\"error\": \"insufficient_balance\"}"), PaymentRequired, false),
            (Failure::new("request failed: {'error': 'err.credits_exhausted'}"), PaymentRequired, false),
            (Failure::new("error_code=None error_message='Unrecognized request argument supplied: functions' error_param=None error_type=invalid_request_error message='OpenAI API error received' stream_error=False"), BadRequest, false),
            (Failure::http(429, "{\"error\":{\"message\":\"All 3 attempts failed. Last error: HTTP 401 Unauthorized: invalid x-api-key\",\"type\":\"rate_limit_error\"}}"), Unauthorized, false),
            (Failure::http(503, "Failed after 3 attempts. Last error: HTTP 400 Bad Request: messages.0.content: Field required"), BadRequest, false),
            (Failure::http(500, "Error: chatflowsService.run - APITimeoutError: Request timed out."), Timeout, true),
        ]);
        // Near misses: a retry loop's last 429 or 5xx stays transient; "econnrefused" glued to
        // letters is no word; a 500 that only says "timed out" of the server's own runner
        // stays the server's.
        each_with(vec![
            (Failure::http(429, "All 2 attempts failed. Last error: HTTP 429 Too Many Requests"), RateLimited, true),
            (Failure::http(502, "Failed after 3 attempts. Last error: HTTP 503 Service Unavailable"), ServerError, true),
            (Failure::http(500, "{\"error\":\"timed out waiting for llama runner to start - progress 1.00 - \"}"), ServerError, true),
        ]);
    }
}
