"""``paddle.utils.download``: fetch a file (pretrained weights, a data archive) once into a local cache.

`get_weights_path_from_url` is what Paddle's model files call for ``pretrained=True``. Files go to
``~/.cache/paddle/hapi/weights`` (``$PADDLE_HOME``-relative when set, as Paddle's), are checked against the given
MD5, written atomically (a partial download never takes the final name) and, for archives, unpacked; a file
already there with the right checksum is not fetched again. Any URL scheme `urllib` reads works, ``file://``
included, so a machine without network access can point at a local copy.
"""
from __future__ import annotations

import hashlib
import os
import shutil
import tarfile
import urllib.error
import urllib.parse
import urllib.request
import zipfile

from paddle_fn.framework.io import atomic_write

__all__ = ["get_path_from_url", "get_weights_path_from_url"]

_CHUNK = 1 << 20


def _paddle_home() -> str:
    return os.path.expanduser(os.environ.get("PADDLE_HOME", os.path.join("~", ".cache", "paddle")))


def weights_home() -> str:
    """Where `get_weights_path_from_url` keeps its files: ``$PADDLE_HOME/hapi/weights`` (``~/.cache/paddle``)."""
    return os.path.join(_paddle_home(), "hapi", "weights")


def _md5(path: str) -> str:
    digest = hashlib.md5()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(_CHUNK), b""):
            digest.update(block)
    return digest.hexdigest()


def _matches(path: str, md5sum: str | None) -> bool:
    return os.path.isfile(path) and (md5sum is None or _md5(path) == md5sum)


def _fetch(url: str, path: str, md5sum: str | None):
    try:
        with urllib.request.urlopen(url) as response, atomic_write(path) as out:
            shutil.copyfileobj(response, out, _CHUNK)
    except (urllib.error.URLError, OSError, ValueError) as error:
        raise RuntimeError(f"paddle.utils.download: could not download {url}: {error}. Without network access, "
                           f"download the file elsewhere and put it at {path} (or pass a file:// URL)") from None
    if md5sum is not None and _md5(path) != md5sum:
        got = _md5(path)
        os.remove(path)
        raise RuntimeError(f"paddle.utils.download: {url} has MD5 {got}, expected {md5sum}: the download is "
                           "corrupt or the file changed; nothing was kept")


def _safe_members(names, root: str):
    """The archive's member names, each checked to unpack inside `root` (no absolute paths or '..')."""
    base = os.path.realpath(root)
    for name in names:
        target = os.path.realpath(os.path.join(base, name))
        if os.path.commonpath([base, target]) != base:
            raise RuntimeError(f"paddle.utils.download: the archive member {name!r} would unpack outside {root}")
    return names


def _decompress(path: str) -> str:
    """Unpack a .tar(.gz/.bz2/.xz) or .zip beside itself; the path of its single top-level entry, or the folder."""
    root = os.path.dirname(path)
    if tarfile.is_tarfile(path):
        with tarfile.open(path) as archive:
            names = _safe_members(archive.getnames(), root)
            archive.extractall(root, filter="data")
    elif zipfile.is_zipfile(path):
        with zipfile.ZipFile(path) as archive:
            names = _safe_members(archive.namelist(), root)
            archive.extractall(root)
    else:
        return path
    tops = {name.split("/")[0] for name in names if name}
    return os.path.join(root, tops.pop()) if len(tops) == 1 else root


def get_path_from_url(url: str, root_dir: str, md5sum: str | None = None, check_exist: bool = True,
                      decompress: bool = True, method: str = "get") -> str:
    """Download `url` into `root_dir` (unless a file with the right MD5 is already there) and return its local
    path; an archive is unpacked and the path of what it held is returned.

    Args:
        url (str): the file's URL (http(s), ftp or file).
        root_dir (str): the folder to keep it in (created when missing).
        md5sum (str, optional): the expected MD5; a mismatch is an error and nothing is kept.
        check_exist (bool): reuse a file already there (checked against `md5sum`). Default: True.
        decompress (bool): unpack .tar/.tar.gz/.zip archives. Default: True.
        method (str): ``"get"`` (Paddle also accepts ``"wget"``, which downloads the same way here).

    Example:
        >>> import pathlib, tempfile
        >>> import paddle_fn as paddle
        >>> folder = tempfile.mkdtemp()
        >>> source = pathlib.Path(folder, "source.txt")
        >>> _ = source.write_text("weights")
        >>> path = paddle.utils.download.get_path_from_url(source.as_uri(), folder + "/cache")
        >>> pathlib.Path(path).read_text(), pathlib.Path(path).name
        ('weights', 'source.txt')
    """
    if method not in ("get", "wget"):
        raise ValueError(f"get_path_from_url: method must be 'get' or 'wget', got {method!r}")
    name = os.path.basename(urllib.parse.urlparse(url).path)
    if not name:
        raise ValueError(f"get_path_from_url: the URL {url!r} names no file")
    os.makedirs(root_dir, exist_ok=True)
    path = os.path.join(root_dir, name)
    if not (check_exist and _matches(path, md5sum)):
        _fetch(url, path, md5sum)
    return _decompress(path) if decompress else path


def get_weights_path_from_url(url: str, md5sum: str | None = None) -> str:
    """The local path of the weights file at `url`, downloaded once into `weights_home()`: what Paddle's model
    files call for ``pretrained=True``.

    Args:
        url (str): the weights' URL.
        md5sum (str, optional): their expected MD5.

    Example:
        >>> import os, pathlib, tempfile
        >>> import paddle_fn as paddle
        >>> os.environ["PADDLE_HOME"] = tempfile.mkdtemp()
        >>> source = pathlib.Path(tempfile.mkdtemp(), "resnet.pdparams")
        >>> _ = source.write_bytes(b"not really weights")
        >>> path = paddle.utils.download.get_weights_path_from_url(source.as_uri())
        >>> path == os.path.join(os.environ["PADDLE_HOME"], "hapi", "weights", "resnet.pdparams")
        True
        >>> del os.environ["PADDLE_HOME"]
    """
    return get_path_from_url(url, weights_home(), md5sum, decompress=False)
