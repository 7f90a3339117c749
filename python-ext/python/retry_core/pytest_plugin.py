"""The pytest plugin of retry-core (entry point ``pytest11``, loaded when the package is
installed): the ``retry_core_testing`` fixture, the testing switch around one test.

    def test_survives_a_429(retry_core_testing):
        ...  # waits cost no real time, fleets included
        assert retry_core_testing.waits == [(20.0, "retry_after")]
"""

from __future__ import annotations

from typing import Iterator

import pytest

from ._testing import Recorder, testing


@pytest.fixture
def retry_core_testing() -> Iterator[Recorder]:
    """Virtual time the fleets share, jitter seed 0, and the record of the calls' decisions
    (:class:`retry_core.testing`), for the length of the test."""
    with testing(seed=0) as recorder:
        yield recorder
