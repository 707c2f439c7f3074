"""The MPI communicator (``mpirun -n K python train.py``): mpi4py, imported only when a job runs under MPI.

Install with ``pip install 'paddle_fn[distributed]'`` (mpi4py and the ``mpich`` wheel, which brings ``mpirun``).
Each collective runs in two phases: every rank first posts the collective's signature to every other rank
(small non-blocking messages), then runs the MPI collective on numpy buffers. Both phases poll with a deadline,
so a rank that never arrives is named instead of hanging the job, and a mismatched program is reported before
MPI would mix up buffers. An uncaught exception on one rank aborts the whole job (``MPI_Abort``), so the other
ranks stop rather than wait for it.
"""
import os
import pickle
import sys
import time

import numpy as np

from paddle_fn.distributed.comm import (
    AVG, MAX, MIN, OP_NAMES, PROD, SUM, Communicator, CollectiveTimeout, DistributedError, check_op, signature)

# IREE installs an MPI channel provider (and dlopens an Open MPI libmpi) when it sees these; with the mpich wheel
# device creation then fails, and CPU devices cannot use channels anyway.
_IREE_MPI_ENV = ("PMI_SIZE", "OMPI_COMM_WORLD_SIZE", "MPIEXEC_HOSTNAME")
_SIG_TAG, _P2P_TAG = 31001, 31002
_SIG_BYTES = 512


def under_mpirun(environ=os.environ):
    """Whether this process was started by an MPI launcher (MPICH/Hydra, Open MPI, or srun with PMI)."""
    return any(k in environ for k in ("PMI_RANK", "OMPI_COMM_WORLD_RANK", "PMIX_RANK"))


def import_mpi():
    """mpi4py's MPI module, with the environment variables that break IREE device creation removed after it."""
    try:
        from mpi4py import MPI
    except ImportError as exc:
        raise ImportError("this process runs under mpirun but mpi4py is not installed: "
                          "pip install 'paddle_fn[distributed]' (mpi4py and the mpich wheel)") from exc
    for name in _IREE_MPI_ENV:
        os.environ.pop(name, None)
    return MPI


class MPICommunicator(Communicator):
    """COMM_WORLD of the running MPI job."""
    backend = "mpi"

    def __init__(self, timeout):
        MPI = self._MPI = import_mpi()
        self._comm = MPI.COMM_WORLD.Dup()
        self.rank, self.size, self.timeout = self._comm.Get_rank(), self._comm.Get_size(), float(timeout)
        self._ops = {SUM: MPI.SUM, MAX: MPI.MAX, MIN: MPI.MIN, PROD: MPI.PROD, AVG: MPI.SUM}
        self._seq = 0
        self._last = None
        self._broken = None
        self._install_abort_hook()

    def _install_abort_hook(self):
        """An uncaught exception on any rank ends the job (the others would otherwise wait for it)."""
        previous, comm = sys.excepthook, self._comm

        def hook(exc_type, exc, tb):
            previous(exc_type, exc, tb)
            sys.stderr.flush()
            if self.size > 1:
                comm.Abort(1)
        sys.excepthook = hook

    # -- polling with a deadline
    def _poll(self, requests, what, ranks_of=None):
        deadline = time.monotonic() + self.timeout
        pause = 0.0
        while not self._MPI.Request.Testall(requests):
            if time.monotonic() > deadline:
                pending = [ranks_of[i] for i, r in enumerate(requests) if not r.Test()] if ranks_of else None
                who = f": rank(s) {pending} did not reach it" if pending else ""
                last = f"; this rank last completed collective #{self._last[0]} {self._last[1]}" if self._last else ""
                self._broken = (f"{what} timed out after {self.timeout:g} s on rank {self.rank}{who}{last}. The "
                                "ranks run different programs, one is stuck, or the timeout is too short "
                                "(paddle_fn.distributed.initialize(timeout=...) or PADDLE_FN_DIST_TIMEOUT)")
                raise CollectiveTimeout(self._broken)
            time.sleep(pause)
            pause = min(pause * 2 or 2e-5, 1e-3)

    def _run(self, sig, start):
        """Phase 1: agree on `sig` with every rank; phase 2: `start()` the MPI collective and wait for it."""
        if self._broken is not None:
            raise DistributedError(self._broken)
        self._seq += 1
        what = f"{sig} (collective #{self._seq})"
        peers = [r for r in range(self.size) if r != self.rank]
        mine = np.zeros(_SIG_BYTES, np.uint8)
        data = sig.encode()[:_SIG_BYTES - 1]
        mine[:len(data)] = np.frombuffer(data, np.uint8)
        theirs = [np.zeros(_SIG_BYTES, np.uint8) for _ in peers]
        sends = [self._comm.Isend(mine, dest=p, tag=_SIG_TAG) for p in peers]
        recvs = [self._comm.Irecv(buf, source=p, tag=_SIG_TAG) for p, buf in zip(peers, theirs)]
        self._poll(recvs, what, peers)
        self._poll(sends, what)
        other = {p: bytes(buf).rstrip(b"\0").decode() for p, buf in zip(peers, theirs)}
        if any(s != sig for s in other.values()):
            listing = "; ".join(f"rank {r}: {s}" for r, s in sorted({**other, self.rank: sig}.items()))
            self._broken = (f"collective #{self._seq} differs across ranks ({listing}): every rank must call the "
                            "same collectives in the same order with the same shapes and dtypes")
            raise DistributedError(self._broken)
        result = start()
        self._last = (self._seq, sig)
        return result

    def _wait(self, request, sig):
        self._poll([request], f"{sig} (collective #{self._seq})")

    # -- collectives
    def all_reduce(self, array, op=SUM):
        check_op(op, array.dtype)
        sig = signature("all_reduce", array, op=OP_NAMES[op])
        src = np.ascontiguousarray(array).reshape(array.shape)
        out = np.empty_like(src)

        def start():
            self._wait(self._comm.Iallreduce(src, out, op=self._ops[op]), sig)
            return (out / self.size).astype(out.dtype) if op == AVG else out
        return self._run(sig, start)

    def all_gather(self, array):
        sig = signature("all_gather", array)
        src = np.ascontiguousarray(array).reshape(array.shape)
        out = np.empty((self.size,) + src.shape, src.dtype)

        def start():
            self._wait(self._comm.Iallgather(src, out), sig)
            return list(out)
        return self._run(sig, start)

    def broadcast(self, array, src):
        sig = signature("broadcast", array, src=src)
        buf = np.array(array, copy=True).reshape(array.shape)

        def start():
            self._wait(self._comm.Ibcast(buf, root=src), sig)
            return buf
        return self._run(sig, start)

    def reduce(self, array, dst, op=SUM):
        check_op(op, array.dtype)
        sig = signature("reduce", array, dst=dst, op=OP_NAMES[op])
        src = np.ascontiguousarray(array).reshape(array.shape)
        out = np.empty_like(src)

        def start():
            self._wait(self._comm.Ireduce(src, out, op=self._ops[op], root=dst), sig)
            if self.rank != dst:
                return array
            return (out / self.size).astype(out.dtype) if op == AVG else out
        return self._run(sig, start)

    def scatter(self, arrays, src, like):
        sig = signature("scatter", like, src=src)
        out = np.empty(like.shape, like.dtype)
        send = np.ascontiguousarray(np.stack(arrays)) if self.rank == src else None

        def start():
            self._wait(self._comm.Iscatter(send, out, root=src), sig)
            return out
        return self._run(sig, start)

    def all_gather_object(self, obj):
        sig = signature("all_gather_object")
        data = np.frombuffer(pickle.dumps(obj, protocol=5), np.uint8)

        def start():
            sizes = np.empty(self.size, np.int64)
            self._wait(self._comm.Iallgather(np.array([data.size], np.int64), sizes), sig)
            out = np.empty(int(sizes.sum()), np.uint8)
            offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]])
            self._wait(self._comm.Iallgatherv(data, [out, sizes, offsets, self._MPI.BYTE]), sig)
            return [pickle.loads(out[o:o + s].tobytes()) for o, s in zip(offsets, sizes)]
        return self._run(sig, start)

    def barrier(self):
        sig = signature("barrier")
        self._run(sig, lambda: self._wait(self._comm.Ibarrier(), sig))

    def send(self, array, dst):
        buf = np.ascontiguousarray(array).reshape(array.shape)
        self._poll([self._comm.Isend(buf, dest=dst, tag=_P2P_TAG)], f"send to rank {dst}", [dst])

    def recv(self, like, src):
        out = np.empty(like.shape, like.dtype)
        self._poll([self._comm.Irecv(out, source=src, tag=_P2P_TAG)], f"recv from rank {src}", [src])
        return out

    def close(self):
        if self._broken is None:
            self._comm.Free()
