"""Run the examples in the public modules' docstrings (they are part of the documentation)."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

SKIP = {"gas._template", "gas._template_async", "gas._template_cuda", "gas.cli"}


def _modules():
    names = []
    import gas.datasets
    import gas.partition

    for pkg in (gas, gas.algorithms, gas.partition, gas.datasets):
        for info in pkgutil.walk_packages(pkg.__path__, pkg.__name__ + "."):
            if info.name not in SKIP:
                names.append(info.name)
    return sorted(set(names))


@pytest.mark.parametrize("name", _modules())
def test_docstring_examples(name):
    mod = importlib.import_module(name)
    result = doctest.testmod(mod, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0, f"{result.failed} docstring example(s) failed in {name}"
