"""The TCP communicator used by ``spawn`` and ``launch`` (no MPI needed): a hub thread in rank 0's process.

Every rank (rank 0 included) connects to the hub at the coordinator address. A collective is one message from
each rank to the hub and one reply back; the hub computes the result once (so every rank gets the same bits),
checks that all ranks called the same collective, and -- because it sees every rank -- can say exactly which
rank is missing when a collective waits too long, or which one crashed (its connection closed without a
goodbye). ``send``/``recv`` are forwarded through the hub. The data volume of data-parallel training on a few
local processes is small enough for this star; large jobs should run under ``mpirun``.
"""
import json
import pickle
import selectors
import socket
import struct
import sys
import threading
import time
from collections import deque

from paddle_fn.distributed.comm import (
    OP_NAMES, SUM, Communicator, CollectiveTimeout, DistributedError, check_op, reduce_arrays, signature)

_HEADER = struct.Struct(">Q")
# How long a rank waits beyond the timeout for the hub's verdict before it gives up on the hub itself.
_HUB_GRACE = 30.0
_TICK = 0.05
_MAX_HELLO = 4096
_HELLO_TIMEOUT = 5.0


def _send_msg(sock, obj):
    data = pickle.dumps(obj, protocol=5)
    sock.sendall(_HEADER.pack(len(data)) + data)


def _recv_exact(sock, n):
    chunks, got = [], 0
    while got < n:
        chunk = sock.recv(min(n - got, 1 << 20))
        if not chunk:
            return None
        chunks.append(chunk)
        got += len(chunk)
    return b"".join(chunks)


def _recv_msg(sock):
    """The next message, or None when the peer closed the connection."""
    head = _recv_exact(sock, _HEADER.size)
    if head is None:
        return None
    body = _recv_exact(sock, _HEADER.unpack(head)[0])
    return None if body is None else pickle.loads(body)


def _send_hello(sock, rank, token):
    data = json.dumps({"rank": rank, "token": token}).encode()
    sock.sendall(_HEADER.pack(len(data)) + data)


def _recv_hello(sock):
    """(rank, token) from a new connection, read as JSON: nothing from an unauthenticated peer is unpickled."""
    head = _recv_exact(sock, _HEADER.size)
    if head is None or _HEADER.unpack(head)[0] > _MAX_HELLO:
        return None
    body = _recv_exact(sock, _HEADER.unpack(head)[0])
    try:
        hello = json.loads(body)
        return int(hello["rank"]), str(hello["token"])
    except (TypeError, ValueError, KeyError):
        return None


def _bind_host(host):
    return host if host in ("127.0.0.1", "localhost", "::1") else ""


class _Hub(threading.Thread):
    """Rank 0's coordinator thread: matches collectives across ranks, forwards point-to-point messages."""

    def __init__(self, host, port, size, timeout, token):
        super().__init__(name="paddle_fn-dist-hub", daemon=True)
        self.size, self.timeout, self.address, self.token = size, timeout, f"{host}:{port}", token
        self.listener = socket.create_server((_bind_host(host), port), reuse_port=False)
        self.listener.setblocking(False)
        self.sel = selectors.DefaultSelector()
        self.sel.register(self.listener, selectors.EVENT_READ, None)
        self.socks = {}          # rank -> socket
        self.pending = {}        # seq -> {"t0": time, "msgs": {rank: (sig, kind, params, payload)}}
        self.last = {}           # rank -> (seq, sig) of the last collective it completed
        self.gone = {}           # rank -> "exited" | "crashed"
        self.failure = None      # once set, every collective fails with it
        self.started = time.monotonic()
        self.finished = threading.Event()

    # -- plumbing
    def _reply(self, rank, obj):
        sock = self.socks.get(rank)
        if sock is not None and rank not in self.gone:
            try:
                _send_msg(sock, obj)
            except OSError:  # the rank died; its EOF is handled by the loop
                pass

    def _fail(self, message, ranks=None):
        self.failure = self.failure or message
        for rank in (range(self.size) if ranks is None else ranks):
            self._reply(rank, ("error", message))
        self.pending.clear()

    def run(self):
        try:
            while len(self.gone) < self.size:
                for key, _ in self.sel.select(_TICK):
                    if key.data is None:
                        conn, _ = self.listener.accept()
                        conn.settimeout(_HELLO_TIMEOUT)  # a silent stranger must not stall the hub
                        self.sel.register(conn, selectors.EVENT_READ, "new")
                    else:
                        self._on_readable(key.fileobj, key.data)
                self._check_time()
        finally:
            self.sel.close()
            self.listener.close()
            self.finished.set()

    def _on_readable(self, sock, rank):
        try:
            msg = _recv_hello(sock) if rank == "new" else _recv_msg(sock)
        except OSError:  # connection reset: the process died
            msg = None
        if rank == "new":
            hello = msg
            if hello is None or hello[1] != self.token or not 0 <= hello[0] < self.size or hello[0] in self.socks:
                self.sel.unregister(sock)  # a stranger, a wrong job token, or a rank that joined twice
                if hello is not None:
                    why = (f"rank {hello[0]} is already in the job" if hello[0] in self.socks else
                           f"rank {hello[0]} is not in [0, {self.size})" if not 0 <= hello[0] < self.size else
                           "its job token (PADDLE_FN_DIST_TOKEN) differs")
                    try:
                        _send_msg(sock, ("error", f"the coordinator at {self.address} refused this process: {why}"))
                    except OSError:
                        pass
                sock.close()
                return
            sock.settimeout(None)
            rank = hello[0]
            self.sel.modify(sock, selectors.EVENT_READ, rank)
            self.socks[rank] = sock
            if len(self.socks) == self.size:
                for r in range(self.size):
                    self._reply(r, ("welcome",))
            return
        if msg is None or msg[0] == "bye":
            self.sel.unregister(sock)
            sock.close()
            self._on_gone(rank, "exited" if msg is not None and msg[1] is None else "crashed",
                          None if msg is None else msg[1])
        elif msg[0] == "coll":
            self._on_collective(rank, *msg[1:])
        elif msg[0] == "send":
            _, dst, payload = msg
            if dst in self.gone:
                self._reply(rank, ("error", f"send from rank {rank} to rank {dst}: rank {dst} has {self.gone[dst]}"))
            else:
                self._reply(dst, ("p2p", rank, payload))

    def _on_gone(self, rank, how, error=None):
        self.gone[rank] = how
        if how == "crashed":
            why = f"with {error}" if error else "without leaving the job"
            self._fail(f"rank {rank} crashed ({why}; see its own output); the other ranks stop instead of "
                       "waiting for it")
            return
        for seq, entry in list(self.pending.items()):
            sig = next(iter(entry["msgs"].values()))[0]
            self._fail(f"{sig} (collective #{seq}): rank {rank} exited before reaching it (its program ran fewer "
                       "collectives than the others)", entry["msgs"])

    def _on_collective(self, rank, seq, sig, kind, params, payload):
        if self.failure is not None:
            self._reply(rank, ("error", self.failure))
            return
        missing_gone = [r for r in self.gone if self.gone[r] == "exited"]
        if missing_gone:
            self._reply(rank, ("error", f"{sig} (collective #{seq}) on rank {rank}: rank(s) {missing_gone} "
                                        "already exited (their programs ran fewer collectives than this one)"))
            return
        entry = self.pending.setdefault(seq, {"t0": time.monotonic(), "msgs": {}})
        entry["msgs"][rank] = (sig, kind, params, payload)
        if len(entry["msgs"]) == self.size:
            del self.pending[seq]
            self._complete(seq, entry["msgs"])

    def _complete(self, seq, msgs):
        sigs = {r: m[0] for r, m in msgs.items()}
        if len(set(sigs.values())) > 1:
            listing = "; ".join(f"rank {r}: {s}" for r, s in sorted(sigs.items()))
            self._fail(f"collective #{seq} differs across ranks ({listing}): every rank must call the same "
                       "collectives in the same order with the same shapes and dtypes")
            return
        kind, params = msgs[0][1], msgs[0][2]
        payloads = [msgs[r][3] for r in range(self.size)]
        try:
            results = self._compute(kind, params, payloads)
        except Exception as exc:  # a bad reduction (dtype) is reported to every rank, not raised in the hub
            self._fail(f"{sigs[0]} (collective #{seq}) failed: {exc}")
            return
        for r in range(self.size):
            self.last[r] = (seq, sigs[r])
            self._reply(r, ("result", seq, results[r]))

    def _compute(self, kind, params, payloads):
        n = self.size
        if kind == "all_reduce":
            return [reduce_arrays(payloads, params["op"])] * n
        if kind in ("all_gather", "all_gather_object"):
            return [payloads] * n
        if kind == "broadcast":
            return [payloads[params["src"]]] * n
        if kind == "reduce":
            out = reduce_arrays(payloads, params["op"])
            return [out if r == params["dst"] else None for r in range(n)]
        if kind == "scatter":
            return list(payloads[params["src"]])
        if kind == "barrier":
            return [None] * n
        raise ValueError(f"unknown collective {kind!r}")

    def _check_time(self):
        now = time.monotonic()
        if len(self.socks) < self.size and now - self.started > self.timeout:
            missing = sorted(set(range(self.size)) - set(self.socks))
            self._fail(f"rank(s) {missing} did not join the job at {self.address} within {self.timeout:g} s "
                       "(not started, crashed at start-up, or given another coordinator address)")
            self.gone.update({r: "crashed" for r in missing})
            return
        for seq, entry in list(self.pending.items()):
            if now - entry["t0"] > self.timeout:
                arrived = sorted(entry["msgs"])
                missing = [r for r in range(self.size) if r not in entry["msgs"]]
                sig = entry["msgs"][arrived[0]][0]
                last = "; ".join(f"rank {r} last completed collective #{self.last[r][0]} {self.last[r][1]}"
                                 if r in self.last else f"rank {r} completed no collective yet" for r in missing)
                self._fail(CollectiveTimeout.__name__ + ": " +
                           f"{sig} (collective #{seq}) timed out after {self.timeout:g} s: rank(s) {missing} did "
                           f"not reach it ({last}). The ranks run different programs, one is stuck, or the timeout "
                           "is too short (paddle_fn.distributed.initialize(timeout=...) or PADDLE_FN_DIST_TIMEOUT)",
                           arrived)
                return


class TCPCommunicator(Communicator):
    """A rank of a job coordinated over TCP at `host:port` (rank 0 also runs the hub there).

    `token` is the job's shared secret (``launch`` and ``spawn`` give each job a random one in
    ``PADDLE_FN_DIST_TOKEN``): the hub drops connections that do not present it, before reading anything else
    from them. Messages between members of the job are pickled, so a job must run on a trusted network.
    """
    backend = "tcp"

    def __init__(self, rank, size, host, port, timeout, token=""):
        self.rank, self.size, self.timeout = rank, size, float(timeout)
        self.address = f"{host}:{port}"
        self._hub = None
        if rank == 0:
            self._hub = _Hub(host, port, size, self.timeout, token)
            self._hub.start()
        self._sock = self._connect(host, port)
        self._seq = 0
        self._p2p = {}           # src -> deque of arrays received ahead of recv()
        self._broken = None
        self._error = None
        _send_hello(self._sock, rank, token)
        self._wait(lambda m: m[0] == "welcome", self.timeout + _HUB_GRACE, "joining the job")

    def install_crash_hook(self):
        """Remember an uncaught exception, so that leaving the job at exit tells the others this rank crashed
        (``initialize`` calls it: the hook is process-wide)."""
        previous = sys.excepthook

        def hook(exc_type, exc, tb):
            self._error = f"{exc_type.__name__}: {exc}"
            previous(exc_type, exc, tb)
        sys.excepthook = hook

    def _connect(self, host, port):
        deadline = time.monotonic() + self.timeout
        while True:
            try:
                return socket.create_connection((host, port), timeout=self.timeout)
            except OSError as exc:
                if time.monotonic() > deadline:
                    raise DistributedError(f"rank {self.rank} could not reach the coordinator (rank 0) at "
                                           f"{self.address} within {self.timeout:g} s: {exc}") from None
                time.sleep(0.05)

    def _wait(self, wanted, limit, what):
        """Read messages until one satisfies `wanted` (p2p messages are queued); hub errors are raised."""
        if self._broken is not None:
            raise DistributedError(self._broken)
        deadline = time.monotonic() + limit
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                self._broken = (f"rank {self.rank}: {what} timed out after {limit:g} s without an answer from the "
                                f"coordinator (rank 0 at {self.address} is stuck or gone)")
                raise CollectiveTimeout(self._broken)
            self._sock.settimeout(remaining)
            try:
                msg = _recv_msg(self._sock)
            except socket.timeout:
                continue
            except OSError:
                msg = None
            if msg is None:
                self._broken = f"rank {self.rank}: {what}: rank 0 (the coordinator) exited or crashed"
                raise DistributedError(self._broken)
            if msg[0] == "error":
                self._broken = msg[1]
                prefix = CollectiveTimeout.__name__ + ": "
                if msg[1].startswith(prefix):
                    self._broken = msg[1][len(prefix):]
                    raise CollectiveTimeout(self._broken)
                raise DistributedError(msg[1])
            if msg[0] == "p2p":
                self._p2p.setdefault(msg[1], deque()).append(msg[2])
            if wanted(msg):
                return msg

    def _collective(self, kind, sig, payload=None, **params):
        self._seq += 1
        seq = self._seq
        _send_msg(self._sock, ("coll", seq, sig, kind, params, payload))
        msg = self._wait(lambda m: m[0] == "result" and m[1] == seq, self.timeout + _HUB_GRACE,
                         f"{sig} (collective #{seq})")
        return msg[2]

    def all_reduce(self, array, op=SUM):
        check_op(op, array.dtype)
        return self._collective("all_reduce", signature("all_reduce", array, op=OP_NAMES[op]), array, op=op)

    def all_gather(self, array):
        return self._collective("all_gather", signature("all_gather", array), array)

    def broadcast(self, array, src):
        return self._collective("broadcast", signature("broadcast", array, src=src), array, src=src)

    def reduce(self, array, dst, op=SUM):
        check_op(op, array.dtype)
        sig = signature("reduce", array, dst=dst, op=OP_NAMES[op])
        out = self._collective("reduce", sig, array, dst=dst, op=op)
        return array if out is None else out

    def scatter(self, arrays, src, like):
        return self._collective("scatter", signature("scatter", like, src=src),
                                list(arrays) if self.rank == src else None, src=src)

    def all_gather_object(self, obj):
        return self._collective("all_gather_object", signature("all_gather_object"), obj)

    def barrier(self):
        self._collective("barrier", signature("barrier"))

    def send(self, array, dst):
        if self._broken is not None:
            raise DistributedError(self._broken)
        _send_msg(self._sock, ("send", dst, array))

    def recv(self, like, src):
        queue = self._p2p.get(src)
        if not queue:
            self._wait(lambda m: m[0] == "p2p" and m[1] == src, self.timeout, f"recv from rank {src}")
            queue = self._p2p[src]
        array = queue.popleft()
        if array.shape != like.shape or array.dtype != like.dtype:
            raise DistributedError(f"recv on rank {self.rank}: rank {src} sent {array.dtype}{list(array.shape)} "
                                   f"but the receiving tensor is {like.dtype}{list(like.shape)}")
        return array

    def close(self):
        try:
            _send_msg(self._sock, ("bye", self._error))
        except OSError:
            pass
        if self._hub is not None and self._broken is None:  # keep the hub up until every rank has left
            self._hub.finished.wait(self.timeout)
        self._sock.close()
