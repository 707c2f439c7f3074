"""paddle.utils: try_import, deprecated, require_version, run_check, download (file:// URLs: no network) and
unique_name."""
import hashlib
import io
import pathlib
import tarfile
import warnings
import zipfile

import pytest

import paddle_fn as paddle
from paddle_fn.utils import download


def test_try_import_returns_the_module_or_says_how_to_install_it():
    assert paddle.utils.try_import("json").loads("[1]") == [1]
    with pytest.raises(ImportError, match="pip install no_such_pkg"):
        paddle.utils.try_import("no_such_pkg.sub")
    with pytest.raises(ImportError, match="^custom$"):
        paddle.utils.try_import("no_such_pkg", "custom")


def test_deprecated_warns_for_functions_and_classes_and_raises_at_level_2():
    @paddle.utils.deprecated(update_to="paddle.new", since="2.1")
    def old(x):
        return x + 1

    @paddle.utils.deprecated(reason="gone")
    class Old:
        def __init__(self, v):
            self.v = v

    @paddle.utils.deprecated(update_to="paddle.new", level=2)
    def removed():
        return 0

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert old(1) == 2 and Old(3).v == 3 and isinstance(Old(1), Old)
    assert [w.category for w in caught] == [DeprecationWarning] * 3
    assert 'Please use "paddle.new" instead' in str(caught[0].message) and "since 2.1" in str(caught[0].message)
    assert "Reason: gone" in str(caught[1].message)
    with pytest.raises(RuntimeError, match='API "removed" is deprecated'):
        removed()
    with pytest.raises(ValueError, match="level"):
        paddle.utils.deprecated(level=3)


def test_require_version_compares_with_the_paddle_api_followed():
    paddle.utils.require_version("2.4")
    paddle.utils.require_version("3.3.0", "3.3.0")
    with pytest.raises(Exception, match="4.1 or higher is required"):
        paddle.utils.require_version("4.1")
    with pytest.raises(Exception, match=r"in \[2.0, 3.0\] required"):
        paddle.utils.require_version("2.0", "3.0")
    with pytest.raises(ValueError, match="version string"):
        paddle.utils.require_version("two")


def test_run_check_checks_the_gradient_eagerly_and_compiled(capsys):
    paddle.utils.run_check()
    out = capsys.readouterr().out
    assert "works well on" in out and "CPU" in out and "installed successfully" in out


def test_unique_name_is_the_parameter_name_generator():
    with paddle.utils.unique_name.guard():
        assert paddle.utils.unique_name.generate("fc") == "fc_0"
        assert paddle.utils.unique_name.generate("fc") == "fc_1"


@pytest.fixture
def source(tmp_path):
    path = tmp_path / "src" / "weights.pdparams"
    path.parent.mkdir()
    path.write_bytes(b"abc" * 1000)
    return path


def test_download_checks_md5_keeps_nothing_on_mismatch_and_reuses_a_good_file(tmp_path, source):
    root = tmp_path / "cache"
    good = hashlib.md5(source.read_bytes()).hexdigest()
    with pytest.raises(RuntimeError, match="expected 0+, nothing was kept|expected 0+: the download"):
        download.get_path_from_url(source.as_uri(), str(root), md5sum="0" * 32)
    assert not any(root.iterdir())
    path = download.get_path_from_url(source.as_uri(), str(root), md5sum=good)
    assert pathlib.Path(path).read_bytes() == source.read_bytes()
    source.write_bytes(b"changed")  # a file already there with the right checksum is not fetched again
    assert pathlib.Path(download.get_path_from_url(source.as_uri(), str(root), md5sum=good)).read_bytes() == \
        b"abc" * 1000
    assert pathlib.Path(download.get_path_from_url(source.as_uri(), str(root))).read_bytes() == b"abc" * 1000
    assert pathlib.Path(download.get_path_from_url(source.as_uri(), str(root), check_exist=False)).read_bytes() == \
        b"changed"


def test_weights_go_under_paddle_home(tmp_path, source, monkeypatch):
    monkeypatch.setenv("PADDLE_HOME", str(tmp_path / "home"))
    path = download.get_weights_path_from_url(source.as_uri())
    assert pathlib.Path(path) == tmp_path / "home" / "hapi" / "weights" / "weights.pdparams"


def test_archives_are_unpacked_and_may_not_escape(tmp_path):
    folder = tmp_path / "src"
    folder.mkdir()
    with tarfile.open(folder / "data.tar.gz", "w:gz") as archive:
        payload = b"rows"
        info = tarfile.TarInfo("data/train.txt")
        info.size = len(payload)
        archive.addfile(info, io.BytesIO(payload))
    unpacked = download.get_path_from_url((folder / "data.tar.gz").as_uri(), str(tmp_path / "cache"))
    assert pathlib.Path(unpacked, "train.txt").read_bytes() == b"rows"
    with zipfile.ZipFile(folder / "evil.zip", "w") as archive:
        archive.writestr("../outside.txt", "x")
    with pytest.raises(RuntimeError, match="would unpack outside"):
        download.get_path_from_url((folder / "evil.zip").as_uri(), str(tmp_path / "cache2"))
    assert not (tmp_path / "outside.txt").exists()


def test_a_failed_download_says_how_to_work_offline(tmp_path):
    with pytest.raises(RuntimeError, match="could not download .*put it at"):
        download.get_path_from_url((tmp_path / "missing.bin").as_uri(), str(tmp_path / "cache"))
    assert not list((tmp_path / "cache").iterdir())


def test_modules_paddle_model_files_import():
    """paddle.nn.loss, paddle.base.data_feeder and paddle.base.set_flags resolve as in Paddle."""
    import paddle_fn.nn.loss as loss_module
    from paddle_fn.base import data_feeder
    assert loss_module.CrossEntropyLoss is paddle.nn.CrossEntropyLoss and paddle.nn.loss is loss_module
    assert paddle.base.set_flags is paddle.set_flags and paddle.base.get_flags is paddle.get_flags
    assert data_feeder.convert_dtype(paddle.bfloat16) == "uint16"
    data_feeder.check_variable_and_dtype(paddle.ones([2]), "x", ["float32"], "op")
    with pytest.raises(TypeError, match="The type of 'x' in op must be"):
        data_feeder.check_variable_and_dtype([1.0], "x", ["float32"], "op")
    with pytest.raises(TypeError, match="dtype must be any of"):
        data_feeder.convert_dtype("float128")
