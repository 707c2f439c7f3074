"""What ``launch`` and ``spawn`` share: free local ports and the per-process environment Paddle's launcher sets."""
import secrets
import socket


def free_ports(count, started_port=None):
    """`count` local TCP ports: consecutive from `started_port`, or ones the OS reports free."""
    if started_port is not None:
        return [int(started_port) + i for i in range(count)]
    socks = []
    try:
        for _ in range(count):
            s = socket.socket()
            s.bind(("127.0.0.1", 0))
            socks.append(s)
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()


# The environment variable naming, in rank 0's process, the descriptor of the coordinator's listening socket that
# launch/spawn bound and handed over (the hub listens on it instead of binding the port again)
LISTENER_FD = "PADDLE_FN_DIST_LISTENER_FD"


def job_endpoints(count, started_port=None):
    """(the coordinator's listening socket, `count` local ports with its port first): the socket is bound now, on
    `started_port` or a port the OS picks, and stays open until rank 0 takes it over, so no other process can take
    the port between its choice and the coordinator's start. The other ports only name endpoints (nothing binds
    them).

    Example:
        >>> from paddle_fn.distributed.launch.utils import job_endpoints
        >>> listener, ports = job_endpoints(2)
        >>> listener.getsockname()[1] == ports[0], len(ports)
        (True, 2)
        >>> listener.close()
    """
    port = None if started_port is None else int(started_port)
    try:
        listener = socket.create_server(("127.0.0.1", port or 0))
    except OSError as error:
        raise OSError(f"the job's coordinator port {port} on 127.0.0.1 cannot be bound ({error.strerror}); choose "
                      "another started_port or leave it out to let the system pick a free one") from None
    first = listener.getsockname()[1]
    others = free_ports(count - 1, None if port is None else port + 1)
    return listener, [first] + others


def job_token():
    """A random secret for one job: the coordinator only admits processes that present it."""
    return secrets.token_hex(16)


def worker_env(rank, nprocs, ports, token, devices=None):
    """The variables Paddle's launcher gives rank `rank` of a local job of `nprocs` processes (plus the job's
    token, ``PADDLE_FN_DIST_TOKEN``)."""
    endpoints = [f"127.0.0.1:{p}" for p in ports]
    env = {
        "PADDLE_TRAINER_ID": str(rank),
        "PADDLE_TRAINERS_NUM": str(nprocs),
        "PADDLE_TRAINER_ENDPOINTS": ",".join(endpoints),
        "PADDLE_CURRENT_ENDPOINT": endpoints[rank],
        "PADDLE_MASTER": endpoints[0],
        "PADDLE_RANK_IN_NODE": str(rank),
        "PADDLE_LOCAL_RANK": str(rank),
        "PADDLE_LOCAL_SIZE": str(nprocs),
        "PADDLE_WORLD_DEVICE_IDS": ",".join(devices or map(str, range(nprocs))),
        "PADDLE_FN_DIST_TOKEN": token,
    }
    if devices is not None:
        env["FLAGS_selected_gpus"] = devices[rank]
    return env


def parse_devices(devices, what):
    """``'4,5'`` or ``[4, 5]`` -> ``['4', '5']``; None stays None."""
    if devices is None:
        return None
    items = devices.split(",") if isinstance(devices, str) else [str(d) for d in devices]
    items = [d.strip() for d in items if d.strip()]
    if not items or not all(d.isdigit() for d in items):
        raise ValueError(f"{what}: expected device ids like '0,1', got {devices!r}")
    return items
