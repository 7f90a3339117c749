//! The names of the errors a run reports (`llm_request_failed`'s `error_type`): the contract's
//! own, or SwarmSDK's as its rescue clauses give them. A run option (`RunConfig::error_names`),
//! so a front door never renames the core's events after the fact.

use crate::category::{Category, Classification};
use crate::failure::Failure;

/// The vocabulary of `llm_request_failed`'s `error_type`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorNames {
    /// The classification's `error_type` (`RateLimit`, `BadRequest`, ...).
    #[default]
    Contract,
    /// SwarmSDK's names, as its rescue clauses give them (CONTRACT §6: the SwarmSDK adapter).
    SwarmSdk,
}

impl ErrorNames {
    /// The `error_type` of a failure that is not retried.
    pub fn error_type(self, failure: &Failure, c: &Classification) -> String {
        match self {
            ErrorNames::Contract => c.error_type.clone(),
            ErrorNames::SwarmSdk => swarm_error_type(failure, c),
        }
    }
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
}
