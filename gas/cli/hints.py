"""Library messages said with the ``gas`` command's flags.

The library's errors and hints name its keyword arguments (``weight=None``, ``max_iter``,
``skip_rows=1``); a ``gas`` user types flags (drop ``--weighted``, ``--max-iter``,
``--skip-rows 1``). :func:`cli_message` turns one into the other for the running subcommand,
in one place: the ``gas`` command's :func:`gas.cli.app.main` passes every error it prints
through it, and so do the subcommands that print a library message themselves. The mapping
is read from the subcommand's own parser (:func:`subcommand_options`), so a flag is named only
where the subcommand has it; :data:`LIBRARY_OPTIONS` lists the keywords whose flag has another
name.

Examples
--------
>>> from gas.cli.app import build_parser
>>> from gas.cli.hints import cli_message, subcommand_options
>>> cli_message("hint: raise max_iter", subcommand_options(build_parser(), "katz"))
'hint: raise --max-iter'
"""

from __future__ import annotations

import argparse
import re

__all__ = ["LIBRARY_OPTIONS", "NEGATED_OPTIONS", "cli_message", "convergence_hint", "subcommand_options"]

#: library keyword -> the option ``dest`` that sets it, where the names differ (the first the
#: subcommand has wins); any other keyword ``name`` is the option ``--name`` if the subcommand has it
LIBRARY_OPTIONS: dict[str, tuple[str, ...]] = {
    "weight": ("weighted",),
    "weights": ("weighted",),
    "weighted": ("weighted_lambda", "weighted"),
    "max_iter": ("max_iter", "iters"),
    "iters": ("iters", "max_iter"),
    "hops": ("weighted",),
}
#: library switches that mean the opposite of their flag (``hops=True``: ``drop --weighted``)
NEGATED_OPTIONS = frozenset({"hops"})
#: ``name=value`` as a library call writes it (``value`` a word, a number or a quoted word)
_KEYWORD = re.compile(r"(?:\bpass )?\b([a-z_][a-z0-9_]*)=('[^']*'|\"[^\"]*\"|[\w.+-]+)")
#: a library name referred to bare, after a verb (``raise max_iter``)
_BARE = re.compile(r"\b(raise|lower|loosen|increase|decrease|tighten|check) ([a-z_][a-z0-9_]*)\b")
#: a library hint's aside naming the CLI's flag (``skip_rows=1 (CLI: --skip-rows 1)``)
_CLI_ASIDE = re.compile(r" ?\(CLI: (--[a-z][a-z-]*)[^)]*\)")


def subcommand_options(parser: argparse.ArgumentParser, command: str | None) -> dict[str, argparse.Action]:
    """The options of subcommand ``command`` of the ``gas`` parser, by ``dest``.

    Examples
    --------
    >>> from gas.cli.app import build_parser
    >>> opts = subcommand_options(build_parser(), "pagerank")
    >>> opts["max_iter"].option_strings, "iters" in opts
    (['--max-iter'], False)
    """
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction) and command in action.choices:
            sub = action.choices[command]
            found: dict[str, argparse.Action] = {}
            for a in sub._actions:
                if a.option_strings and a.help is not argparse.SUPPRESS:
                    found.setdefault(a.dest, a)
            return found
    return {}


def _option(name: str, options: dict[str, argparse.Action]) -> argparse.Action | None:
    for dest in LIBRARY_OPTIONS.get(name, (name,)):
        if dest in options:
            return options[dest]
    return None


def _long(action: argparse.Action) -> str:
    return next((o for o in action.option_strings if o.startswith("--")), action.option_strings[0])


def _as_flag(name: str, value: str, options: dict[str, argparse.Action], pass_: bool) -> str | None:
    """``name=value`` as the subcommand's flag (None when it has no such option)."""
    action = _option(name, options)
    if action is None:
        return None
    flag = _long(action)
    value = value.strip("'\"")
    on = (value not in ("None", "False", "0")) != (name in NEGATED_OPTIONS)
    if action.nargs == 0 or action.dest == "weighted":  # a switch (weight="weight": --weighted)
        if isinstance(action, argparse.BooleanOptionalAction) and not on:
            return f"{'pass ' if pass_ else ''}--no-{flag[2:]}"
        return f"{'pass ' if pass_ else ''}{flag}" if on else f"drop {flag}"
    return f"{'pass ' if pass_ else ''}{flag} {value}"


def cli_message(text: str, options: dict[str, argparse.Action]) -> str:
    """A library message as the ``gas`` command says it: library keywords become its flags.

    ``name=value`` becomes ``--name value`` (a switch: ``--name``, or ``drop --name`` for an
    off value), a name after ``raise``/``loosen``/``check``/... becomes ``--name``, and an
    aside ``(CLI: --x 1)`` after what now says ``--x 1`` is dropped; names the subcommand has
    no option for stay as they are. :data:`LIBRARY_OPTIONS` lists the keywords whose flag has
    another name (``weight=None`` is ``drop --weighted``).

    Parameters
    ----------
    text : str
        The message (of a :class:`gas.GasError` or a warning).
    options : dict
        :func:`subcommand_options` of the running subcommand.

    Examples
    --------
    >>> from gas.cli.app import build_parser
    >>> opts = subcommand_options(build_parser(), "sssp")
    >>> cli_message("use hop counts (weight=None) or fix the input", opts)
    'use hop counts (drop --weighted) or fix the input'
    >>> opts = subcommand_options(build_parser(), "katz")
    >>> cli_message("stopped (max_iter=1000); hint: raise max_iter or tol", opts)
    'stopped (--max-iter 1000); hint: raise --max-iter or --tol'
    >>> cli_message("skip it with skip_rows=1 (CLI: --skip-rows 1) or start it with '#'", opts)
    "skip it with --skip-rows 1 or start it with '#'"
    """
    if not options:
        return text

    def keyword(m: re.Match[str]) -> str:
        flag = _as_flag(m.group(1), m.group(2), options, m.group(0).startswith("pass "))
        return m.group(0) if flag is None else flag

    def bare(m: re.Match[str]) -> str:
        action = _option(m.group(2), options)
        if action is None or action.dest == "weighted":
            return m.group(0)
        return f"{m.group(1)} {_long(action)}"

    text = _KEYWORD.sub(keyword, text)
    text = _BARE.sub(bare, text)
    # an aside naming a flag the text now names anyway
    text = _CLI_ASIDE.sub(lambda m: "" if m.group(1) in text[: m.start()] else m.group(0), text)
    # "--x or tol": a second name after "or" in a hint joined to a flag
    return re.sub(
        r"(--[a-z][a-z-]*) or ([a-z_]+)\b",
        lambda m: f"{m.group(1)} or {_long(a)}" if (a := _option(m.group(2), options)) else m.group(0),
        text,
    )


def convergence_hint(options: dict[str, argparse.Action]) -> str:
    """What to try after a run stopped short, naming only the subcommand's own flags.

    Examples
    --------
    >>> from gas.cli.app import build_parser
    >>> convergence_hint(subcommand_options(build_parser(), "katz"))
    'raise --max-iter, loosen --tol, or pass --allow-unconverged to write the partial result anyway'
    """
    parts = [f"raise {_long(options[k])}" for k in ("max_iter", "iters") if k in options][:1]
    loosen = [_long(options[k]) for k in ("max_error", "tol") if k in options]
    if loosen:
        parts.append("loosen " + " or ".join(loosen))
    if "allow_unconverged" in options:
        parts.append("pass --allow-unconverged to write the partial result anyway")
    if not parts:
        return "check the input and the options"
    if len(parts) > 1:
        parts[-1] = "or " + parts[-1]
    return ", ".join(parts)
