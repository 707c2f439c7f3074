"""The TCP transport as an attacker meets it: nothing received is unpickled, both ends prove they hold the job's
secret before either trusts the other, and a job without a secret stays on loopback."""
import json
import os
import pickle
import socket
import struct
import threading
import time

import ml_dtypes
import numpy as np
import pytest

import paddle_fn as paddle
from paddle_fn.distributed import tcp
from paddle_fn.distributed.comm import DistributedError
from paddle_fn.distributed.launch.utils import free_ports
from paddle_fn.distributed.tcp import TCPCommunicator


class _Planted:
    """Unpickling this creates a file: proof that code ran."""

    def __init__(self, path):
        self.path = path

    def __reduce__(self):
        return (open, (self.path, "w"))


def _frame(data: bytes) -> bytes:
    return struct.pack(">Q", len(data)) + data


def _read_frame(sock) -> bytes:
    head = sock.recv(8, socket.MSG_WAITALL)
    return sock.recv(struct.unpack(">Q", head)[0], socket.MSG_WAITALL)


def _rank0(port, size, token, box):
    def run():
        try:
            box["comm"] = TCPCommunicator(0, size, "127.0.0.1", port, 3.0, token=token)
        except Exception as exc:  # collected for the test's assertions
            box["comm"] = exc
    thread = threading.Thread(target=run)
    thread.start()
    time.sleep(0.2)
    return thread


def test_a_peer_that_completes_the_handshake_still_cannot_run_code(tmp_path):
    """A job started by hand without a secret (on loopback, where that is allowed): a local process that does the
    handshake and then sends a pickle crashes nothing and runs nothing; rank 0 reports a crashed rank."""
    port, box, marker = free_ports(1)[0], {}, tmp_path / "ran"
    thread = _rank0(port, 2, "", box)
    with socket.create_connection(("127.0.0.1", port)) as attacker:
        nonce = "0" * 32
        attacker.sendall(_frame(json.dumps({"rank": 1, "nonce": nonce}).encode()))
        challenge = json.loads(_read_frame(attacker))["nonce"]
        attacker.sendall(_frame(json.dumps({"proof": tcp._proof("", "rank 1", challenge)}).encode()))
        _read_frame(attacker)  # the welcome
        attacker.sendall(_frame(pickle.dumps(("coll", 1, "x", "barrier", {}, _Planted(str(marker))))))
    thread.join(10)
    assert not marker.exists()
    comm = box["comm"]
    with pytest.raises(DistributedError, match="rank 1 crashed"):
        comm.barrier()
    comm.close()


def test_the_old_hello_and_a_bare_pickle_are_dropped_unread(tmp_path):
    port, box, marker = free_ports(1)[0], {}, tmp_path / "ran"
    thread = _rank0(port, 2, "secret", box)
    for payload in (_frame(json.dumps({"rank": 1, "token": "secret"}).encode()),
                    _frame(pickle.dumps(_Planted(str(marker)))), b"\x00" * 8):
        with socket.create_connection(("127.0.0.1", port)) as stranger:
            stranger.sendall(payload)
            stranger.settimeout(2.0)
            assert stranger.recv(100) == b""  # closed without a word
    good = TCPCommunicator(1, 2, "127.0.0.1", port, 3.0, token="secret")
    thread.join(10)
    assert not marker.exists() and isinstance(box["comm"], TCPCommunicator)
    good.close()
    box["comm"].close()


def test_a_rank_never_trusts_a_fake_coordinator():
    """Whatever answers at the coordinator address must prove it holds the secret; the rank sends it only a nonce
    (never the secret) and reads nothing it sends but JSON."""
    listener = socket.create_server(("127.0.0.1", 0))
    port, received = listener.getsockname()[1], []

    def fake_hub():
        conn, _ = listener.accept()
        with conn:
            received.append(_read_frame(conn))
            conn.sendall(_frame(json.dumps({"proof": "0" * 64, "nonce": "1" * 32}).encode()))
            conn.settimeout(2.0)
            try:
                received.append(conn.recv(1000))
            except OSError:
                pass
    thread = threading.Thread(target=fake_hub)
    thread.start()
    with pytest.raises(DistributedError, match="could not prove it holds this job's secret, so nothing was sent"):
        TCPCommunicator(1, 2, "127.0.0.1", port, 3.0, token="s3cret-token")
    thread.join(10)
    listener.close()
    assert b"s3cret-token" not in b"".join(received)
    assert set(json.loads(received[0])) == {"rank", "nonce"} and received[1:] in ([], [b""])


def test_a_job_without_a_secret_is_refused_off_loopback():
    with pytest.raises(DistributedError, match=r"not a loopback address and the job has no secret .*"
                                               r"PADDLE_FN_DIST_TOKEN.*launch.*mpirun"):
        TCPCommunicator(1, 2, "10.1.2.3", 29500, 1.0, token="")


def test_messages_carry_arrays_as_raw_bytes_of_named_dtypes():
    message = ["coll", 7, {"op": 0}, [np.arange(6, dtype=np.float32).reshape(2, 3),
                                     np.ones(3, ml_dtypes.bfloat16), np.array(True)], b"\x00\x01", None, -1.5]
    back = tcp._decode(bytearray(tcp._encode(message)))
    assert back[:3] == message[:3] and back[4:] == message[4:]
    for a, b in zip(back[3], message[3]):
        assert a.dtype == b.dtype and a.shape == b.shape and a.flags.writeable
        np.testing.assert_array_equal(a, b)
    with pytest.raises(DistributedError, match="numeric and bool dtypes, got object"):
        tcp._encode([np.array([None], object)])
    meta = json.dumps({"array": ["float32", [1 << 40]]}).encode()
    with pytest.raises(ValueError, match="need more bytes than it holds"):  # refused before any allocation
        tcp._decode(bytearray(struct.pack(">I", len(meta)) + meta))
    meta = json.dumps({"array": ["object", [1]]}).encode()
    with pytest.raises(KeyError):
        tcp._decode(bytearray(struct.pack(">I", len(meta)) + meta + b"\x00" * 8))


def test_gathered_objects_are_read_like_checkpoints(tmp_path):
    marker = tmp_path / "ran"
    back = tcp.unpickle_object(tcp.pickle_object({"loss": 0.5, "w": np.ones(2), "t": paddle.to_tensor([1.0, 2.0])}),
                               "x")
    assert back["loss"] == 0.5 and isinstance(back["t"], paddle.Tensor) and back["t"].tolist() == [1.0, 2.0]
    np.testing.assert_array_equal(back["w"], [1.0, 1.0])
    with pytest.raises(TypeError, match="all_gather_object: the object is a _Planted, which paddle.load could not "
                                        "read back.*as paddle.save writes them"):
        tcp.pickle_object(_Planted(str(marker)))
    with pytest.raises(DistributedError, match="rank 1's object"):
        tcp.unpickle_object(pickle.dumps(_Planted(str(marker))), "all_gather_object: rank 1's object")
    assert not marker.exists() and not os.path.exists(str(marker))


def test_launch_holds_the_coordinator_port_until_rank_0_listens_on_it(monkeypatch):
    """launch/spawn bind the coordinator's socket themselves and hand it to rank 0, so another local process can
    never bind the chosen port between its choice and the hub's start (it could with a port released first)."""
    from paddle_fn.distributed.launch.utils import LISTENER_FD, job_endpoints
    listener, ports = job_endpoints(2)
    port = ports[0]
    with socket.socket() as squatter, pytest.raises(OSError):
        squatter.bind(("127.0.0.1", port))
    monkeypatch.setenv(LISTENER_FD, str(os.dup(listener.fileno())))
    listener.close()
    comm = TCPCommunicator(0, 1, "127.0.0.1", port, 3.0, token="secret")
    try:
        assert comm._hub.listener.getsockname() == ("127.0.0.1", port)
        assert LISTENER_FD not in os.environ  # taken once: a process rank 0 starts does not inherit it
        comm.barrier()
    finally:
        comm.close()


def test_a_busy_started_port_is_refused_clearly():
    from paddle_fn.distributed.launch.utils import job_endpoints
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        with pytest.raises(OSError, match=f"coordinator port {port} on 127.0.0.1 cannot be bound"):
            job_endpoints(2, port)
