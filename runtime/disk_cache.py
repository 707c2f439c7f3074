"""The on-disk `.vmfb` cache: one file per key, written atomically and checked on every read.

File layout::

    PADDLE_FN_VMFB 1\\n
    <sha256 of everything after this line, 64 hex digits>\\n
    <JSON metadata: the flags that produced the vmfb, whether data tiling was dropped>\\n
    <vmfb bytes>

A file that is truncated, has flipped bytes, or comes from another format version fails the check: it is
deleted and reported, and the caller recompiles. The cache never raises: an unusable directory only costs speed.
"""
from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import tempfile
import threading
from typing import Callable, Optional

MAGIC = b"PADDLE_FN_VMFB 1\n"
_DIGEST_LENGTH = 64
_SUFFIX = ".vmfb"

_lock = threading.Lock()
_unusable_reported: set = set()


@dataclasses.dataclass(frozen=True)
class Entry:
    vmfb: bytes
    flags: list
    retried_without_data_tiling: bool


def entry_path(directory: str, key: str) -> str:
    return os.path.join(directory, key + _SUFFIX)


def read(directory: str, key: str, *, log: Callable[[str], None]) -> Optional[Entry]:
    path = entry_path(directory, key)
    try:
        with open(path, "rb") as file:
            data = file.read()
    except FileNotFoundError:
        return None
    except OSError as error:
        _report_once((directory, "read"), log, f"paddle_fn cache: cannot read {path} ({error}); compiling instead")
        return None
    entry = _decode(data)
    if entry is None:
        log(f"paddle_fn cache: entry {path} is corrupt or truncated; deleting it and recompiling")
        try:
            os.remove(path)
        except OSError:
            pass
    return entry


def _decode(data: bytes) -> Optional[Entry]:
    if not data.startswith(MAGIC):
        return None
    digest_end = len(MAGIC) + _DIGEST_LENGTH
    digest, body = data[len(MAGIC):digest_end], data[digest_end + 1:]
    if data[digest_end:digest_end + 1] != b"\n" or hashlib.sha256(body).hexdigest().encode() != digest:
        return None
    metadata_line, _, vmfb = body.partition(b"\n")
    try:
        metadata = json.loads(metadata_line)
        return Entry(vmfb=vmfb, flags=list(metadata["flags"]),
                     retried_without_data_tiling=bool(metadata["retried_without_data_tiling"]))
    except (ValueError, KeyError, TypeError):
        return None


def _encode(entry: Entry) -> bytes:
    metadata = json.dumps({"flags": entry.flags, "retried_without_data_tiling": entry.retried_without_data_tiling})
    body = metadata.encode() + b"\n" + entry.vmfb
    return MAGIC + hashlib.sha256(body).hexdigest().encode() + b"\n" + body


def write(directory: str, key: str, entry: Entry, *, log: Callable[[str], None]) -> bool:
    try:
        os.makedirs(directory, exist_ok=True)
        write_atomically(entry_path(directory, key), _encode(entry))
        return True
    except OSError as error:
        _report_once((directory, "write"), log,
                     f"paddle_fn cache: cannot write to {directory} ({error}); compiled programs will not be cached "
                     "(set PADDLE_FN_CACHE_DIR to a writable folder, or PADDLE_FN_DISK_CACHE=0 to silence this)")
        return False


def _report_once(problem: tuple, log: Callable[[str], None], message: str):
    """An unusable directory stays unusable: say so once per process, not once per compile."""
    with _lock:
        first_time = problem not in _unusable_reported
        _unusable_reported.add(problem)
    if first_time:
        log(message)


def write_atomically(path: str, data: bytes):
    """Readers see either the old file or the complete new one, never a partial write."""
    folder = os.path.dirname(path)
    descriptor, temporary = tempfile.mkstemp(dir=folder, prefix=".tmp-", suffix=_SUFFIX)
    try:
        with os.fdopen(descriptor, "wb") as file:
            file.write(data)
        os.replace(temporary, path)
    except BaseException:
        try:
            os.remove(temporary)
        except OSError:
            pass
        raise
