//! Orphan tool calls (CONTRACT §5): detection, a pruning plan over host-neutral message views,
//! and the reminder text.
//!
//! The bindings build [`MessageView`]s from host objects (RubyLLM messages, dicts, Hashes),
//! ask for a [`PrunePlan`], and apply its [`Edit`]s with the host's own classes, so that a
//! message keeps its class and token counts. Rust users prune JSON with [`prune_json`].

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::{Error, Result};

/// A message's role, as far as pairing cares.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    System,
    User,
    Assistant,
    Tool,
    Other,
}

impl Role {
    pub fn parse(s: &str) -> Role {
        match s {
            "system" | "developer" => Role::System,
            "user" => Role::User,
            "assistant" | "model" => Role::Assistant,
            "tool" | "function" => Role::Tool,
            _ => Role::Other,
        }
    }
}

/// One tool call of an assistant message (OpenAI `tool_calls[i]`, RubyLLM `tool_calls[id]`,
/// Anthropic `tool_use` content block).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCallView {
    /// `None` when the call has no id: it can never be matched, so it is an orphan.
    pub id: Option<String>,
    pub name: String,
    /// The arguments: an object, or the JSON text OpenAI sends (parsed for the reminder).
    pub arguments: Value,
    /// The call's position in its container (the `tool_calls` list, or the content blocks).
    pub slot: usize,
}

/// One tool result inside a user message (Anthropic `tool_result` block).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolResultView {
    pub id: Option<String>,
    /// The block's position in the message's content list.
    pub slot: usize,
}

/// What pairing needs to know of one message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MessageView {
    pub role: Role,
    /// The message has content beyond its tool calls / tool results (text, images).
    pub has_content: bool,
    pub tool_calls: Vec<ToolCallView>,
    /// A role `tool` message's `tool_call_id` (OpenAI / RubyLLM).
    pub tool_call_id: Option<String>,
    /// Anthropic `tool_result` blocks of a user message.
    pub tool_results: Vec<ToolResultView>,
}

/// What to do with one message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "edit", rename_all = "snake_case")]
pub enum Edit {
    Keep,
    /// Remove the whole message.
    Remove,
    /// Remove these tool calls (by slot) from the message; drop the `tool_calls` key if none remain.
    RemoveToolCalls {
        slots: Vec<usize>,
    },
    /// Remove these `tool_result` blocks (by slot) from the message's content.
    RemoveToolResults {
        slots: Vec<usize>,
    },
}

/// A removed call, for the reminder and for the caller's records.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PrunedCall {
    pub id: Option<String>,
    pub name: String,
    pub arguments: Value,
}

/// The plan: one edit per message, the calls removed and the dangling results removed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PrunePlan {
    pub edits: Vec<Edit>,
    pub pruned: Vec<PrunedCall>,
    pub dangling_results: usize,
}

impl PrunePlan {
    pub fn is_empty(&self) -> bool {
        self.edits.iter().all(|e| *e == Edit::Keep)
    }
    /// The reminder text for the pruned calls (empty when none were pruned).
    pub fn reminder(&self) -> String {
        reminder(&self.pruned)
    }
}

/// The result of [`prune_json`].
#[derive(Debug, Clone, PartialEq)]
pub struct Pruned {
    pub messages: Vec<Value>,
    pub pruned: Vec<PrunedCall>,
    pub dangling_results: usize,
    pub reminder: String,
}

/// The plan for a history: which calls are orphans and which results dangle.
///
/// An assistant tool call is an orphan when no result for its id appears before the next user
/// or assistant message (Anthropic style: in the immediately following user message). A call
/// without an id is always an orphan. A result whose call does not exist (or was pruned) dangles.
pub fn plan(views: &[MessageView]) -> PrunePlan {
    let n = views.len();
    let mut edits = vec![Edit::Keep; n];
    let mut pruned = Vec::new();
    // The ids each assistant message keeps, flat: message i keeps kept[spans[i].0..spans[i].1].
    let mut kept: Vec<&str> = Vec::new();
    let mut spans: Vec<(u32, u32)> = vec![(0, 0); n];
    let mut answered: Vec<&str> = Vec::new();

    for (i, m) in views.iter().enumerate() {
        if m.role != Role::Assistant || m.tool_calls.is_empty() {
            continue;
        }
        answered.clear();
        answered_ids(views, i, &mut answered);
        let from = kept.len() as u32;
        let mut slots = Vec::new();
        for call in &m.tool_calls {
            match call.id.as_deref() {
                Some(id) if answered.contains(&id) => kept.push(id),
                _ => {
                    slots.push(call.slot);
                    pruned.push(PrunedCall {
                        id: call.id.clone(),
                        name: call.name.clone(),
                        arguments: call.arguments.clone(),
                    });
                }
            }
        }
        spans[i] = (from, kept.len() as u32);
        if !slots.is_empty() {
            edits[i] = if slots.len() == m.tool_calls.len() && !m.has_content {
                Edit::Remove
            } else {
                Edit::RemoveToolCalls { slots }
            };
        }
    }
    let kept_by = |k: usize| &kept[spans[k].0 as usize..spans[k].1 as usize];

    let mut dangling = 0;
    // The message that owns the tool results that follow it: the last user or assistant
    // message, as `answered_ids` reads them (system and other messages do not end the window).
    let mut owner: Option<usize> = None;
    for (j, m) in views.iter().enumerate() {
        match m.role {
            Role::Tool => {
                let ok = match (owner, m.tool_call_id.as_deref()) {
                    (Some(k), Some(id)) => {
                        views[k].role == Role::Assistant && kept_by(k).contains(&id)
                    }
                    _ => false,
                };
                if !ok {
                    edits[j] = Edit::Remove;
                    dangling += 1;
                }
                continue;
            }
            _ if !m.tool_results.is_empty() => {
                let owner_kept: &[&str] = match owner {
                    Some(k) if views[k].role == Role::Assistant => kept_by(k),
                    _ => &[],
                };
                let slots: Vec<usize> = m
                    .tool_results
                    .iter()
                    .filter(|r| !r.id.as_deref().is_some_and(|id| owner_kept.contains(&id)))
                    .map(|r| r.slot)
                    .collect();
                if !slots.is_empty() {
                    dangling += slots.len();
                    edits[j] = if slots.len() == m.tool_results.len() && !m.has_content {
                        Edit::Remove
                    } else {
                        Edit::RemoveToolResults { slots }
                    };
                }
            }
            _ => {}
        }
        if matches!(m.role, Role::User | Role::Assistant) {
            owner = Some(j);
        }
    }
    PrunePlan {
        edits,
        pruned,
        dangling_results: dangling,
    }
}

/// Result ids that answer the assistant message at `i`, appended to `ids`.
fn answered_ids<'v>(views: &'v [MessageView], i: usize, ids: &mut Vec<&'v str>) {
    for m in &views[i + 1..] {
        match m.role {
            Role::Tool => ids.extend(m.tool_call_id.as_deref()),
            Role::User => {
                // Anthropic: results live in the immediately following user message.
                ids.extend(m.tool_results.iter().filter_map(|r| r.id.as_deref()));
                return;
            }
            Role::Assistant => return,
            Role::System | Role::Other => {}
        }
    }
}

/// Does the error message say a tool call has no matching result? (SwarmSDK's patterns plus
/// OpenAI's wording; the same table the classifier uses.)
pub fn is_tool_pairing_error(message: &str) -> bool {
    let hay = message.to_ascii_lowercase();
    crate::classify::tables::PERMANENT_PHRASES
        .iter()
        .filter(|(_, c)| *c == crate::category::Category::OrphanToolCalls)
        .any(|(p, _)| crate::classify::text::contains_phrase(&hay, p))
}

const REMINDER_HEAD: &str =
    "<system-reminder>\nThe following tool calls were interrupted and removed from conversation history:\n\n";
const REMINDER_TAIL: &str =
    "\nThese tools were never executed. If you still need their results, please run them again.\n</system-reminder>";

/// The reminder for pruned calls, in SwarmSDK's format. Empty when nothing was pruned.
pub fn reminder(pruned: &[PrunedCall]) -> String {
    if pruned.is_empty() {
        return String::new();
    }
    let mut s = String::from(REMINDER_HEAD);
    for call in pruned {
        s.push_str("- ");
        s.push_str(&call.name);
        s.push('(');
        s.push_str(&format_arguments(&call.arguments));
        s.push_str(")\n");
    }
    s.push_str(REMINDER_TAIL);
    s
}

/// `key: value, key: value`, in the arguments' own order.
pub fn format_arguments(args: &Value) -> String {
    let parsed;
    let args = match args {
        Value::String(s) => match serde_json::from_str::<Value>(s) {
            Ok(v @ Value::Object(_)) => {
                parsed = v;
                &parsed
            }
            _ => {
                return if s.trim().is_empty() {
                    String::new()
                } else {
                    format_value(args)
                }
            }
        },
        other => other,
    };
    match args {
        Value::Object(map) => map
            .iter()
            .map(|(k, v)| format!("{k}: {}", format_value(v)))
            .collect::<Vec<_>>()
            .join(", "),
        Value::Null => String::new(),
        other => format_value(other),
    }
}

/// A value as SwarmSDK shows it: a string over 50 characters is cut to 47 plus `...`, unquoted;
/// everything else is a Ruby literal (`"short"`, `42`, `true`, `nil`, `[1, 2]`, `{"a"=>1}`).
pub fn format_value(v: &Value) -> String {
    match v {
        Value::String(s) if s.chars().count() > 50 => {
            let head: String = s.chars().take(47).collect();
            format!("{head}...")
        }
        other => literal(other),
    }
}

fn literal(v: &Value) -> String {
    match v {
        Value::Null => "nil".into(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        Value::String(s) => {
            let mut out = String::with_capacity(s.len() + 2);
            out.push('"');
            for ch in s.chars() {
                match ch {
                    '"' => out.push_str("\\\""),
                    '\\' => out.push_str("\\\\"),
                    '\n' => out.push_str("\\n"),
                    '\t' => out.push_str("\\t"),
                    '\r' => out.push_str("\\r"),
                    c => out.push(c),
                }
            }
            out.push('"');
            out
        }
        Value::Array(items) => format!(
            "[{}]",
            items.iter().map(literal).collect::<Vec<_>>().join(", ")
        ),
        Value::Object(map) => format!(
            "{{{}}}",
            map.iter()
                .map(|(k, v)| format!("{}=>{}", literal(&Value::from(k.as_str())), literal(v)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// Where a JSON message keeps its tool calls.
#[derive(Clone, Copy, PartialEq)]
enum Container {
    None,
    ToolCallsArray,
    ToolCallsObject,
    ContentBlocks,
}

fn non_empty(v: Option<&Value>) -> bool {
    match v {
        None | Some(Value::Null) => false,
        Some(Value::String(s)) => !s.is_empty(),
        Some(Value::Array(a)) => !a.is_empty(),
        Some(_) => true,
    }
}

fn str_of(v: Option<&Value>) -> Option<String> {
    match v {
        Some(Value::String(s)) if !s.is_empty() => Some(s.clone()),
        Some(Value::Number(n)) => Some(n.to_string()),
        _ => None,
    }
}

fn call_view(slot: usize, call: &Value, fallback_id: Option<&str>) -> Result<ToolCallView> {
    let obj = call
        .as_object()
        .ok_or_else(|| Error::invalid_argument("a tool call is not an object"))?;
    let func = obj.get("function").and_then(Value::as_object);
    let name = func
        .and_then(|f| f.get("name"))
        .or_else(|| obj.get("name"))
        .and_then(Value::as_str)
        .unwrap_or("unknown")
        .to_owned();
    let arguments = func
        .and_then(|f| f.get("arguments"))
        .or_else(|| obj.get("arguments"))
        .or_else(|| obj.get("input"))
        .cloned()
        .unwrap_or(Value::Null);
    let id = str_of(obj.get("id")).or_else(|| fallback_id.map(str::to_owned));
    Ok(ToolCallView {
        id,
        name,
        arguments,
        slot,
    })
}

fn view_of(index: usize, m: &Value) -> Result<(MessageView, Container)> {
    let obj = m
        .as_object()
        .ok_or_else(|| Error::invalid_argument(format!("message {index} is not an object")))?;
    let role = Role::parse(obj.get("role").and_then(Value::as_str).unwrap_or(""));
    let mut view = MessageView {
        role,
        has_content: false,
        tool_calls: Vec::new(),
        tool_call_id: str_of(obj.get("tool_call_id")),
        tool_results: Vec::new(),
    };
    let mut container = Container::None;
    match obj.get("content") {
        Some(Value::Array(blocks)) => {
            for (slot, b) in blocks.iter().enumerate() {
                let kind = b.get("type").and_then(Value::as_str).unwrap_or("");
                match kind {
                    "tool_use" if role == Role::Assistant => {
                        container = Container::ContentBlocks;
                        view.tool_calls.push(call_view(slot, b, None)?);
                    }
                    "tool_result" => view.tool_results.push(ToolResultView {
                        id: str_of(b.get("tool_use_id")),
                        slot,
                    }),
                    "text" => view.has_content |= non_empty(b.get("text")),
                    _ => view.has_content = true,
                }
            }
        }
        other => view.has_content = non_empty(other),
    }
    match obj.get("tool_calls") {
        Some(Value::Array(calls)) if !calls.is_empty() => {
            container = Container::ToolCallsArray;
            for (slot, c) in calls.iter().enumerate() {
                view.tool_calls.push(call_view(slot, c, None)?);
            }
        }
        // RubyLLM keeps tool calls as a Hash of id => call.
        Some(Value::Object(calls)) if !calls.is_empty() => {
            container = Container::ToolCallsObject;
            for (slot, (id, c)) in calls.iter().enumerate() {
                view.tool_calls.push(call_view(slot, c, Some(id))?);
            }
        }
        _ => {}
    }
    Ok((view, container))
}

/// Builds the views of a JSON history (both shapes, and RubyLLM-like Hashes).
pub fn views_from_json(messages: &[Value]) -> Result<Vec<MessageView>> {
    messages
        .iter()
        .enumerate()
        .map(|(i, m)| view_of(i, m).map(|(v, _)| v))
        .collect()
}

fn remove_slots(items: &mut Vec<Value>, slots: &[usize]) {
    let mut i = 0;
    items.retain(|_| {
        let keep = !slots.contains(&i);
        i += 1;
        keep
    });
}

/// Prunes a JSON history: returns the new messages, the pruned calls and the reminder.
///
/// ```
/// use serde_json::json;
/// let history = vec![
///     json!({"role": "user", "content": "read it"}),
///     json!({"role": "assistant", "content": null, "tool_calls": [
///         {"id": "call_1", "type": "function",
///          "function": {"name": "Read", "arguments": "{\"file_path\": \"/important/file.rb\"}"}}]}),
///     json!({"role": "user", "content": "and?"}),
/// ];
/// let out = retry_core::orphan::prune_json(&history).unwrap();
/// assert_eq!(out.messages.len(), 2);
/// assert!(out.reminder.contains("- Read(file_path: \"/important/file.rb\")"));
/// ```
pub fn prune_json(messages: &[Value]) -> Result<Pruned> {
    prune_json_owned(messages.to_vec())
}

/// [`prune_json`] taking the history by value: kept messages are moved, not copied.
pub fn prune_json_owned(messages: Vec<Value>) -> Result<Pruned> {
    let mut views = Vec::with_capacity(messages.len());
    let mut containers = Vec::with_capacity(messages.len());
    for (i, m) in messages.iter().enumerate() {
        let (v, c) = view_of(i, m)?;
        views.push(v);
        containers.push(c);
    }
    let plan = plan(&views);
    drop(views);
    let mut out = Vec::with_capacity(messages.len());
    for ((mut m, edit), container) in messages.into_iter().zip(&plan.edits).zip(&containers) {
        match edit {
            Edit::Keep => out.push(m),
            Edit::Remove => {}
            Edit::RemoveToolCalls { slots } => {
                let obj = m.as_object_mut().expect("views only come from objects");
                match container {
                    Container::ToolCallsArray => {
                        if let Some(Value::Array(calls)) = obj.get_mut("tool_calls") {
                            remove_slots(calls, slots);
                            if calls.is_empty() {
                                obj.shift_remove("tool_calls");
                            }
                        }
                    }
                    Container::ToolCallsObject => {
                        if let Some(Value::Object(calls)) = obj.get_mut("tool_calls") {
                            let mut i = 0;
                            calls.retain(|_, _| {
                                let keep = !slots.contains(&i);
                                i += 1;
                                keep
                            });
                            if calls.is_empty() {
                                obj.shift_remove("tool_calls");
                            }
                        }
                    }
                    Container::ContentBlocks => {
                        if let Some(Value::Array(blocks)) = obj.get_mut("content") {
                            remove_slots(blocks, slots);
                        }
                    }
                    Container::None => {}
                }
                out.push(m);
            }
            Edit::RemoveToolResults { slots } => {
                if let Some(Value::Array(blocks)) = m.get_mut("content") {
                    remove_slots(blocks, slots);
                }
                out.push(m);
            }
        }
    }
    let reminder = reminder(&plan.pruned);
    Ok(Pruned {
        messages: out,
        pruned: plan.pruned,
        dangling_results: plan.dangling_results,
        reminder,
    })
}

/// [`prune_json`] over JSON text (an array of messages).
pub fn prune_json_str(json: &str) -> Result<Pruned> {
    match serde_json::from_str::<Value>(json)? {
        Value::Array(items) => prune_json_owned(items),
        _ => Err(Error::invalid_argument(
            "the history must be a JSON array of messages",
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reminder_matches_contract_text() {
        let pruned = vec![
            PrunedCall {
                id: Some("1".into()),
                name: "Read".into(),
                arguments: json!({"file_path": "/important/file.rb"}),
            },
            PrunedCall {
                id: Some("2".into()),
                name: "Write".into(),
                arguments: json!({"file_path": "/output.txt", "content": "Hello, this is a long text that goes on and on, longer than fifty characters"}),
            },
        ];
        let expected = "<system-reminder>\nThe following tool calls were interrupted and removed from conversation history:\n\n- Read(file_path: \"/important/file.rb\")\n- Write(file_path: \"/output.txt\", content: Hello, this is a long text that goes on and on,...)\n\nThese tools were never executed. If you still need their results, please run them again.\n</system-reminder>";
        assert_eq!(reminder(&pruned), expected);
    }

    #[test]
    fn anthropic_shape_and_dangling_results() {
        let h = vec![
            json!({"role": "user", "content": "go"}),
            json!({"role": "assistant", "content": [
                {"type": "text", "text": "reading"},
                {"type": "tool_use", "id": "toolu_1", "name": "Read", "input": {"file_path": "/a"}},
                {"type": "tool_use", "id": "toolu_2", "name": "Read", "input": {"file_path": "/b"}}]}),
            json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "A"},
                                              {"type": "tool_result", "tool_use_id": "toolu_9", "content": "?"}]}),
        ];
        let out = prune_json(&h).unwrap();
        assert_eq!(out.pruned.len(), 1);
        assert_eq!(out.pruned[0].id.as_deref(), Some("toolu_2"));
        assert_eq!(out.dangling_results, 1);
        assert_eq!(out.messages[1]["content"].as_array().unwrap().len(), 2);
        assert_eq!(out.messages[2]["content"].as_array().unwrap().len(), 1);
    }

    #[test]
    fn bad_input_is_an_error_not_a_panic() {
        assert!(prune_json(&[json!(3)]).is_err());
        assert!(prune_json_str("{}").is_err());
        assert!(prune_json_str("not json").is_err());
        assert_eq!(prune_json(&[]).unwrap().messages.len(), 0);
        let no_id = vec![
            json!({"role": "assistant", "tool_calls": [{"function": {"name": "X", "arguments": "{}"}}]}),
        ];
        let out = prune_json(&no_id).unwrap();
        assert!(out.messages.is_empty());
        assert_eq!(out.pruned.len(), 1);
    }
}
