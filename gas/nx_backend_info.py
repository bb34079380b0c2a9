"""networkx's light entry point for the gaslab backend (``networkx.backend_info``).

networkx calls :func:`get_info` while networkx itself is being imported, so this module imports
nothing: not the engine (whose compiled kernels start Numba, ~0.8 s), not numpy, not networkx.
``gas/__init__.py`` imports its public names lazily, so importing this module costs nothing more.
The backend itself is :mod:`gas.nx_backend`, loaded only when a call is dispatched to it.
"""

from __future__ import annotations

__all__ = ["get_info", "FUNCTIONS"]

_KWARGS = {
    "threads : int, optional": "Numba threads for gaslab's engine (default: all).",
    'engine : str, default "sync"': 'gaslab engine: "sync" or "async".',
    "procs : int, default 1": "Local processes the graph is split over.",
}

# Each dispatched function, with what gaslab does differently (shown in networkx's docstrings).
FUNCTIONS: dict[str, str] = {
    "pagerank": "personalization, nstart and dangling are not supported yet (networkx runs such a call).",
    "connected_components": "Gather-Apply-Scatter label propagation on gaslab's engine.",
    "weakly_connected_components": "Gather-Apply-Scatter label propagation on gaslab's engine.",
    "number_connected_components": "Gather-Apply-Scatter label propagation on gaslab's engine.",
    "single_source_shortest_path_length": "Synchronous Bellman-Ford hop counts on gaslab's engine.",
    "single_source_dijkstra_path_length": "A callable weight is not supported (networkx runs such a call).",
    "greedy_color": 'Only strategy="largest_first" without interchange, on undirected graphs.',
    "triangles": "One sorted-list intersection per edge on gaslab's engine.",
    "clustering": "Unweighted, undirected graphs (networkx runs weighted or directed clustering).",
    "average_clustering": "Unweighted, undirected graphs (networkx runs weighted or directed clustering).",
    "transitivity": "Undirected graphs (networkx runs a directed graph's transitivity).",
    "core_number": "h-index iteration on gaslab's engine; directed graphs without reciprocal edges.",
    "strongly_connected_components": "Forward-backward colouring on gaslab's engine; sets by first node.",
    "number_strongly_connected_components": "Forward-backward colouring on gaslab's engine.",
    "label_propagation_communities": "networkx's semi-synchronous rule on gaslab's engine, same communities; "
    "graphs without self-loops or parallel edges.",
    "hits": "Power iteration on gaslab's engine (networkx's _hits_python rule; networkx calls ARPACK).",
    "katz_centrality": "networkx's iterates and stopping step over in-edges on gaslab's engine.",
    "eigenvector_centrality": "networkx's power iteration on A^T + I on gaslab's engine.",
}

# functions that take ``threads=`` and ``procs=`` of gaslab's keywords (no ``engine=``)
_NO_ENGINE = {"hits", "katz_centrality", "eigenvector_centrality"}

# functions that take only ``threads=`` of gaslab's keywords
_THREADS_ONLY = {
    "triangles", "clustering", "average_clustering", "transitivity", "core_number",
    "strongly_connected_components", "number_strongly_connected_components", "label_propagation_communities",
}  # fmt: skip


def _parameters(name: str) -> dict[str, str]:
    if name == "greedy_color":
        return {}
    if name in _THREADS_ONLY:
        return {k: v for k, v in _KWARGS.items() if k.startswith("threads")}
    if name in _NO_ENGINE:
        return {k: v for k, v in _KWARGS.items() if not k.startswith("engine")}
    out = dict(_KWARGS)
    if name == "pagerank":
        out["extrapolate_every : int, default 0"] = (
            "0: plain power iteration, networkx's iterates; k > 0: an extrapolation every k steps."
        )
    return out


def get_info() -> dict:
    """The backend's description for networkx (name, project, functions and their extra kwargs).

    Examples
    --------
    >>> get_info()["backend_name"]
    'gaslab'
    """
    return {
        "backend_name": "gaslab",
        "project": "gaslab",
        "package": "gaslab",
        "short_summary": "Gather-Apply-Scatter graph engine compiled with Numba.",
        "functions": {
            name: {"additional_docs": doc, "additional_parameters": _parameters(name)}
            for name, doc in FUNCTIONS.items()
        },
        "default_config": {},
    }
