"""docs/API.md, the API reference page, is what docs/make_api.py writes from today's code."""

from __future__ import annotations

import importlib.util
from pathlib import Path

DOCS = Path(__file__).resolve().parent.parent / "docs"


def _maker():
    spec = importlib.util.spec_from_file_location("make_api", DOCS / "make_api.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_api_page_is_up_to_date():
    # a stale page names signatures the code no longer has: regenerate with the script
    make_api = _maker()
    assert make_api.PAGE.read_text(encoding="utf-8") == make_api.render(), (
        "docs/API.md is out of date: run python docs/make_api.py"
    )


def test_the_page_lists_every_public_name_with_its_signature():
    import gas
    import gas.algorithms

    text = (DOCS / "API.md").read_text(encoding="utf-8")
    for module, skip in ((gas, {"__version__", "algorithms", "io"}), (gas.algorithms, set())):
        for name in set(module.__all__) - skip:
            assert f"### `{module.__name__}.{name}`" in text, name
    # the entry point's keywords appear as the signature gives them
    assert "gas.run(graph: 'Any', program: 'Any', *," in text


def test_help_of_vertexprogram_shows_every_method_with_its_signature():
    # the signatures the validator accepts (gas.program_spec.METHODS) are the ones help() shows
    import pydoc

    import gas
    from gas.program_spec import METHODS

    text = pydoc.render_doc(gas.VertexProgram, renderer=pydoc.plaintext)
    for name, (params, _) in METHODS.items():
        assert f"{name}(self, {', '.join(params)}" in text, name
    assert "converged(self, ctx) -> bool" in text
