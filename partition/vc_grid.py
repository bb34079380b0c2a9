"""``grid``: 2-D constrained vertex-cut for any number of parts.

The ``P`` parts are laid on a ``rows x cols`` grid of cells (default ``cols = ceil(sqrt(P))``,
``rows = ceil(P / cols)``, so ``P <= rows * cols < P + cols``); cell ``(i, j)`` belongs to part
``(i * cols + j) mod P``, so the few cells past ``P`` fold onto the first parts. A seeded hash
puts each vertex ``v`` in one cell ``(r_v, c_v)``; its *constraint set* is the parts of row
``r_v`` and column ``c_v``. Edge ``(u, v)`` goes to the less loaded of the two cells where the
row of one endpoint meets the column of the other, ``(r_u, c_v)`` and ``(r_v, c_u)``; both lie
in both constraint sets. Hence every vertex has at most ``rows + cols - 1`` replicas, which is
at most ``2 * ceil(sqrt(P)) - 1`` with the default shape: the bound ``2 ceil(sqrt(P))`` holds
for every ``P``, square or not. Edges are read in input order (the choice between two
candidates by current load makes the result nearly insensitive to the order).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from gas.errors import InputError
from gas.partition.base import EdgeInput, Partitioner, register
from gas.partition.hashing import hash_vertex, reduce_range, seed_to_uint

__all__ = ["GridCut", "grid_shape", "grid_bound"]


def grid_shape(num_parts: int, shape: tuple[int, int] | None = None) -> tuple[int, int]:
    """The ``(rows, cols)`` used for ``num_parts`` parts; checks a user-given shape.

    Raises
    ------
    gas.InputError
        When ``rows * cols`` is below ``num_parts`` (some part would get no cell) or at least
        ``2 * num_parts`` (some part would get three or more cells and be overloaded).

    Examples
    --------
    >>> grid_shape(16), grid_shape(30), grid_shape(7)
    ((4, 4), (5, 6), (3, 3))
    """
    if shape is None:
        cols = math.isqrt(num_parts - 1) + 1 if num_parts > 1 else 1
        return -(-num_parts // cols), cols
    try:
        rows, cols = (int(x) for x in shape)
    except (TypeError, ValueError):
        raise InputError(f"Expected grid shape as (rows, cols) (got {shape!r})") from None
    if rows < 1 or cols < 1:
        raise InputError(f"Expected a grid shape with rows, cols >= 1 (got {rows}x{cols})")
    cells = rows * cols
    default = grid_shape(num_parts)
    if cells < num_parts:
        raise InputError(
            f"A {rows}x{cols} grid has {cells} cells, fewer than the {num_parts} parts",
            hint=f"use rows * cols >= {num_parts}, or omit the shape (default {default[0]}x{default[1]})",
        )
    if cells >= 2 * num_parts:
        raise InputError(
            f"A {rows}x{cols} grid has {cells} cells, at least twice the {num_parts} parts, "
            "so some parts would get 3+ cells and the edge balance cannot hold",
            hint=f"use {num_parts} <= rows * cols < {2 * num_parts}, or omit the shape",
        )
    return rows, cols


def grid_bound(num_parts: int, shape: tuple[int, int] | None = None) -> int:
    """Most replicas any vertex can have: ``rows + cols - 1`` (<= ``2 ceil(sqrt(P))``).

    Examples
    --------
    >>> grid_bound(30), 2 * math.ceil(math.sqrt(30))
    (10, 12)
    """
    rows, cols = grid_shape(num_parts, shape)
    return min(num_parts, rows + cols - 1)


@njit(cache=True, inline="always")
def _cell(h, rows, cols):
    """Row and column from a vertex hash: independent, from its high and low halves."""
    return reduce_range(h, rows), reduce_range(h << np.uint64(32), cols)


@njit(cache=True)
def _grid_parts(src, dst, rows, cols, num_parts, seed):
    out = np.empty(src.shape[0], np.int32)
    load = np.zeros(num_parts, np.int64)
    for e in range(src.shape[0]):
        u = src[e]
        v = dst[e]
        hu = hash_vertex(u, seed)
        hv = hash_vertex(v, seed)
        ru, cu = _cell(hu, rows, cols)
        rv, cv = _cell(hv, rows, cols)
        a = ru * cols + cv  # < rows * cols < 2P: one subtraction folds it onto 0..P-1
        b = rv * cols + cu
        if a >= num_parts:
            a -= num_parts
        if b >= num_parts:
            b -= num_parts
        if load[a] < load[b]:
            p = a
        elif load[b] < load[a]:
            p = b
        else:
            p = a if ((hu ^ hv) >> np.uint64(16)) & np.uint64(1) else b  # same for (v, u)
        out[e] = p
        load[p] += 1
    return out


@register
class GridCut(Partitioner):
    """2-D grid-constrained vertex-cut; at most ``rows + cols - 1`` replicas per vertex.

    Parameters
    ----------
    shape : (int, int), optional
        Grid rows and columns; default near-square (see :func:`grid_shape`).

    Examples
    --------
    >>> import numpy as np
    >>> from gas.partition import partition
    >>> rng = np.random.default_rng(0)
    >>> a = partition((rng.integers(0, 50, 2000), rng.integers(0, 50, 2000)), "grid", 7)
    >>> int(a.num_replicas.max()) <= grid_bound(7)
    True
    """

    name = "grid"
    kind = "vertex-cut"
    summary = "2-D grid constraint, <= 2 ceil(sqrt(P)) replicas per vertex"
    defaults = {"shape": None}

    def check_options(self) -> None:
        super().check_options()
        shape = self.options["shape"]
        if shape is not None:
            grid_shape(max(1, _cells_of(shape)), shape)  # form check; P is checked later

    def check_num_parts(self, num_parts: int) -> None:
        super().check_num_parts(num_parts)
        grid_shape(int(num_parts), self.options["shape"])

    def _assign(self, inp: EdgeInput, num_parts: int, seed: int) -> np.ndarray:
        rows, cols = grid_shape(num_parts, self.options["shape"])
        return _grid_parts(inp.src, inp.dst, rows, cols, num_parts, seed_to_uint(seed))


def _cells_of(shape: object) -> int:
    try:
        r, c = (int(x) for x in shape)  # type: ignore[union-attr]
    except (TypeError, ValueError):
        raise InputError(f"Expected grid shape as (rows, cols) (got {shape!r})") from None
    return r * c
