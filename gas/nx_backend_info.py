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
}


def _parameters(name: str) -> dict[str, str]:
    if name == "greedy_color":
        return {}
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
