//! `orphan::History` (the flat history the bindings fill straight from host objects) plans
//! exactly as the view-based planner did before it: the previous `plan` is kept here as the
//! oracle (with one fix since: a message that loses both calls and results gets one edit for
//! both, where the results' edit used to replace the calls'; found by the `orphan` fuzz target,
//! `core/fuzz/regressions/orphan/tool-result-inside-the-calling-assistant-message`; and one from
//! issue 14: each call needs a result of its own, so two calls sharing one id and one result
//! leave the second an orphan), and both are run over generated histories (every role, ids shared, missing,
//! empty or repeated, Anthropic results in user and assistant messages, system messages inside
//! result windows). `PROPTEST_CASES=N` for more than the default 256 cases.

use proptest::prelude::*;
use proptest::sample::select;
use retry_core::__private::orphan::{
    plan, Edit, History, MessageView, Place, PrunePlan, PrunedCall, Role, ToolCallView,
    ToolResultView,
};
use serde_json::{json, Value};

/// The planner as it was before `History` (commit 2672d77's `orphan::plan`).
fn oracle(views: &[MessageView]) -> PrunePlan {
    let n = views.len();
    let mut edits = vec![Edit::Keep; n];
    // The calls each message loses: (tool_calls slots, content slots).
    let mut lost: Vec<(Vec<usize>, Vec<usize>)> = vec![(Vec::new(), Vec::new()); n];
    let mut pruned = Vec::new();
    let mut kept: Vec<&str> = Vec::new();
    let mut spans: Vec<(u32, u32)> = vec![(0, 0); n];
    let mut answered: Vec<&str> = Vec::new();

    for (i, m) in views.iter().enumerate() {
        if m.role != Role::Assistant || m.tool_calls.is_empty() {
            continue;
        }
        answered.clear();
        oracle_answered_ids(views, i, &mut answered);
        let from = kept.len() as u32;
        for call in &m.tool_calls {
            // Issue 14's fix: a result answers one call (two calls sharing an id and one result
            // leave the second an orphan).
            let answer = call
                .id
                .as_deref()
                .and_then(|id| answered.iter().position(|a| *a == id));
            match (call.id.as_deref(), answer) {
                (Some(id), Some(at)) => {
                    answered.swap_remove(at);
                    kept.push(id);
                }
                _ => {
                    match call.place {
                        Place::ToolCalls => lost[i].0.push(call.slot),
                        Place::Content => lost[i].1.push(call.slot),
                    }
                    pruned.push(PrunedCall {
                        id: call.id.clone(),
                        name: call.name.clone(),
                        arguments: call.arguments.clone(),
                    });
                }
            }
        }
        spans[i] = (from, kept.len() as u32);
    }
    let kept_by = |k: usize| &kept[spans[k].0 as usize..spans[k].1 as usize];

    let mut dangling = 0;
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
            _ => {
                let owner_kept: &[&str] = match owner {
                    Some(k) if views[k].role == Role::Assistant => kept_by(k),
                    _ => &[],
                };
                let results: Vec<usize> = m
                    .tool_results
                    .iter()
                    .filter(|r| !r.id.as_deref().is_some_and(|id| owner_kept.contains(&id)))
                    .map(|r| r.slot)
                    .collect();
                dangling += results.len();
                let (mut tool_calls, blocks) = std::mem::take(&mut lost[j]);
                tool_calls.sort_unstable();
                let calls_lost = tool_calls.len() + blocks.len();
                if calls_lost + results.len() > 0 {
                    edits[j] = if calls_lost == m.tool_calls.len()
                        && results.len() == m.tool_results.len()
                        && !m.has_content
                    {
                        Edit::Remove
                    } else {
                        let mut content = [blocks, results].concat();
                        content.sort_unstable();
                        Edit::Strip {
                            tool_calls,
                            content,
                        }
                    };
                }
            }
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

fn oracle_answered_ids<'v>(views: &'v [MessageView], i: usize, ids: &mut Vec<&'v str>) {
    for m in &views[i + 1..] {
        match m.role {
            Role::Tool => ids.extend(m.tool_call_id.as_deref()),
            Role::User => {
                ids.extend(m.tool_results.iter().filter_map(|r| r.id.as_deref()));
                return;
            }
            Role::Assistant => return,
            Role::System | Role::Other => {}
        }
    }
}

/// A few ids, so that calls and results meet often. Longer ones differ only at the end, only
/// at the start, only in the middle or only in length (the planner compares an id's last eight
/// bytes, then its first eight, then the rest); "" is an id too (the core does not drop it).
fn id() -> impl Strategy<Value = Option<String>> {
    prop::option::weighted(
        0.9,
        select(vec![
            "a",
            "b",
            "c",
            "",
            "call_12",
            "call_13",
            "toolu_00000001",
            "toolu_00000002",
            "xoolu_00000001",
            "toolu_000000001",
            "call_ÿ_1",
            "toolu_01ABCDEFGHIJKLMNOPQRSTU1",
            "toolu_01ABCDEFGXIJKLMNOPQRSTU1",
            "toolu_01ABCDEFGHIJKLMNOPQRSTU2",
        ])
        .prop_map(str::to_owned),
    )
}

fn view() -> impl Strategy<Value = MessageView> {
    (
        select(vec![
            Role::User,
            Role::Assistant,
            Role::Assistant,
            Role::Tool,
            Role::Tool,
            Role::System,
            Role::Other,
        ]),
        any::<bool>(),
        prop::collection::vec((id(), 0usize..6, any::<bool>()), 0..4),
        id(),
        prop::collection::vec((id(), 0usize..6), 0..3),
    )
        .prop_map(
            |(role, has_content, calls, tool_call_id, results)| MessageView {
                role,
                has_content,
                tool_calls: calls
                    .into_iter()
                    .enumerate()
                    .map(|(k, (id, gap, in_content))| ToolCallView {
                        id,
                        name: format!("tool{k}"),
                        arguments: json!({ "k": k }),
                        slot: k * 2 + gap,
                        place: if in_content {
                            Place::Content
                        } else {
                            Place::ToolCalls
                        },
                    })
                    .collect(),
                tool_call_id: if role == Role::Tool {
                    tool_call_id
                } else {
                    None
                },
                tool_results: results
                    .into_iter()
                    .enumerate()
                    .map(|(k, (id, gap))| ToolResultView {
                        id,
                        slot: k * 3 + gap,
                    })
                    .collect(),
            },
        )
}

/// The `History` of some views, filled as a binding fills it.
fn history_of(views: &[MessageView]) -> History {
    let mut h = History::default();
    for m in views {
        h.push_message(m.role, m.has_content, m.tool_call_id.as_deref());
        for c in &m.tool_calls {
            h.push_call_at(c.id.as_deref(), c.slot, c.place);
        }
        for r in &m.tool_results {
            h.push_result(r.id.as_deref(), r.slot);
        }
    }
    h
}

proptest! {
    /// `plan` (now on `History`) gives the old planner's edits, pruned calls and count.
    #[test]
    fn plan_matches_the_previous_planner(views in prop::collection::vec(view(), 0..24)) {
        prop_assert_eq!(plan(&views), oracle(&views));
    }

    /// `History::plan` directly: its sparse edits are the old plan's non-`Keep` ones, and each
    /// pruned call is located at the message, call and slot of the old plan's pruned call.
    #[test]
    fn history_changes_locate_the_pruned_calls(views in prop::collection::vec(view(), 0..24)) {
        let expected = oracle(&views);
        let h = history_of(&views);
        let changes = h.plan();
        let edits: Vec<(usize, Edit)> = expected
            .edits
            .iter()
            .cloned()
            .enumerate()
            .filter(|(_, e)| *e != Edit::Keep)
            .collect();
        prop_assert_eq!(&changes.edits, &edits);
        prop_assert_eq!(changes.dangling_results, expected.dangling_results);
        prop_assert_eq!(changes.pruned.len(), expected.pruned.len());
        for (at, call) in changes.pruned.iter().zip(&expected.pruned) {
            let view = &views[at.message].tool_calls[at.call];
            prop_assert_eq!(view.slot, at.slot);
            prop_assert_eq!(view.place, at.place);
            prop_assert_eq!(&view.name, &call.name);
            prop_assert_eq!(h.call_id(at.message, at.call), call.id.as_deref());
        }
        // Reused buffers plan the same.
        let mut again = h.clone();
        again.clear();
        for m in &views {
            again.push_message(m.role, m.has_content, m.tool_call_id.as_deref());
            for c in &m.tool_calls {
                again.push_call_at(c.id.as_deref(), c.slot, c.place);
            }
            for r in &m.tool_results {
                again.push_result(r.id.as_deref(), r.slot);
            }
        }
        prop_assert_eq!(again.plan(), changes);
    }
}

#[test]
fn clear_calls_forgets_only_the_last_messages_calls() {
    let mut h = History::default();
    h.push_message(Role::Assistant, false, None);
    h.push_call(Some("x"), 0);
    h.push_message(Role::Assistant, false, None);
    h.push_call(Some("y"), 0);
    h.push_call(Some("z"), 1);
    h.clear_calls();
    assert_eq!((h.calls_of(0), h.calls_of(1)), (1, 0));
    h.push_call(Some("w"), 0);
    assert_eq!(h.call_id(1, 0), Some("w"));
    assert_eq!(h.call_id(0, 0), Some("x"));
    assert_eq!(h.call_id(1, 1), None);
    assert_eq!(h.call_id(7, 0), None);
    // A call pushed before any message belongs to none and is never planned.
    let mut lone = History::default();
    lone.push_call(Some("q"), 0);
    lone.push_result(Some("q"), 0);
    lone.set_has_content(true);
    lone.clear_calls();
    assert!(lone.plan().is_empty());
}

#[test]
fn the_vectors_plan_alike() {
    let dir = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/vectors");
    let doc: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("orphans.json")).unwrap()).unwrap();
    let mut n = 0;
    for case in doc["cases"].as_array().unwrap() {
        let Some(messages) = case["messages"].as_array() else {
            continue;
        };
        let Ok(views) = retry_core::__private::orphan::views_from_json(messages) else {
            continue;
        };
        assert_eq!(plan(&views), oracle(&views), "{}", case["name"]);
        n += 1;
    }
    assert!(n > 0);
}
