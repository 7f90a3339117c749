//! User-facing texts: SwarmSDK's error message format and seconds formatting.

use crate::category::{Category, Classification};
use crate::failure::Failure;
use crate::scrub::scrub;

/// One line of guidance per category, after SwarmSDK's `format_error_message`.
const GUIDANCE: &[(Category, &str)] = &[
    (Category::Unauthorized, "Please check your API credentials."),
    (Category::PaymentRequired, "Please check your account billing status."),
    (Category::Forbidden, "You may not have permission to access this resource."),
    (Category::BadRequest, "The request format may be invalid."),
    (Category::OrphanToolCalls, "The request format may be invalid."),
    (Category::ContextOverflow, "The conversation is too long for the model's context window; shorten or compact it."),
    (Category::NotFound, "Please check the model name and endpoint."),
    (Category::ContentFiltered, "The provider's content filter refused the request."),
    (Category::Configuration, "Please check your configuration (API key, model, base URL)."),
];
const DEFAULT_GUIDANCE: &str = "Please review the error and try again.";

/// The guidance sentence for a category.
pub fn guidance(category: Category) -> &'static str {
    GUIDANCE.iter().find(|(c, _)| *c == category).map_or(DEFAULT_GUIDANCE, |(_, g)| g)
}

/// The last segment of a class name (`RubyLLM::UnauthorizedError` -> `UnauthorizedError`).
pub fn short_class(name: &str) -> &str {
    let s = name.rsplit("::").next().unwrap_or(name);
    s.rsplit('.').next().unwrap_or(s)
}

/// SwarmSDK's error text, returned as the assistant's message on a non-retryable error.
/// Secrets are scrubbed; the request body is never included.
pub fn error_message(failure: &Failure, c: &Classification) -> String {
    let class = failure.error_class.first().map(|s| short_class(s)).unwrap_or(c.error_type.as_str());
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

    #[test]
    fn seconds() {
        assert_eq!(format_seconds(2.0), "2");
        assert_eq!(format_seconds(1.5), "1.5");
        assert_eq!(format_seconds(0.02), "0.02");
    }
}
