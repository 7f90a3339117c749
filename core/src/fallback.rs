//! The model fallback chain: when one model gives up, which model to try next.
//!
//! ```
//! use retry_core::__private::fallback::{ModelChain, ModelSpec};
//! use retry_core::{classify, Failure, GiveUpReason};
//!
//! let chain = ModelChain::new(vec![
//!     ModelSpec::new("gpt-4o-mini").with_context_window(128_000),
//!     ModelSpec::new("claude-haiku").with_context_window(200_000),
//! ]).prefer_larger_window_on_overflow(true);
//! let overflow = classify(&Failure::http(400, "This model's maximum context length is 128000 tokens"));
//! assert_eq!(chain.next(0, &overflow, GiveUpReason::Permanent), Some(1));
//! ```

use serde::{Deserialize, Serialize};

use crate::category::{Category, Classification};
use crate::machine::GiveUpReason;

/// One model of the chain.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModelSpec {
    /// The model's name, as the caller's client knows it.
    pub name: String,
    /// Tokens of context, when known (for the context-overflow fallback).
    #[serde(default)]
    pub context_window: Option<u64>,
}

impl ModelSpec {
    /// A model with no known context window.
    pub fn new(name: impl Into<String>) -> Self {
        ModelSpec {
            name: name.into(),
            context_window: None,
        }
    }
    /// Sets the model's context window, in tokens.
    pub fn with_context_window(mut self, tokens: u64) -> Self {
        self.context_window = Some(tokens);
        self
    }
}

/// Models in order of preference.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModelChain {
    /// The models, most preferred first.
    pub models: Vec<ModelSpec>,
    /// On `context_overflow`, skip to the next model with a larger window (and stop if none).
    #[serde(default)]
    pub larger_window_on_overflow: bool,
    /// A programming error (`TypeError`, ...) moves on too, as PlanExe's `LLMExecutor` does
    /// (every error but a stop request moves on there); by default it stops the chain.
    #[serde(default)]
    pub move_on_programming_errors: bool,
}

/// Failures no other model can fix: stop the chain (a programming error unless
/// [`ModelChain::move_on_programming_errors`]).
const STOP: &[Category] = &[Category::Cancelled, Category::Programming];

impl ModelChain {
    /// A chain over `models`, with `larger_window_on_overflow` off.
    pub fn new(models: Vec<ModelSpec>) -> Self {
        ModelChain {
            models,
            larger_window_on_overflow: false,
            move_on_programming_errors: false,
        }
    }

    /// Sets whether a context overflow skips to the next model with a larger window.
    pub fn prefer_larger_window_on_overflow(mut self, yes: bool) -> Self {
        self.larger_window_on_overflow = yes;
        self
    }

    /// Sets whether a programming error moves on to the next model (PlanExe) or stops.
    pub fn move_on_programming_errors_too(mut self, yes: bool) -> Self {
        self.move_on_programming_errors = yes;
        self
    }

    /// The index of the model to try after model `current` gave up with `c` for `reason`,
    /// or `None` to stop. Permanent errors, exhaustion, a spent budget, an open circuit and a
    /// passed deadline all move on (another model may be another provider); cancellation and
    /// programming errors stop.
    pub fn next(&self, current: usize, c: &Classification, _reason: GiveUpReason) -> Option<usize> {
        let moves_on = c.category == Category::Programming && self.move_on_programming_errors;
        if STOP.contains(&c.category) && !moves_on {
            return None;
        }
        if c.category == Category::ContextOverflow && self.larger_window_on_overflow {
            let here = self.models.get(current)?.context_window.unwrap_or(0);
            return (current + 1..self.models.len())
                .find(|&i| self.models[i].context_window.unwrap_or(0) > here);
        }
        (current + 1 < self.models.len()).then_some(current + 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{classify, Failure};

    fn chain() -> ModelChain {
        ModelChain::new(vec![
            ModelSpec::new("a").with_context_window(8_000),
            ModelSpec::new("b").with_context_window(8_000),
            ModelSpec::new("c").with_context_window(200_000),
        ])
    }

    #[test]
    fn moves_on_or_stops() {
        let c = chain();
        let unauthorized = classify(&Failure::http(401, "bad key"));
        assert_eq!(c.next(0, &unauthorized, GiveUpReason::Permanent), Some(1));
        assert_eq!(c.next(2, &unauthorized, GiveUpReason::Permanent), None);
        let busy = classify(&Failure::http(503, "busy"));
        assert_eq!(c.next(1, &busy, GiveUpReason::Exhausted), Some(2));
        let bug = classify(&Failure::new("x").with_class(["TypeError"]));
        assert_eq!(c.next(0, &bug, GiveUpReason::Permanent), None);
        let planexe = chain().move_on_programming_errors_too(true);
        assert_eq!(planexe.next(0, &bug, GiveUpReason::Permanent), Some(1));
        let stop = classify(&Failure::new("").with_class(["KeyboardInterrupt"]));
        assert_eq!(planexe.next(0, &stop, GiveUpReason::Permanent), None);
    }

    #[test]
    fn overflow_skips_to_a_larger_window() {
        let overflow = classify(&Failure::http(
            400,
            "prompt is too long: 9000 tokens > 8000 maximum",
        ));
        assert_eq!(chain().next(0, &overflow, GiveUpReason::Permanent), Some(1));
        let c = chain().prefer_larger_window_on_overflow(true);
        assert_eq!(c.next(0, &overflow, GiveUpReason::Permanent), Some(2));
        assert_eq!(c.next(2, &overflow, GiveUpReason::Permanent), None);
    }
}
