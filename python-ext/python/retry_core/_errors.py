"""The exceptions retry-core raises itself.

Defined here, in Python, and looked up once by the native module (``python-ext/src/error.rs``
maps each core error code to one of these classes). Every one of them is a
:class:`RetryCoreError`, and also the builtin a caller would expect: bad input is a
``ValueError``, a state-machine misuse or an internal bug a ``RuntimeError``.
"""

from __future__ import annotations

__all__ = [
    "RetryCoreError",
    "InvalidArgumentError",
    "InvalidPolicyError",
    "InvalidJsonError",
    "InvalidStateError",
    "InternalError",
]


class RetryCoreError(Exception):
    """Base class of every exception raised by retry-core itself."""

    #: The core's stable snake_case error code.
    code: str = "error"


class InvalidArgumentError(RetryCoreError, ValueError):
    """A value has the wrong shape (a status of 70000, a message that is not an object)."""

    code = "invalid_argument"


class InvalidPolicyError(RetryCoreError, ValueError):
    """A policy configuration is inconsistent or unknown (negative delay, unknown preset)."""

    code = "invalid_policy"


class InvalidJsonError(RetryCoreError, ValueError):
    """Input that should be JSON is not."""

    code = "invalid_json"


class InvalidStateError(RetryCoreError, RuntimeError):
    """A state-machine call out of order."""

    code = "invalid_state"


class InternalError(RetryCoreError, RuntimeError):
    """A bug in retry-core (a Rust panic caught at the boundary). Please report it."""

    code = "internal"
