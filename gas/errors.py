"""Exception hierarchy: one root, specific subclasses, messages that say what, where and how to fix."""

from __future__ import annotations

__all__ = ["GasError", "InputError", "ProgramError", "GraphError", "ConvergenceError", "convergence_error"]


class GasError(Exception):
    """Root of every error gaslab raises on purpose."""


class InputError(GasError, ValueError):
    """Bad input data: a file that cannot be parsed, or values out of range.

    Parameters
    ----------
    message : str
        What was expected and what was found.
    path : str, optional
        The file the problem was found in.
    line : int, optional
        1-based line number in that file.
    text : str, optional
        The offending text (shown quoted).
    hint : str, optional
        How to fix it.
    """

    def __init__(
        self,
        message: str,
        *,
        path: str | None = None,
        line: int | None = None,
        text: str | None = None,
        hint: str | None = None,
    ) -> None:
        self.path = path
        self.line = line
        self.text = text
        self.hint = hint
        where = ""
        if path is not None:
            where = f"{path}:{line}: " if line is not None else f"{path}: "
        msg = where + message
        if text is not None:
            msg += f" (got {text!r})"
        if hint:
            msg += f"\n  hint: {hint}"
        super().__init__(msg)


class ProgramError(GasError, TypeError):
    """A vertex program that cannot run: missing method, wrong field, wrong return type."""


class GraphError(GasError, ValueError):
    """An operation that does not fit the graph (unknown vertex id, negative weights, ...)."""


class ConvergenceError(GasError, RuntimeError):
    """An iterative run that ended without meeting its stopping rule.

    Raised by the bundled algorithms (and the CLI, which exits with status 3) when a run stops
    at its iteration budget, or diverges, before its tolerance is met. Raise it through
    :func:`convergence_error`, which makes the instance catchable as networkx's
    ``PowerIterationFailedConvergence`` too, without importing networkx until an error is raised.

    Parameters
    ----------
    message : str
        What stopped short, and how far it got.
    iterations : int, optional
        Supersteps (or rounds, epochs, sweeps) run.
    residual : float, optional
        The stopping rule's last measured value.
    target : float, optional
        The value the stopping rule needed.
    result : object, optional
        The partial result (e.g. a :class:`gas.RunResult` or the output array), for callers
        that accept an unconverged answer.
    run : object, optional
        The engine's :class:`gas.RunResult` of the run (statistics, iterations), when
        ``result`` is the output array alone.

    Examples
    --------
    >>> import gas
    >>> from gas.errors import convergence_error
    >>> err = convergence_error("stopped", iterations=3, residual=0.5, target=1e-6)
    >>> isinstance(err, gas.ConvergenceError), err.iterations
    (True, 3)
    """

    def __init__(
        self,
        message: str,
        *,
        iterations: int | None = None,
        residual: float | None = None,
        target: float | None = None,
        result: object = None,
        run: object = None,
    ) -> None:
        self.iterations = iterations
        self.run = run
        self.residual = residual
        self.target = target
        self.result = result
        self.num_iterations = iterations  # networkx's attribute name
        Exception.__init__(self, message)

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


_NX_CLASS: list[type] = []


def convergence_error(message: str, **fields: object) -> ConvergenceError:
    """A :class:`ConvergenceError` that is also a ``networkx.PowerIterationFailedConvergence``.

    networkx is imported here, when an error is being raised, not when gaslab is imported. If
    networkx cannot be imported the plain :class:`ConvergenceError` is returned.
    """
    if not _NX_CLASS:
        try:
            from networkx.exception import PowerIterationFailedConvergence
        except ImportError:  # pragma: no cover - networkx is a runtime dependency
            _NX_CLASS.append(ConvergenceError)
        else:
            _NX_CLASS.append(
                type("ConvergenceError", (ConvergenceError, PowerIterationFailedConvergence), {})
            )
    return _NX_CLASS[0](message, **fields)  # type: ignore[call-arg]
