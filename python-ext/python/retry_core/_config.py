"""PlanExe's ``RetryConfig``, backed by the engine's ``llm_executor`` preset."""

from __future__ import annotations

from dataclasses import dataclass

from ._policy import RetryPolicy

__all__ = ["RetryConfig"]


@dataclass
class RetryConfig:
    """Per-model retries of transient errors inside ``LLMExecutor`` (PlanExe's defaults).

    The delay before retry ``n`` (0-based) is ``min(base_delay * backoff_multiplier ** n,
    max_delay)``; a server's ``retry-after`` up to ``max_delay`` replaces it, and a longer one
    moves on to the next model at once. ``max_retries`` counts retries after the first call
    (0 = no retries).

    >>> from retry_core import RetryConfig
    >>> [RetryConfig().delay_for_retry(n) for n in range(6)]
    [1.0, 2.0, 4.0, 8.0, 16.0, 30.0]
    """

    max_retries: int = 2
    base_delay: float = 1.0  # seconds
    max_delay: float = 30.0  # seconds
    backoff_multiplier: float = 2.0

    def to_policy(self) -> RetryPolicy:
        """The engine's policy for this configuration (the ``llm_executor`` preset)."""
        return RetryPolicy.llm_executor(self.max_retries, self.base_delay, self.max_delay, self.backoff_multiplier)

    def delay_for_retry(self, retry_index: int) -> float:
        """The delay in seconds before the ``retry_index``-th retry (0-based)."""
        return self.to_policy().backoff_delay(retry_index)
