//! The retry budget: a token bucket per key, after the AWS SDKs' standard retry mode. Retries
//! spend tokens (timeouts more), successes earn them back, so a fleet's retries stay a small
//! fraction of its calls however many agents retry at once.

use serde::{Deserialize, Serialize};

use crate::category::Category;

/// Budget settings.
///
/// # Default
/// AWS standard mode: 500 tokens, a retry costs 5 (a timeout 10), a successful first attempt
/// earns 1 back, a successful retry earns its cost back.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct BudgetConfig {
    /// The tokens a key starts with and can never exceed. Default: 500.
    pub capacity: f64,
    /// What a retry costs, and what a successful retry earns back. Default: 5.
    pub retry_cost: f64,
    /// What a retry of a timeout or connection failure costs. Default: 10.
    pub timeout_cost: f64,
    /// What a success on the first attempt earns back. Default: 1.
    pub success_refund: f64,
}

impl Default for BudgetConfig {
    fn default() -> Self {
        BudgetConfig {
            capacity: 500.0,
            retry_cost: 5.0,
            timeout_cost: 10.0,
            success_refund: 1.0,
        }
    }
}

impl BudgetConfig {
    /// What a retry of this category costs.
    pub fn cost(&self, category: Category) -> f64 {
        match category {
            Category::Timeout | Category::Connection => self.timeout_cost,
            _ => self.retry_cost,
        }
    }

    /// What a success earns back (`retried`: the success came after retries).
    pub fn refund(&self, retried: bool) -> f64 {
        if retried {
            self.retry_cost
        } else {
            self.success_refund
        }
    }
}

/// Spends `cost` from `tokens` (starting full when unset) if it can. Pure, for every backend.
pub fn spend(tokens: Option<f64>, cost: f64, cfg: &BudgetConfig) -> (bool, f64) {
    let t = tokens.unwrap_or(cfg.capacity);
    if t >= cost {
        (true, t - cost)
    } else {
        (false, t)
    }
}

/// Earns `amount` back, never past capacity.
pub fn earn(tokens: Option<f64>, amount: f64, cfg: &BudgetConfig) -> f64 {
    (tokens.unwrap_or(cfg.capacity) + amount).min(cfg.capacity)
}
