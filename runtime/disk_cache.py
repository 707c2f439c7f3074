"""The on-disk `.vmfb` cache: one signed file per key, written atomically and checked on every read.

Entries are native code that paddle_fn runs, so the cache trusts only what this user wrote:

- the cache directory must belong to the user and be writable by nobody else, nor reached through another user's
  symbolic link, nor live in a folder others can change (`_check_directory`); a directory that fails is reported
  once per process and not used: programs are compiled without the cache, with the same results;
- every entry carries an HMAC-SHA256, under the directory's secret key (`KEY_FILE`, 32 random bytes, mode 0600),
  of its cache key and its contents. An entry planted by someone else, copied from another cache, renamed to
  another key, truncated or damaged fails the check: it is deleted and reported, and the caller recompiles.

File layout::

    PADDLE_FN_VMFB 2\\n
    <HMAC-SHA256 of the cache key, a NUL byte and everything after this line, 64 hex digits>\\n
    <JSON metadata: the flags that produced the vmfb, whether data tiling was dropped>\\n
    <vmfb bytes>

The cache never raises: an unusable or untrusted directory only costs speed.
"""
from __future__ import annotations

import dataclasses
import errno
import hashlib
import hmac
import json
import os
import secrets
import stat
import tempfile
import threading
from typing import Callable, Optional

MAGIC = b"PADDLE_FN_VMFB 2\n"
KEY_FILE = "hmac.key"
_KEY_BYTES = 32
_DIGEST_LENGTH = 64
_SUFFIX = ".vmfb"
_OTHERS_WRITE = stat.S_IWGRP | stat.S_IWOTH

_lock = threading.Lock()
_unusable_reported: set = set()


@dataclasses.dataclass(frozen=True)
class Entry:
    vmfb: bytes
    flags: list
    retried_without_data_tiling: bool


class _Untrusted(Exception):
    """Why a cache directory, or its key file, could let another user's code run in this process."""


def entry_path(directory: str, key: str) -> str:
    return os.path.join(directory, key + _SUFFIX)


def secret_key(directory: str, *, log: Callable[[str], None]) -> Optional[bytes]:
    """The key that signs `directory`'s entries, creating the directory (0700) and the key (0600) where missing;
    None, reported once per process and directory, when the directory cannot be used or is not safe to trust."""
    try:
        _make_private(directory)
        _check_directory(directory)
        return _key(directory)
    except _Untrusted as refusal:
        _report_once((directory, "untrusted"), log,
                     f"paddle_fn cache: not using the cache directory {directory}: {refusal}. Its entries are native "
                     "code, so another user could make this process run theirs. Programs are compiled without the "
                     "disk cache (same results, slower first calls). Set PADDLE_FN_CACHE_DIR to a folder of your "
                     "own, or PADDLE_FN_DISK_CACHE=0 to silence this")
    except OSError as error:
        _report_unwritable(directory, error, log)
    return None


def _make_private(directory: str):
    """Create `directory` and any missing parent with mode 0700 (`os.makedirs` gives new parents the umask's mode,
    often group-writable, which `_check_directory` would then refuse)."""
    if os.path.isdir(directory):
        return
    parent = os.path.dirname(directory)
    if parent and parent != directory:
        _make_private(parent)
    try:
        os.mkdir(directory, 0o700)
    except FileExistsError:
        if not os.path.isdir(directory):
            raise


def _check_directory(directory: str):
    """Refuse a directory another user could write entries or a key into: one owned by someone else or writable by
    group or others, one reached through another user's symbolic link, or one whose folder (as named, and after
    links) another user could change, which would let them swap the directory for their own. A folder others can
    write is accepted when it has the sticky bit (/tmp): there only its owner can rename or delete our directory."""
    uid = os.getuid()
    named = os.path.abspath(directory)
    link = os.lstat(named)
    if stat.S_ISLNK(link.st_mode) and link.st_uid not in (uid, 0):
        raise _Untrusted(f"it is a symbolic link owned by another user (uid {link.st_uid})")
    real = os.path.realpath(named)
    info = os.stat(real)
    if info.st_uid != uid:
        raise _Untrusted(f"{real} belongs to another user (uid {info.st_uid})")
    if info.st_mode & _OTHERS_WRITE:
        raise _Untrusted(f"other users can write to {real} (mode {stat.S_IMODE(info.st_mode):04o}; "
                         f"fix it with `chmod go-w {real}`)")
    for folder in dict.fromkeys((os.path.dirname(named), os.path.dirname(real))):
        info = os.stat(folder)
        if info.st_uid not in (uid, 0) or (info.st_mode & _OTHERS_WRITE and not info.st_mode & stat.S_ISVTX):
            raise _Untrusted(f"the folder it is in, {folder}, can be changed by another user (owner uid "
                             f"{info.st_uid}, mode {stat.S_IMODE(info.st_mode):04o}), who could replace the cache")


def _key(directory: str) -> bytes:
    path = os.path.join(directory, KEY_FILE)
    try:
        return _read_key(path)
    except FileNotFoundError:
        pass
    # written whole under a temporary name (mkstemp: O_EXCL, mode 0600), then linked into place: link never
    # replaces, so of two processes creating the key at once the first wins and both use its complete key
    descriptor, temporary = tempfile.mkstemp(dir=directory, prefix=".tmp-", suffix=".key")
    try:
        with os.fdopen(descriptor, "wb") as file:
            file.write(secrets.token_bytes(_KEY_BYTES))
        try:
            os.link(temporary, path)
        except FileExistsError:
            pass
    finally:
        os.remove(temporary)
    return _read_key(path)


def _read_key(path: str) -> bytes:
    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    except OSError as error:
        if error.errno == errno.ELOOP:
            raise _Untrusted(f"its key file {path} is a symbolic link") from None
        raise
    with os.fdopen(descriptor, "rb") as file:
        info = os.fstat(file.fileno())
        if not stat.S_ISREG(info.st_mode) or info.st_uid != os.getuid():
            raise _Untrusted(f"its key file {path} is not a file of yours (owner uid {info.st_uid})")
        if info.st_mode & (stat.S_IRWXG | stat.S_IRWXO):
            raise _Untrusted(f"its key file {path} is open to other users (mode {stat.S_IMODE(info.st_mode):04o}, "
                             "not 0600); delete it, and a new key is made (cached programs are recompiled once)")
        key = file.read(_KEY_BYTES + 1)
    if len(key) != _KEY_BYTES:
        raise _Untrusted(f"its key file {path} is damaged (not {_KEY_BYTES} bytes); delete it, and a new key is made")
    return key


def read(directory: str, key: str, secret: bytes, *, log: Callable[[str], None]) -> Optional[Entry]:
    path = entry_path(directory, key)
    try:
        with open(path, "rb") as file:
            data = file.read()
    except FileNotFoundError:
        return None
    except OSError as error:
        _report_once((directory, "read"), log, f"paddle_fn cache: cannot read {path} ({error}); compiling instead")
        return None
    entry = _decode(data, key, secret)
    if entry is None:
        log(f"paddle_fn cache: entry {path} is corrupt, truncated, or not signed with this cache's key (written by "
            "another version, or copied in from elsewhere); deleting it and recompiling")
        try:
            os.remove(path)
        except OSError:
            pass
    return entry


def _signature(secret: bytes, key: str, body: bytes) -> bytes:
    return hmac.new(secret, key.encode() + b"\0" + body, hashlib.sha256).hexdigest().encode()


def _decode(data: bytes, key: str, secret: bytes) -> Optional[Entry]:
    if not data.startswith(MAGIC):
        return None
    digest_end = len(MAGIC) + _DIGEST_LENGTH
    digest, body = data[len(MAGIC):digest_end], data[digest_end + 1:]
    if data[digest_end:digest_end + 1] != b"\n" or not hmac.compare_digest(_signature(secret, key, body), digest):
        return None
    metadata_line, _, vmfb = body.partition(b"\n")
    try:
        metadata = json.loads(metadata_line)
        return Entry(vmfb=vmfb, flags=list(metadata["flags"]),
                     retried_without_data_tiling=bool(metadata["retried_without_data_tiling"]))
    except (ValueError, KeyError, TypeError):
        return None


def _encode(entry: Entry, key: str, secret: bytes) -> bytes:
    metadata = json.dumps({"flags": entry.flags, "retried_without_data_tiling": entry.retried_without_data_tiling})
    body = metadata.encode() + b"\n" + entry.vmfb
    return MAGIC + _signature(secret, key, body) + b"\n" + body


def write(directory: str, key: str, entry: Entry, secret: bytes, *, log: Callable[[str], None]) -> bool:
    try:
        write_atomically(entry_path(directory, key), _encode(entry, key, secret))
        return True
    except OSError as error:
        _report_unwritable(directory, error, log)
        return False


def _report_unwritable(directory: str, error: OSError, log: Callable[[str], None]):
    _report_once((directory, "write"), log,
                 f"paddle_fn cache: cannot write to {directory} ({error}); compiled programs will not be cached "
                 "(set PADDLE_FN_CACHE_DIR to a writable folder, or PADDLE_FN_DISK_CACHE=0 to silence this)")


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
