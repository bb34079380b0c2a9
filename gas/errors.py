"""Exception hierarchy: one root, specific subclasses, messages that say what, where and how to fix."""

from __future__ import annotations

__all__ = ["GasError", "InputError", "ProgramError", "GraphError"]


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
