"""The spawned worker process of a :class:`gas.runtime.local.LocalCluster`.

:func:`_worker_main` is a spawned worker's entry point: it sets its share of the Numba threads
(``cores // N``, :func:`threads_per_proc`), joins the job over loopback ZeroMQ, then runs
:func:`serve`, the loop that receives each job rank 0 announces (its part, program, colouring and
snapshot) and runs it (:func:`gas.runtime.dispatch.run_part`), until rank 0 says stop.
"""

from __future__ import annotations

import os

import numpy as np

from gas.errors import GasError
from gas.options import Restore
from gas.runtime.comm import Comm
from gas.runtime.dispatch import job_options, run_part
from gas.runtime.protocol import DATA
from gas.runtime.wire import program_from_json, recv_part, recv_restore


def threads_per_proc(procs: int) -> int:
    """Numba threads of each of ``procs`` processes sharing this machine's cores (at least 1).

    Examples
    --------
    >>> threads_per_proc(10**6)
    1
    """
    return max(1, (os.cpu_count() or 1) // procs)


def _worker_main(rank: int, size: int, port: int, secret: str) -> None:
    """Entry point of a spawned worker: join, then serve jobs until told to stop."""
    import numba

    from gas.runtime.launch import connect_world, reporting_errors

    numba.set_num_threads(min(threads_per_proc(size), numba.config.NUMBA_NUM_THREADS))
    env = {"MASTER_ADDR": "127.0.0.1", "MASTER_PORT": str(port), "GAS_JOB_SECRET": secret}
    t = connect_world(rank, size, env=env, timeout=120)
    assert t is not None
    comm = Comm(t)
    try:
        with reporting_errors(t, shutdown_timeout=30):
            serve(comm)
    except BaseException:
        raise SystemExit(1) from None  # rank 0 has the error and prints it


def serve(comm: Comm) -> None:
    """A worker's loop: run the jobs rank 0 announces, until it says stop."""
    assert comm.t is not None
    while True:
        job = comm.bcast_meta(None)
        if job.get("op") == "stop":
            return
        if job.get("op") == "run_file":  # scaled-out load: every rank reads its share
            from gas.runtime.file_job import run_file_job

            run_file_job(comm, job, threads=threads_per_proc(comm.size))
            continue
        if job.get("op") != "run":
            raise GasError(f"unknown job {job.get('op')!r}")
        part = recv_part(comm.t)
        program = program_from_json(job["program"])
        active = job.get("active")
        color = comm.t.recv(0, DATA, 0).arrays[0] if job.get("async") else None
        restore = Restore.from_dict(recv_restore(comm.t, job["restore"])) if job.get("restore") else None
        run_part(
            part,
            program,
            comm,
            max_iter=int(job["max_iter"]),
            active=None if active is None else np.asarray(active, np.int64),
            options=job_options(job, restore, threads=threads_per_proc(comm.size)),
            color=color,
        )
