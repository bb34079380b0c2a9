"""The process runtime: the engine across processes and machines over ZeroMQ.

Three layers kept apart, as in dask's comm layer: *transports* move messages
(:mod:`gas.runtime.transport` with the in-process one, :mod:`gas.runtime.zmq_transport`),
the *protocol* defines and validates the bytes (:mod:`gas.runtime.protocol`), and the *logic*
(the exchange of a synchronous superstep, collectives, launch, checkpoints) sits on top and
talks only to the :class:`~gas.runtime.transport.Transport` interface.
"""

from gas.runtime.protocol import Message, ProtocolError
from gas.runtime.transport import InProcHub, PeerFailure, RemoteError, Transport

__all__ = ["Message", "ProtocolError", "InProcHub", "PeerFailure", "RemoteError", "Transport"]
