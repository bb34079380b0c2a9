"""``gas lda``: fit an LDA topic model to a corpus file or folder (see :func:`gas.algorithms.lda`)."""

from __future__ import annotations

import argparse
import math
import sys
import time
from typing import Any

from gas.cli.args import nonneg_int, positive_float, positive_int, procs
from gas.cli.common import HelpFormatter, add_async_options
from gas.cli.stats import StatsRecorder, add_stats_options

__all__ = ["register"]


def _df_bound(text: str) -> float:
    """``--min-df``/``--max-df``: a fraction in ``[0, 1]`` or a whole number of documents."""
    try:
        x = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not math.isfinite(x) or x < 0 or (x > 1 and not x.is_integer()):
        raise argparse.ArgumentTypeError(
            f"expected a fraction in [0, 1] or a whole number of documents, got {text!r}"
        )
    return x


def register(subparsers: Any) -> None:
    """Add the ``lda`` subcommand to the ``gas`` command's subparsers.

    Examples
    --------
    >>> import argparse
    >>> parser = argparse.ArgumentParser(prog="gas")
    >>> register(parser.add_subparsers(dest="command"))
    >>> a = parser.parse_args(["lda", "docs/", "--topics", "5"])
    >>> a.corpus, a.topics, a.partition
    ('docs/', 5, 'hash')
    """
    p = subparsers.add_parser(
        "lda",
        help="LDA topic model (collapsed Gibbs sampling)",
        formatter_class=HelpFormatter,
        description="Fit LDA by collapsed Gibbs sampling on the engine. CORPUS: a UCI bag-of-words "
        "docword.*.txt[.gz] (vocab.*.txt beside it), an lda-c .dat file (vocab.txt beside it), or a "
        "folder / .tar.gz of text documents. Log-likelihood per token and tokens/s go to stderr, "
        "the top words of each topic to stdout.",
    )
    p.add_argument("corpus", metavar="CORPUS", help="corpus file or folder")
    p.add_argument("--topics", type=positive_int, default=50, help="number of topics K")
    p.add_argument("--alpha", type=positive_float, default=0.1, help="document-topic Dirichlet prior")
    p.add_argument("--beta", type=positive_float, default=0.01, help="topic-word Dirichlet prior")
    p.add_argument("--iters", type=positive_int, default=200, help="Gibbs sweeps over all tokens")
    p.add_argument("--seed", type=nonneg_int, default=0, help="random seed (same seed, same result)")
    p.add_argument(
        "--format",
        choices=["uci", "ldac", "text"],
        default=None,
        help="corpus format (default: from the file name)",
    )
    p.add_argument(
        "--min-df", type=_df_bound, default=1, help="text: drop words in fewer documents (<1: a fraction)"
    )
    p.add_argument(
        "--max-df", type=_df_bound, default=1.0, help="text: drop words in more documents (<=1: a fraction)"
    )
    p.add_argument(
        "--max-tokens",
        type=positive_int,
        default=None,
        metavar="N",
        help="most tokens the corpus may hold (and documents or words its header may declare); "
        "default: what the available memory holds at 128 bytes a token, with the run's memory "
        "estimate checked too (giving N skips that check)",
    )
    p.add_argument(
        "--ll-every", type=nonneg_int, default=10, help="report the log-likelihood every N sweeps (0: ends)"
    )
    p.add_argument("--top-words", type=positive_int, default=10, help="words printed per topic")
    p.add_argument("--output-topics", metavar="FILE", help="also write 'topic<TAB>top words' lines to FILE")
    p.add_argument(
        "--save-model", metavar="DIR", help="write doc_topic.npy, topic_word.npy, vocab.txt to DIR"
    )
    p.add_argument("--threads", type=positive_int, default=None, help="Numba threads (default: all cores)")
    p.add_argument(
        "--procs",
        type=procs,
        default=1,
        help="run on this many local processes (same seed, same topics as one process)",
    )
    p.add_argument(
        "--partition",
        default="hash",
        help="edge-cut partitioner for --procs > 1 (hash, range, ldg or fennel: documents stay whole)",
    )
    p.add_argument("--quiet", "-q", action="store_true", help="no progress on stderr")
    add_stats_options(p)
    add_async_options(p, default_scheduler="sweep")
    p.set_defaults(func=_cmd_lda)


def _df(x: float, fractions_upto: float) -> int | float:
    """A ``--min-df``/``--max-df`` value for :func:`gas.io.corpus_text.read_text`: a fraction (float)
    up to ``fractions_upto`` (below 1 for ``--min-df``, up to 1 inclusive for ``--max-df``, so
    the default ``--max-df 1.0`` means every document, not one), else a document count (int)."""
    frac = x < 1 or (fractions_upto == 1 and x == 1)
    return float(x) if frac else int(x)


def _cmd_lda(args: argparse.Namespace) -> int:
    from gas.algorithms.lda import lda
    from gas.errors import GasError
    from gas.io.atomic import atomic_open
    from gas.io.corpus import detect_format, load_corpus

    t0 = time.perf_counter()
    path, fmt = detect_format(args.corpus, args.format)
    kwargs: dict[str, Any] = {"max_tokens": args.max_tokens}
    if fmt == "text":
        kwargs.update(min_df=_df(args.min_df, 0.0), max_df=_df(args.max_df, 1.0))
    corpus = load_corpus(path, fmt, **kwargs)
    quiet = args.quiet
    if not quiet:
        print(f"loaded {args.corpus}: {corpus!r} in {time.perf_counter() - t0:.2f} s", file=sys.stderr)

    def show(stat: dict[str, Any]) -> None:
        extra = ""
        if "loglik_per_token" in stat:
            extra = f"  loglik/token {stat['loglik_per_token']:.4f} (after {stat['iteration']} sweeps)"
        print(
            f"sweep {stat['iteration'] + 1:4d}  {stat['tokens_per_s'] / 1e6:7.2f} M tokens/s  "
            f"{stat['seconds']:.3f} s{extra}",
            file=sys.stderr,
            flush=True,
        )

    try:
        model = lda(
            corpus,
            topics=args.topics,
            alpha=args.alpha,
            beta=args.beta,
            iters=args.iters,
            seed=args.seed,
            ll_every=args.ll_every,
            threads=args.threads,
            progress=(rec := StatsRecorder(args, "lda")).wrap(None if quiet else show),
            procs=args.procs,
            partition=args.partition,
            max_tokens=args.max_tokens,
            engine=args.engine,
            scheduler=args.scheduler,
            consistency=args.consistency,
        )
    except ValueError as exc:  # an unknown or vertex-cut --partition
        if isinstance(exc, GasError):
            raise
        raise GasError(str(exc)) from None
    if not quiet:
        print(
            f"{args.iters} sweeps in {model.seconds.sum():.2f} s; "
            f"final loglik/token {model.loglik_per_token()[-1]:.4f}",
            file=sys.stderr,
        )
    rec.finish()
    lines = [f"{k}\t{' '.join(ws)}" for k, ws in enumerate(model.top_words(args.top_words))]
    if args.output_topics:
        with atomic_open(args.output_topics, "w", encoding="utf-8") as f:
            f.write("".join(line + "\n" for line in lines))
    if args.save_model:
        model.save(args.save_model)
        if not quiet:
            print(f"model saved in {args.save_model}", file=sys.stderr)
    print("topic\ttop words")
    for line in lines:
        print(line)
    return 0
