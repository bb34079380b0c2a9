"""Vertex programs the CUDA tests run, importable by a fresh process (the PTX compile check):
the README's user-written PageRank (a checked build: its bounds checks compile into the
kernels) and small programs using vector fields and an own priority."""

from __future__ import annotations

import numpy as np

import gas


class MyPageRank(gas.VertexProgram):
    """The README's PageRank, as a user writes it (checked by default)."""

    vertex_data = {"rank": np.float64, "share": np.float64, "change": np.float64}
    gather_edges = gas.IN
    dynamic = False
    aggregates = {"dangling": "sum", "change": "sum"}

    def __init__(self, alpha=0.85, tol=1e-6):
        self.alpha, self.tol = alpha, tol

    def init(self, v, ctx):
        v.rank = 1.0 / ctx.num_vertices
        v.share = v.rank / v.out_degree if v.out_degree > 0 else 0.0

    def gather(self, v, e, nbr):
        return nbr.share

    def apply(self, v, total, ctx):
        n = ctx.num_vertices
        new = (1 - self.alpha) / n + self.alpha * (total + ctx.dangling / n)
        v.change = abs(new - v.rank)
        v.rank = new
        v.share = new / v.out_degree if v.out_degree > 0 else 0.0

    def aggregate(self, v):
        return (v.rank if v.out_degree == 0 else 0.0), v.change

    def converged(self, ctx):
        return ctx.change < ctx.num_vertices * self.tol


class VectorSum(gas.VertexProgram):
    """Each vertex keeps a 3-vector; gather sums a weighted component of the neighbours'
    vectors, indexed with a loop (bounds-checked), over all edges; max aggregate."""

    vertex_data = {"x": (np.float64, 3), "y": np.float64}
    gather_edges = gas.ALL
    dynamic = False
    aggregates = {"top": "max"}

    def init(self, v, ctx):
        for k in range(3):
            v.x[k] = (v.vid % 7) + k

    def gather(self, v, e, nbr):
        s = 0.0
        for k in range(3):
            s += nbr.x[k] * (k + 1)
        return s

    def apply(self, v, total, ctx):
        v.y = total
        v.x[ctx.iteration % 3] += 1.0

    def aggregate(self, v):
        return v.y


class Countdown(gas.VertexProgram):
    """A dynamic program scheduled by its own priority (no scatter): each vertex counts its
    id's last digit down to 0, one per superstep, gathering nothing."""

    vertex_data = {"left": np.int64, "steps": np.int64}
    gather_edges = gas.NONE

    def init(self, v, ctx):
        v.left = v.vid % 10

    def apply(self, v, total, ctx):
        if v.left > 0:
            v.left -= 1
            v.steps += 1

    def priority(self, v):
        return 1.0 if v.left > 0 else 0.0
