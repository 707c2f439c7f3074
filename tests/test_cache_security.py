"""The compile cache runs native code, so it trusts only what this user wrote (docs/security.md, "The compile
cache"), and the executables kept loaded in memory are bounded (docs/jit.md)."""
import hashlib
import logging
import os
import shutil
import stat
import threading

import numpy as np
import pytest

import paddle_fn as paddle
from paddle_fn import runtime
from paddle_fn.runtime import compiler, disk_cache, executable as executable_module

X = np.arange(21, dtype=np.float32).reshape(3, 7)  # a shape no other test compiles: loaded programs are shared


def text_of(fun, x=X):
    return paddle.jit(fun).lower(paddle.to_tensor(x)).as_text()


PLUS_ONE = text_of(lambda x: x + 1.0)
TIMES_100 = text_of(lambda x: x * 100.0)


def run(text, x=X):
    exe = runtime.load_executable(runtime.compile_stablehlo(text), runtime.default_device())
    return exe(x)[0].to_numpy()


@pytest.fixture
def cache(tmp_path, monkeypatch):
    directory = tmp_path / "cache"
    monkeypatch.setenv("PADDLE_FN_CACHE_DIR", str(directory))
    monkeypatch.delenv("PADDLE_FN_DISK_CACHE", raising=False)
    return directory


@pytest.fixture
def warnings(caplog):
    caplog.set_level(logging.WARNING, logger="paddle_fn.runtime")
    return lambda: [r.getMessage() for r in caplog.records if "not using the cache directory" in r.getMessage()]


def old_format(vmfb: bytes, flags) -> bytes:
    """An entry as the unsigned format wrote it: anyone who can write the directory can make one."""
    body = (f'{{"flags": {list(flags)!r}, "retried_without_data_tiling": false}}'.replace("'", '"').encode()
            + b"\n" + vmfb)
    return b"PADDLE_FN_VMFB 1\n" + hashlib.sha256(body).hexdigest().encode() + b"\n" + body


@pytest.mark.parametrize("form", ["old format", "signed for another key"])
def test_a_planted_entry_is_never_run(cache, form):
    times_100 = runtime.compile_stablehlo(TIMES_100)
    plus_one = runtime.compile_stablehlo(PLUS_ONE)
    target = disk_cache.entry_path(str(cache), plus_one.key)
    if form == "old format":
        planted = old_format(times_100.vmfb, times_100.flags)
    else:
        planted = open(disk_cache.entry_path(str(cache), times_100.key), "rb").read()
    open(target, "wb").write(planted)
    messages = []
    again = runtime.compile_stablehlo(PLUS_ONE, log=messages.append)
    assert not again.from_cache and any("not signed with this cache's key" in m for m in messages)
    np.testing.assert_array_equal(paddle.jit(lambda x: x + 1.0)(paddle.to_tensor(X)).numpy(), X + 1.0)
    np.testing.assert_array_equal(run(PLUS_ONE), X + 1.0)


def test_an_entry_copied_from_another_cache_is_rejected(tmp_path, cache, monkeypatch):
    other = tmp_path / "other"
    monkeypatch.setenv("PADDLE_FN_CACHE_DIR", str(other))
    theirs = runtime.compile_stablehlo(TIMES_100)
    monkeypatch.setenv("PADDLE_FN_CACHE_DIR", str(cache))
    runtime.compile_stablehlo(PLUS_ONE)  # this cache exists, with its own key
    shutil.copy(disk_cache.entry_path(str(other), theirs.key), disk_cache.entry_path(str(cache), theirs.key))
    messages = []
    assert not runtime.compile_stablehlo(TIMES_100, log=messages.append).from_cache
    assert any("copied in from elsewhere" in m for m in messages)
    assert runtime.compile_stablehlo(TIMES_100).from_cache  # rewritten under this cache's key
    np.testing.assert_array_equal(run(TIMES_100), X * 100.0)


def test_the_cache_directory_and_its_new_parents_are_private(tmp_path, monkeypatch):
    directory = tmp_path / "new" / "cache"
    monkeypatch.setenv("PADDLE_FN_CACHE_DIR", str(directory))
    runtime.compile_stablehlo(PLUS_ONE)
    assert stat.S_IMODE(os.stat(directory).st_mode) == 0o700
    assert stat.S_IMODE(os.stat(directory.parent).st_mode) == 0o700
    assert stat.S_IMODE(os.stat(directory / disk_cache.KEY_FILE).st_mode) == 0o600
    assert runtime.compile_stablehlo(PLUS_ONE).from_cache


@pytest.mark.parametrize("where", ["directory", "its folder"])
def test_a_directory_others_can_write_is_refused_once(cache, warnings, where):
    cache.mkdir(0o700)
    os.chmod(cache if where == "directory" else cache.parent, 0o777)
    try:
        for _ in range(2):
            artifact = runtime.compile_stablehlo(PLUS_ONE)
            assert not artifact.from_cache
        np.testing.assert_array_equal(paddle.jit(lambda x: x + 1.0)(paddle.to_tensor(X + 2.0)).numpy(), X + 3.0)
    finally:
        os.chmod(cache.parent, 0o700)
    (message,) = warnings()
    assert "other users can write" in message or "can be changed by another user" in message
    assert "PADDLE_FN_CACHE_DIR" in message and os.listdir(cache) == []


def test_a_sticky_folder_like_tmp_is_accepted(cache, warnings):
    os.chmod(cache.parent, 0o1777)
    try:
        runtime.compile_stablehlo(PLUS_ONE)
        assert runtime.compile_stablehlo(PLUS_ONE).from_cache
    finally:
        os.chmod(cache.parent, 0o700)
    assert warnings() == []


def test_a_directory_of_another_user_is_refused(cache, warnings, monkeypatch):
    cache.mkdir(0o700)
    monkeypatch.setattr(os, "getuid", lambda: os.stat(cache).st_uid + 1)
    assert not runtime.compile_stablehlo(PLUS_ONE).from_cache
    (message,) = warnings()
    assert "belongs to another user" in message
    assert not (cache / disk_cache.KEY_FILE).exists()


def test_a_symlink_to_a_directory_of_ours_works(tmp_path, monkeypatch, warnings):
    real = tmp_path / "real"
    real.mkdir(0o700)
    (tmp_path / "link").symlink_to(real)
    monkeypatch.setenv("PADDLE_FN_CACHE_DIR", str(tmp_path / "link"))
    runtime.compile_stablehlo(PLUS_ONE)
    assert runtime.compile_stablehlo(PLUS_ONE).from_cache and warnings() == []
    assert (real / disk_cache.KEY_FILE).exists()


def test_a_symlink_owned_by_another_user_is_refused(tmp_path, monkeypatch, warnings):
    real, link = tmp_path / "real", tmp_path / "link"
    real.mkdir(0o700)
    link.symlink_to(real)
    monkeypatch.setenv("PADDLE_FN_CACHE_DIR", str(link))
    lstat, stranger = os.lstat, os.getuid() + 1

    def lstat_owned_by_a_stranger(path, *args, **kwargs):
        info = lstat(path, *args, **kwargs)
        if os.fspath(path) != str(link):
            return info
        fields = list(info[:10])
        fields[4] = stranger  # st_uid
        return os.stat_result(fields)
    monkeypatch.setattr(os, "lstat", lstat_owned_by_a_stranger)
    assert not runtime.compile_stablehlo(PLUS_ONE).from_cache
    (message,) = warnings()
    assert "symbolic link owned by another user" in message


@pytest.mark.parametrize("damage", ["mode 0644", "symlink", "short"])
def test_a_key_file_others_could_read_or_replace_is_refused(cache, warnings, tmp_path, damage):
    runtime.compile_stablehlo(PLUS_ONE)
    key = cache / disk_cache.KEY_FILE
    if damage == "mode 0644":
        os.chmod(key, 0o644)
    elif damage == "symlink":
        elsewhere = tmp_path / "elsewhere.key"
        os.rename(key, elsewhere)
        key.symlink_to(elsewhere)
    else:
        key.write_bytes(b"short")
    assert not runtime.compile_stablehlo(PLUS_ONE).from_cache
    (message,) = warnings()
    assert "key file" in message
    np.testing.assert_array_equal(run(PLUS_ONE), X + 1.0)


def test_concurrent_first_uses_agree_on_one_key(cache):
    cache.mkdir(0o700)
    keys, barrier = [], threading.Barrier(8)

    def first_use():
        barrier.wait()
        keys.append(disk_cache.secret_key(str(cache), log=print))
    threads = [threading.Thread(target=first_use) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(set(keys)) == 1 and None not in keys
    assert sorted(os.listdir(cache)) == [disk_cache.KEY_FILE]


# ---- the in-memory bound ---------------------------------------------------------------------------------------

@pytest.fixture
def small_bound(cache):
    """Room for about three small executables."""
    before = executable_module.executable_cache_bytes()
    exe, _ = executable_module.load_stablehlo(PLUS_ONE, runtime.default_device(), work=0)
    bound = 3 * exe._size + exe._size // 2
    runtime.set_executable_cache_bytes(bound)
    yield bound
    runtime.set_executable_cache_bytes(before)


def test_many_signatures_stay_within_the_bound_and_correct(small_bound):
    f = paddle.jit(lambda x: x * 3.0 + 0.25)
    inputs = [np.arange(n, dtype=np.float32) for n in range(1, 13)]
    for x in inputs:
        np.testing.assert_array_equal(f(paddle.to_tensor(x)).numpy(), x * 3.0 + 0.25)
        assert runtime.resident_bytes() <= small_bound
    executables = [traced.executable for traced in f._cache.values()]
    assert sum(exe._context is not None for exe in executables) <= 3
    compiles = []
    real = compiler._run_compiler
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(compiler, "_run_compiler", lambda *a: compiles.append(a) or real(*a))
        for _ in range(2):  # every one evicted and loaded again, from the disk cache
            for x in inputs:
                np.testing.assert_array_equal(f(paddle.to_tensor(x)).numpy(), x * 3.0 + 0.25)
                assert runtime.resident_bytes() <= small_bound
    assert compiles == []
    assert sum(exe._context is not None for exe in executables) <= 3


def test_an_evicted_executable_is_recompiled_without_a_disk_cache(small_bound, monkeypatch):
    monkeypatch.setenv("PADDLE_FN_DISK_CACHE", "0")
    runtime.set_executable_cache_bytes(0)  # only the one being called stays loaded
    functions = [paddle.jit(lambda x, k=k: x * float(k) - 0.125) for k in range(3)]
    for _ in range(2):
        for k, f in enumerate(functions):
            np.testing.assert_array_equal(f(paddle.to_tensor(X)).numpy(), X * k - 0.125)


def test_threads_calling_evicted_executables_get_their_own_results(small_bound):
    runtime.set_executable_cache_bytes(0)
    functions = [paddle.jit(lambda x, k=k: x + float(k) + 0.5) for k in range(4)]
    for f in functions:
        f(paddle.to_tensor(X))
    failures = []

    def calls(k):
        for _ in range(20):
            out = functions[k](paddle.to_tensor(X)).numpy()
            if not np.array_equal(out, X + k + 0.5):
                failures.append((k, out))
    threads = [threading.Thread(target=calls, args=(k,)) for k in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []


def test_the_bound_is_checked(monkeypatch):
    with pytest.raises(ValueError, match="number of bytes"):
        runtime.set_executable_cache_bytes(-1)
    monkeypatch.setenv("PADDLE_FN_EXECUTABLE_CACHE_BYTES", "lots")
    with pytest.raises(ValueError, match="PADDLE_FN_EXECUTABLE_CACHE_BYTES='lots'"):
        executable_module._cache_bytes_from_environment()
    monkeypatch.setenv("PADDLE_FN_EXECUTABLE_CACHE_BYTES", "1048576")
    assert executable_module._cache_bytes_from_environment() == 1 << 20
