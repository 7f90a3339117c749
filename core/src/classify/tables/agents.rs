//! Phrase families in the words of agent clients, gateways and self-hosted servers that print a
//! failure without its status (batch 16 of the corpus, a plain sample of public threads): a
//! gateway's "upstream request failed", a client's "streaming response failed", a server "could
//! not be reached", vLLM's dead engine, Cloudflare's 520 page and block page, an empty or
//! unparsable reply. Each row names one nature in any client's words, not one product's
//! message: "stream completed without" its final event, "high concurrency" over a limit.
//! `text::permanent` and `text::transient` compile these rows after the main tables, so they
//! only decide where those said nothing.

use super::{said, stated, Phrase};
use crate::category::Category::*;

/// Permanent natures: an unusable reply, a refused model, a server's missing flag, a block page.
pub const PERMANENT: &[Phrase] = &[
    // LiteLLM's exception name run together ("litellm.ContentPolicyViolationError: Azure
    // Exception - Error code: 400").
    said("contentpolicyviolationerror", ContentFiltered),
    // The reply came but could not be used (Cline's "The provider returned an empty or
    // unparsable response", "did not provide any assistant messages"; a router's "LLM returned
    // invalid response"; "Response blocked or incomplete").
    said("unparsable response", InvalidResponse),
    said("unparseable response", InvalidResponse),
    said("did not provide any assistant messages", InvalidResponse),
    said("returned invalid response", InvalidResponse),
    said("returned an invalid response", InvalidResponse),
    said("blocked or incomplete", InvalidResponse),
    // Pydantic AI gave up on the model's structured output ("Exceeded maximum retries (1) for
    // result validation"; newer releases say "output validation").
    said("for result validation", Validation),
    said("for output validation", Validation),
    // The key may not use the model (Dify's "No permission to use this model").
    said("no permission to use", Forbidden),
    // Cloudflare's block page in front of an API ("Attention Required! | Cloudflare", "Please
    // enable cookies."): the client is refused, not the server down.
    said("attention required! | cloudflare", Forbidden),
    said("please enable cookies", Forbidden),
    // vLLM started without tool calling ("\"auto\" tool choice requires
    // --enable-auto-tool-choice and --tool-call-parser to be set").
    said("--enable-auto-tool-choice", BadRequest),
    // LM Studio's "No models loaded" (as "No model is loaded": the server's set-up).
    said("no models loaded", Configuration),
    // (batch 17) A local server that cannot load the model file (Ollama's 500 "unable to load
    // model", a newer architecture than the server knows): the server's set-up, the same on
    // every retry, so it overrules the 500.
    stated("unable to load model", Configuration),
    // A chat template that fails on this request (minijinja's "Value is not callable" under a
    // llama.cpp-style server's 500; the same request fails the same way each time).
    stated("value is not callable", BadRequest),
    // DashScope's code for a bad key run together ("InvalidApiKey. Error message: Invalid
    // API-key provided."), and the hyphenated "API-key" other servers print.
    said("invalidapikey", Unauthorized),
    said("invalid api-key", Unauthorized),
    // An unpaid bill (Zed: "Outstanding invoices. Please update your payment information").
    said("outstanding invoice", PaymentRequired),
    said("outstanding invoices", PaymentRequired),
    said("unpaid invoice", PaymentRequired),
    said("unpaid invoices", PaymentRequired),
    said("update your payment information", PaymentRequired),
    // FastAPI/Starlette's 404 body printed by a client ({"detail":"Not Found"}, LangChain4j's
    // OpenAiHttpException): the route or model does not exist.
    said("{\"detail\":\"not found\"}", NotFound),
    said("{\"detail\": \"not found\"}", NotFound),
    // Bedrock's output-length check ("The maximum tokens you requested exceed the model limit
    // of 4096"): the request's max tokens, not its input.
    said("maximum tokens you requested", BadRequest),
    // A client that could not build its model or client object before any call ("Error
    // creating: gpt-4.1|openai", Obsidian Copilot): its set-up.
    said("error creating:", Configuration),
];

/// (batch 17) Frames that say the failure happened before any request: a flow builder's
/// component that failed to build (Langflow's "Error building Component Run Flow: 'message'",
/// "Error building Component OpenAI: 1 validation error for ChatOpenAI"). Nothing inside it is a
/// model's output, so these are read before the main tables' "validation error for".
pub const BEFORE_ANY_CALL: &[Phrase] = &[said("error building component", Programming)];

/// Transient natures said in words only.
pub const TRANSIENT: &[Phrase] = &[
    // A gateway relays an upstream failure without its status ("Upstream request failed").
    // (OpenRouter's bare "Provider returned error" stays unknown: it wraps a 401 as well as a
    // 503, as the corpus has it since batch 4.)
    said("upstream request failed", ServerError),
    // Cloudflare's 520 page ("520: Web server is returning an unknown error").
    said("web server is returning an unknown error", ServerError),
    // vLLM's engine died under the server ("AsyncEngineDeadError: Background loop has errored
    // already", V1's "EngineDeadError").
    said("asyncenginedeaderror", ServerError),
    said("enginedeaderror", ServerError),
    said("background loop has errored", ServerError),
    // A stream cut in a client's words ("Streaming response failed", "Stream completed without
    // a response.completed event", "The provider repeatedly ended the response before returning
    // usable output").
    said("streaming response failed", StreamInterrupted),
    said("stream completed without", StreamInterrupted),
    said("ended the response before", StreamInterrupted),
    // A local or remote server not reached ("Ollama at http://localhost:11434 could not be
    // reached").
    said("could not be reached", Connection),
    // A concurrency limit (Zhipu's "High concurrency usage of this API, please reduce
    // concurrency").
    said("high concurrency", RateLimited),
    said("reduce concurrency", RateLimited),
    // A 408 printed as a name run together ("408.0 RequestTimeout").
    said("requesttimeout", Timeout),
    // A client not connected to its service ("Error interacting with language model not
    // connected", Zed).
    said("not connected", Connection),
    // (batch 17) A dead engine of any vLLM front ("MQEngineDeadError: Engine loop is not
    // running", V0's AsyncEngineDeadError, V1's EngineDeadError above).
    said("mqenginedeaderror", ServerError),
    said("engine loop is not running", ServerError),
    said("engine loop has died", ServerError),
    // Ollama's runner crashed ("llama runner terminated" error="exit status 2"); the next load
    // starts a new one.
    said("runner terminated", ServerError),
    // A stream cut in a client's words (async-openai's "Stream failed: stream ended").
    said("stream failed", StreamInterrupted),
    said("stream ended", StreamInterrupted),
    // A fetch that never reached the server (React Native / whatwg-fetch's "Network request
    // failed", Safari's "Load failed" is too short to read).
    said("network request failed", Connection),
    // A client's generic failure that asks to try again (Copilot's "Sorry, your request
    // failed. Please try again. Request id: ...", and in Chinese 很抱歉，你的请求失败 ... 然后重试).
    said("your request failed", ServerError),
    said("你的请求失败", ServerError),
    said("您的请求失败", ServerError),
];

/// Overload words that overrule a generic 400 or 4xx: FastChat's controller and the servers
/// built on it answer their own "NETWORK ERROR DUE TO HIGH TRAFFIC. PLEASE REGENERATE OR
/// REFRESH THIS PAGE." with a 400 (`SERVER_ERROR_MSG`). Only words that say the server is
/// busy, never a request's fault.
pub const OVERLOAD_UNDER_4XX: &[Phrase] = &[said("due to high traffic", Overloaded)];
