"""Retry policies and presets (CONTRACT §3). The policy itself lives in Rust; this module adds
keyword arguments and accepts the three spellings ``policy=`` takes everywhere: a preset name,
a configuration dict, or a :class:`RetryPolicy`."""

from __future__ import annotations

import json
import math
from typing import Any, Dict, Mapping, Optional, Tuple, Union

from . import _native
from ._errors import InvalidPolicyError
from ._names import PresetName

__all__ = ["RetryPolicy", "PRESETS", "PolicyLike", "resolve_policy", "policy_for_call"]

#: The preset names, identical in Rust, Python and Ruby.
PRESETS: Tuple[str, ...] = tuple(_native.PRESETS)


class RetryPolicy:
    """A retry policy: attempt limit, backoff, jitter, ``retry-after`` handling, per-category
    overrides. Build one from a preset and adjust it with keyword arguments whose names are the
    configuration keys of ``core/src/policy.rs``::

        RetryPolicy("forgeflare", jitter="full")
        RetryPolicy(max_attempts=3, backoff={"kind": "fixed", "delay": 2.0})
        RetryPolicy.from_config({"preset": "default", "deadline": None})

    # Default
    ``RetryPolicy()`` is the ``default`` preset, the project's recommended policy. Its values live
    in one place, the engine (``core/src/policy.rs``, reasons in the project README);
    ``RetryPolicy().to_config()`` shows them.
    """

    __slots__ = ("_inner",)

    _inner: "_native.RetryPolicy"

    def __init__(self, preset: PresetName = "default", **config: Any) -> None:
        if not isinstance(preset, str):
            raise TypeError(f"preset must be a str, not {type(preset).__name__}")
        if config:
            self._inner = _from_config({"preset": preset, **config})
        else:
            self._inner = _native.RetryPolicy._preset(preset)

    @classmethod
    def _wrap(cls, native: "_native.RetryPolicy") -> "RetryPolicy":
        obj = cls.__new__(cls)
        obj._inner = native
        return obj

    @classmethod
    def preset(cls, name: PresetName) -> "RetryPolicy":
        """A preset by name: ``default``, ``swarm_sdk``, ``swarm_sdk_legacy``, ``forgeflare``,
        ``llm_executor``."""
        if not isinstance(name, str):
            raise TypeError(f"preset name must be a str, not {type(name).__name__}")
        return cls._wrap(_native.RetryPolicy._preset(name))

    @classmethod
    def from_config(cls, config: Union[Mapping[str, Any], str]) -> "RetryPolicy":
        """A policy from a configuration map (or its JSON text). ``preset`` picks the starting
        point (default ``default``); every other key replaces that field; unknown keys are
        errors."""
        return cls._wrap(_from_config(config))

    @classmethod
    def swarm_sdk(cls, max_retries: int = 3, delay: float = 15.0) -> "RetryPolicy":
        """SwarmSDK's ``call_llm_with_retry(max_retries: 3, delay: 15)``: ``max_retries`` counts
        every call, a fixed delay."""
        return cls._wrap(_swarm_sdk(max_retries, delay))

    @classmethod
    def llm_executor(
        cls,
        max_retries: int = 2,
        base_delay: float = 1.0,
        max_delay: float = 30.0,
        backoff_multiplier: float = 2.0,
    ) -> "RetryPolicy":
        """PlanExe's ``RetryConfig``: ``max_retries`` retries after the first call,
        ``min(base_delay * backoff_multiplier ** n, max_delay)``."""
        _check_count("max_retries", max_retries)
        return cls._wrap(
            _native.RetryPolicy._llm_executor(
                max_retries, _seconds("base_delay", base_delay), _seconds("max_delay", max_delay),
                _seconds("backoff_multiplier", backoff_multiplier),
            )
        )

    @property
    def name(self) -> str:
        """The preset it came from, or the ``name`` given in the configuration."""
        return self._inner.name

    @property
    def max_attempts(self) -> int:
        """Total calls allowed, the first included."""
        return self._inner.max_attempts

    @property
    def max_retries(self) -> int:
        """The limit as the policy's users count it (``max_retries`` in events)."""
        return self._inner.max_retries

    def to_config(self) -> Dict[str, Any]:
        """The policy as a configuration map; ``RetryPolicy.from_config`` round-trips it."""
        cfg: Dict[str, Any] = json.loads(self._inner._to_config())
        return cfg

    def backoff_delay(self, retry_index: int) -> float:
        """The backoff before retry ``retry_index`` (0-based), without jitter or
        ``retry-after``."""
        _check_count("retry_index", retry_index)
        return self._inner._backoff_delay(retry_index)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, RetryPolicy):
            return NotImplemented
        return bool(self._inner == other._inner)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"RetryPolicy(name={self.name!r}, max_attempts={self.max_attempts})"


#: A preset's name (a ``Literal``: a type checker rejects ``"defualt"``), a configuration, a policy.
PolicyLike = Union[PresetName, Mapping[str, Any], RetryPolicy]


def _check_count(name: str, n: Any) -> None:
    if not isinstance(n, int) or isinstance(n, bool):
        raise TypeError(f"{name} must be an int, not {type(n).__name__}")
    if not 0 <= n < 2**32:
        raise ValueError(f"{name} must be between 0 and 2**32 - 1, got {n}")


def _seconds(name: str, x: Any) -> float:
    if not isinstance(x, (int, float)) or isinstance(x, bool):
        raise TypeError(f"{name} must be a number, not {type(x).__name__}")
    value = float(x)
    if not math.isfinite(value) or value < 0:
        raise ValueError(f"{name} must be a finite number >= 0, got {value}")
    return value


def _from_config(config: Union[Mapping[str, Any], str]) -> "_native.RetryPolicy":
    if isinstance(config, str):
        text = config
    elif isinstance(config, Mapping):
        try:
            text = json.dumps(dict(config), allow_nan=False)
        except TypeError as e:
            raise TypeError(f"a policy configuration must be JSON-serialisable: {e}") from None
        except ValueError as e:  # NaN or infinity
            raise InvalidPolicyError(f"invalid policy configuration: {e}") from None
        except RecursionError:
            raise InvalidPolicyError("invalid policy configuration: nested too deeply") from None
    else:
        raise TypeError(f"a policy configuration must be a dict or JSON text, not {type(config).__name__}")
    return _native.RetryPolicy._from_config(text)


# Native policies are immutable: one per preset name is enough.
_PRESET_CACHE: Dict[str, "_native.RetryPolicy"] = {}
# The core's answers for a call's usual arguments (a preset name or None, plain numbers).
_CALL_CACHE: Dict[Tuple[Any, Any, Any], "_native.RetryPolicy"] = {}


def _swarm_sdk(max_retries: Any, delay: Any) -> "_native.RetryPolicy":
    _check_count("max_retries", max_retries)
    return _native.RetryPolicy._swarm_sdk(max_retries, _seconds("delay", delay))


def policy_for_call(policy: Optional[PolicyLike], max_retries: Any, delay: Any) -> "_native.RetryPolicy":
    """The native policy a ``call_llm_with_retry`` gets from its arguments. The core decides
    (``default`` with nothing given, SwarmSDK's loop for ``max_retries`` / ``delay`` alone, an
    error for both); this only checks types and remembers the core's answer for usual forms."""
    plain = (policy is None or type(policy) is str) and type(max_retries) in (int, type(None)) \
        and type(delay) in (int, float, type(None))
    if plain:
        cached = _CALL_CACHE.get((policy, max_retries, delay))
        if cached is not None:
            return cached
    if max_retries is not None and (not isinstance(max_retries, int) or isinstance(max_retries, bool)):
        raise TypeError(f"max_retries must be an int, not {type(max_retries).__name__}")
    if delay is not None and (not isinstance(delay, (int, float)) or isinstance(delay, bool)):
        raise TypeError(f"delay must be a number, not {type(delay).__name__}")
    given = None if policy is None else resolve_policy(policy)
    native = _native.RetryPolicy._for_call(
        given,
        None if max_retries is None else max(min(max_retries, 2**62), -1),
        None if delay is None else float(delay),
    )
    if plain and len(_CALL_CACHE) < 64:
        _CALL_CACHE[(policy, max_retries, delay)] = native
    return native


def resolve_policy(policy: PolicyLike) -> "_native.RetryPolicy":
    """The native policy for a ``policy=`` value: a preset name, a configuration, a policy."""
    if isinstance(policy, RetryPolicy):
        return policy._inner
    if isinstance(policy, str):
        preset = _PRESET_CACHE.get(policy)
        if preset is None:
            preset = _native.RetryPolicy._preset(policy)
            _PRESET_CACHE[policy] = preset  # only valid names get here: a bounded set
        return preset
    if isinstance(policy, Mapping):
        return _from_config(policy)
    if isinstance(policy, _native.RetryPolicy):
        return policy
    raise TypeError(
        f"policy must be a preset name, a configuration dict or a retry_core.RetryPolicy, "
        f"not {type(policy).__name__}"
    )
