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
    /// A system or developer message.
    System,
    /// A user message (Anthropic-style tool results live here).
    User,
    /// An assistant (or Gemini `model`) message, which may carry tool calls.
    Assistant,
    /// A role `tool` message carrying one tool result (OpenAI / RubyLLM style).
    Tool,
    /// Any other role, including the legacy `function` role; such messages never end a pairing
    /// window.
    Other,
}

impl Role {
    /// Reads a host's role name: `system` and `developer` are [`Role::System`], `model` is
    /// [`Role::Assistant`], and an unknown name is [`Role::Other`].
    pub fn parse(s: &str) -> Role {
        match s {
            "system" | "developer" => Role::System,
            "user" => Role::User,
            "assistant" | "model" => Role::Assistant,
            "tool" => Role::Tool,
            // Legacy OpenAI function calling (`function_call` / role `function`) pairs by name,
            // not by id: such results are never pruned as dangling, and never end a window.
            "function" => Role::Other,
            _ => Role::Other,
        }
    }
}

/// Where a tool call sits in its message. A message may have both (a malformed mix of shapes),
/// so an edit says for each slot which list it is in.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Place {
    /// The `tool_calls` list or Hash (OpenAI, RubyLLM).
    #[default]
    ToolCalls,
    /// A `tool_use` block of the content list (Anthropic).
    Content,
}

/// One tool call of an assistant message (OpenAI `tool_calls[i]`, RubyLLM `tool_calls[id]`,
/// Anthropic `tool_use` content block).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCallView {
    /// `None` when the call has no id: it can never be matched, so it is an orphan.
    pub id: Option<String>,
    /// The tool's name.
    pub name: String,
    /// The arguments: an object, or the JSON text OpenAI sends (parsed for the reminder).
    pub arguments: Value,
    /// The call's position in its container: the `tool_calls` list, or the content blocks.
    pub slot: usize,
    /// Which container that is.
    #[serde(default)]
    pub place: Place,
}

/// One tool result inside a user message (Anthropic `tool_result` block).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolResultView {
    /// The `tool_use_id` the result answers; `None` when it has none.
    pub id: Option<String>,
    /// The block's position in the message's content list.
    pub slot: usize,
}

/// What pairing needs to know of one message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MessageView {
    /// The message's role.
    pub role: Role,
    /// The message has content beyond its tool calls / tool results (text, images).
    pub has_content: bool,
    /// The message's tool calls, in order.
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
    /// Leave the message as it is.
    Keep,
    /// Remove the whole message.
    Remove,
    /// Remove parts of the message, by slot (ascending): calls from its `tool_calls` container
    /// (drop the key if none remain), and blocks from its content list (`tool_use` calls and
    /// `tool_result` results). One message can lose both: an assistant message may carry an
    /// orphan call and a dangling result at once.
    Strip {
        /// Slots to remove from the `tool_calls` container, ascending.
        tool_calls: Vec<usize>,
        /// Slots to remove from the content list, ascending.
        content: Vec<usize>,
    },
}

/// A removed call, for the reminder and for the caller's records.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PrunedCall {
    /// The call's id, if it had one.
    pub id: Option<String>,
    /// The tool's name.
    pub name: String,
    /// The call's arguments, as the message held them.
    pub arguments: Value,
}

/// The plan: one edit per message, the calls removed and the dangling results removed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PrunePlan {
    /// One edit per input message, in order.
    pub edits: Vec<Edit>,
    /// The orphan calls removed, in history order.
    pub pruned: Vec<PrunedCall>,
    /// How many tool results were removed because their call does not exist (or was pruned).
    pub dangling_results: usize,
}

impl PrunePlan {
    /// Whether the plan changes nothing (every edit is [`Edit::Keep`]).
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
    /// The pruned history.
    pub messages: Vec<Value>,
    /// The orphan calls removed, in history order.
    pub pruned: Vec<PrunedCall>,
    /// How many tool results were removed because their call does not exist (or was pruned).
    pub dangling_results: usize,
    /// The reminder text for the pruned calls (empty when none were pruned).
    pub reminder: String,
    /// What became of each message of the history, in order: which of `messages` are the
    /// input's own (`Keep`) and which were changed (`Strip`) or left out (`Remove`).
    pub edits: Vec<Edit>,
}

/// The plan for a history: which calls are orphans and which results dangle.
///
/// An assistant tool call is an orphan when no result for its id appears before the next user
/// or assistant message (Anthropic style: in the immediately following user message). A call
/// without an id is always an orphan. A result whose call does not exist (or was pruned) dangles.
///
/// The rules are the same as [`History::plan`]'s (one planner reads both); this one gives each
/// pruned call its name and arguments back.
pub fn plan(views: &[MessageView]) -> PrunePlan {
    let changes = plan_of(views);
    let mut edits = vec![Edit::Keep; views.len()];
    for (i, edit) in changes.edits {
        edits[i] = edit;
    }
    let pruned = changes
        .pruned
        .iter()
        .map(|p| {
            let call = &views[p.message].tool_calls[p.call];
            PrunedCall {
                id: call.id.clone(),
                name: call.name.clone(),
                arguments: call.arguments.clone(),
            }
        })
        .collect();
    PrunePlan {
        edits,
        pruned,
        dangling_results: changes.dangling_results,
    }
}

/// An id in [`History`]'s text: `text[start..end]`, or no id when `start` is [`NO_ID`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct IdSpan {
    start: usize,
    end: usize,
}

const NO_ID: usize = usize::MAX;

impl IdSpan {
    const NONE: IdSpan = IdSpan {
        start: NO_ID,
        end: 0,
    };
}

/// A tool call or a tool result: its id, its slot in the host's container and which container
/// (a result is always in the content).
#[derive(Debug, Clone, Copy)]
struct Item {
    id: IdSpan,
    slot: usize,
    place: Place,
}

/// A message: its role, whether it has content of its own, a `tool` message's
/// `tool_call_id`, and its calls and results as ranges of [`History`]'s lists.
#[derive(Debug, Clone, Copy)]
struct Entry {
    role: Role,
    has_content: bool,
    tool_call_id: IdSpan,
    calls: (usize, usize),
    results: (usize, usize),
}

/// A history as pairing sees it, in flat buffers: every id is copied into one text buffer (no
/// `String` per id), and a message's calls and results are ranges of two shared lists. Filled
/// message by message with [`push_message`](History::push_message), then
/// [`push_call`](History::push_call) / [`push_result`](History::push_result) for that message;
/// [`clear`](History::clear) keeps the buffers for the next history.
///
/// This is what bindings build straight from host objects (an id is read from the host's own
/// string and copied once, with no allocation of its own), and what [`plan`] builds from
/// [`MessageView`]s: the rules are [`History::plan`]'s in both cases.
///
/// ```
/// use retry_core::__private::orphan::{Edit, History, Role};
/// let mut h = History::default();
/// h.push_message(Role::User, true, None);
/// h.push_message(Role::Assistant, false, None);
/// h.push_call(Some("call_1"), 0);
/// h.push_call(Some("call_2"), 1);
/// h.push_message(Role::Tool, true, Some("call_1"));
/// let changes = h.plan();
/// assert_eq!(
///     changes.edits,
///     vec![(1, Edit::Strip { tool_calls: vec![1], content: vec![] })]
/// );
/// assert_eq!((changes.pruned[0].message, changes.pruned[0].call), (1, 1));
/// assert_eq!(h.call_id(1, 1), Some("call_2"));
/// ```
#[derive(Debug, Clone, Default)]
pub struct History {
    text: String,
    calls: Vec<Item>,
    results: Vec<Item>,
    messages: Vec<Entry>,
}

/// A pruned call, located: the message, the call's index among that message's calls (in the
/// order they were pushed) and its slot in the host's container.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PrunedAt {
    /// The message's index in the history.
    pub message: usize,
    /// The call's index among that message's calls, in push order.
    pub call: usize,
    /// The call's slot in the host's container.
    pub slot: usize,
    /// Which container the slot is in.
    pub place: Place,
}

/// [`History::plan`]'s answer: only the messages that change.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Changes {
    /// `(message index, edit)` for every message whose edit is not [`Edit::Keep`], in order.
    pub edits: Vec<(usize, Edit)>,
    /// The calls removed, in history order.
    pub pruned: Vec<PrunedAt>,
    /// How many tool results were removed because their call does not exist (or was pruned).
    pub dangling_results: usize,
}

impl Changes {
    /// Whether nothing changes (no message is edited).
    pub fn is_empty(&self) -> bool {
        self.edits.is_empty()
    }
}

impl History {
    /// An empty history with room for `messages` messages.
    pub fn with_capacity(messages: usize) -> Self {
        History {
            text: String::new(),
            calls: Vec::new(),
            results: Vec::new(),
            messages: Vec::with_capacity(messages),
        }
    }

    /// Empties the history, keeping its buffers.
    pub fn clear(&mut self) {
        self.text.clear();
        self.calls.clear();
        self.results.clear();
        self.messages.clear();
    }

    /// Messages pushed so far.
    pub fn len(&self) -> usize {
        self.messages.len()
    }

    /// Whether no message has been pushed.
    pub fn is_empty(&self) -> bool {
        self.messages.is_empty()
    }

    /// Reserves room for `messages` more messages.
    pub fn reserve(&mut self, messages: usize) {
        self.messages.reserve(messages);
    }

    fn span(&mut self, id: Option<&str>) -> IdSpan {
        match id {
            Some(id) => {
                let start = self.text.len();
                self.text.push_str(id);
                IdSpan {
                    start,
                    end: self.text.len(),
                }
            }
            None => IdSpan::NONE,
        }
    }

    fn text_of(&self, id: IdSpan) -> Option<&str> {
        (id.start != NO_ID).then(|| &self.text[id.start..id.end])
    }

    /// An id's bytes, for comparing (`None`: no id).
    fn bytes_of(&self, id: IdSpan) -> Option<&[u8]> {
        if id.start == NO_ID {
            return None;
        }
        self.text.as_bytes().get(id.start..id.end)
    }

    /// Starts a message. `tool_call_id` is a `tool` message's (OpenAI / RubyLLM); `has_content`
    /// says whether it has content beyond its tool calls / tool results (text, images).
    pub fn push_message(&mut self, role: Role, has_content: bool, tool_call_id: Option<&str>) {
        let tool_call_id = self.span(tool_call_id);
        let (c, r) = (self.calls.len(), self.results.len());
        self.messages.push(Entry {
            role,
            has_content,
            tool_call_id,
            calls: (c, c),
            results: (r, r),
        });
    }

    /// Sets the last message's `has_content` (when it is known only after its calls were read).
    pub fn set_has_content(&mut self, has_content: bool) {
        if let Some(m) = self.messages.last_mut() {
            m.has_content = has_content;
        }
    }

    /// Adds a tool call to the last message: its id (`None`: it can never be matched) and its
    /// position in the message's `tool_calls` container.
    pub fn push_call(&mut self, id: Option<&str>, slot: usize) {
        self.push_call_at(id, slot, Place::ToolCalls);
    }

    /// Adds a tool call to the last message, at `slot` of the container `place` says.
    pub fn push_call_at(&mut self, id: Option<&str>, slot: usize, place: Place) {
        let id = self.span(id);
        self.calls.push(Item { id, slot, place });
        if let Some(m) = self.messages.last_mut() {
            m.calls.1 = self.calls.len();
        }
    }

    /// Adds a tool result (an Anthropic `tool_result` block) to the last message.
    pub fn push_result(&mut self, id: Option<&str>, slot: usize) {
        let id = self.span(id);
        self.results.push(Item {
            id,
            slot,
            place: Place::Content,
        });
        if let Some(m) = self.messages.last_mut() {
            m.results.1 = self.results.len();
        }
    }

    /// Forgets the calls pushed for the last message (to read them again another way).
    pub fn clear_calls(&mut self) {
        if let Some(m) = self.messages.last_mut() {
            let from = m.calls.0;
            m.calls.1 = from;
            self.calls.truncate(from);
        }
    }

    /// Calls pushed for message `message`.
    pub fn calls_of(&self, message: usize) -> usize {
        self.messages
            .get(message)
            .map_or(0, |m| m.calls.1 - m.calls.0)
    }

    /// The id of message `message`'s `call`-th call.
    pub fn call_id(&self, message: usize, call: usize) -> Option<&str> {
        let m = self.messages.get(message)?;
        let item = self.calls[m.calls.0..m.calls.1].get(call)?;
        self.text_of(item.id)
    }

    /// The plan (see [`plan`] for the rules), as the messages that change.
    pub fn plan(&self) -> Changes {
        plan_of(self)
    }
}

/// What the planner reads of a history, message by message: implemented by [`History`] and by
/// a slice of [`MessageView`]s, so that both are planned by the same code without a copy.
trait Pairing {
    fn len(&self) -> usize;
    fn role(&self, i: usize) -> Role;
    fn has_content(&self, i: usize) -> bool;
    /// A `tool` message's `tool_call_id`.
    fn tool_call_id(&self, i: usize) -> Option<&[u8]>;
    /// How many tool calls message `i` has.
    fn calls(&self, i: usize) -> usize;
    /// The `k`-th call of message `i`: its id, its slot and the container that slot is in.
    fn call(&self, i: usize, k: usize) -> (Option<&[u8]>, usize, Place);
    /// How many tool results message `i` has.
    fn results(&self, i: usize) -> usize;
    /// The `k`-th result of message `i`: its id and its slot.
    fn result(&self, i: usize, k: usize) -> (Option<&[u8]>, usize);
}

impl Pairing for History {
    fn len(&self) -> usize {
        self.messages.len()
    }
    fn role(&self, i: usize) -> Role {
        self.messages[i].role
    }
    fn has_content(&self, i: usize) -> bool {
        self.messages[i].has_content
    }
    fn tool_call_id(&self, i: usize) -> Option<&[u8]> {
        self.bytes_of(self.messages[i].tool_call_id)
    }
    fn calls(&self, i: usize) -> usize {
        let (from, to) = self.messages[i].calls;
        to - from
    }
    fn call(&self, i: usize, k: usize) -> (Option<&[u8]>, usize, Place) {
        let item = self.calls[self.messages[i].calls.0 + k];
        (self.bytes_of(item.id), item.slot, item.place)
    }
    fn results(&self, i: usize) -> usize {
        let (from, to) = self.messages[i].results;
        to - from
    }
    fn result(&self, i: usize, k: usize) -> (Option<&[u8]>, usize) {
        let item = self.results[self.messages[i].results.0 + k];
        (self.bytes_of(item.id), item.slot)
    }
}

impl Pairing for [MessageView] {
    fn len(&self) -> usize {
        <[MessageView]>::len(self)
    }
    fn role(&self, i: usize) -> Role {
        self[i].role
    }
    fn has_content(&self, i: usize) -> bool {
        self[i].has_content
    }
    fn tool_call_id(&self, i: usize) -> Option<&[u8]> {
        self[i].tool_call_id.as_deref().map(str::as_bytes)
    }
    fn calls(&self, i: usize) -> usize {
        self[i].tool_calls.len()
    }
    fn call(&self, i: usize, k: usize) -> (Option<&[u8]>, usize, Place) {
        let c = &self[i].tool_calls[k];
        (c.id.as_deref().map(str::as_bytes), c.slot, c.place)
    }
    fn results(&self, i: usize) -> usize {
        self[i].tool_results.len()
    }
    fn result(&self, i: usize, k: usize) -> (Option<&[u8]>, usize) {
        let r = &self[i].tool_results[k];
        (r.id.as_deref().map(str::as_bytes), r.slot)
    }
}

/// Result ids that answer the assistant message at `i`, appended to `ids`.
fn answered_ids<'h, P: Pairing + ?Sized>(h: &'h P, i: usize, ids: &mut Vec<&'h [u8]>) {
    for j in i + 1..h.len() {
        match h.role(j) {
            Role::Tool => ids.extend(h.tool_call_id(j)),
            Role::User => {
                // Anthropic: results live in the immediately following user message.
                ids.extend((0..h.results(j)).filter_map(|k| h.result(j, k).0));
                return;
            }
            Role::Assistant => return,
            Role::System | Role::Other => {}
        }
    }
}

/// The calls one assistant message loses: their slots by container, and how many.
struct Lost {
    message: usize,
    tool_calls: Vec<usize>,
    content: Vec<usize>,
    count: usize,
}

/// The planner (see [`plan`] for the rules).
fn plan_of<P: Pairing + ?Sized>(h: &P) -> Changes {
    let mut pruned = Vec::new();
    // The assistant messages with calls, in order, and the ids of the calls each keeps:
    // (message, kept[from..to]).
    let mut owners: Vec<(usize, usize, usize)> = Vec::new();
    let mut kept: Vec<&[u8]> = Vec::new();
    let mut answered: Vec<&[u8]> = Vec::new();
    let mut lost: Vec<Lost> = Vec::new();

    // First pass: the orphan calls of each assistant message.
    for i in 0..h.len() {
        if h.role(i) != Role::Assistant {
            continue;
        }
        let calls = h.calls(i);
        if calls == 0 {
            continue;
        }
        answered.clear();
        answered_ids(h, i, &mut answered);
        let from = kept.len();
        let mut loses = Lost {
            message: i,
            tool_calls: Vec::new(),
            content: Vec::new(),
            count: 0,
        };
        for k in 0..calls {
            let (id, slot, place) = h.call(i, k);
            // Each call needs a result of its own: a result answers one call, so two calls that
            // share an id and one result leave the second an orphan.
            let answer = id.and_then(|id| answered.iter().position(|a| same_id(a, id)));
            match (id, answer) {
                (Some(id), Some(at)) => {
                    answered.swap_remove(at);
                    kept.push(id);
                }
                (_, _) => {
                    match place {
                        Place::ToolCalls => loses.tool_calls.push(slot),
                        Place::Content => loses.content.push(slot),
                    }
                    loses.count += 1;
                    pruned.push(PrunedAt {
                        message: i,
                        call: k,
                        slot,
                        place,
                    });
                }
            }
        }
        owners.push((i, from, kept.len()));
        if loses.count > 0 {
            lost.push(loses);
        }
    }

    // Second pass: the dangling results, and each changed message's one edit, in order.
    let mut edits = Vec::new();
    let mut lost = lost.into_iter().peekable();
    let mut dangling = 0;
    // The ids kept by the message that owns the tool results that follow it: the last user or
    // assistant message, as `answered_ids` reads them (system and other messages do not end
    // the window); none unless it is an assistant message with calls. Owners only move
    // forward, and so does the search for them in `owners`.
    let mut owner_kept: &[&[u8]] = &[];
    let mut next_owner = 0;
    let keeps = |owner_kept: &[&[u8]], id: Option<&[u8]>| {
        id.is_some_and(|id| owner_kept.iter().any(|k| same_id(k, id)))
    };
    for j in 0..h.len() {
        let role = h.role(j);
        let calls_lost = match lost.peek() {
            Some(l) if l.message == j => lost.next(),
            _ => None,
        };
        if role == Role::Tool {
            if !keeps(owner_kept, h.tool_call_id(j)) {
                edits.push((j, Edit::Remove));
                dangling += 1;
            }
        } else {
            let results = h.results(j);
            let mut content: Vec<usize> = (0..results)
                .map(|k| h.result(j, k))
                .filter(|(id, _)| !keeps(owner_kept, *id))
                .map(|(_, slot)| slot)
                .collect();
            let results_lost = content.len();
            dangling += results_lost;
            let (mut tool_calls, calls_lost) = match calls_lost {
                Some(l) => {
                    content.extend(l.content);
                    (l.tool_calls, l.count)
                }
                None => (Vec::new(), 0),
            };
            content.sort_unstable();
            tool_calls.sort_unstable();
            if calls_lost + results_lost > 0 {
                // A message left with nothing of its own goes; otherwise it keeps the rest.
                let emptied = calls_lost == h.calls(j) && results_lost == results;
                edits.push((
                    j,
                    if emptied && !h.has_content(j) {
                        Edit::Remove
                    } else {
                        Edit::Strip {
                            tool_calls,
                            content,
                        }
                    },
                ));
            }
        }
        if matches!(role, Role::User | Role::Assistant) {
            while owners.get(next_owner).is_some_and(|o| o.0 < j) {
                next_owner += 1;
            }
            owner_kept = match owners.get(next_owner) {
                Some(&(m, from, to)) if m == j => &kept[from..to],
                _ => &[],
            };
        }
    }
    Changes {
        edits,
        pruned,
        dangling_results: dangling,
    }
}

/// Whether two ids are the same. Ids of one history tend to share a long prefix (`toolu_0000…`,
/// `call_…`): their last eight bytes are compared first, as one word, so that different ids
/// are mostly told apart there; an id of 8 to 16 bytes is then settled by its first eight, with
/// no `memcmp` call.
#[inline]
fn same_id(a: &[u8], b: &[u8]) -> bool {
    let n = a.len();
    if n != b.len() {
        return false;
    }
    if n < 8 {
        return a == b;
    }
    let word =
        |s: &[u8], at: usize| u64::from_ne_bytes(s[at..at + 8].try_into().unwrap_or_default());
    if word(a, n - 8) != word(b, n - 8) {
        return false;
    }
    if n <= 16 {
        return word(a, 0) == word(b, 0);
    }
    a[..n - 8] == b[..n - 8]
}

/// Does the error message say a tool call has no matching result? (SwarmSDK's patterns plus
/// OpenAI's wording; the same table the classifier uses.)
pub fn is_tool_pairing_error(message: &str) -> bool {
    let hay = message.to_ascii_lowercase();
    crate::classify::tables::PERMANENT_PHRASES
        .iter()
        .filter(|p| p.category == crate::category::Category::OrphanToolCalls)
        .any(|p| crate::classify::text::contains_phrase(&hay, p.text))
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

/// Whether a message's text says nothing, as SwarmSDK judges it (`strip.empty?`): only ASCII
/// whitespace, NUL and vertical tab. The one rule for Hashes, dicts and host objects alike.
pub fn is_blank(text: &[u8]) -> bool {
    text.iter()
        .all(|b| b.is_ascii_whitespace() || *b == 0 || *b == 0x0b)
}

fn non_empty(v: Option<&Value>) -> bool {
    match v {
        None | Some(Value::Null) => false,
        Some(Value::String(s)) => !is_blank(s.as_bytes()),
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

/// A tool call's name and arguments, wherever the API puts them: OpenAI's `function.name` and
/// `function.arguments`, a flat `name` and `arguments`, Anthropic's `input`. The one lookup,
/// for JSON views and for the bindings' Hash calls.
pub fn call_parts(call: &serde_json::Map<String, Value>) -> (Option<&str>, Option<&Value>) {
    let func = call.get("function").and_then(Value::as_object);
    let name = func
        .and_then(|f| f.get("name"))
        .or_else(|| call.get("name"))
        .and_then(Value::as_str);
    let arguments = func
        .and_then(|f| f.get("arguments"))
        .or_else(|| call.get("arguments"))
        .or_else(|| call.get("input"));
    (name, arguments)
}

fn call_view(
    slot: usize,
    place: Place,
    call: &Value,
    fallback_id: Option<&str>,
) -> Result<ToolCallView> {
    let obj = call
        .as_object()
        .ok_or_else(|| Error::invalid_argument("a tool call is not an object"))?;
    let (name, arguments) = call_parts(obj);
    let name = name.unwrap_or("unknown").to_owned();
    let arguments = arguments.cloned().unwrap_or(Value::Null);
    let id = str_of(obj.get("id")).or_else(|| fallback_id.map(str::to_owned));
    Ok(ToolCallView {
        id,
        name,
        arguments,
        slot,
        place,
    })
}

fn view_of(index: usize, m: &Value) -> Result<MessageView> {
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
    match obj.get("content") {
        Some(Value::Array(blocks)) => {
            for (slot, b) in blocks.iter().enumerate() {
                let kind = b.get("type").and_then(Value::as_str).unwrap_or("");
                match kind {
                    "tool_use" if role == Role::Assistant => {
                        view.tool_calls
                            .push(call_view(slot, Place::Content, b, None)?);
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
            for (slot, c) in calls.iter().enumerate() {
                view.tool_calls
                    .push(call_view(slot, Place::ToolCalls, c, None)?);
            }
        }
        // RubyLLM keeps tool calls as a Hash of id => call.
        Some(Value::Object(calls)) if !calls.is_empty() => {
            for (slot, (id, c)) in calls.iter().enumerate() {
                view.tool_calls
                    .push(call_view(slot, Place::ToolCalls, c, Some(id))?);
            }
        }
        _ => {}
    }
    Ok(view)
}

/// Builds the views of a JSON history (both shapes, and RubyLLM-like Hashes).
pub fn views_from_json(messages: &[Value]) -> Result<Vec<MessageView>> {
    messages
        .iter()
        .enumerate()
        .map(|(i, m)| view_of(i, m))
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
    let plan = plan(&views_from_json(&messages)?);
    let mut out = Vec::with_capacity(messages.len());
    for (mut m, edit) in messages.into_iter().zip(&plan.edits) {
        match edit {
            Edit::Keep => out.push(m),
            Edit::Remove => {}
            Edit::Strip {
                tool_calls,
                content,
            } => {
                let obj = m.as_object_mut().expect("views only come from objects");
                if !tool_calls.is_empty() {
                    let emptied = match obj.get_mut("tool_calls") {
                        Some(Value::Array(calls)) => {
                            remove_slots(calls, tool_calls);
                            calls.is_empty()
                        }
                        Some(Value::Object(calls)) => {
                            let mut i = 0;
                            calls.retain(|_, _| {
                                let keep = !tool_calls.contains(&i);
                                i += 1;
                                keep
                            });
                            calls.is_empty()
                        }
                        _ => false,
                    };
                    if emptied {
                        obj.shift_remove("tool_calls");
                    }
                }
                if let Some(Value::Array(blocks)) = obj.get_mut("content") {
                    remove_slots(blocks, content);
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
        edits: plan.edits,
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

    /// An assistant message that carries an orphan call and a dangling result loses both, in
    /// one edit (the result's edit used to replace the call's, so the call stayed).
    #[test]
    fn one_message_loses_its_orphan_call_and_its_dangling_result() {
        let h = vec![
            json!({"role": "user", "content": "fix"}),
            json!({"role": "assistant", "content": [
                {"type": "text", "text": "Let me look."},
                {"type": "tool_use", "id": "toolu_01", "name": "Read", "input": {"file_path": "/a.rb"}},
                {"type": "tool_result", "tool_use_id": "toolu_01", "content": "class A; end"}]}),
        ];
        let changes = plan_of(views_from_json(&h).unwrap().as_slice());
        assert_eq!(
            changes.edits,
            vec![(
                1,
                Edit::Strip {
                    tool_calls: vec![],
                    content: vec![1, 2]
                }
            )]
        );
        let out = prune_json(&h).unwrap();
        assert_eq!(
            out.messages[1]["content"],
            json!([{"type": "text", "text": "Let me look."}])
        );
        assert_eq!(out.pruned[0].id.as_deref(), Some("toolu_01"));
        assert_eq!(out.dangling_results, 1);
        assert_eq!(
            out.edits,
            [
                vec![Edit::Keep],
                changes.edits.into_iter().map(|(_, e)| e).collect()
            ]
            .concat()
        );
    }

    /// `tool_use` blocks beside a `tool_calls` list: each pruned call leaves its own list.
    #[test]
    fn calls_in_both_places_are_removed_from_their_own_list() {
        let h = vec![
            json!({"role": "user", "content": "go"}),
            json!({"role": "assistant",
                   "content": [{"type": "text", "text": "x"},
                               {"type": "tool_use", "id": "toolu_9", "name": "Read", "input": {}}],
                   "tool_calls": [
                       {"id": "call_1", "type": "function", "function": {"name": "Ls", "arguments": "{}"}},
                       {"id": "call_2", "type": "function", "function": {"name": "Cat", "arguments": "{}"}}]}),
            json!({"role": "tool", "tool_call_id": "call_1", "content": "ok"}),
        ];
        let out = prune_json(&h).unwrap();
        let ids: Vec<_> = out
            .pruned
            .iter()
            .map(|p| p.id.as_deref().unwrap())
            .collect();
        assert_eq!(ids, ["toolu_9", "call_2"]);
        assert_eq!(
            out.messages[1]["content"],
            json!([{"type": "text", "text": "x"}])
        );
        assert_eq!(out.messages[1]["tool_calls"].as_array().unwrap().len(), 1);
        assert_eq!(out.messages[1]["tool_calls"][0]["id"], "call_1");
    }

    /// A message whose calls are all orphans still keeps a result that has its call.
    #[test]
    fn a_message_with_a_kept_result_is_stripped_not_removed() {
        let h = vec![
            json!({"role": "user", "content": "go"}),
            json!({"role": "assistant", "content": [
                {"type": "tool_use", "id": "toolu_1", "name": "Read", "input": {}}]}),
            json!({"role": "assistant", "content": [
                {"type": "tool_result", "tool_use_id": "toolu_1", "content": "A"},
                {"type": "tool_use", "id": "toolu_2", "name": "Read", "input": {}}]}),
        ];
        let changes = plan_of(views_from_json(&h).unwrap().as_slice());
        // toolu_1 has no result in the next user message: pruned with the result that named it;
        // toolu_2 is an orphan: the third message loses both blocks and has nothing left.
        assert_eq!(changes.edits, vec![(1, Edit::Remove), (2, Edit::Remove)]);
        let kept = vec![
            h[0].clone(),
            json!({"role": "assistant", "content": [
                {"type": "tool_use", "id": "toolu_1", "name": "Read", "input": {}}]}),
            json!({"role": "tool", "tool_call_id": "toolu_1", "content": "A"}),
            json!({"role": "assistant", "content": [
                {"type": "tool_result", "tool_use_id": "toolu_1", "content": "again"},
                {"type": "tool_use", "id": "toolu_2", "name": "Read", "input": {}}]}),
        ];
        let changes = plan_of(views_from_json(&kept).unwrap().as_slice());
        // toolu_1 is answered by the tool message, so the second result names a kept call:
        // the message keeps it and loses only its orphan call.
        assert_eq!(
            changes.edits,
            vec![(
                3,
                Edit::Strip {
                    tool_calls: vec![],
                    content: vec![1]
                }
            )]
        );
    }

    /// Issue 14: two calls sharing one id, one result: the second call is an orphan.
    #[test]
    fn each_call_needs_a_result_of_its_own() {
        let h = vec![
            json!({"role": "user", "content": "go"}),
            json!({"role": "assistant", "content": null, "tool_calls": [
                {"id": "call_1", "type": "function", "function": {"name": "a", "arguments": "{}"}},
                {"id": "call_1", "type": "function", "function": {"name": "b", "arguments": "{}"}}]}),
            json!({"role": "tool", "tool_call_id": "call_1", "content": "A"}),
        ];
        let changes = plan_of(views_from_json(&h).unwrap().as_slice());
        assert_eq!(changes.pruned.len(), 1);
        assert_eq!(
            changes.edits,
            vec![(
                1,
                Edit::Strip {
                    tool_calls: vec![1],
                    content: vec![]
                }
            )]
        );
    }

    /// Issue 14: legacy function calling pairs by name; its results are never dangling.
    #[test]
    fn legacy_function_results_are_kept() {
        let h = vec![
            json!({"role": "user", "content": "go"}),
            json!({"role": "assistant", "content": null,
                   "function_call": {"name": "read", "arguments": "{}"}}),
            json!({"role": "function", "name": "read", "content": "A"}),
            json!({"role": "user", "content": "thanks"}),
        ];
        let changes = plan_of(views_from_json(&h).unwrap().as_slice());
        assert!(changes.edits.is_empty(), "{:?}", changes.edits);
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
