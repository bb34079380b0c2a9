"""Quality report of an assignment: replication, balance, cut, and the traffic it implies.

Definitions (``P`` parts, ``n`` vertices, ``m`` edges):

* replication factor = total replicas / ``n`` (>= 1; every vertex has at least its master);
* edge balance = max edges on a part / (``m / P``); vertex balance = max local vertices on a
  part / (total replicas / ``P``); master balance = max masters on a part / (``n / P``);
* mirrors = total replicas - ``n``;
* bytes per superstep = mirrors x ``gather_bytes``: in a synchronous GAS superstep every mirror
  sends its partial gather to the master (and the master sends the new value back, the same
  count again for a value of the same size), so this is the one-way volume that decides the
  cost of a method;
* edge-cut only: edge-cut fraction = edges whose endpoints have different owners / ``m``, and
  ghosts = sum over parts of vertices owned elsewhere adjacent to the part's vertices.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["PartitionReport", "build_report", "format_table"]


@dataclass(frozen=True)
class PartitionReport:
    """The figures printed after every partitioning run (see the module docstring).

    Examples
    --------
    >>> import numpy as np
    >>> from gas.partition import VertexCut
    >>> a = VertexCut(np.array([0, 1]), np.array([0, 1]), np.array([1, 2]), 3, 2)
    >>> r = a.report(gather_bytes=8)
    >>> round(r.replication_factor, 3), r.mirrors, r.bytes_per_superstep, r.edge_balance
    (1.333, 1, 8, 1.0)
    """

    method: str
    kind: str
    num_parts: int
    num_vertices: int
    num_edges: int
    replication_factor: float
    edge_balance: float
    vertex_balance: float
    master_balance: float
    mirrors: int
    gather_bytes: int
    bytes_per_superstep: int
    seconds: float
    edge_cut_fraction: float | None = None
    ghosts: int | None = None

    @property
    def edges_per_second(self) -> float:
        return self.num_edges / self.seconds if self.seconds > 0 else float("inf")

    def as_dict(self) -> dict[str, Any]:
        """Plain dict of the fields plus ``edges_per_second``."""
        d = dataclasses.asdict(self)
        d["edges_per_second"] = self.edges_per_second
        return d

    def __str__(self) -> str:
        lines = [
            f"method              {self.method} ({self.kind}), {self.num_parts} parts",
            f"graph               {self.num_vertices:,} vertices, {self.num_edges:,} edges",
            f"replication factor  {self.replication_factor:.3f}",
            f"edge balance        {self.edge_balance:.3f}",
            f"vertex balance      {self.vertex_balance:.3f}",
            f"master balance      {self.master_balance:.3f}",
        ]
        if self.edge_cut_fraction is not None:
            lines.append(f"edge-cut fraction   {self.edge_cut_fraction:.4f}")
            lines.append(f"ghosts              {self.ghosts:,}")
        lines += [
            f"mirrors             {self.mirrors:,}",
            f"bytes / superstep   {_human(self.bytes_per_superstep)} "
            f"(mirrors x {self.gather_bytes} B gather)",
            f"time                {self.seconds:.3f} s ({self.edges_per_second / 1e6:.1f} M edges/s)",
        ]
        return "\n".join(lines)


def _human(nbytes: float) -> str:
    for unit in ("B", "KB", "MB", "GB"):
        if abs(nbytes) < 1000 or unit == "GB":
            return f"{nbytes:.0f} {unit}" if unit == "B" else f"{nbytes:.1f} {unit}"
        nbytes /= 1000
    raise AssertionError  # pragma: no cover


def _ratio(top: float, mean: float) -> float:
    return float(top / mean) if mean > 0 else 1.0


def build_report(assignment: Any, gather_bytes: int = 8) -> PartitionReport:
    """Compute the :class:`PartitionReport` of an assignment."""
    if int(gather_bytes) < 0:
        raise ValueError(f"Expected gather_bytes >= 0 (got {gather_bytes})")
    a = assignment
    p = a.num_parts
    n = a.num_vertices
    replicas = int(a.replica_parts.shape[0])
    mirrors = replicas - n
    extra: dict[str, Any] = {}
    if a.kind == "edge-cut":
        extra["edge_cut_fraction"] = a.edge_cut_fraction
        extra["ghosts"] = int(a.ghosts_per_part.sum())
    return PartitionReport(
        method=a.method,
        kind=a.kind,
        num_parts=p,
        num_vertices=n,
        num_edges=a.num_edges,
        replication_factor=replicas / n if n else 1.0,
        edge_balance=_ratio(int(a.edges_per_part.max()), a.num_edges / p),
        vertex_balance=_ratio(int(a.vertices_per_part.max()), replicas / p),
        master_balance=_ratio(int(a.masters_per_part.max()), n / p),
        mirrors=mirrors,
        gather_bytes=int(gather_bytes),
        bytes_per_superstep=mirrors * int(gather_bytes),
        seconds=a.seconds,
        **extra,
    )


def format_table(reports: list[PartitionReport]) -> str:
    """One aligned text table, a row per report (used by ``gas partition --compare``).

    Examples
    --------
    >>> import numpy as np
    >>> from gas.partition import VertexCut
    >>> r = VertexCut(np.array([0, 1]), np.array([0, 1]), np.array([1, 2]), 3, 2).report()
    >>> format_table([r]).splitlines()[1].split()[:3]
    ['vertex-cut', '1.333', '1.000']
    """
    head = (
        f"{'method':<10} {'kind':<10} {'RF':>6} {'edge-bal':>9} {'vert-bal':>9} "
        f"{'mast-bal':>9} {'cut-frac':>9} {'MB/step':>9} {'seconds':>9} {'Medges/s':>9}"
    )
    rows = [head]
    for r in reports:
        cut = f"{r.edge_cut_fraction:.4f}" if r.edge_cut_fraction is not None else "-"
        rate = r.edges_per_second / 1e6
        rows.append(
            f"{r.method:<10} {r.kind:<10} {r.replication_factor:>6.3f} {r.edge_balance:>9.3f} "
            f"{r.vertex_balance:>9.3f} {r.master_balance:>9.3f} {cut:>9} "
            f"{r.bytes_per_superstep / 1e6:>9.3f} {r.seconds:>9.3f} "
            f"{rate if np.isfinite(rate) else float('nan'):>9.1f}"
        )
    return "\n".join(rows)
