//! User-facing texts: SwarmSDK's error message format and seconds formatting.

use crate::category::{Category, Classification};
use crate::failure::Failure;
use crate::scrub::scrub;

/// One line of guidance per category, after SwarmSDK's `format_error_message`.
const GUIDANCE: &[(Category, &str)] = &[
    (Category::Unauthorized, "Please check your API credentials."),
    (
        Category::PaymentRequired,
        "Please check your account billing status.",
    ),
    (
        Category::Forbidden,
        "You may not have permission to access this resource.",
    ),
    (Category::BadRequest, "The request format may be invalid."),
    (
        Category::OrphanToolCalls,
        "The request format may be invalid.",
    ),
    (
        Category::ContextOverflow,
        "The conversation is too long for the model's context window; shorten or compact it.",
    ),
    (
        Category::NotFound,
        "Please check the model name and endpoint.",
    ),
    (
        Category::ContentFiltered,
        "The provider's content filter refused the request.",
    ),
    (
        Category::Configuration,
        "Please check your configuration (API key, model, base URL).",
    ),
];
const DEFAULT_GUIDANCE: &str = "Please review the error and try again.";

/// The guidance sentence for a category.
pub fn guidance(category: Category) -> &'static str {
    GUIDANCE
        .iter()
        .find(|(c, _)| *c == category)
        .map_or(DEFAULT_GUIDANCE, |(_, g)| g)
}

/// The last segment of a class name (`RubyLLM::UnauthorizedError` -> `UnauthorizedError`).
pub fn short_class(name: &str) -> &str {
    let s = name.rsplit("::").next().unwrap_or(name);
    s.rsplit('.').next().unwrap_or(s)
}

/// SwarmSDK's error text, returned as the assistant's message on a non-retryable error.
/// Secrets are scrubbed; the request body is never included.
pub fn error_message(failure: &Failure, c: &Classification) -> String {
    let class = failure
        .error_class
        .first()
        .map(|s| short_class(s))
        .unwrap_or(c.error_type.as_str());
    let mut msg = String::from("I encountered an error while processing your request:\n\n");
    msg.push_str(&format!("**Error Type:** {class}\n"));
    if let Some(status) = failure.status {
        msg.push_str(&format!("**Status Code:** {status}\n"));
    }
    msg.push_str(&format!("**Message:** {}\n\n", scrub(&failure.message)));
    msg.push_str("This error indicates a problem that cannot be automatically recovered. ");
    msg.push_str(guidance(c.category));
    msg
}

/// The `error_type` SwarmSDK's `call_llm_with_retry` gives a failure it does not retry (its
/// `llm_request_failed` event), decided from the engine's classification so that the SwarmSDK
/// adapters keep SwarmSDK's names even where the engine decides differently:
/// `Unauthorized`, `PaymentRequired`, `Forbidden`, `UnprocessableEntity` and `BadRequest` as its
/// rescue clauses name them, `ClientError` for any other 4xx, `UnknownAPIError` for an API error
/// nothing recognises, and the class name for programming errors (and other non-API errors).
pub fn swarm_error_type(failure: &Failure, c: &Classification) -> String {
    let class_name = || {
        failure
            .error_class
            .first()
            .cloned()
            .unwrap_or_else(|| c.error_type.clone())
    };
    let fixed = match c.category {
        Category::Programming => return class_name(),
        Category::Unauthorized => Some("Unauthorized"),
        Category::PaymentRequired => Some("PaymentRequired"),
        Category::Forbidden => Some("Forbidden"),
        Category::Unprocessable => Some("UnprocessableEntity"),
        _ => None,
    };
    if let Some(name) = fixed {
        return name.to_owned();
    }
    // SwarmSDK's `rescue RubyLLM::Error` branch names client errors by their status.
    let by_status = match c.status {
        Some(400) => Some("BadRequest"),
        Some(401) => Some("Unauthorized"),
        Some(402) => Some("PaymentRequired"),
        Some(403) => Some("Forbidden"),
        Some(422) => Some("UnprocessableEntity"),
        Some(s) if (400..500).contains(&s) => Some("ClientError"),
        _ => None,
    };
    if let Some(name) = by_status {
        return name.to_owned();
    }
    if matches!(c.category, Category::BadRequest | Category::OrphanToolCalls) {
        return "BadRequest".to_owned();
    }
    match (c.status, c.api_error) {
        (Some(_), _) if c.category == Category::Unknown => "UnknownAPIError".to_owned(),
        (Some(_), _) => c.error_type.clone(),
        (None, true) => "UnknownAPIError".to_owned(),
        (None, false) => class_name(),
    }
}

/// Seconds as people write them: `2`, `1.5`, `0.25`.
pub fn format_seconds(s: f64) -> String {
    if s.fract() == 0.0 && s.abs() < 1e15 {
        format!("{}", s as i64)
    } else {
        let t = format!("{s:.3}");
        t.trim_end_matches('0').trim_end_matches('.').to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn swarm(status: Option<u16>, chain: &[&str], message: &str) -> String {
        let mut f = Failure::new(message).with_class(chain.iter().copied());
        f.status = status;
        swarm_error_type(&f, &crate::classify(&f))
    }

    #[test]
    fn swarm_error_types_follow_swarm_sdk_rescue_clauses() {
        let llm = |name: &'static str| [name, "RubyLLM::Error", "StandardError", "Exception"];
        assert_eq!(
            swarm(
                Some(400),
                &llm("RubyLLM::BadRequestError"),
                "Invalid request"
            ),
            "BadRequest"
        );
        assert_eq!(
            swarm(
                Some(400),
                &llm("RubyLLM::BadRequestError"),
                "tool_use ids were found without tool_result blocks"
            ),
            "BadRequest"
        );
        assert_eq!(
            swarm(
                Some(400),
                &llm("RubyLLM::BadRequestError"),
                "prompt is too long"
            ),
            "BadRequest"
        );
        assert_eq!(
            swarm(
                Some(401),
                &llm("RubyLLM::UnauthorizedError"),
                "Invalid API key"
            ),
            "Unauthorized"
        );
        assert_eq!(
            swarm(Some(402), &llm("RubyLLM::PaymentRequiredError"), "top up"),
            "PaymentRequired"
        );
        assert_eq!(
            swarm(Some(403), &llm("RubyLLM::ForbiddenError"), "nope"),
            "Forbidden"
        );
        assert_eq!(
            swarm(Some(422), &["RubyLLM::Error", "StandardError"], "bad value"),
            "UnprocessableEntity"
        );
        assert_eq!(
            swarm(
                Some(418),
                &["RubyLLM::Error", "StandardError"],
                "I'm a teapot"
            ),
            "ClientError"
        );
        assert_eq!(
            swarm(
                Some(404),
                &["RubyLLM::Error", "StandardError"],
                "model not found"
            ),
            "ClientError"
        );
        assert_eq!(
            swarm(None, &["RubyLLM::Error", "StandardError"], "something odd"),
            "UnknownAPIError"
        );
        // The engine knows a 429 `insufficient_quota` is billing; SwarmSDK's name for billing is kept.
        assert_eq!(
            swarm(
                Some(429),
                &llm("RubyLLM::RateLimitError"),
                "You exceeded your current quota: insufficient_quota"
            ),
            "PaymentRequired"
        );
        assert_eq!(
            swarm(
                None,
                &["NoMethodError", "NameError", "StandardError"],
                "undefined method"
            ),
            "NoMethodError"
        );
        assert_eq!(
            swarm(
                None,
                &["ArgumentError", "StandardError"],
                "wrong number of arguments"
            ),
            "ArgumentError"
        );
        assert_eq!(
            swarm(
                None,
                &["RubyLLM::ConfigurationError", "StandardError"],
                "provider is not configured"
            ),
            "RubyLLM::ConfigurationError"
        );
    }

    #[test]
    fn seconds() {
        assert_eq!(format_seconds(2.0), "2");
        assert_eq!(format_seconds(1.5), "1.5");
        assert_eq!(format_seconds(0.02), "0.02");
    }
}
