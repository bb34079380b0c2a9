"""A trained matrix-factorization model: prediction by original ids, top-k, save and load.

The model predicts ``r_ui = mean + b_u + c_i + p_u . q_i`` (the biases are zero for a model
trained without them). A user or item the training set never saw is a cold start: its factors
and bias count as zero, so an unknown pair is predicted as the global mean plus the known side's
bias (exactly the global mean when both are unknown, or without biases), and
:meth:`MFModel.predict` reports how many pairs that was. Predictions are clipped to the range of
the training ratings by default, as scikit-surprise does.

A saved model is a folder: ``meta.json`` (format, algorithm, parameters, global mean, rating
range), ``user_factors.npy``, ``item_factors.npy``, ``user_bias.npy``, ``item_bias.npy``,
``user_ids`` and ``item_ids`` (``.npy`` for integer ids, ``.txt`` with one id per line for
string ids), and the items each user rated in training (``seen_indptr.npy``,
``seen_items.npy``) so that :meth:`MFModel.recommend` can leave them out. It is written to a
temporary folder beside the target and renamed into place, so readers see the old model or the
complete new one. Arrays are read with ``allow_pickle=False``.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from numba import njit, prange

from gas.errors import GasError, InputError
from gas.io.atomic import atomic_folder

__all__ = ["MFModel", "Prediction"]

_FORMAT = "gaslab-mf"
_VERSION = 1


@njit(parallel=True, cache=True)
def _predict_kernel(P, Q, bu, bi, mean, u, i, lo, hi, out):
    """Predictions for internal pairs; ``-1`` marks an unknown user or item (cold start)."""
    k = P.shape[1]
    for j in prange(u.shape[0]):
        x = mean
        a = u[j]
        b = i[j]
        if a >= 0:
            x += bu[a]
        if b >= 0:
            x += bi[b]
        if a >= 0 and b >= 0:
            s = 0.0
            for f in range(k):
                s += P[a, f] * Q[b, f]
            x += s
        if x < lo:
            x = lo
        elif x > hi:
            x = hi
        out[j] = x


@njit(parallel=True, cache=True)
def _sq_err_kernel(P, Q, bu, bi, mean, u, i, r, lo, hi, nchunks):
    """Sum of squared errors over rated pairs, summed per chunk then serially (no racy +=)."""
    n = u.shape[0]
    k = P.shape[1]
    part = np.zeros(nchunks)
    for c in prange(nchunks):
        s2 = 0.0
        for j in range((n * c) // nchunks, (n * (c + 1)) // nchunks):
            a = u[j]
            b = i[j]
            x = mean
            if a >= 0:
                x += bu[a]
            if b >= 0:
                x += bi[b]
            if a >= 0 and b >= 0:
                for f in range(k):
                    x += P[a, f] * Q[b, f]
            if x < lo:
                x = lo
            elif x > hi:
                x = hi
            d = r[j] - x
            s2 += d * d
        part[c] = s2
    return part.sum()


def _lookup(ids: np.ndarray, query: Any) -> np.ndarray:
    """Index of each queried id in the sorted ``ids`` array, -1 where absent.

    Integer models accept integer ids or their decimal strings; string models compare as text.
    """
    q = np.asarray(query)
    if q.ndim == 0:
        q = q.reshape(1)
    if ids.dtype.kind in "iu":
        if q.dtype.kind not in "iu":
            conv = np.empty(q.shape[0], np.int64)
            ok = np.ones(q.shape[0], np.bool_)
            for j, x in enumerate(q.tolist()):
                try:
                    conv[j] = int(x)
                except (ValueError, TypeError, OverflowError):
                    ok[j] = False
                    conv[j] = 0
            out = _lookup(ids, conv)
            out[~ok] = -1
            return out
        if ids.shape[0] == 0:
            return np.full(q.shape[0], -1, np.int64)
        valid = np.ones(q.shape[0], np.bool_)
        if q.dtype != ids.dtype:
            if ids.dtype == np.uint64 and q.dtype.kind == "i":
                valid = q >= 0
            elif ids.dtype != np.uint64 and q.dtype == np.uint64:
                valid = q <= np.iinfo(np.int64).max
            q = np.where(valid, q, 0).astype(ids.dtype)
        pos = np.minimum(np.searchsorted(ids, q), ids.shape[0] - 1)
        return np.where(valid & (ids[pos] == q), pos, -1).astype(np.int64)
    table = {str(x): j for j, x in enumerate(ids.tolist())}
    return np.array([table.get(str(x), -1) for x in q.tolist()], dtype=np.int64)


@dataclass
class Prediction:
    """Predicted ratings with the count of cold-start pairs.

    Attributes
    ----------
    values : ndarray of float64
    cold : ndarray of bool
        True where the user or the item was not in the training set.
    """

    values: np.ndarray
    cold: np.ndarray

    @property
    def num_cold(self) -> int:
        return int(np.count_nonzero(self.cold))


@dataclass
class MFModel:
    """Factors, biases and id maps of a trained factorization (see the module docstring).

    Attributes
    ----------
    user_factors : ndarray, shape (num_users, rank)
    item_factors : ndarray, shape (num_items, rank)
    user_bias, item_bias : ndarray
        Zeros for a model trained without biases.
    global_mean : float
        Mean training rating, added to every prediction.
    user_ids, item_ids : ndarray
        Original ids, sorted; row ``j`` of ``user_factors`` belongs to ``user_ids[j]``.
    rating_range : (float, float)
        Predictions are clipped to it (the training ratings' min and max).
    algorithm : str
    params : dict
        The training parameters.
    seen_indptr, seen_items : ndarray or None
        The items (internal ids) each user rated in training, CSR-style.
    history : list of dict
        Per training iteration: ``iteration``, ``seconds``, and ``train_rmse`` / ``test_rmse``
        when they were tracked.

    Examples
    --------
    >>> import numpy as np
    >>> m = MFModel(
    ...     user_factors=np.array([[1.0], [2.0]]), item_factors=np.array([[0.5]]),
    ...     user_bias=np.zeros(2), item_bias=np.zeros(1), global_mean=3.0,
    ...     user_ids=np.array([10, 20]), item_ids=np.array([7]), rating_range=(1.0, 5.0))
    >>> p = m.predict([10, 20, 30], [7, 7, 7])
    >>> p.values.tolist(), p.num_cold   # user 30 is unknown: the global mean
    ([3.5, 4.0, 3.0], 1)
    """

    user_factors: np.ndarray
    item_factors: np.ndarray
    user_bias: np.ndarray
    item_bias: np.ndarray
    global_mean: float
    user_ids: np.ndarray
    item_ids: np.ndarray
    rating_range: tuple[float, float] = (-np.inf, np.inf)
    algorithm: str = ""
    params: dict[str, Any] = field(default_factory=dict)
    seen_indptr: np.ndarray | None = None
    seen_items: np.ndarray | None = None
    history: list[dict[str, Any]] = field(default_factory=list)

    @property
    def rank(self) -> int:
        return int(self.user_factors.shape[1])

    @property
    def num_users(self) -> int:
        return int(self.user_factors.shape[0])

    @property
    def num_items(self) -> int:
        return int(self.item_factors.shape[0])

    # ------------------------------------------------------------------ prediction
    def user_index(self, users: Any) -> np.ndarray:
        """Row of each original user id in :attr:`user_factors` (-1 if unknown)."""
        return _lookup(self.user_ids, users)

    def item_index(self, items: Any) -> np.ndarray:
        """Row of each original item id in :attr:`item_factors` (-1 if unknown)."""
        return _lookup(self.item_ids, items)

    def predict_internal(self, u: np.ndarray, i: np.ndarray, *, clip: bool = True) -> np.ndarray:
        """Predictions for internal row indices (``-1``: unknown, cold start)."""
        lo, hi = self.rating_range if clip else (-np.inf, np.inf)
        u = np.ascontiguousarray(u, dtype=np.int64)
        i = np.ascontiguousarray(i, dtype=np.int64)
        out = np.empty(u.shape[0], np.float64)
        _predict_kernel(
            self.user_factors,
            self.item_factors,
            self.user_bias,
            self.item_bias,
            float(self.global_mean),
            u,
            i,
            float(lo),
            float(hi),
            out,
        )
        return out

    def predict(self, users: Any, items: Any, *, clip: bool = True) -> Prediction:
        """Predicted ratings for pairs of ORIGINAL ids; unknown ids are cold starts (see above).

        Parameters
        ----------
        users, items : array_like
            Original ids, one pair per position (integers, or strings of them).
        clip : bool, default True
            Clip to :attr:`rating_range`.
        """
        u = self.user_index(users)
        i = self.item_index(items)
        if u.shape != i.shape:
            raise GasError(f"Expected as many users as items (got {u.shape[0]} and {i.shape[0]})")
        return Prediction(self.predict_internal(u, i, clip=clip), (u < 0) | (i < 0))

    def rmse(self, ratings: Any, *, clip: bool = True) -> float:
        """Root-mean-square error on a :class:`~gas.io.ratings.Ratings` (matched by original id)."""
        users, items, r = ratings.original()
        u = self.user_index(users)
        i = self.item_index(items)
        return self._rmse_internal(u, i, r, clip=clip)

    def _rmse_internal(self, u: np.ndarray, i: np.ndarray, r: np.ndarray, *, clip: bool = True) -> float:
        if r.shape[0] == 0:
            return float("nan")
        lo, hi = self.rating_range if clip else (-np.inf, np.inf)
        import numba

        s2 = _sq_err_kernel(
            self.user_factors,
            self.item_factors,
            self.user_bias,
            self.item_bias,
            float(self.global_mean),
            np.ascontiguousarray(u, dtype=np.int64),
            np.ascontiguousarray(i, dtype=np.int64),
            np.ascontiguousarray(r, dtype=np.float64),
            float(lo),
            float(hi),
            numba.get_num_threads() * 4,
        )
        return float(np.sqrt(s2 / r.shape[0]))

    def recommend(
        self, user: Any, top: int = 10, *, exclude_seen: bool = True
    ) -> tuple[np.ndarray, np.ndarray]:
        """The ``top`` items with the highest predicted rating for one user (original id).

        Items the user rated in training are left out when ``exclude_seen``. An unknown user gets
        the items with the highest ``global_mean + item bias`` (the cold-start prediction).

        Returns
        -------
        item_ids : ndarray
            Original item ids, best first (ties: smaller internal id first).
        scores : ndarray of float64
            Their predicted ratings (not clipped).
        """
        if top < 0:
            raise GasError(f"Expected top >= 0 (got {top})")
        u = int(self.user_index([user])[0])
        scores = self.global_mean + self.item_bias.copy()
        if u >= 0:
            scores += self.user_bias[u] + self.item_factors @ self.user_factors[u]
        keep = np.ones(self.num_items, np.bool_)
        if exclude_seen and u >= 0 and self.seen_indptr is not None and self.seen_items is not None:
            keep[self.seen_items[self.seen_indptr[u] : self.seen_indptr[u + 1]]] = False
        cand = np.flatnonzero(keep)
        order = cand[np.lexsort((cand, -scores[cand]))][:top]
        return self.item_ids[order], scores[order]

    # ------------------------------------------------------------------ persistence
    def save(self, folder: str | os.PathLike) -> None:
        """Write the model folder (see the module docstring); replaces an older model there.

        The folder is built beside ``folder`` and swapped in with
        :func:`gas.io.atomic.atomic_folder`: files and folder get the modes ``open()`` and
        ``mkdir`` give (``0o644``/``0o755`` under umask 022), a replaced model keeps its folder's mode.

        Raises
        ------
        GasError
            When ``folder`` exists and is neither empty nor a saved model (nothing is touched).
        """
        target = Path(folder)
        if target.exists():
            if not target.is_dir():
                raise GasError(f"{target}: exists and is not a folder; choose another --save-model path")
            if any(target.iterdir()) and not (target / "meta.json").exists():
                raise GasError(
                    f"{target}: folder exists, is not empty and holds no saved model (no meta.json); "
                    f"refusing to replace it"
                )
        with atomic_folder(target) as tmp:
            arrays = {
                "user_factors": self.user_factors,
                "item_factors": self.item_factors,
                "user_bias": self.user_bias,
                "item_bias": self.item_bias,
            }
            if self.seen_indptr is not None and self.seen_items is not None:
                arrays["seen_indptr"] = self.seen_indptr
                arrays["seen_items"] = self.seen_items
            kinds = {}
            for side, ids in (("user", self.user_ids), ("item", self.item_ids)):
                if ids.dtype.kind in "iu":
                    arrays[f"{side}_ids"] = ids
                    kinds[side] = str(ids.dtype)
                else:
                    text = "".join(f"{x}\n" for x in ids.tolist())
                    _write_file(tmp / f"{side}_ids.txt", text.encode("utf-8"))
                    kinds[side] = "str"
            for name, arr in arrays.items():
                with open(tmp / f"{name}.npy", "wb") as f:
                    np.save(f, np.ascontiguousarray(arr), allow_pickle=False)
                    f.flush()
                    os.fsync(f.fileno())
            meta = {
                "format": _FORMAT,
                "version": _VERSION,
                "algorithm": self.algorithm,
                "rank": self.rank,
                "num_users": self.num_users,
                "num_items": self.num_items,
                "global_mean": float(self.global_mean),
                "rating_range": [float(self.rating_range[0]), float(self.rating_range[1])],
                "id_types": kinds,
                "params": {k: v for k, v in self.params.items() if isinstance(v, (int, float, str, bool))},
                "history": self.history,
            }
            _write_file(tmp / "meta.json", (json.dumps(meta, indent=1) + "\n").encode())

    @classmethod
    def load(cls, folder: str | os.PathLike) -> MFModel:
        """Read a model folder written by :meth:`save`.

        Raises
        ------
        InputError
            When the folder is missing, is not a gaslab model, or its files disagree.
        """
        root = Path(folder)
        meta = _read_meta(root)
        ids = {side: _read_ids(root, side, meta) for side in ("user", "item")}
        P, Q = _read_array(root, "user_factors"), _read_array(root, "item_factors")
        bu, bi = _read_array(root, "user_bias"), _read_array(root, "item_bias")
        model = cls(
            user_factors=P,
            item_factors=Q,
            user_bias=bu,
            item_bias=bi,
            global_mean=float(meta["global_mean"]),
            user_ids=ids["user"],
            item_ids=ids["item"],
            rating_range=tuple(meta.get("rating_range", (-np.inf, np.inf))),
            algorithm=str(meta.get("algorithm", "")),
            params=dict(meta.get("params", {})),
            seen_indptr=_read_array(root, "seen_indptr", required=False),
            seen_items=_read_array(root, "seen_items", required=False),
            history=list(meta.get("history", [])),
        )
        nu, ni = model.user_ids.shape[0], model.item_ids.shape[0]
        if not (
            P.ndim == 2
            and Q.ndim == 2
            and P.shape[1] == Q.shape[1]
            and P.shape[0] == bu.shape[0] == nu
            and Q.shape[0] == bi.shape[0] == ni
        ):
            raise InputError(
                f"inconsistent model files: user factors {P.shape}, item factors {Q.shape}, "
                f"{bu.shape[0]} user biases, {bi.shape[0]} item biases, {nu} user ids, {ni} item ids",
                path=str(root),
            )
        return model


def _read_meta(root: Path) -> dict:
    """The checked ``meta.json`` of model folder ``root`` (see :meth:`MFModel.load`)."""
    meta_path = root / "meta.json"
    if not root.is_dir():
        raise InputError(
            "model folder not found", path=str(root), hint="pass a folder written by --save-model"
        )
    if not meta_path.exists():
        raise InputError(
            "not a saved model (no meta.json)",
            path=str(root),
            hint="pass a folder written by --save-model",
        )
    try:
        meta = json.loads(meta_path.read_text())
    except (ValueError, UnicodeDecodeError) as exc:
        raise InputError(f"meta.json is not valid JSON: {exc}", path=str(meta_path)) from None
    if meta.get("format") != _FORMAT or meta.get("version") != _VERSION:
        raise InputError(
            f"unknown model format {meta.get('format')!r} version {meta.get('version')!r} "
            f"(expected {_FORMAT!r} version {_VERSION})",
            path=str(meta_path),
        )
    return meta


def _read_array(root: Path, name: str, required: bool = True) -> np.ndarray | None:
    """Array ``name.npy`` of model folder ``root``; None when absent and not ``required``."""
    p = root / f"{name}.npy"
    if not p.exists():
        if required:
            raise InputError(f"missing {name}.npy", path=str(root))
        return None
    try:
        return np.load(p, allow_pickle=False)
    except ValueError as exc:
        raise InputError(f"cannot read the array: {exc}", path=str(p)) from None


def _read_ids(root: Path, side: str, meta: dict) -> np.ndarray | None:
    """The original ids of ``side`` (``"user"`` or ``"item"``): text lines or an array."""
    if meta.get("id_types", {}).get(side) == "str":
        p = root / f"{side}_ids.txt"
        if not p.exists():
            raise InputError(f"missing {side}_ids.txt", path=str(root))
        return np.array(p.read_text(encoding="utf-8").splitlines(), dtype=object)
    return _read_array(root, f"{side}_ids")


def _write_file(path: Path, data: bytes) -> None:
    with open(path, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
