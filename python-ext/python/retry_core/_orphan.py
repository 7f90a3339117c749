"""Orphan tool calls (CONTRACT §5). Detection and pruning happen in Rust; this module hands the
history over as JSON and keeps the caller's own objects for every message pruning left alone."""

from __future__ import annotations

import json
from typing import Any, Dict, List, MutableSequence, NamedTuple, Sequence

from . import _native
from ._failure import _utf8

__all__ = ["PruneResult", "prune_orphan_tool_calls", "is_tool_pairing_error"]


class PruneResult(NamedTuple):
    """What :func:`prune_orphan_tool_calls` did."""

    #: The new history: the original objects where nothing changed, new dicts where pruning
    #: removed tool calls or tool results from a message.
    messages: List[Any]
    #: The removed calls: dicts with ``id``, ``name`` and ``arguments``.
    pruned: List[Dict[str, Any]]
    #: How many tool results without a matching call were removed.
    dangling_results: int
    #: SwarmSDK's ``<system-reminder>`` for the removed calls ("" when none were removed).
    reminder: str

    @property
    def changed(self) -> int:
        """How many items pruning removed (calls plus dangling results)."""
        return len(self.pruned) + self.dangling_results


def _plain(m: Any) -> Any:
    if isinstance(m, dict):
        return m
    dump = getattr(m, "model_dump", None)  # pydantic models (openai's message types)
    if callable(dump):
        return dump(exclude_none=True)
    to_dict = getattr(m, "to_dict", None)
    if callable(to_dict):
        return to_dict()
    raise TypeError(f"a message must be a dict (or a pydantic model), not {type(m).__name__}")


def prune_orphan_tool_calls(messages: Sequence[Any]) -> PruneResult:
    """Remove tool calls that have no result and tool results that have no call.

    Both shapes are understood: OpenAI's (assistant ``tool_calls``, role ``tool`` results with
    ``tool_call_id``) and Anthropic's (``tool_use`` / ``tool_result`` content blocks).
    The input is not modified.

    >>> from retry_core import prune_orphan_tool_calls
    >>> history = [
    ...     {"role": "user", "content": "read it"},
    ...     {"role": "assistant", "content": None, "tool_calls": [{"id": "c1", "type": "function",
    ...      "function": {"name": "Read", "arguments": '{"file_path": "/a.rb"}'}}]},
    ...     {"role": "user", "content": "and?"},
    ... ]
    >>> r = prune_orphan_tool_calls(history)
    >>> len(r.messages), r.pruned[0]["name"]
    (2, 'Read')
    """
    if isinstance(messages, (str, bytes, dict)) or not isinstance(messages, Sequence):
        raise TypeError(f"messages must be a list of messages, not {type(messages).__name__}")
    plain = [_plain(m) for m in messages]
    try:
        text = json.dumps(plain, default=str, ensure_ascii=False)
    except (TypeError, ValueError) as e:
        raise TypeError(f"messages must be JSON-serialisable: {e}") from None
    except RecursionError:
        raise ValueError("messages are nested too deeply to serialise") from None
    # Lone surrogates cannot cross into Rust: replaced (as "?") in the JSON the engine reads.
    # Messages pruning leaves alone are the caller's own objects, surrogates and all.
    text = _utf8(text)
    sources, pruned_json, dangling, reminder = _native._prune_orphans(text)
    out = [messages[i] if slots is None else _strip(plain[i], *slots) for i, slots in sources]
    return PruneResult(out, json.loads(pruned_json), dangling, reminder)


def _without(items: Any, slots: List[int]) -> Any:
    gone = set(slots)
    if isinstance(items, dict):
        return {k: v for n, (k, v) in enumerate(items.items()) if n not in gone}
    return [v for n, v in enumerate(items) if n not in gone]


def _strip(message: Dict[str, Any], tool_calls: List[int], content: List[int]) -> Dict[str, Any]:
    """A copy of ``message`` without the slots the engine removed (its ``Edit::Strip``), built
    from the caller's own values: what JSON cannot carry (bytes, objects) passes through as is.
    The caller's message and its lists are not modified."""
    new = dict(message)
    if tool_calls:
        calls = new.get("tool_calls")
        if isinstance(calls, (list, tuple, dict)):
            kept = _without(calls, tool_calls)
            if kept:
                new["tool_calls"] = kept
            else:
                del new["tool_calls"]
    blocks = new.get("content")
    if content and isinstance(blocks, (list, tuple)):
        new["content"] = _without(blocks, content)
    return new


def prune_in_place(messages: MutableSequence[Any]) -> PruneResult:
    """:func:`prune_orphan_tool_calls`, replacing the list's contents."""
    result = prune_orphan_tool_calls(messages)
    if result.changed:
        messages[:] = result.messages
    return result


def is_tool_pairing_error(message: str) -> bool:
    """Whether an error message says a tool call has no matching result."""
    if not isinstance(message, str):
        raise TypeError(f"message must be a str, not {type(message).__name__}")
    return _native._is_tool_pairing_error(_utf8(message))
