"""retry-core: one engine that decides how to survive a failed LLM API call.

The engine (Rust) classifies the failure and decides: retry after a delay, recover (prune
orphan tool calls, compact the context), give up, or re-raise untouched. This package
translates live exceptions into the engine's failure records and runs the loops that call and
wait, with ``time.sleep`` / ``asyncio.sleep``.

>>> import retry_core
>>> retry_core.call_llm_with_retry(lambda: "hello")
'hello'
>>> retry_core.classify(TimeoutError("read timed out")).category
'timeout'
"""

from __future__ import annotations

import os

# The exception classes first: the native module looks them up when it initialises.
from ._errors import (
    InternalError,
    InvalidArgumentError,
    InvalidJsonError,
    InvalidPolicyError,
    InvalidStateError,
    RetryCoreError,
)
from . import _native
from ._native import Classification
from ._failure import Failure
from ._fleet import Fleet
from ._policy import PRESETS, RetryPolicy
from ._classify import CATEGORIES, classify, format_error_message, is_transient_error, retry_after, scrub
from ._orphan import PruneResult, is_tool_pairing_error, prune_orphan_tool_calls
from ._config import RetryConfig
from ._retry import acall_llm_with_retry, call_llm_with_retry
from ._testing import Recorder, testing
from ._decorator import retry
from ._names import CategoryName, PresetName
from . import streams
from .streams import StreamIncomplete

__version__: str = _native.__version__

# The core builds its tables on first use. A table another thread is building when the process
# forks would never finish in the child, so every fork first lets the core finish them all
# (milliseconds once; nothing on later forks).
if hasattr(os, "register_at_fork"):
    os.register_at_fork(before=_native._warm)

__all__ = [
    "CATEGORIES",
    "PRESETS",
    "Classification",
    "Failure",
    "Fleet",
    "InternalError",
    "InvalidArgumentError",
    "InvalidJsonError",
    "InvalidPolicyError",
    "InvalidStateError",
    "PruneResult",
    "RetryConfig",
    "RetryCoreError",
    "RetryPolicy",
    "acall_llm_with_retry",
    "call_llm_with_retry",
    "classify",
    "format_error_message",
    "is_tool_pairing_error",
    "is_transient_error",
    "prune_orphan_tool_calls",
    "retry_after",
    "scrub",
    "Recorder",
    "testing",
    "retry",
    "streams",
    "StreamIncomplete",
    "PresetName",
    "CategoryName",
]
