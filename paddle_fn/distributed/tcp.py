"""The TCP communicator used by ``spawn`` and ``launch`` (no MPI needed): a hub thread in rank 0's process.

Every rank (rank 0 included) connects to the hub at the coordinator address. A collective is one message from
each rank to the hub and one reply back; the hub computes the result once (so every rank gets the same bits),
checks that all ranks called the same collective, and -- because it sees every rank -- can say exactly which
rank is missing when a collective waits too long, or which one crashed (its connection closed without a
goodbye). ``send``/``recv`` are forwarded through the hub. The data volume of data-parallel training on a few
local processes is small enough for this star; large jobs should run under ``mpirun``.

Nothing received from the network is unpickled. A message is JSON with numpy arrays as raw bytes after it (plain
numeric dtypes, named, never rebuilt from pickled state); the objects of ``all_gather_object`` travel as ``paddle.save``
writes them and are read as ``paddle.load`` reads a checkpoint. A process joins by HMAC challenge-response over the job's
secret in both directions: the hub proves it holds the secret before a rank sends it anything but a nonce, and a
rank proves it before the hub reads anything but its hello. The secret itself never crosses the network.
"""
import hashlib
import hmac
import io
import json
import math
import os
import pickle
import secrets
import selectors
import socket
import struct
import sys
import threading
import time
from collections import deque

import ml_dtypes
import numpy as np

from paddle_fn.distributed.comm import (
    OP_NAMES, SUM, Communicator, CollectiveTimeout, DistributedError, check_op, reduce_arrays, signature)
from paddle_fn.distributed.launch.utils import LISTENER_FD
from paddle_fn.framework.io import load, save

_HEADER = struct.Struct(">Q")  # every message: its length, then its bytes
_META = struct.Struct(">I")    # a data message's bytes: its JSON part's length, the JSON, then the arrays' bytes
# How long a rank waits beyond the timeout for the hub's verdict before it gives up on the hub itself.
_HUB_GRACE = 30.0
_TICK = 0.05
_MAX_HELLO = 4096
_HELLO_TIMEOUT = 5.0
_LOOPBACK = ("127.0.0.1", "localhost", "::1")
# the dtypes an array may arrive in, by name
_WIRE_DTYPES = {np.dtype(t).name: np.dtype(t) for t in (
    np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64, np.float16,
    np.float32, np.float64, np.complex64, np.complex128, ml_dtypes.bfloat16)}


def _encode(obj) -> bytes:
    """A message (tuples, lists, str-keyed dicts, numbers, strings, None, bytes and numpy arrays) as JSON followed by
    the arrays' and byte strings' raw bytes."""
    blobs = []

    def walk(x):
        if isinstance(x, np.ndarray):
            if x.dtype.name not in _WIRE_DTYPES:
                raise DistributedError(f"the TCP transport sends arrays of numeric and bool dtypes, got {x.dtype}")
            blobs.append(np.ascontiguousarray(x).tobytes())
            return {"array": [x.dtype.name, list(x.shape)]}
        if isinstance(x, bytes):
            blobs.append(x)
            return {"bytes": len(x)}
        if isinstance(x, (list, tuple)):
            return [walk(v) for v in x]
        if isinstance(x, dict):
            return {"dict": [[k, walk(v)] for k, v in x.items()]}
        if x is None or isinstance(x, (bool, int, float, str)):
            return x
        raise DistributedError(f"the TCP transport cannot send a {type(x).__name__}")

    meta = json.dumps(walk(obj)).encode()
    return _META.pack(len(meta)) + meta + b"".join(blobs)


def _decode(data: bytearray):
    """The message `_encode` wrote; a malformed one raises ValueError (arrays are checked against the bytes
    that follow before any is made)."""
    (meta_len,) = _META.unpack_from(data)
    view, offset = memoryview(data), _META.size + meta_len

    def take(nbytes):
        nonlocal offset
        if not 0 <= nbytes <= len(data) - offset:
            raise ValueError("a message's arrays need more bytes than it holds")
        offset += nbytes
        return view[offset - nbytes:offset]

    def walk(x):
        if isinstance(x, list):
            return [walk(v) for v in x]
        if not isinstance(x, dict):
            return x
        if "array" in x:
            name, shape = x["array"]
            dtype = _WIRE_DTYPES[name]
            if not all(isinstance(d, int) and d >= 0 for d in shape):
                raise ValueError(f"bad array shape {shape}")
            return np.frombuffer(take(math.prod(shape) * dtype.itemsize), dtype).reshape(shape)
        if "bytes" in x:
            return bytes(take(x["bytes"]))
        return {str(k): walk(v) for k, v in x["dict"]}

    obj = walk(json.loads(bytes(view[_META.size:_META.size + meta_len])))
    if offset != len(data):
        raise ValueError("a message holds bytes after its arrays")
    return obj


def _send_msg(sock, obj):
    data = _encode(obj)
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
    """The next message, or None when the peer closed the connection; ValueError when it is not one `_encode`
    wrote."""
    head = _recv_exact(sock, _HEADER.size)
    if head is None:
        return None
    body = _recv_exact(sock, _HEADER.unpack(head)[0])
    if body is None:
        return None
    try:
        return _decode(bytearray(body))
    except (KeyError, TypeError, struct.error) as error:  # an unknown dtype, a misshapen part
        raise ValueError(f"a malformed message ({type(error).__name__}: {error})") from None


def _send_json(sock, obj):
    data = json.dumps(obj).encode()
    sock.sendall(_HEADER.pack(len(data)) + data)


def _recv_json(sock):
    """A handshake message (a small JSON object) from a peer not yet authenticated, or None when it is not one."""
    head = _recv_exact(sock, _HEADER.size)
    if head is None or _HEADER.unpack(head)[0] > _MAX_HELLO:
        return None
    body = _recv_exact(sock, _HEADER.unpack(head)[0])
    try:
        message = json.loads(body)
    except (TypeError, ValueError):
        return None
    return message if isinstance(message, dict) else None


def _proof(secret, role, nonce_hex):
    """What only a holder of the job's secret can answer to a nonce; `role` keeps the hub's answers and the
    ranks' apart."""
    return hmac.new(secret.encode(), f"{role}:{nonce_hex}".encode(), hashlib.sha256).hexdigest()


def _bind_host(host):
    return host if host in _LOOPBACK else ""


def _listener(host, port):
    """The hub's listening socket: the one launch/spawn bound for this job and handed to this process (so the
    port was never free for another process to take), else a new one bound now."""
    handed = os.environ.pop(LISTENER_FD, None)
    if handed is not None:
        sock = socket.socket(fileno=int(handed))
        sock.set_inheritable(False)
        if sock.getsockname()[1] == port:
            return sock
        sock.close()  # not this job's coordinator address (the environment was changed by hand)
    return socket.create_server((_bind_host(host), port), reuse_port=False)


def pickle_object(obj) -> bytes:
    """`obj` as ``paddle.save`` writes it, for ``all_gather_object``: what ``paddle.load`` could not read back
    is refused here, not on the receiving ranks."""
    buffer = io.BytesIO()
    try:
        save(obj, buffer)
    except (TypeError, ValueError) as error:
        raise type(error)(f"all_gather_object: {str(error).removeprefix('paddle.save: ')} (objects travel between "
                          "ranks as paddle.save writes them)") from None
    return buffer.getvalue()


def unpickle_object(data, source):
    """An object another rank sent, read as ``paddle.load`` reads a checkpoint (never runs code)."""
    try:
        return load(io.BytesIO(data))
    except pickle.UnpicklingError as error:
        why = str(error).removeprefix("paddle.load: the buffer ")
        raise DistributedError(f"{source} {why} (objects exchanged over the TCP transport are read like "
                               "checkpoints: Tensors, numpy arrays, numbers, strings and lists/tuples/dicts of "
                               "them)") from None


class _Hub(threading.Thread):
    """Rank 0's coordinator thread: matches collectives across ranks, forwards point-to-point messages."""

    def __init__(self, host, port, size, timeout, token):
        super().__init__(name="paddle_fn-dist-hub", daemon=True)
        self.size, self.timeout, self.address, self.token = size, timeout, f"{host}:{port}", token
        self.listener = _listener(host, port)
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

    def _drop(self, sock, why=None, proven=False):
        """Close a connection that has not joined, telling the peer `why` when it is a process of some job (in a
        data message once the hub has proven itself to it, before that in a handshake message)."""
        self.sel.unregister(sock)
        if why is not None:
            why = f"the coordinator at {self.address} refused this process: {why}"
            try:
                _send_msg(sock, ("error", why)) if proven else _send_json(sock, {"error": why})
            except OSError:
                pass
        sock.close()

    def _on_hello(self, sock):
        """A new connection's hello, {"rank", "nonce"}: the hub answers with its proof and its own nonce."""
        hello = _recv_json(sock)
        rank, nonce = (hello or {}).get("rank"), (hello or {}).get("nonce")
        if type(rank) is not int or not isinstance(nonce, str) or len(nonce) != 32:
            return self._drop(sock)  # a stranger: nothing is said to it
        if not 0 <= rank < self.size:
            return self._drop(sock, f"rank {rank} is not in [0, {self.size})")
        if rank in self.socks:
            return self._drop(sock, f"rank {rank} is already in the job")
        challenge = secrets.token_hex(16)
        _send_json(sock, {"proof": _proof(self.token, "hub", nonce), "nonce": challenge})
        self.sel.modify(sock, selectors.EVENT_READ, ("proving", rank, challenge))

    def _on_proof(self, sock, rank, challenge):
        """A rank's answer to the hub's nonce: with it the rank joins; without it nothing more is read."""
        answer = (_recv_json(sock) or {}).get("proof")
        if not isinstance(answer, str) or not hmac.compare_digest(answer, _proof(self.token, f"rank {rank}",
                                                                                  challenge)):
            return self._drop(sock, "it could not prove it holds the job's secret (PADDLE_FN_DIST_TOKEN)",
                              proven=True)
        if rank in self.socks:
            return self._drop(sock, f"rank {rank} is already in the job", proven=True)
        sock.settimeout(None)
        self.sel.modify(sock, selectors.EVENT_READ, rank)
        self.socks[rank] = sock
        if len(self.socks) == self.size:
            for r in range(self.size):
                self._reply(r, ("welcome",))

    def _on_readable(self, sock, rank):
        try:
            if rank == "new":
                return self._on_hello(sock)
            if isinstance(rank, tuple):
                return self._on_proof(sock, *rank[1:])
            msg = _recv_msg(sock)
        except OSError:  # connection reset: the process died, or a stranger went away
            if not isinstance(rank, int):
                return self._drop(sock)
            msg = None
        except ValueError:  # a joined rank's malformed message: not one of paddle_fn's
            msg = None
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

    `token` is the job's secret (``launch`` and ``spawn`` give each job a random one in ``PADDLE_FN_DIST_TOKEN``).
    The hub and each rank prove to each other that they hold it (HMAC over fresh nonces) before either reads
    anything else, and it never crosses the network. A job without one is allowed on a loopback address only.
    """
    backend = "tcp"

    def __init__(self, rank, size, host, port, timeout, token=""):
        self.rank, self.size, self.timeout = rank, size, float(timeout)
        self.address = f"{host}:{port}"
        if not token and host not in _LOOPBACK:
            raise DistributedError(
                f"rank {rank}: the job's coordinator {self.address} is not a loopback address and the job has no "
                "secret (PADDLE_FN_DIST_TOKEN is empty), so any machine that reaches it could join. Start the job "
                "with `python -m paddle_fn.distributed.launch` or `paddle.distributed.spawn` (they make one), set "
                "PADDLE_FN_DIST_TOKEN to the same random value in every rank's environment (python -c \"import "
                "secrets; print(secrets.token_hex(16))\"), or run the job under mpirun")
        self._hub = None
        if rank == 0:
            self._hub = _Hub(host, port, size, self.timeout, token)
            self._hub.start()
        self._sock = self._connect(host, port)
        self._seq = 0
        self._p2p = {}           # src -> deque of arrays received ahead of recv()
        self._broken = None
        self._error = None
        self._join(token)
        self._wait(lambda m: m[0] == "welcome", self.timeout + _HUB_GRACE, "joining the job")

    def _join(self, token):
        """The handshake: the hub proves it holds the secret before this rank proves it does."""
        nonce = secrets.token_hex(16)
        self._sock.settimeout(self.timeout + _HUB_GRACE)
        try:
            _send_json(self._sock, {"rank": self.rank, "nonce": nonce})
            answer = _recv_json(self._sock) or {}
        except OSError as exc:
            raise DistributedError(f"rank {self.rank}: joining the job at {self.address} failed: {exc}") from None
        if isinstance(answer.get("error"), str):
            raise DistributedError(answer["error"])
        proof, challenge = answer.get("proof"), answer.get("nonce")
        if not isinstance(proof, str) or not isinstance(challenge, str) or \
                not hmac.compare_digest(proof, _proof(token, "hub", nonce)):
            self._sock.close()
            raise DistributedError(
                f"rank {self.rank}: the process answering at {self.address} could not prove it holds this job's "
                "secret, so nothing was sent to it: either this rank's PADDLE_FN_DIST_TOKEN differs from rank "
                "0's, or another program answers at that address")
        _send_json(self._sock, {"proof": _proof(token, f"rank {self.rank}", challenge)})

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
            except (OSError, ValueError):
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
        gathered = self._collective("all_gather_object", signature("all_gather_object"), pickle_object(obj))
        return [unpickle_object(data, f"all_gather_object: rank {r}'s object") for r, data in enumerate(gathered)]

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
