"""``paddle.save`` / ``paddle.load``: state_dicts, Tensors and nested containers, in Paddle's file format, loaded
without ever running code from the file.

The format is Paddle's: a pickle (protocol 2-4) of the object with every Tensor replaced by numpy data. In a
state_dict (a dict whose values are Tensors, or dicts without Tensors such as ``LR_Scheduler``) a Tensor becomes
its array and the dict gets a ``StructuredToParameterName@@`` entry mapping keys to Tensor names; anywhere else a
Tensor becomes the tuple ``(name, array)``. So files written here load in Paddle, and Paddle's load here.

Loading uses an unpickler that resolves only numpy arrays, numpy dtypes and scalars, and Python containers
(`_SAFE_GLOBALS`): a file naming any other global (the way a malicious pickle runs code) is refused with
``pickle.UnpicklingError`` before anything is built. ``paddle.load`` of a ``paddle.jit.save`` path prefix reads the
``.pdiparams`` parameter file, an ``.npz`` archive read with ``allow_pickle=False``.
"""
from __future__ import annotations

import collections
import json
import os
import pickle

import numpy as np

from paddle_fn.core.dtypes import bfloat16
from paddle_fn.core.trace import Tensor, Tracer, adopt

__all__ = ["load", "save"]

_NAME_TABLE = "StructuredToParameterName@@"

# (module, name) -> object: everything a Paddle or paddle_fn file may reference. numpy pickles arrays through
# _reconstruct(ndarray, shape, dtype) + __setstate__ and scalars through multiarray.scalar; numpy 1 names the
# module numpy.core, numpy 2 numpy._core.
_SAFE_GLOBALS = {
    ("builtins", "tuple"): tuple, ("builtins", "list"): list, ("builtins", "dict"): dict,
    ("builtins", "set"): set, ("builtins", "frozenset"): frozenset, ("builtins", "complex"): complex,
    ("collections", "OrderedDict"): collections.OrderedDict,
    ("numpy", "ndarray"): np.ndarray, ("numpy", "dtype"): np.dtype,
}
for _mod in ("numpy.core.multiarray", "numpy._core.multiarray"):
    _SAFE_GLOBALS[(_mod, "_reconstruct")] = np.ndarray.__reduce__(np.zeros(0))[0]
    _SAFE_GLOBALS[(_mod, "scalar")] = np.float64(0).__reduce__()[0]


class _SafeUnpickler(pickle.Unpickler):
    """An unpickler that builds only numpy arrays, dtypes, scalars and Python containers."""

    def find_class(self, module, name):
        try:
            return _SAFE_GLOBALS[(module, name)]
        except KeyError:
            raise pickle.UnpicklingError(
                f"paddle.load: the file references {module}.{name}, which is not allowed: paddle_fn loads only "
                "Tensors/numpy arrays, numbers, strings and lists/tuples/dicts, and never runs code from a file. "
                "If you wrote this file, save state_dicts (layer.state_dict(), optimizer.state_dict()) or Tensors "
                "instead of arbitrary objects") from None


# ----------------------------------------------------------------------------------------------- save

def _array(t: Tensor, where: str) -> np.ndarray:
    if isinstance(t, Tracer):
        raise TypeError(f"paddle.save: {where} is a traced Tensor (you are inside paddle.jit / grad / vmap); save "
                        "after the transform, with concrete values")
    a = np.asarray(t.numpy())
    if t.dtype == bfloat16:  # as Paddle: bfloat16 data is stored as its uint16 bit pattern
        a = a.view(np.uint16)
    return a


def _is_state_dict(obj) -> bool:
    if not isinstance(obj, dict):
        return False
    for value in obj.values():
        if isinstance(value, dict):
            if any(_contains_tensor(v) for v in value.values()):
                return False
        elif not isinstance(value, Tensor):
            return False
    return True


def _contains_tensor(obj) -> bool:
    if isinstance(obj, Tensor):
        return True
    if isinstance(obj, (list, tuple)):
        return any(_contains_tensor(v) for v in obj)
    if isinstance(obj, dict):
        return any(_contains_tensor(v) for v in obj.values())
    return False


_PLAIN = (type(None), bool, int, float, complex, str, bytes, np.ndarray, np.generic)


def _check_savable(obj, where):
    if hasattr(obj, "state_dict") and hasattr(obj, "forward"):
        raise ValueError("paddle do not support saving `paddle.nn.Layer` object. Save its state_dict() instead: "
                         "paddle.save(layer.state_dict(), path)")
    if not isinstance(obj, (Tensor, list, tuple, dict) + _PLAIN):
        raise TypeError(f"paddle.save: {where} is a {type(obj).__name__}, which paddle.load could not read back "
                        "(it loads only Tensors, numpy arrays, numbers, strings and lists/tuples/dicts of them, so "
                        "that loading never runs code); save its state_dict() or its Tensors instead")
    if isinstance(obj, np.ndarray) and obj.dtype.hasobject:
        raise TypeError(f"paddle.save: {where} is a numpy array of Python objects, which paddle.load could not "
                        "read back; convert it to a numeric array or a list")


def _encode(obj, where="the object"):
    """Tensors -> (name, array) anywhere in nested lists, tuples and dicts (Paddle's `reduce_varbase`)."""
    _check_savable(obj, where)
    if isinstance(obj, Tensor):
        return (obj.name, _array(obj, where))
    if isinstance(obj, dict):
        return type(obj)((k, _encode(v, f"{where}[{k!r}]")) for k, v in obj.items())
    if isinstance(obj, (list, tuple)) and not hasattr(obj, "_fields"):
        return type(obj)(_encode(v, f"{where}[{i}]") for i, v in enumerate(obj))
    return obj


def _encode_state_dict(obj):
    out = type(obj)() if isinstance(obj, collections.OrderedDict) else {}
    names = {}
    for key, value in obj.items():
        if isinstance(value, Tensor):
            out[key] = _array(value, f"state_dict[{key!r}]")
            names[key] = value.name
        else:
            out[key] = _encode(value, f"state_dict[{key!r}]")
    out[_NAME_TABLE] = names
    return out


def _open_for_write(path):
    if not isinstance(path, str):
        return None
    dirname, filename = os.path.split(path)
    if filename == "":
        raise ValueError("The input path MUST be format of dirname/filename [dirname\\filename in Windows system], "
                         "but received filename is empty string.")
    if dirname and not os.path.exists(dirname):
        os.makedirs(dirname, exist_ok=True)
    return path


def save(obj, path, protocol=4, **configs):
    """Save a state_dict, a Tensor or a nested list/tuple/dict of Tensors, numbers and strings to `path`
    (``paddle.save``). The suffix is not added for you: Paddle uses ``.pdparams`` for a Layer's state_dict and
    ``.pdopt`` for an optimizer's.

    Args:
        obj (object): ``layer.state_dict()``, ``optimizer.state_dict()``, a Tensor, or nested containers of them.
            A Layer or optimizer itself cannot be saved (save its state_dict).
        path (str|BytesIO): the file name (its directory is created), or a writable binary buffer.
        protocol (int, optional): the pickle protocol, 2, 3 or 4. Default: 4.
        **configs: ``use_binary_format=False`` (True, Paddle's static-graph LoDTensor format, is not supported).

    Example:
        >>> import os, tempfile
        >>> import paddle_fn as paddle
        >>> layer = paddle.nn.Linear(2, 3)
        >>> path = os.path.join(tempfile.mkdtemp(), "linear.pdparams")
        >>> paddle.save(layer.state_dict(), path)
        >>> state = paddle.load(path)
        >>> sorted(state), bool((state["weight"] == layer.weight).all())
        (['bias', 'weight'], True)
    """
    if not isinstance(protocol, int) or isinstance(protocol, bool) or not 1 < protocol < 5:
        raise ValueError(f"Expected 1<'protocol'<5, but received protocol={protocol}")
    unknown = sorted(set(configs) - {"use_binary_format"})
    if unknown:
        raise ValueError(f"The additional config ({', '.join(unknown)}) of `paddle.save` is not supported.")
    if configs.get("use_binary_format", False):
        raise NotImplementedError("paddle.save(use_binary_format=True): Paddle's static-graph LoDTensor binary "
                                  "format is not supported; save without it (the pickle format Paddle also reads)")
    _check_savable(obj, "the object")
    data = _encode_state_dict(obj) if _is_state_dict(obj) else _encode(obj)
    target = _open_for_write(path)
    if target is None:
        if not hasattr(path, "write"):
            raise TypeError(f"paddle.save: path must be a file name (str) or a writable binary buffer, got "
                            f"{type(path).__name__}")
        pickle.dump(data, path, protocol=protocol)
        return
    with open(target, "wb") as f:
        pickle.dump(data, f, protocol=protocol)


# ----------------------------------------------------------------------------------------------- load

def _to_tensor(a: np.ndarray, name=None) -> Tensor:
    t = adopt(np.array(a))
    if name is not None:
        t.name = name
    return t


def _decode(obj, return_numpy):
    """(str, ndarray) tuples (saved Tensors) -> Tensors, or arrays when return_numpy."""
    if isinstance(obj, tuple) and len(obj) == 2 and isinstance(obj[0], str) and isinstance(obj[1], np.ndarray):
        return obj[1] if return_numpy else _to_tensor(obj[1], obj[0])
    if isinstance(obj, dict):
        return type(obj)((k, _decode(v, return_numpy)) for k, v in obj.items())
    if isinstance(obj, (list, tuple)):
        return type(obj)(_decode(v, return_numpy) for v in obj)
    return obj


def read_params_file(path: str) -> dict:
    """The arrays of a ``.pdiparams`` file written by ``paddle.jit.save`` (an ``.npz`` archive, read without
    pickle), by parameter name."""
    with np.load(path, allow_pickle=False) as archive:
        return {k: archive[k] for k in archive.files}


def write_params_file(path: str, arrays: dict) -> None:
    """Write `arrays` (name -> numpy array) as a ``.pdiparams`` file (an ``.npz`` archive, no pickle)."""
    with open(path, "wb") as f:
        np.savez(f, **arrays)


def _load_jit_params(prefix, configs, return_numpy):
    params_file = prefix + (configs.get("params_filename") or ".pdiparams")
    # the constants a saved program captured are stored beside the weights (as "@const.N"); they are not state
    arrays = {k: v for k, v in read_params_file(params_file).items() if not k.startswith("@const.")}
    info_path = params_file + ".info"
    if os.path.exists(info_path):  # structured names (fc.weight) where jit.save recorded them, as Paddle does
        with open(info_path, encoding="utf-8") as f:
            info = json.load(f)
        arrays = {info.get(k, {}).get("structured_name", k): v for k, v in arrays.items()}
    return arrays if return_numpy else {k: _to_tensor(v, k) for k, v in arrays.items()}


def load(path, **configs):
    """Load what `save` wrote (``paddle.load``): a state_dict comes back as a dict of Tensors (numpy arrays with
    ``return_numpy=True``), a saved Tensor as a Tensor, other values as they were. Given the path prefix of a
    ``paddle.jit.save`` output, it returns that model's parameters by structured name.

    Nothing in the file is executed: only numpy arrays and Python containers can be loaded, and a file that
    references anything else raises ``pickle.UnpicklingError``.

    Args:
        path (str|BytesIO): the file name, a readable binary buffer, or a ``paddle.jit.save`` path prefix.
        **configs: ``return_numpy`` (bool, default False), ``keep_name_table`` (keep the
            ``StructuredToParameterName@@`` entry of a state_dict, default False), ``params_filename`` (the
            parameter file's suffix for a jit.save prefix, default '.pdiparams'), ``model_filename`` (accepted for
            a jit.save prefix).

    Example:
        >>> import io
        >>> import paddle_fn as paddle
        >>> buffer = io.BytesIO()
        >>> paddle.save({"step": 3, "w": [paddle.to_tensor([1.0, 2.0])]}, buffer)
        >>> _ = buffer.seek(0)
        >>> paddle.load(buffer)["w"][0].numpy()
        array([1., 2.], dtype=float32)
    """
    unknown = sorted(set(configs) - {"return_numpy", "keep_name_table", "params_filename", "model_filename"})
    if unknown:
        raise ValueError(f"The additional config ({', '.join(unknown)}) of `paddle.load` is not supported.")
    return_numpy = bool(configs.get("return_numpy", False))
    if isinstance(path, str):
        if not os.path.exists(path):
            if os.path.exists(path + (configs.get("params_filename") or ".pdiparams")):
                return _load_jit_params(path, configs, return_numpy)
            raise ValueError(f"The ``path`` ({path}) to load model not exists.")
        if os.path.isdir(path):
            raise ValueError(f"paddle.load: {path} is a directory; give the file name (or the path prefix given to "
                             "paddle.jit.save)")
        with open(path, "rb") as f:
            data = _SafeUnpickler(f).load()
    elif hasattr(path, "read"):
        data = _SafeUnpickler(path).load()
    else:
        raise TypeError(f"paddle.load: path must be a file name (str) or a readable binary buffer, got "
                        f"{type(path).__name__}")
    if isinstance(data, dict) and _NAME_TABLE in data:
        data = type(data)(data)
        table = data.pop(_NAME_TABLE)
        if not return_numpy:
            data = type(data)((k, _to_tensor(v) if isinstance(v, np.ndarray) else v) for k, v in data.items())
        if configs.get("keep_name_table", False):
            data[_NAME_TABLE] = table
        return data
    return _decode(data, return_numpy)

