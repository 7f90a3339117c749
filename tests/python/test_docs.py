"""The examples in the docstrings run (STYLE practice 8)."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = ["retry_core", "retry_core._failure", "retry_core._classify", "retry_core._policy", "retry_core._config",
           "retry_core._orphan", "retry_core._retry", "retry_core.llm_executor", "retry_core.integrations"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
