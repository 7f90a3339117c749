"""The testing switch: ``with retry_core.testing(seed=0) as rec:`` turns every wait of
retry-core into a step of a virtual clock that the fleets share, fixes the jitter seed of every
call given none, and records what the calls decided. The clock, the seed and the record live
in the core (``core/src/testing.rs``); this module flips the switch and reads the record.

Waits then cost no real time: a 429 with ``retry-after: 20``, a fleet's shared pause, an open
circuit and an admission slot all end when virtual time reaches them. Patching ``time.sleep``
instead leaves a fleet on the real clock, whose gate answers "wait" again and again; the core
notices and raises :class:`retry_core.InvalidStateError` naming this switch.
"""

from __future__ import annotations

from types import TracebackType
from typing import Any, Dict, List, Optional, Tuple, Type

from . import _native

__all__ = ["Recorder", "testing"]

#: The events that carry a decision about a failed call.
_DECISIONS = frozenset(("llm_retry_attempt", "llm_retry_exhausted", "llm_request_failed"))


class Recorder:
    """What the calls did while the switch was on: their events, their waits, the virtual
    time that went by. A view of the core's record: every thread's calls are in it."""

    __slots__ = ("seed",)

    def __init__(self, seed: int) -> None:
        #: The jitter seed of every call given none.
        self.seed = seed

    @property
    def events(self) -> List[Dict[str, Any]]:
        """Every event since the switch went on, as ``on_event`` receives them (at most the
        last 100,000)."""
        events: List[Dict[str, Any]] = _native._testing_events()
        return events

    def of(self, type: str) -> List[Dict[str, Any]]:
        """The events of one ``type`` (``"llm_retry_attempt"``, ``"retry_wait_started"``, ...)."""
        return [e for e in self.events if e.get("type") == type]

    @property
    def decisions(self) -> List[Dict[str, Any]]:
        """The events that decided about a failed call: ``llm_retry_attempt`` (retry),
        ``llm_retry_exhausted`` and ``llm_request_failed`` (give up)."""
        return [e for e in self.events if e.get("type") in _DECISIONS]

    @property
    def waits(self) -> List[Tuple[float, str]]:
        """Each wait as ``(seconds, reason)``: ``backoff``, ``retry_after``, ``fleet_pause``,
        ``circuit_open`` or ``admission``."""
        return [(e["seconds"], e["reason"]) for e in self.of("retry_wait_started")]

    @property
    def elapsed(self) -> float:
        """Virtual seconds since the switch went on."""
        t = _native._testing_elapsed()
        return 0.0 if t is None else t

    @property
    def now(self) -> float:
        """The virtual wall clock (Unix seconds), the one the fleets read."""
        t = _native._testing_now()
        return 0.0 if t is None else t

    def advance(self, seconds: float) -> None:
        """Lets ``seconds`` of virtual time pass (a pause or an open circuit may end)."""
        if not isinstance(seconds, (int, float)) or isinstance(seconds, bool) or not seconds >= 0:
            raise ValueError(f"seconds must be a number >= 0, got {seconds!r}")
        _native._testing_sleep(float(seconds))

    def __repr__(self) -> str:
        return f"Recorder(seed={self.seed}, elapsed={self.elapsed:g}, events={len(self.events)})"


class testing:
    """``with retry_core.testing(seed=0) as rec:``: the testing switch, on inside the block.

    Process-wide, like a fleet: every thread's calls wait on the one virtual clock. Blocks
    nest; time is real again when the outermost one ends. The pytest fixture
    ``retry_core_testing`` (installed with the package) does the same around a test."""

    __slots__ = ("_seed",)

    def __init__(self, seed: int = 0) -> None:
        if not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed < 2**64:
            raise ValueError(f"seed must be an int in [0, 2**64), got {seed!r}")
        self._seed = seed

    def __enter__(self) -> Recorder:
        _native._testing_on(self._seed)
        return Recorder(self._seed)

    def __exit__(self, exc_type: Optional[Type[BaseException]], exc: Optional[BaseException],
                 tb: Optional[TracebackType]) -> None:
        _native._testing_off()
