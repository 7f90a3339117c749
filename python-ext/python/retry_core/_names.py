"""The preset and category names as ``Literal`` types, so that a type checker rejects a
misspelt name (``policy="defualt"``) before it runs. The core owns the lists
(``_native.PRESETS``, ``_native.CATEGORIES``); ``tests/python/test_typed_names.py`` fails when these
drift from them."""

from __future__ import annotations

from typing import Literal, TypeAlias

__all__ = ["PresetName", "CategoryName"]

#: A preset of ``policy=`` and ``RetryPolicy.preset()`` (core/src/policy.rs, ``PRESETS``).
PresetName: TypeAlias = Literal["default", "swarm_sdk", "swarm_sdk_legacy", "forgeflare", "llm_executor"]

#: A category of ``Classification.category`` and of a policy's per-category overrides
#: (core/src/category.rs, ``TABLE``).
CategoryName: TypeAlias = Literal[
    "rate_limited",
    "overloaded",
    "server_error",
    "timeout",
    "connection",
    "stream_interrupted",
    "orphan_tool_calls",
    "context_overflow",
    "payment_required",
    "unauthorized",
    "forbidden",
    "not_found",
    "content_filtered",
    "unprocessable",
    "bad_request",
    "client_error",
    "invalid_response",
    "validation",
    "configuration",
    "programming",
    "cancelled",
    "unknown",
]
