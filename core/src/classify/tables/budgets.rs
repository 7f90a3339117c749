//! (batch 20) Budgets: an agent's own cost budget, a plan's usage window of a day or more, and a
//! balance too low in a relay's words. None of them recovers by waiting within any retry budget
//! (CONTRACT §2: a quota of a day or more, or money, is `payment_required`; a per-hour or
//! per-minute quota stays `rate_limited`). Balance rows are `stated`: they beat a 403 or 429 a
//! relay puts them under.

use super::{said, stated, Phrase};
use crate::category::Category::*;

/// Spent budgets and balances, read after the main tables.
pub const PERMANENT: &[Phrase] = &[
    // SWE-agent's per-instance and total budgets (sweagent/exceptions.py
    // `InstanceCostLimitExceededError`, `TotalCostLimitExceededError`,
    // `InstanceCallLimitExceededError`, whose names a log runs together with the text; logged
    // "Cost 3.13 exceeds limit 3.00" and "Cost limit exceeded", "Instance cost limit
    // exceeded"); other agents' "cost budget exceeded".
    said("cost limit exceeded", PaymentRequired),
    said("costlimitexceedederror", PaymentRequired),
    said("instancecostlimitexceedederror", PaymentRequired),
    said("totalcostlimitexceedederror", PaymentRequired),
    said("instancecalllimitexceedederror", PaymentRequired),
    said("cost budget exceeded", PaymentRequired),
    // A plan's window of days (Claude Code's "Claude AI usage limit reached", OpenCode's and
    // Codex's "weekly usage limit", "monthly usage limit"; MiniMax 2056 "usage limit
    // exceeded" is already a main-table row).
    said("weekly usage limit", PaymentRequired),
    said("monthly usage limit", PaymentRequired),
    said("daily usage limit", PaymentRequired),
    said("usage limit reached", PaymentRequired),
    // A relay's balance too low (chatanywhere's 403 "账户余额过低不足以支持本次请求 ... Your
    // account balance is not sufficient to support this request"; one-api's
    // "用户余额不足", new-api's "预扣费额度失败, 用户剩余额度"; OpenRouter's "Insufficient
    // credits").
    stated("balance is not sufficient", PaymentRequired),
    stated("balance is too low", PaymentRequired),
    stated("balance too low", PaymentRequired),
    stated("insufficient account balance", PaymentRequired),
    stated("余额过低", PaymentRequired),
    stated("剩余额度", PaymentRequired),
    // (batch 23) A window of a month, a week or a day stated in words over a throttling code
    // (Amazon Q's ThrottlingException "Maximum ...GenerateAssistantResponse reached for this
    // month.", aws/amazon-q-developer-cli#1736, #809): the words name the window, the code
    // does not. `stated`, so they beat the 429 or the throttling code around them.
    stated("reached for this month", PaymentRequired),
    stated("reached for the month", PaymentRequired),
    stated("exceeded for this month", PaymentRequired),
    stated("reached for this week", PaymentRequired),
    stated("exceeded for this week", PaymentRequired),
    stated("reached for today", PaymentRequired),
    stated("exceeded for today", PaymentRequired),
    stated("limit for this month", PaymentRequired),
    stated("quota for this month", PaymentRequired),
    // A free trial's allowance, used up (Continue's proxy 429 "You have exceeded the maximum
    // number of requests for the free trial.", continuedev/continue#3952): it does not refill
    // within a retry budget.
    stated("for the free trial", PaymentRequired),
    stated("free trial limit", PaymentRequired),
    stated("free trial quota", PaymentRequired),
    // (batch 24) A plan's allowance spent: ElevenLabs' `quota_exceeded` ("This request exceeds
    // your quota. You have 11 characters remaining, while 70 characters are required"; newer
    // "... 50 credits remaining"), Coze's 4028 ("Your free quota has been used up. Please upgrade
    // to a paid plan"), OpenRouter's per-key caps ("Key limit exceeded (total limit)", also
    // daily, weekly and monthly): none comes back within a retry budget.
    stated("exceeds your quota", PaymentRequired),
    stated("characters remaining, while", PaymentRequired),
    stated("credits remaining, while", PaymentRequired),
    stated("free quota has been used up", PaymentRequired),
    stated("quota has been used up", PaymentRequired),
    said("upgrade to a paid plan", PaymentRequired),
    stated("key limit exceeded", PaymentRequired),
    // (batch 25) Gemini's 429 for a paid-only model on a free-tier key ("Gemini 2.5 Pro Preview
    // doesn't have a free quota tier. Please use ... instead"): only billing or another model
    // helps, whatever retry_delay the body adds.
    stated("have a free quota tier", PaymentRequired),
    stated("has no free quota tier", PaymentRequired),
    stated("no free tier available", PaymentRequired),
    // (batch 26) Anthropic's workspace spend limit under a 400 invalid_request_error ("You have
    // reached your specified API usage limits. You will regain access on 2025-07-01 at 00:00
    // UTC."; "specified workspace API usage limits"): a cap the owner set, lifted by a person
    // or a new month.
    // Logs cut the sentence short ("You have reached your specified API usage"), so the row
    // stops before "limits".
    stated("reached your specified api usage", PaymentRequired),
    stated(
        "reached your specified workspace api usage",
        PaymentRequired,
    ),
    stated("you will regain access on", PaymentRequired),
    // (batch 35a) A subscription or plan that is not (or no longer) active, whatever status or
    // code carries it (BytePlus ModelArk's 400 `InvalidSubscription` "Coding Plan is not
    // active", decolua/9router#897; Zhipu's 1309 "GLM Coding Plan expired" is a table row): only
    // buying or renewing the plan helps. `stated`, so a 400, 403 or 429 around it does not keep
    // its own reading. Azure's "invalid subscription key" (a main-table row, read first) stays
    // a bad key.
    stated("plan is not active", PaymentRequired),
    stated("plan is inactive", PaymentRequired),
    stated("plan has expired", PaymentRequired),
    stated("subscription is not active", PaymentRequired),
    stated("subscription is inactive", PaymentRequired),
    stated("subscription has expired", PaymentRequired),
    stated("no active subscription", PaymentRequired),
    stated("no active plan", PaymentRequired),
    stated("invalidsubscription", PaymentRequired),
];

#[cfg(test)]
mod tests {
    use crate::category::Category::*;
    use crate::classify::classify;
    use crate::failure::Failure;

    /// Spent budgets and balances in each client's words: payment, never retried.
    #[test]
    fn budgets_and_balances_from_sources() {
        for f in [
            Failure::new("Instance cost limit exceeded: $2.0100 >= $2.00"),
            Failure::new("Exiting due to TotalCostLimitExceededError"),
            Failure::new("limit")
                .with_class(["sweagent.exceptions.InstanceCallLimitExceededError"]),
            Failure::new("Claude AI usage limit reached|1750000000"),
            Failure::new("You've reached your weekly usage limit. It resets on Monday."),
            Failure::http(403, "Your account balance is too low to make this request"),
            Failure::http(429, "当前账户余额过低，请充值后重试"),
            Failure::new("Error { code: \"ThrottlingException\", message: \"Maximum com.amazon.aws.codewhisperer.streaming.GenerateAssistantResponse reached for this month.\" }"),
            Failure::http(429, "You have exceeded the maximum number of requests for the free trial."),
            Failure::http(
                403,
                "预扣费额度失败, 用户剩余额度: ＄0.01, 需要预扣费额度: ＄0.20",
            ),
        ] {
            let c = classify(&f);
            assert_eq!((c.category, c.transient), (PaymentRequired, false), "{f:?}");
        }
    }

    /// An hourly or per-minute window stays a rate limit.
    #[test]
    fn short_windows_stay_rate_limits() {
        let c = classify(&Failure::http(
            429,
            "Too many requests in 1 hour. Try again later.",
        ));
        assert_eq!((c.category, c.transient), (RateLimited, true));
    }

    /// (batch 24) Allowances of TTS, agent platforms and per-key caps, in their own words.
    #[test]
    fn plan_allowances_spent() {
        for f in [
            // ElevenLabs quota_exceeded (elevenlabs docs, errors)
            Failure::http(401, "{\"detail\":{\"status\":\"quota_exceeded\",\"message\":\"This request exceeds your quota. You have 11 characters remaining, while 70 characters are required for this request.\"}}"),
            Failure::new("This request exceeds your quota of 10000. You have 50 credits remaining, while 120 credits are required for this request."),
            // Coze 4028
            Failure::new("Your free quota has been used up. Please upgrade to a paid plan to continue"),
            // OpenRouter key caps
            Failure::http(403, "Key limit exceeded (total limit). Manage it using https://openrouter.ai/settings/keys"),
            Failure::http(429, "Key limit exceeded (monthly limit)"),
        ] {
            let c = classify(&f);
            assert_eq!((c.category, c.transient), (PaymentRequired, false), "{f:?}");
        }
    }
}

#[cfg(test)]
mod batch25a_tests {
    use crate::category::Category::*;
    use crate::classify::classify;
    use crate::failure::Failure;

    /// (batch 25) A paid-only model on a free key (Gemini API "doesn't have a free quota tier"),
    /// whatever retry_delay the 429 carries: payment, not retried.
    #[test]
    fn no_free_quota_tier() {
        for f in [
            Failure::http(429, "Gemini 2.5 Pro Preview doesn't have a free quota tier. Please use Gemini 2.5 Pro Experimental instead. [violations { } , retry_delay { seconds: 33 } ]").with_class(["ResourceExhausted"]),
            Failure::http(429, "{\"error\":{\"code\":429,\"message\":\"Gemini 3 Pro has no free quota tier.\",\"status\":\"RESOURCE_EXHAUSTED\"}}"),
        ] {
            let c = classify(&f);
            assert_eq!((c.category, c.transient), (PaymentRequired, false), "{f:?}");
        }
    }
}

#[cfg(test)]
mod batch26b_tests {
    use crate::category::Category::*;
    use crate::failure::Failure;

    use crate::classify::tables::decides::each_with as check;

    /// (batch 26) Anthropic's workspace spend limits, under whatever 400 carries them.
    #[test]
    fn specified_usage_limits() {
        check(vec![
            (Failure::http(400, "{\"type\":\"error\",\"error\":{\"type\":\"invalid_request_error\",\"message\":\"You have reached your specified API usage limits. You will regain access on 2025-07-01 at 00:00 UTC.\"}}"), PaymentRequired, false),
            (Failure::http(400, "You have reached your specified workspace API usage limits."), PaymentRequired, false),
            (Failure::http(429, "You will regain access on 2025-08-01 at 00:00 UTC."), PaymentRequired, false),
            // the same words under a 429's rate_limit_error (a crate's README example, found by
            // find_string "specified API usage limits")
            (Failure::http(429, "{\"type\":\"error\",\"error\":{\"type\":\"rate_limit_error\",\"message\":\"You have reached your specified API usage limits.\"}}"), PaymentRequired, false),
        ]);
    }
}
