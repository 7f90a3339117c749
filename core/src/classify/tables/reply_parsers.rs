//! (batch 33c) Words of the parsers and validators that stand between a call and its caller:
//! Java's JSON libraries and Kotlin's serializer failing on a reply, a framework's check that
//! the model's answer held the fields asked for, a JSON-schema or protobuf validator refusing a
//! request's value; and an app's or proxy's own words for a failure it rewrote (a throttle said
//! as "too hot", nginx's default error page quoted by path).

use super::{said, stated, Phrase};
use crate::category::Category::*;

/// A reply the client could not decode, in Java's and Kotlin's JSON libraries' own words; read
/// with the decode table (`text::decode`), so a decode failure said of the request the server
/// received stays the request's.
/// - Gson `JsonReader`/`ReflectiveTypeAdapterFactory`: "Expected BEGIN_OBJECT but was STRING at
///   line 1 column 1 path $" (a page or a bare word where an object was due), "Use
///   JsonReader.setLenient(true) to accept malformed JSON" (`MalformedJsonException`).
/// - org.json and Hutool's `JSONTokener`: "A JSONObject text must begin with '{' at 1
///   [character 2 line 1]", "A JSONArray text must start with '['".
/// - Jackson `JsonParseException`: "Unrecognized token 'data': was expecting (JSON String,
///   Number, Array, Object or token 'null', 'true' or 'false')", "Unexpected character ('<'
///   (code 60)): expected a valid value (JSON String, Number, ...)", and on an empty body "No
///   content to map due to end-of-input".
/// - kotlinx.serialization's `MissingFieldException` without its class name, as Ktor's
///   `JsonConvertException` carries it ("Illegal input: Field 'data' is required for type with
///   serial name '...', but it was missing at path: $").
pub const DECODE: &[Phrase] = &[
    said("expected begin_object but was", InvalidResponse),
    said("expected begin_array but was", InvalidResponse),
    said("to accept malformed json", InvalidResponse),
    said("jsonobject text must begin with", InvalidResponse),
    said("jsonarray text must start with", InvalidResponse),
    said("was expecting (json string, number", InvalidResponse),
    said(
        "expected a valid value (json string, number",
        InvalidResponse,
    ),
    said("no content to map due to end-of-input", InvalidResponse),
    said("is required for type with serial name", InvalidResponse),
    said("jsonconvertexception", InvalidResponse),
];

/// Permanent words, read with the main permanent table.
pub const PERMANENT: &[Phrase] = &[
    // DSPy's check that the model's answer holds the signature's output fields: before 2.6
    // `ValueError(f"Expected {signature.output_fields.keys()} but got {fields.keys()}")`
    // ("Expected dict_keys(['reasoning', 'answer']) but got dict_keys(['answer'])"), since then
    // `AdapterParseError` "Expected to find output fields in the LM response: [...]" and
    // "Actual output fields parsed from the LM response: [...]" (dspy/utils/exceptions.py): the
    // model's output failed the program's schema; the same prompt fails the same way.
    said("but got dict_keys", Validation),
    said("expected to find output fields", Validation),
    said("output fields parsed from the lm response", Validation),
    // A JSON-schema validator's range words on a request's parameter (OpenAI's 400 "3.0 is
    // greater than the maximum of 2 - 'temperature'", "-1 is less than the minimum of 0 -
    // 'top_p'", Python jsonschema's wording): the value is refused until it is changed.
    stated("is greater than the maximum of", BadRequest),
    stated("is less than the minimum of", BadRequest),
    // Google's protobuf JSON mapping refusing a request's field (Gemini's 400 INVALID_ARGUMENT
    // "Invalid value at 'tools.function_declarations[16].parameters...enum[0]' (TYPE_STRING),
    // true", "Invalid value at '...value.type' (type.googleapis.com/...Type), \"\""): a tool
    // schema or a field the request spelt wrong, the same answer on every try.
    stated("invalid value at '", BadRequest),
    // A server requiring a parameter's value ("Store must be set to false", "Stream must be
    // set to true": the ChatGPT Codex backend's 400 `detail`): the request must change. A
    // setting or variable that "must be set" with no value named stays the set-up rows'.
    stated("must be set to false", BadRequest),
    stated("must be set to true", BadRequest),
    // A prompt over the model's token limit in a relay's words (GitHub Copilot's 400 "prompt
    // token limit exceeded"): its window, which no wait widens. A limit per minute names its
    // window and is read as a rate first.
    // Copilot Chat's own check before sending ("Error: Message exceeds token limit.",
    // microsoft/vscode-copilot-release#1456) says the same of one message.
    stated("prompt token limit exceeded", ContextOverflow),
    stated("exceeds the prompt token limit", ContextOverflow),
    stated("exceeded the prompt token limit", ContextOverflow),
    stated("exceeded prompt token limit", ContextOverflow),
    stated("message exceeds token limit", ContextOverflow),
];

/// Transient words, read with the main transient table.
pub const TRANSIENT: &[Phrase] = &[
    // Apps that rewrite a throttle as heat: opencode's "gemini is way too hot right now" in
    // place of a Gemini 429 "exceeded your current quota" it retries (packages/opencode TUI
    // `prompt/index.tsx`); Ooogle-it's "Our Servers Are Running Too Hot! Please Check Back After
    // Some Time." for OpenAI's throttling.
    said("too hot", RateLimited),
    // nginx's default `error_page 500 502 503 504 /50x.html`: a text that names that page
    // (a relay forwarding its error page's request upstream: "Invalid request to GET
    // /50x.html") says a proxy on the way answered a 5xx, whichever.
    said("/50x.html", ServerError),
];

#[cfg(test)]
mod batch33c_tests {
    use crate::category::Category::*;
    use crate::classify::tables::decides::{each, each_with};
    use crate::failure::Failure;

    /// (batch 33c) Java's and Kotlin's JSON libraries on a reply that is not the JSON they
    /// expected, in texts other than the corpus cases'.
    #[test]
    fn java_and_kotlin_decoders_on_a_reply() {
        each(vec![
            // open-learning-exchange/myplanet#3388 (Retrofit + Gson on an AI chat reply)
            (Failure::new("com.google.gson.JsonSyntaxException: java.lang.IllegalStateException: Expected BEGIN_OBJECT but was STRING at line 1 column 1 path $"), InvalidResponse),
            (Failure::new("java.lang.IllegalStateException: Expected BEGIN_ARRAY but was BEGIN_OBJECT at line 1 column 2 path $").with_class(["java.lang.IllegalStateException"]), InvalidResponse),
            (Failure::new("com.google.gson.stream.MalformedJsonException: Use JsonReader.setLenient(true) to accept malformed JSON at line 1 column 1 path $"), InvalidResponse),
            // TheoKanning/openai-java#52 (Jackson reading SSE lines as JSON)
            (Failure::new("Unrecognized token 'data': was expecting (JSON String, Number, Array, Object or token 'null', 'true' or 'false')"), InvalidResponse),
            (Failure::new("com.fasterxml.jackson.core.JsonParseException: Unexpected character ('<' (code 60)): expected a valid value (JSON String, Number, Array, Object or token 'null', 'true' or 'false')"), InvalidResponse),
            (Failure::new("org.json.JSONException: A JSONObject text must begin with '{' at 1 [character 2 line 1]").with_class(["org.json.JSONException"]), InvalidResponse),
            (Failure::new("cn.hutool.json.JSONException: JSONArray text must start with '[' at 1 [character 2 line 1]"), InvalidResponse),
            (Failure::new("com.fasterxml.jackson.databind.exc.MismatchedInputException: No content to map due to end-of-input"), InvalidResponse),
            (Failure::new("io.ktor.serialization.JsonConvertException: Illegal input: Field 'choices' is required for type with serial name 'ChatCompletion', but it was missing at path: $"), InvalidResponse),
        ]);
        // Near misses: a server's words about the JSON it was sent stay the request's; a
        // decode failure with a 5xx page's status stays the server's.
        each_with(vec![
            (
                Failure::new("Received request for /v1/chat/completions with invalid JSON"),
                BadRequest,
                false,
            ),
            (
                Failure::http(
                    502,
                    "Expected BEGIN_OBJECT but was STRING at line 1 column 1 path $",
                ),
                ServerError,
                true,
            ),
        ]);
    }

    /// (batch 33c) A framework's check of the model's answer against the fields it asked for.
    #[test]
    fn output_fields_missing_from_the_answer() {
        each(vec![
            // DSPy 2.5 dspy/adapters/chat_adapter.py, as a traceback prints it
            (Failure::new("ValueError: Expected dict_keys(['label']) but got dict_keys([])").with_class(["ValueError"]), Validation),
            (Failure::new("Expected to find output fields in the LM response: [reasoning, code] \n\nActual output fields parsed from the LM response: [reasoning]"), Validation),
            (Failure::new("Actual output fields parsed from the LM response: []"), Validation),
        ]);
    }

    /// (batch 33c) A request's value refused by a validator's own words, whatever the relay
    /// prints around it.
    #[test]
    fn request_values_refused() {
        each_with(vec![
            // Frrrrrrrrank/auto_job__find__chatgpt__rpa#40
            (Failure::new("Error code: 400 - {'error': {'message': \"3.0 is greater than the maximum of 2 - 'temperature'\", 'type': 'invalid_request_error', 'param': None, 'code': None}}"), BadRequest, false),
            (Failure::new("-0.5 is less than the minimum of 0 - 'presence_penalty'"), BadRequest, false),
            // microsoft/azure-devops-mcp#139, zereight/gitlab-mcp#166
            (Failure::new("[GoogleGenerativeAI Error]: Invalid value at 'request.tools[0].function_declarations[57].parameters.properties[2].value.enum[1]' (TYPE_STRING), 2"), BadRequest, false),
            (Failure::new("Invalid value at 'tools[0].function_declarations[6].parameters.properties[12].value.any_of[0].type' (type.googleapis.com/google.ai.generativelanguage.v1beta.Type), \"\""), BadRequest, false),
            // router-for-me/CLIProxyAPI#41, openai/codex#26173
            (Failure::new("BadRequestError(\"Error code: 400 - {'detail': 'Store must be set to false'}\")"), BadRequest, false),
            (Failure::new("{\"detail\":\"Stream must be set to true\"}"), BadRequest, false),
            (Failure::http(400, "{\"error\":{\"message\":\"prompt token limit exceeded\",\"code\":\"\"}}"), ContextOverflow, false),
            // microsoft/vscode-copilot-release#1456, #11055
            (Failure::new("Error: Message exceeds token limit.\n    at VR._provideLanguageModelResponse (extension.js:634:4090)"), ContextOverflow, false),
            (Failure::new("You have exceeded the prompt token limit for this request"), ContextOverflow, false),
        ]);
        // Near misses: a setting that "must be set" with no value named is set-up; a limit per
        // minute is a rate.
        each_with(vec![
            (Failure::new("The api_key client option must be set either by passing api_key to the client or by setting the OPENAI_API_KEY environment variable"), Configuration, false),
            (Failure::http(429, "Rate limit reached for gpt-4o on tokens per min (TPM): Limit 30000, Used 29937, Requested 385. Please try again in 644ms."), RateLimited, true),
            (Failure::http(429, "prompt token limit per minute reached, please retry in 20s"), RateLimited, true),
        ]);
    }

    /// (batch 33c) An app's or proxy's own words for a passing failure.
    #[test]
    fn rewritten_throttles_and_proxy_error_pages() {
        each_with(vec![
            // anomalyco/opencode#10058
            (Failure::new("gemini is way too hot right now"), RateLimited, true),
            (Failure::new("Error: the model is running too hot, slow down"), RateLimited, true),
            // nginx's default error page path forwarded by a relay as a request, and that
            // page's own text (nginx html/50x.html)
            (Failure::new("Error: 400 Invalid request to GET /50x.html. Either submit a POST request, or pass your arguments in the query string."), ServerError, true),
            (Failure::new("An error occurred. Sorry, the page you are looking for is currently unavailable. Please try again later."), ServerError, true),
        ]);
        // Near misses: a temperature set too high is the request's, whatever "hot" suggests;
        // a route the server lacks, not its error page, stays the caller's set-up.
        each_with(vec![
            (
                Failure::new("3 is greater than the maximum of 2 - 'temperature'"),
                BadRequest,
                false,
            ),
            (
                Failure::new("Cannot POST /v1/chat/completions/"),
                Configuration,
                false,
            ),
        ]);
    }
}
