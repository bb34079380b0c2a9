"""Bundled algorithms: each a vertex program plus one function returning numpy arrays."""

import importlib as _importlib
import sys as _sys
import types as _types

# The public names, imported when first used (PEP 562), like ``gas``'s own: the command line
# imports the registry and one algorithm, not all of them with their Numba kernels (issue 21).
# name -> submodule that defines it
_EXPORTS = {
    "ALSProgram": "als",
    "als": "als",
    "EigenvectorProgram": "centrality",
    "KatzProgram": "centrality",
    "eigenvector_centrality": "centrality",
    "katz_centrality": "centrality",
    "ColoringProgram": "coloring",
    "coloring": "coloring",
    "count_conflicts": "coloring",
    "ComponentsProgram": "components",
    "connected_components": "components",
    "DiameterEstimate": "diameter",
    "HyperANFProgram": "diameter",
    "approximate_diameter": "diameter",
    "effective_diameter": "diameter",
    "neighborhood_function": "diameter",
    "HITSProgram": "hits",
    "hits": "hits",
    "CoreProgram": "kcore",
    "core_number": "kcore",
    "LabelPropagationProgram": "label_propagation",
    "label_propagation_communities": "label_propagation",
    "AsyncLabelPropagationProgram": "label_propagation_variants",
    "label_propagation_async": "label_propagation_variants",
    "LDAModel": "lda",
    "LDAProgram": "lda",
    "heldout_perplexity": "lda",
    "lda": "lda",
    "MFModel": "mf_model",
    "PageRankProgram": "pagerank",
    "WeightedPageRankProgram": "pagerank",
    "pagerank": "pagerank",
    "PersonalPageRankProgram": "pagerank_personal",
    "strongly_connected_components": "scc",
    "SGDProgram": "sgd",
    "sgd": "sgd",
    "HopsProgram": "sssp",
    "SSSPProgram": "sssp",
    "sssp": "sssp",
    "TrianglesProgram": "triangles",
    "average_clustering": "triangles",
    "clustering": "triangles",
    "transitivity": "triangles",
    "triangles": "triangles",
}


class _Package(_types.ModuleType):
    """This package's module type: a function named like its submodule (``pagerank``, ``sssp``,
    ``als``, ...) stays the package's attribute when the submodule is imported, as it did when
    this file imported everything (the import system binds a submodule to its package)."""

    def __setattr__(self, name: str, value: object) -> None:
        if (
            isinstance(value, _types.ModuleType)
            and _EXPORTS.get(name) == name
            and value.__name__ == f"{__name__}.{name}"
        ):
            value = getattr(value, name)
        super().__setattr__(name, value)


def __getattr__(name: str) -> object:
    module = _EXPORTS.get(name)
    if module is not None:
        value = getattr(_importlib.import_module(f"{__name__}.{module}"), name)
    elif not name.startswith("__"):
        try:  # a submodule reached as an attribute (gas.algorithms.kcore)
            value = _importlib.import_module(f"{__name__}.{name}")
        except ModuleNotFoundError:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


_sys.modules[__name__].__class__ = _Package

__all__ = [
    "pagerank",
    "connected_components",
    "sssp",
    "als",
    "sgd",
    "MFModel",
    "ALSProgram",
    "SGDProgram",
    "lda",
    "heldout_perplexity",
    "LDAModel",
    "LDAProgram",
    "coloring",
    "count_conflicts",
    "ColoringProgram",
    "PageRankProgram",
    "WeightedPageRankProgram",
    "ComponentsProgram",
    "SSSPProgram",
    "HopsProgram",
    "triangles",
    "clustering",
    "average_clustering",
    "transitivity",
    "TrianglesProgram",
    "strongly_connected_components",
    "core_number",
    "CoreProgram",
    "label_propagation_communities",
    "LabelPropagationProgram",
    "label_propagation_async",
    "AsyncLabelPropagationProgram",
    "PersonalPageRankProgram",
    "hits",
    "HITSProgram",
    "katz_centrality",
    "KatzProgram",
    "eigenvector_centrality",
    "EigenvectorProgram",
    "approximate_diameter",
    "neighborhood_function",
    "effective_diameter",
    "DiameterEstimate",
    "HyperANFProgram",
]
