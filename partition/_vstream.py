"""The vertex-streaming kernel shared by ``ldg`` and ``fennel`` (edge-cut).

Vertices arrive in a stated order (default: a seeded uniform shuffle). Each vertex ``v`` has a
weight ``w_v`` (1, or ``1 + in-degree`` to balance the edges an edge-cut stores with their
target). For ``v``, let ``N_p`` be its neighbours (in- and out-edges) already placed on part
``p`` and ``s_p`` the weight already on ``p``. Parts where ``v`` would pass the capacity ``cap``
are skipped (if every part is, ``v`` goes to the lightest); among the others ``v`` goes to the
highest score, ties to the lighter part, then at random:

* LDG (Stanton & Kliot, KDD 2012): ``N_p * (1 - s_p / cap)``;
* Fennel (Tsourakakis et al., WSDM 2014): ``N_p - alpha * gamma * s_p ** (gamma - 1) * w_v``,
  the marginal cost of adding weight ``w_v`` to the penalty ``alpha * sum_p s_p ** gamma``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from gas.partition.hashing import next_random, reduce_range, seed_state

LDG = 0
FENNEL = 1


@njit(cache=True)
def vertex_stream(order, o_ptr, o_nbr, i_ptr, i_nbr, weight, num_parts, mode, cap, alpha, gamma, seed):
    n = order.shape[0]
    part = np.full(n, -1, np.int32)
    size = np.zeros(num_parts, np.float64)
    cnt = np.zeros(num_parts, np.int64)
    touched = np.empty(num_parts, np.int64)
    rng = np.empty(1, np.uint64)
    rng[0] = seed_state(seed, 0x3C6EF372)
    for i in range(n):
        v = order[i]
        wv = weight[v]
        nt = 0
        for side in range(2):
            ptr = o_ptr if side == 0 else i_ptr
            nbr = o_nbr if side == 0 else i_nbr
            for k in range(ptr[v], ptr[v + 1]):
                q = part[nbr[k]]
                if q >= 0:
                    if cnt[q] == 0:
                        touched[nt] = q
                        nt += 1
                    cnt[q] += 1
        best = -np.inf
        bp = -1
        ties = 0
        for p in range(num_parts):
            if size[p] + wv > cap:
                continue
            if mode == LDG:
                sc = cnt[p] * (1.0 - size[p] / cap)
            else:
                sc = cnt[p] - alpha * gamma * size[p] ** (gamma - 1.0) * wv
            if bp < 0 or sc > best or (sc == best and size[p] < size[bp]):
                best = sc
                bp = p
                ties = 1
            elif sc == best and size[p] == size[bp]:
                ties += 1
                if reduce_range(next_random(rng), ties) == 0:
                    bp = p
        if bp < 0:
            bp = 0
            for p in range(1, num_parts):
                if size[p] < size[bp]:
                    bp = p
        part[v] = bp
        size[bp] += wv
        for t in range(nt):
            cnt[touched[t]] = 0
    return part
