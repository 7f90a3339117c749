//! (batch 20) A reply not in the form the program expects. CONTRACT §2 parts them: the model's
//! output failing the caller's schema (a tool's argument missing, JSON the model wrote that does
//! not parse) is `validation`; a reply that breaks the protocol (no generation at all in a
//! stream, no tool call where the API was told to make one) is `invalid_response`.

use super::{said, stated, Phrase};
use crate::category::Category::*;

/// Output-form words, read after the main tables.
pub const PERMANENT: &[Phrase] = &[
    // Void's edit tools ("Invalid LLM output format: searchReplaceBlocks must be a string");
    // LangChain's `OutputParserException` "Invalid json output"; an agent's "LLM output
    // format".
    said("invalid llm output", Validation),
    said("llm output format", Validation),
    said("invalid json output", Validation),
    // MetaGPT's repair step retried by tenacity until it gives up on the model's JSON
    // ("RetryError[<Future ... raised JSONDecodeError>]"): the last attempt's error is the
    // model's output that did not parse.
    said("raised jsondecodeerror", Validation),
    // LangChain core `generate_from_stream`: ValueError("No generations found in stream.").
    said("no generations found in stream", InvalidResponse),
    // LlamaIndex's function-calling programs and agents ("Expected tool_calls in
    // ai_message.additional_kwargs, but none found.", "Expected at least one tool call, but
    // got 0 tool calls.").
    said("expected tool_calls", InvalidResponse),
    said("expected at least one tool call", InvalidResponse),
    // (batch 22) DSPy's adapters (dspy/utils/exceptions.py `AdapterParseError`: "Adapter
    // ChatAdapter failed to parse the LM response"; JSONAdapter and XMLAdapter say the same):
    // the model's text is not in the fields the signature asks for.
    said("failed to parse the lm response", Validation),
    // Python's json decoder on text with a bad escape or a raw control character ("Invalid
    // \\escape: line 4 column 41", "Invalid control character at"): a provider's serializer
    // never writes these; JSON a model wrote in its answer (OpenDevin's action parsing) does.
    // A body that is not JSON at all ("Expecting value: line 1 column 1") stays a broken reply.
    said(MODEL_WRITTEN[0], Validation),
    said(MODEL_WRITTEN[1], Validation),
    // The AI SDK's `TypeValidationError` ("Type validation failed: Value: {...}"), also when
    // the value is a provider's stream error event: the chunk did not fit the schema, a
    // protocol fault, not a cut stream. Gemini CLI's SSE reader ("Unexpected line format in
    // response: ,", packages/core/src/code_assist/server.ts): a line outside the protocol.
    said("type validation failed", InvalidResponse),
    said("unexpected line format", InvalidResponse),
    // (batch 27) Gemini's finishReason for a tool call the model wrote that does not parse,
    // or one it was not offered (ai.google.dev FinishReason MALFORMED_FUNCTION_CALL,
    // UNEXPECTED_TOOL_CALL, TOO_MANY_TOOL_CALLS; Gemini CLI `useGeminiStream.ts` prints
    // "Response stopped due to malformed function call.", "... unexpected tool call."): the
    // reply breaks the protocol, in the enum's name or the clients' sentence.
    said("malformed_function_call", InvalidResponse),
    said("malformed function call", InvalidResponse),
    said("unexpected_tool_call", InvalidResponse),
    said("stopped due to unexpected tool call", InvalidResponse),
    said("too_many_tool_calls", InvalidResponse),
    // (batch 28) Zod's issue texts when an app parses the model's JSON with its own schema
    // ("Expected object, received array", v4 "Invalid input: expected object, received
    // array"; Langfuse's "Failed to call LLM: [...]"): the model's output, validation. Read
    // after the AI SDK's "type validation failed" above, where the same words are a reply
    // that broke the provider's schema.
    said("expected object, received", Validation),
    said("expected array, received", Validation),
    // (batch 28) Groq's refusals of output the model wrote, in their message alone when the
    // code (`tool_use_failed`, `json_validate_failed`) is not printed: "Failed to call a
    // function. Please adjust your prompt. See 'failed_generation' for more details.", "Failed
    // to generate JSON. Please adjust your prompt. See 'failed_generation' for more details."
    // (console.groq.com/docs/errors; groq-typescript BadRequestError as apps print it). The
    // corpus labels these validation (groq.json); the same prompt fails the same way.
    stated("see 'failed_generation'", Validation),
    stated(
        "failed to call a function. please adjust your prompt",
        Validation,
    ),
    stated(
        "failed to generate json. please adjust your prompt",
        Validation,
    ),
    // (batch 30) A harness that found no code in the model's reply (AutoManual: "LLM failed to
    // respond with code as expected."): the output failed the harness's format check.
    said("failed to respond with code", Validation),
    said("did not respond with code", Validation),
    // (batch 31a) The same finish reasons in the words of Google's own enum descriptions
    // (google-genai FinishReason: MALFORMED_FUNCTION_CALL "The function call generated by the
    // model is invalid.", UNEXPECTED_TOOL_CALL "The tool call generated by the model is
    // invalid."), and their names, stated: a wrapper's 500 around them (EPAM DIAL's Vertex
    // adapter answers `internal_server_error` 500 with the first sentence) is still the model's
    // reply breaking the protocol, one decision whatever status carries it (batch 27).
    stated("call generated by the model is invalid", InvalidResponse),
    stated("malformed_function_call", InvalidResponse),
    stated("malformed function call", InvalidResponse),
];

/// (batch 28) The AI SDK's reports of a reply that failed its schema or its JSON parser
/// (`@ai-sdk/provider` TypeValidationError "Type validation failed: Value: {...}.\nError
/// message: [zod issues]", JSONParseError "JSON parsing failed: Text: ...\nError message: ..."):
/// what follows `SCHEMA_REPORT_CAUSE` is the validator's own list (zod's `"code":
/// "invalid_type"`, `"invalid_union"`), never a provider's envelope, so a provider's code is
/// read only before it.
pub const SCHEMA_REPORT_HEADS: &[&str] = &["type validation failed", "json parsing failed"];
/// Where the validator's cause starts in a `SCHEMA_REPORT_HEADS` report.
pub const SCHEMA_REPORT_CAUSE: &str = "error message:";

/// (batch 27) Retry wrappers: a class raised after the wrapper's attempts ran out, whose text
/// names the last inner error (instructor `core/exceptions.py` InstructorRetryException,
/// tenacity `RetryError`, backoff's giveup re-raise). Where that text names an exception class
/// the class table knows, the inner error decides: an API's 400 re-raised after three tries is
/// still the 400, not the model's output failing the schema.
pub const RETRY_WRAPPERS: &[&str] = &["InstructorRetryException", "RetryError"];

/// Python's json decoder words for JSON no serializer writes (read also under a decoder's
/// class, which alone would say a broken reply).
pub const MODEL_WRITTEN: &[&str] = &["invalid \\escape", "invalid control character"];

#[cfg(test)]
mod tests {
    use crate::category::Category::{self, *};
    use crate::classify::classify;
    use crate::failure::Failure;

    /// The model's output against the caller's schema is validation; a reply that breaks the
    /// protocol is an invalid response. Neither is retried by default.
    #[test]
    fn output_form_from_sources() {
        let cases: &[(&str, Category)] = &[
            (
                "Invalid LLM output format: the edit block must be a string",
                Validation,
            ),
            (
                "OutputParserException: Invalid json output: Sure! Here is",
                Validation,
            ),
            (
                "RetryError[<Future at 0x10 state=finished raised JSONDecodeError>]",
                Validation,
            ),
            (
                "ValueError: No generations found in stream.",
                InvalidResponse,
            ),
            (
                "Expected at least one tool call, but got 0 tool calls.",
                InvalidResponse,
            ),
            (
                "ValueError: Expected tool_calls in the reply, but none found.",
                InvalidResponse,
            ),
        ];
        for (text, want) in cases {
            let c = classify(&Failure::new(*text));
            assert_eq!((c.category, c.transient), (*want, false), "{text}");
        }
    }

    /// (batch 22) The line between a reply that breaks the protocol and model output that
    /// fails the caller's parser, in the frameworks' own words and classes.
    #[test]
    fn parser_classes_and_decoder_words_from_sources() {
        let cases: &[(Failure, Category)] = &[
            // dspy/utils/exceptions.py AdapterParseError; JSONAdapter says the same.
            (
                Failure::new("Adapter ChatAdapter failed to parse the LM response")
                    .with_class(["dspy.utils.exceptions.AdapterParseError", "Exception"]),
                Validation,
            ),
            (
                Failure::new("Adapter JSONAdapter failed to parse the LM response. \n\nLM Response: {"),
                Validation,
            ),
            // langchain4j dev.langchain4j.service.output.OutputParsingException.
            (
                Failure::new("Failed to parse \"Sure\" into java.time.LocalDate")
                    .with_class(["dev.langchain4j.service.output.OutputParsingException"]),
                Validation,
            ),
            // Python's json decoder on model-written JSON (OpenDevin's action parsing)...
            (
                Failure::new("Invalid \\escape: line 4 column 41 (char 71)")
                    .with_class(["json.decoder.JSONDecodeError", "ValueError"]),
                Validation,
            ),
            (
                Failure::new("Invalid control character at: line 1 column 80 (char 79)")
                    .with_class(["json.JSONDecodeError"]),
                Validation,
            ),
            // ...but a body that is not JSON at all is a broken reply.
            (
                Failure::new("Expecting value: line 1 column 1 (char 0)")
                    .with_class(["json.decoder.JSONDecodeError", "ValueError"]),
                InvalidResponse,
            ),
            // The AI SDK's TypeValidationError around a provider's stream error event: the
            // chunk failed the schema, not a cut stream.
            (
                Failure::new("Type validation failed: Value: {\"sequence_number\":0,\"type\":\"error\",\"code\":null,\"message\":\"Invalid arguments passed to the model.\",\"param\":null}.")
                    .with_class(["AI_TypeValidationError", "AISDKError", "Error"]),
                InvalidResponse,
            ),
            // Gemini CLI's SSE reader (packages/core/src/code_assist/server.ts).
            (
                Failure::new("[API Error: Unexpected line format in response: ,]"),
                InvalidResponse,
            ),
        ];
        for (f, want) in cases {
            let c = classify(f);
            assert_eq!((c.category, c.transient), (*want, false), "{}", f.message);
        }
    }
}

#[cfg(test)]
mod batch27a_tests {
    use crate::category::Category::*;
    use crate::classify::classify;
    use crate::failure::Failure;

    /// (batch 27) Gemini's finishReasons, by enum name and as Gemini CLI words them
    /// (`useGeminiStream.ts`): a broken tool call is an invalid reply, a block is moderation.
    #[test]
    fn gemini_finish_reasons_in_any_wrapper() {
        for (text, want) in [
            (
                "Response stopped due to malformed function call.",
                InvalidResponse,
            ),
            (
                "ℹ ⚠️ Response stopped due to malformed function call.",
                InvalidResponse,
            ),
            (
                "Response stopped due to unexpected tool call.",
                InvalidResponse,
            ),
            (
                "Candidate finished with reason MALFORMED_FUNCTION_CALL",
                InvalidResponse,
            ),
            ("finishReason: TOO_MANY_TOOL_CALLS", InvalidResponse),
            ("Response stopped due to safety reasons.", ContentFiltered),
            (
                "Response stopped due to recitation policy.",
                ContentFiltered,
            ),
            (
                "Response stopped due to prohibited content.",
                ContentFiltered,
            ),
            (
                "Response stopped due to sensitive personally identifiable information.",
                ContentFiltered,
            ),
            (
                "Response stopped due to image safety violations.",
                ContentFiltered,
            ),
            // the enum's names as SDKs print a candidate
            ("finishReason: RECITATION", ContentFiltered),
            (
                "ValueError: finish_reason: FinishReason.RECITATION",
                ContentFiltered,
            ),
            (
                "{\"candidates\":[{\"finishReason\": \"RECITATION\"}]}",
                ContentFiltered,
            ),
            ("finish_reason: PROHIBITED_CONTENT", ContentFiltered),
            ("finishReason IMAGE_SAFETY", ContentFiltered),
        ] {
            let c = classify(&Failure::new(text));
            assert_eq!((c.category, c.transient), (want, false), "{text}");
        }
    }

    /// (batch 27) A retry wrapper's class around a named inner error: the inner one decides;
    /// a wrapper whose text names no known class keeps the wrapper's verdict.
    #[test]
    fn retry_wrappers_defer_to_the_inner_error() {
        let wrapped = |text: &str| {
            classify(
                &Failure::new(text).with_class(["instructor.exceptions.InstructorRetryException"]),
            )
        };
        // ExtractThinker#327: LiteLLM's 400 re-raised by instructor after its tries.
        let c = wrapped("litellm.BadRequestError: OpenAIException - Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.");
        assert_eq!((c.category, c.transient), (BadRequest, false));
        let c = wrapped("openai.AuthenticationError: Error code: 401 - invalid api key");
        assert_eq!((c.category, c.transient), (Unauthorized, false));
        // The model's output failing the schema three times stays validation.
        let c = wrapped("1 validation error for User\nage\n  Field required");
        assert_eq!((c.category, c.transient), (Validation, false));
    }
}

/// (batch 28) Zod's issue words: the model's JSON against an app's schema is validation; the
/// same words inside the AI SDK's "Type validation failed" are a reply that broke its schema.
#[cfg(test)]
mod batch28b_tests {
    use crate::category::Category::*;
    use crate::classify::classify;
    use crate::failure::Failure;

    #[test]
    fn zod_issues_by_whose_schema() {
        for (text, want) in [
            // Zod v3 ZodIssue JSON (code, expected, received, path, message).
            ("[{\"code\":\"invalid_type\",\"expected\":\"array\",\"received\":\"string\",\"path\":[\"items\"],\"message\":\"Expected array, received string\"}]", Validation),
            // Zod v4's message.
            ("Failed to call LLM: Invalid input: expected object, received array", Validation),
            // The AI SDK's TypeValidationError around the same issue: the provider's reply.
            ("Type validation failed: Value: {\"choices\":null}. Error message: [{\"expected\":\"array\",\"code\":\"invalid_type\",\"path\":[\"choices\"],\"message\":\"Invalid input: expected array, received null\"}]", InvalidResponse),
        ] {
            let c = classify(&Failure::new(text));
            assert_eq!((c.category, c.transient), (want, false), "{text}");
        }
    }
}

#[cfg(test)]
mod batch28a_tests {
    use crate::category::Category::*;
    use crate::classify::classify;
    use crate::failure::Failure;

    /// (batch 28) Groq's words for a tool call or JSON the model wrote that did not parse,
    /// with or without the code, under its 400 or none.
    #[test]
    fn groq_failed_generation_is_validation_without_its_code() {
        for (status, text) in [
            // groq-typescript BadRequestError, as apps print it
            (Some(400), "400 Failed to call a function. Please adjust your prompt. See 'failed_generation' for more details."),
            // JSON mode (console.groq.com/docs/errors json_validate_failed)
            (Some(400), "Failed to generate JSON. Please adjust your prompt. See 'failed_generation' for more details."),
            // a wrapper that kept neither status nor code
            (None, "Error: Failed to call a function. Please adjust your prompt."),
        ] {
            let f = match status {
                Some(s) => Failure::http(s, text),
                None => Failure::new(text),
            };
            let c = classify(&f);
            assert_eq!((c.category, c.transient), (Validation, false), "{text}");
        }
    }

    /// (batch 28) A reply that failed the AI SDK's schema is an invalid response whatever
    /// codes the validator's issue list carries (zod 4 and zod 3 wordings of an empty reply).
    #[test]
    fn validator_issue_codes_are_not_a_providers() {
        for text in [
            // zod 4 issue list (z.ai / GLM endpoint's empty shell, as an app printed it)
            "Type validation failed: Value: {\"id\":\"\",\"choices\":null,\"usage\":null}. Error message: [ { \"code\": \"invalid_union\", \"errors\": [ [ { \"expected\": \"array\", \"code\": \"invalid_type\", \"path\": [ \"choices\" ], \"message\": \"Invalid input: expected array, received null\" } ] ], \"path\": [] } ]",
            // zod 3 issue list, a Gemini-shaped reply with no candidates
            "Type validation failed: Value: {\"candidates\":null}.\nError message: [{\"code\":\"invalid_type\",\"expected\":\"array\",\"received\":\"null\",\"path\":[\"candidates\"],\"message\":\"Expected array, received null\"}]",
        ] {
            let c = classify(&Failure::new(text));
            assert_eq!((c.category, c.transient), (InvalidResponse, false), "{text}");
        }
        // The provider's own code before the cause still speaks (a 429 envelope quoted as the value).
        let c = classify(&Failure::new(
            "Type validation failed: Value: {\"error\":{\"code\":\"insufficient_quota\",\"message\":\"You exceeded your current quota\"}}. Error message: [{\"code\":\"invalid_type\"}]",
        ));
        assert_eq!(c.category, PaymentRequired);
    }
}
