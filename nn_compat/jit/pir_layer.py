"""Running a model PaddlePaddle 3's ``paddle.jit.save`` wrote (``<prefix>.json`` and ``<prefix>.pdiparams``):
`load_pir` reads the program (`pir_program`) and the parameters (``paddle_fn.framework.dense_tensor_file``) and
returns a `PirTranslatedLayer`, whose ``forward`` runs the program's operators one by one as paddle_fn
operations (`pir_ops.OPS`), so it runs eagerly and traces under ``paddle_fn.jit`` / ``to_static`` like any Layer.
"""
from __future__ import annotations

import inspect
import os

import numpy as np

import paddle_fn
from paddle_fn import Tensor
from paddle_fn.framework.dense_tensor_file import read_dense_tensors
from paddle_fn.nn_compat.jit.pir_ops import OPS, OpError
from paddle_fn.nn_compat.jit.pir_program import PirValue, ProgramError, read_pir_program
from paddle_fn.nn_compat.layer.layers import Layer
from paddle_fn.nn_compat.parameter import Parameter

__all__ = ["PirTranslatedLayer", "load_pir"]


def _arity(function):
    """(fewest, most) inputs an op translation takes, None for any number."""
    params = list(inspect.signature(function).parameters.values())[1:]
    if any(p.kind is p.VAR_POSITIONAL for p in params):
        return 0, None
    return sum(p.default is p.empty for p in params), len(params)


_ARITY = {name: _arity(function) for name, function in OPS.items()}


class _NotComputed:
    """An op output the translation does not compute (a dropout mask, a training kernel's saved statistics)."""

    def __init__(self, op, index):
        self.op, self.index = op, index


def _shape_fits(shape, declared):
    return len(shape) == len(declared) and all(d < 0 or d == s for s, d in zip(shape, declared))


def _check_type(value, declared: PirValue, what):
    if isinstance(value, (Tensor, np.ndarray)) and declared.shape is not None:
        shape = list(value.shape)
        dtype = value.dtype.name if isinstance(value, Tensor) else str(value.dtype)
        if not _shape_fits(shape, declared.shape) or (declared.dtype and dtype != declared.dtype):
            return (f"{what} has shape {shape} and dtype {dtype}, where the program declares shape "
                    f"{list(declared.shape)} (negative: any size) and dtype {declared.dtype}")
    return None


class PirTranslatedLayer(Layer):
    """The Layer `paddle.jit.load` returns for a model PaddlePaddle 3 saved (``<prefix>.json``): it runs the
    program with its parameters, which it owns as ``param_0``, ``param_1``, ... in the order of the parameter file
    (Paddle's names, so ``state_dict()`` has Paddle's keys; each Parameter keeps its name in the program). The
    program is the one Paddle exported for inference, so ``train()`` and ``eval()`` run it alike, as in Paddle.

    Example:
        >>> import os, tempfile
        >>> import paddle_fn as paddle
        >>> from paddle_fn.nn_compat.jit.pir_layer import PirTranslatedLayer
        >>> path = os.path.join(os.path.dirname(paddle.__file__), "..", "tests", "data", "pir_models", "lenet")
        >>> layer = paddle.jit.load(path)  # written by PaddlePaddle 3.3.1's paddle.jit.save
        >>> isinstance(layer, PirTranslatedLayer), layer(paddle.ones([2, 1, 28, 28])).shape
        (True, paddle.Size([2, 10]))
    """

    def __init__(self, program, arrays):
        super().__init__(name_scope="pir_translated_layer")
        object.__setattr__(self, "_pir", program)
        for i, (spec, array) in enumerate(zip(program.parameters, arrays)):
            param = Parameter(paddle_fn.to_tensor(array), name=spec.name, trainable=spec.trainable)
            param.stop_gradient = spec.stop_gradient
            self.add_parameter(f"param_{i}", param)
        self.eval()

    def forward(self, *inputs):
        """Run the program on `inputs` (Tensors or numpy arrays, one per input of the saved program, of its shapes
        and dtypes; -1 sizes any): one Tensor for a program with one output, else a list, as in Paddle."""
        program = self._pir
        if len(inputs) != len(program.inputs):
            raise TypeError(f"PirTranslatedLayer: the program {program.path} takes {len(program.inputs)} input(s) "
                            f"({[i.name for i in program.inputs]}), got {len(inputs)}")
        env = {}
        for spec, value in zip(program.inputs, inputs):
            value = paddle_fn.to_tensor(value) if isinstance(value, np.ndarray) else value
            problem = _check_type(value, spec.type, f"input '{spec.name}'") if isinstance(value, Tensor) else \
                f"input '{spec.name}' is a {type(value).__name__}, not a Tensor"
            if problem:
                raise ValueError(f"PirTranslatedLayer: {problem}")
            env[spec.value] = value
        for spec, (_, param) in zip(program.parameters, self.named_parameters()):
            env[spec.value] = param
        for op in program.ops:
            _run_op(program.path, op, env)
        outs = [_defined(env[v], program.path, "the program's output") for v in program.outputs]
        return outs[0] if len(outs) == 1 else outs


def _defined(value, path, user):
    if isinstance(value, _NotComputed):
        raise ProgramError(f"paddle.jit.load: {path}: {user} uses output {value.index} of {value.op.name}, which "
                           "paddle_fn does not compute (it is an output of Paddle's training kernel, which an "
                           "exported inference program does not read)")
    return value


def _run_op(path, op, env):
    args = [None if v == 0 else _defined(env[v], path, f"op {op.index} ({op.name})") for v in op.inputs]
    try:
        result = OPS[op.name](op, *args)
    except ProgramError:  # an attribute the op needs is missing: the message names the op and the file
        raise
    except (OpError, paddle_fn.PaddleFnError, ValueError, TypeError, IndexError, AttributeError) as e:
        # an attribute of the wrong kind or size reaches a paddle_fn op: name the op, keep the cause
        raise ProgramError(f"paddle.jit.load: {path}: op {op.index} ({op.name}) failed: {e}") from e
    results = result if isinstance(result, tuple) else (result,)
    for i, (value, declared) in enumerate(zip(op.outputs, op.types)):
        out = results[i] if i < len(results) and results[i] is not None else _NotComputed(op, i)
        problem = _check_type(out, declared, f"output {i}")
        if problem:
            raise ProgramError(f"paddle.jit.load: {path}: op {op.index} ({op.name}): {problem}; the program and "
                               "its translation disagree")
        env[value] = out


def _check_arity(program):
    for op in program.ops:
        fewest, most = _ARITY[op.name]
        if len(op.inputs) < fewest or (most is not None and len(op.inputs) > most):
            expected = f"{fewest}" if fewest == most else f"{fewest} to {most if most is not None else 'any'}"
            raise ProgramError(f"paddle.jit.load: {program.path}: op {op.index} ({op.name}) has {len(op.inputs)} "
                               f"inputs, expected {expected}; the file is damaged or crafted")


def _check_parameters(program, arrays, params_file):
    for spec, array in zip(program.parameters, arrays):
        problem = _check_type(array, spec.type, f"the parameter '{spec.name}' in {params_file}")
        if problem:
            raise ProgramError(f"paddle.jit.load: {problem} in {program.path}; the parameter file does not belong "
                               "to this program")


def load_pir(prefix):
    """The `PirTranslatedLayer` of the model PaddlePaddle 3 saved at `prefix` (``prefix.json``, ``prefix.pdiparams``).
    Reading runs no code from the files; a malformed file, an operator paddle_fn does not translate, or a
    parameter file that does not match the program gives a ValueError naming the file."""
    program = read_pir_program(prefix + ".json", OPS)
    _check_arity(program)
    params_file = prefix + ".pdiparams"
    if program.parameters or os.path.exists(params_file):
        if not os.path.exists(params_file):
            raise ValueError(f"paddle.jit.load: {params_file} does not exist; PaddlePaddle writes the parameters of "
                             f"{prefix}.json beside it")
        arrays = read_dense_tensors(params_file, len(program.parameters), who="paddle.jit.load")
    else:
        arrays = []
    _check_parameters(program, arrays, params_file)
    return PirTranslatedLayer(program, arrays)
