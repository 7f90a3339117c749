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
];

/// Transient words, read with the main transient table.
pub const TRANSIENT: &[Phrase] = &[
    // An app that could not reach its service by name ("Unable to reach Bard at this time.",
    // "Failed to reach OpenAI"): the far end not reached, whoever it is; a cause the text
    // names beside it (a quota, a blocked address) is read first by the permanent tables.
    said("unable to reach", Connection),
    said("failed to reach", Connection),
];
