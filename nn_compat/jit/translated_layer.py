"""``paddle.jit.save`` / ``paddle.jit.load`` and `TranslatedLayer`: a Layer or function exported as a program
plus its parameters, and loaded back as a Layer that runs without the Python class.

Files, for ``save(layer, "dir/model")`` (Paddle's names; none is a pickle, none can run code when read):

- ``dir/model.pdmodel``: JSON: the traced program of ``forward`` in train and in eval mode (the paddle_fn IR, with
  dynamic dimensions symbolic, see ``paddle_fn.static.program_io``), the inputs' names, shapes and dtypes, the
  output structure, and the parameters' and buffers' names, shapes and dtypes.
- ``dir/model.pdiparams``: the parameter and buffer values by name, an ``.npz`` archive (read with
  ``allow_pickle=False``), plus the constants the program captured (``@const.N``).
- ``dir/model.pdiparams.info``: JSON mapping each stored name to its structured name (``fc.weight``), which
  ``paddle.load("dir/model")`` uses to return a state_dict.

Other methods converted with ``@to_static`` are saved as ``dir/model.<method>.pdmodel`` / ``.pdiparams``, as
Paddle does, and are methods of the loaded layer. ``dir/model.pdmodel`` lists them (``"methods"``), and `load` reads
exactly the files listed: another ``dir/model.<name>.pdmodel`` placed beside them is never read (docs/security.md).
A model saved before that list existed loads its ``forward`` only, with a warning.
"""
from __future__ import annotations

import contextlib
import functools
import json
import os
import warnings

import numpy as np

import paddle_fn
from paddle_fn import Tensor
from paddle_fn.framework.io import atomic_write, read_params_file, write_params_file
from paddle_fn.static.program_io import ExportError, ExportedProgram, export
from paddle_fn.nn_compat.bridge import functional_call, update_state
from paddle_fn.nn_compat.jit.dy2static import convert_function
from paddle_fn.nn_compat.jit.pir_layer import load_pir
from paddle_fn.nn_compat.jit.static_function import StaticFunction, _MethodCall
from paddle_fn.nn_compat.layer.layers import Layer
from paddle_fn.nn_compat.parameter import Parameter, _as_dtype
from paddle_fn.static import InputSpec

__all__ = ["TranslatedLayer", "load", "save"]

FORMAT = "paddle_fn.jit/1"
_CONST = "@const."


# ----------------------------------------------------------------------------------------------- structures

def _encode_tree(obj, leaves):
    """A JSON description of an output structure; Tensors are appended to `leaves`."""
    if isinstance(obj, Tensor):
        leaves.append(obj)
        return {"leaf": len(leaves) - 1}
    if obj is None:
        return None
    if isinstance(obj, (tuple, list)):
        return {type(obj).__name__: [_encode_tree(v, leaves) for v in obj]}
    if isinstance(obj, dict) and all(isinstance(k, str) for k in obj):
        return {"dict": [[k, _encode_tree(v, leaves)] for k, v in obj.items()]}
    raise TypeError(f"paddle.jit.save: the function returns a {type(obj).__name__}; return Tensors, or tuples, "
                    "lists and dicts (string keys) of Tensors")


def _decode_tree(desc, leaves):
    if desc is None:
        return None
    if "leaf" in desc:
        return leaves[desc["leaf"]]
    if "tuple" in desc:
        return tuple(_decode_tree(v, leaves) for v in desc["tuple"])
    if "list" in desc:
        return [_decode_tree(v, leaves) for v in desc["list"]]
    return {k: _decode_tree(v, leaves) for k, v in desc["dict"]}


def _specs(input_spec, arg_names, what):
    """Flat InputSpecs for the Tensor inputs and a function rebuilding the call arguments from Tensors."""
    leaves, treedef = paddle_fn.tree_flatten(list(input_spec))
    specs, where = [], []
    for i, leaf in enumerate(leaves):
        if isinstance(leaf, Tensor):
            leaf = InputSpec.from_tensor(leaf)
        elif isinstance(leaf, np.ndarray):
            leaf = InputSpec.from_numpy(leaf)
        if isinstance(leaf, InputSpec):
            if leaf.name is None or leaf.name.startswith("generated_tensor_"):
                leaf = InputSpec(leaf.shape, leaf.dtype, arg_names[i] if i < len(arg_names) else f"input_{i}",
                                 leaf.stop_gradient)
            specs.append(leaf)
            where.append(i)
    if not specs:
        raise ValueError(f"paddle.jit.save({what}): input_spec has no InputSpec or Tensor")

    def rebuild(tensors):
        filled = list(leaves)
        for i, t in zip(where, tensors):
            filled[i] = t
        return paddle_fn.tree_unflatten(treedef, filled)
    return specs, rebuild


def _symbolic_shape(spec):
    return [f"d{axis}" if d == -1 else d for axis, d in enumerate(spec.shape)]


def _arg_names(function):
    code = getattr(function, "__code__", None)
    if code is None:
        return []
    names = list(code.co_varnames[:code.co_argcount])
    return names[1:] if names and names[0] == "self" else names


# ----------------------------------------------------------------------------------------------- save

def _layer_methods(layer, input_spec):
    """name -> (eager function, input_spec) of the methods to save: forward and the to_static methods."""
    methods = {}
    forward = layer.__dict__.get("forward", getattr(type(layer), "forward"))
    for klass in type(layer).__mro__:
        for name, value in vars(klass).items():
            if isinstance(value, StaticFunction) and name != "forward" and name not in methods:
                methods[name] = (value.dygraph_function, value.input_spec)
    if isinstance(forward, StaticFunction):
        spec = input_spec if input_spec is not None else forward.input_spec
        bound = forward.__get__(layer) if forward.instance is None else forward
        if spec is None and bound.last_input_spec is not None:
            spec = _LastCall(bound.last_input_spec)
        methods["forward"] = (forward.dygraph_function, spec)
    elif input_spec is not None or not methods:
        methods["forward"] = (forward, input_spec)
    for name, (_, spec) in methods.items():
        if spec is None:
            raise ValueError(f"paddle.jit.save: no input_spec for {type(layer).__name__}.{name}: give input_spec "
                             "(one InputSpec or example Tensor per argument) to paddle.jit.save or to "
                             "@paddle.jit.to_static, or call the converted layer once before saving")
    return methods


def _state(layer):
    entries = []
    for name, p in layer.named_parameters():
        entries.append(("parameter", name, p))
    persistable = set(layer.state_dict())
    for name, b in layer.named_buffers():
        entries.append(("buffer", name, b))
    names, used = [], set()
    for kind, structured, t in entries:
        var = getattr(t, "name", None) or structured
        while var in used or var.startswith(_CONST):
            var += "_"
        used.add(var)
        names.append({"name": var, "structured_name": structured, "kind": kind, "shape": list(t.shape),
                      "dtype": t.dtype.name, "stop_gradient": bool(t.stop_gradient),
                      "persistable": kind == "parameter" or structured in persistable})
    return entries, names


class _LastCall(list):
    """The InputSpecs of a converted method's last call: saved with the batch dimension dynamic where it traces."""


def _any_batch(spec):
    """`spec` with the leading dimension of every InputSpec of rank >= 1 dynamic."""
    return paddle_fn.tree_map(lambda s: InputSpec([None] + list(s.shape[1:]), s.dtype, s.name, s.stop_gradient)
                              if isinstance(s, InputSpec) and len(s.shape) else s, list(spec))


def _export(layer, function, input_spec, what):
    """`_export_method`; a method saved from its last call's shapes (no input_spec given) is saved with every
    input's batch dimension dynamic when it traces so, as Paddle's saved programs run any batch size, and with the
    call's own shapes when it does not (a reshape that bakes the batch size in)."""
    if isinstance(input_spec, _LastCall):
        try:
            return _export_method(layer, function, _any_batch(input_spec), what)
        except (paddle_fn.PaddleFnError, ExportError):
            input_spec = list(input_spec)
    return _export_method(layer, function, input_spec, what)


def _export_method(layer, function, input_spec, what):
    specs, rebuild = _specs(input_spec, _arg_names(function), what)
    entries, meta = _state(layer) if layer is not None else ([], [])
    state_names = [structured for _, structured, _ in entries]
    n_state = len(entries)
    n_buffers = sum(1 for kind, _, _ in entries if kind == "buffer")
    shapes = [list(t.shape) for _, _, t in entries] + [_symbolic_shape(s) for s in specs]
    dtypes = [t.dtype for _, _, t in entries] + [_as_dtype(s.dtype) for s in specs]
    programs, outputs, consts, unavailable = {}, {}, {}, {}
    # the layer's current mode first: it must trace; the other is saved too when it traces (a train-mode forward
    # drawing from the global RNG, such as dropout, does not, so a model exported in eval mode still saves)
    if layer is None:
        modes = ("eval",)
    else:
        modes = ("train", "eval") if layer.training else ("eval", "train")
    saved_modes = [(sub, sub.training) for sub in layer.sublayers(include_self=True)] if layer is not None else []
    try:
        for mode in modes:
            if layer is not None:
                layer.train() if mode == "train" else layer.eval()
            store = {}

            def flat_fun(*flat):
                args = rebuild(list(flat[n_state:]))
                if layer is None:
                    out = function(*args)
                    buffers = []
                else:
                    state = {"inner." + k: v for k, v in zip(state_names, flat[:n_state])}
                    out, new = functional_call(_MethodCall(layer, function), state, *args, return_buffers=True)
                    buffers = [new["inner." + name] for kind, name, _ in entries if kind == "buffer"]
                leaves = []
                store["tree"] = _encode_tree(out, leaves)
                return leaves + buffers

            try:
                doc, captured = export(flat_fun, shapes, dtypes, name=what)
            except (paddle_fn.PaddleFnError, ExportError) as e:
                if mode == modes[0]:
                    raise
                unavailable[mode] = str(e)
                continue
            programs[mode], outputs[mode], consts[mode] = doc, store["tree"], captured
    finally:
        for sub, training in saved_modes:
            sub.training = training
    arrays = {}
    for m, (_, _, t) in zip(meta, entries):
        arrays[m["name"]] = _numpy(t)
    const_names = {}
    for mode in programs:
        const_names[mode] = []
        for c in consts[mode]:
            key = f"{_CONST}{len(arrays)}"
            arrays[key] = _numpy(c)
            const_names[mode].append([key, c.dtype.name])
    model = {"format": FORMAT, "kind": "layer" if layer is not None else "function", "name": what,
             "inputs": [{"name": s.name, "shape": list(s.shape), "dtype": _as_dtype(s.dtype).name} for s in specs],
             "state": meta, "buffers": n_buffers, "programs": programs, "outputs": outputs, "consts": const_names,
             "unavailable": unavailable}
    return model, arrays


def _numpy(t):
    a = np.asarray(t.numpy())
    return a.view(np.uint16) if t.dtype == paddle_fn.bfloat16 else a


def _check_path(path, what):
    if not isinstance(path, str):
        raise TypeError(f"{what}: path must be a str (a path prefix such as 'output/model'), got {type(path).__name__}")
    dirname, prefix = os.path.split(path)
    if prefix == "":
        raise ValueError("The input path MUST be format of dirname/file_prefix [dirname\\file_prefix in Windows "
                         "system], but received file_prefix is empty string.")
    return dirname


def save(layer, path, input_spec=None, **configs):
    """Save a Layer (its ``forward`` and its other ``@to_static`` methods, with parameters and buffers) or a
    function as a program that `load` runs without the Python code (``paddle.jit.save``).

    Args:
        layer (Layer|function): the Layer, or a function (then only its program is saved: it may not use
            parameters other than its inputs).
        path (str): the path prefix: ``path.pdmodel``, ``path.pdiparams`` and ``path.pdiparams.info`` are written
            (the directory is created).
        input_spec (list, optional): one InputSpec (``None`` dims are dynamic) or example Tensor per argument of
            forward; other values are passed as they are. Default: the ``input_spec`` of ``@to_static``, else the
            shapes of the last call of the converted layer.
        **configs: ``output_spec`` (only None) and ``with_hook`` (only False) are accepted as in Paddle.

    Example:
        >>> import os, tempfile
        >>> import paddle_fn as paddle
        >>> from paddle_fn.static import InputSpec
        >>> paddle.seed(0)
        >>> net = paddle.nn.Linear(4, 2)
        >>> path = os.path.join(tempfile.mkdtemp(), "linear")
        >>> paddle.jit.save(net, path, input_spec=[InputSpec([None, 4], 'float32', 'x')])
        >>> loaded = paddle.jit.load(path)
        >>> x = paddle.ones([3, 4])
        >>> bool(paddle.allclose(loaded(x), net(x)))
        True
    """
    unknown = sorted(set(configs) - {"output_spec", "with_hook"})
    if unknown:
        raise ValueError(f"The additional config ({', '.join(unknown)}) of `paddle.jit.save` is not supported.")
    if configs.get("output_spec") is not None:
        raise NotImplementedError("paddle.jit.save(output_spec=...): pruning the outputs is not supported; return "
                                  "only the outputs you need from forward")
    if configs.get("with_hook", False):
        raise NotImplementedError("paddle.jit.save(with_hook=True): forward hooks are not saved; call them in forward")
    dirname = _check_path(path, "paddle.jit.save")
    if input_spec is not None and not isinstance(input_spec, (list, tuple)):
        raise TypeError(f"paddle.jit.save: input_spec must be a list of InputSpec or Tensors, got "
                        f"{type(input_spec).__name__}")
    if isinstance(layer, Layer):
        jobs = [(name, layer, fn, spec) for name, (fn, spec) in _layer_methods(layer, input_spec).items()]
    elif callable(layer):
        function = layer.dygraph_function if isinstance(layer, StaticFunction) else layer
        spec = input_spec
        if spec is None and isinstance(layer, StaticFunction):
            spec = layer.input_spec
            if spec is None and layer.last_input_spec is not None:
                spec = _LastCall(layer.last_input_spec)
        if spec is None:
            raise ValueError("paddle.jit.save: saving a function needs input_spec (one InputSpec per argument)")
        jobs = [("forward", None, function, spec)]
    else:
        raise TypeError(f"paddle.jit.save: expected a Layer or a function, got {type(layer).__name__}")
    # saved programs are traced from the converted source, so Python control flow on Tensors is saved as cond/while
    outputs = [(name, *_export(owner, convert_function(fn), spec, name)) for name, owner, fn, spec in jobs]
    if dirname:
        os.makedirs(dirname, exist_ok=True)
    # one .info file for all methods, as in Paddle
    info = {m["name"]: {"structured_name": m["structured_name"]} for _, model, _ in outputs for m in model["state"]}
    # load reads exactly the methods listed here, so a file planted beside the model cannot add or replace one
    for name, model, _ in outputs:
        if name == "forward":
            model["methods"] = [n for n, _, _ in outputs]
    # every file is written in full before any replaces its previous version, so a failed save leaves the previous
    # model loadable; they replace it as the block exits, in reverse order: the parameters (the long fsync) first
    with contextlib.ExitStack() as files:
        json.dump(info, files.enter_context(atomic_write(path + ".pdiparams.info", "w", encoding="utf-8")))
        for name, model, arrays in outputs:
            prefix = path if name == "forward" else f"{path}.{name}"
            json.dump(model, files.enter_context(atomic_write(prefix + ".pdmodel", "w", encoding="utf-8")))
            write_params_file(files.enter_context(atomic_write(prefix + ".pdiparams")), arrays)


# ----------------------------------------------------------------------------------------------- load

class _Program:
    """One saved method: its programs per mode, input descriptions and output structures."""

    def __init__(self, model):
        self.name = model["name"]
        self.inputs = model["inputs"]
        self.outputs = model["outputs"]
        self.n_buffers = model["buffers"]
        self.programs = {mode: ExportedProgram(doc, self.name) for mode, doc in model["programs"].items()}
        self.unavailable = model.get("unavailable", {})

    def mode(self, training):
        """The saved program to run in this mode (a function has one program, for both)."""
        if len(self.programs) == 1 and not self.unavailable:
            return next(iter(self.programs))
        mode = "train" if training else "eval"
        if mode not in self.programs:
            raise RuntimeError(f"TranslatedLayer.{self.name}: no {mode}-mode program was saved (tracing forward in "
                               f"{mode} mode failed when the model was saved: {self.unavailable.get(mode)}); call "
                               f"{'eval' if mode == 'train' else 'train'}() or save the model again in {mode} mode")
        return mode

    def sizes(self, tensors):
        if len(tensors) != len(self.inputs):
            raise TypeError(f"TranslatedLayer.{self.name}: the saved program takes {len(self.inputs)} Tensor input(s) "
                            f"({[i['name'] for i in self.inputs]}), got {len(tensors)}")
        sizes = {}
        for t, spec in zip(tensors, self.inputs):
            shape = list(t.shape)
            ok = len(shape) == len(spec["shape"]) and t.dtype.name == spec["dtype"]
            for axis, (got, want) in enumerate(zip(shape, spec["shape"])):
                if want == -1:
                    ok = ok and sizes.setdefault(f"d{axis}", got) == got
                else:
                    ok = ok and got == want
            if not ok:
                raise ValueError(f"TranslatedLayer.{self.name}: input '{spec['name']}' was saved with shape "
                                 f"{spec['shape']} and dtype {spec['dtype']} (-1: any size, the same for every "
                                 f"input at that axis), got shape {shape} and dtype {t.dtype.name}")
        return sizes


class TranslatedLayer(Layer):
    """The Layer that `load` returns: it runs the saved programs with the saved parameters and buffers (which it
    owns under their structured names, so ``state_dict()`` and ``set_state_dict`` work as for the original).
    It starts in eval mode, as in Paddle; ``train()`` / ``eval()`` select the program traced in that mode. Its
    parameters are trainable, so it can be fine-tuned with ``loss.backward()`` and an optimizer, and saved again
    with ``paddle.jit.save``.

    Example:
        >>> import os, tempfile
        >>> import paddle_fn as paddle
        >>> from paddle_fn.static import InputSpec
        >>> path = os.path.join(tempfile.mkdtemp(), "net")
        >>> paddle.jit.save(paddle.nn.Linear(3, 1), path, input_spec=[InputSpec([None, 3])])
        >>> layer = paddle.jit.load(path)
        >>> [name for name, _ in layer.named_parameters()]
        ['weight', 'bias']
        >>> layer(paddle.ones([5, 3])).shape
        paddle.Size([5, 1])
    """

    def __init__(self, programs, state_meta, arrays, consts):
        super().__init__(name_scope="translated_layer")
        object.__setattr__(self, "_programs", programs)
        object.__setattr__(self, "_consts", consts)
        for method in programs:
            if method != "forward":  # as in Paddle, saved methods are attributes of the instance
                object.__setattr__(self, method, functools.partial(self._run, method))
        self._state_names = []
        for m in state_meta:
            value = arrays[m["name"]]
            dtype = _as_dtype(m["dtype"])
            tensor = paddle_fn.to_tensor(value.view(dtype.np) if dtype == paddle_fn.bfloat16 else value)
            *path, leaf = m["structured_name"].split(".")
            owner = self
            for part in path:
                child = owner._sub_layers.get(part)
                if child is None:
                    child = Layer(name_scope=part)
                    owner.add_sublayer(part, child)
                owner = child
            if m["kind"] == "parameter":
                param = Parameter(tensor, name=m["name"], trainable=not m["stop_gradient"])
                owner.add_parameter(leaf, param)
            else:
                tensor.name = m["name"]
                owner.register_buffer(leaf, tensor, persistable=m["persistable"])
            self._state_names.append((m["kind"], m["structured_name"]))
        self.eval()  # as Paddle 3's TranslatedLayer: loaded for inference; call train() to fine-tune

    def _state_values(self):
        params = dict(self.named_parameters(remove_duplicate=False))
        buffers = dict(self.named_buffers())
        return [params[n] if kind == "parameter" else buffers[n] for kind, n in self._state_names]

    def _run(self, method, *args):
        program = self._programs[method]
        tensors = [paddle_fn.to_tensor(x) if isinstance(x, np.ndarray) else x
                   for x in paddle_fn.tree_flatten(list(args))[0]]
        if not all(isinstance(t, Tensor) for t in tensors):
            raise TypeError(f"TranslatedLayer.{method}: the saved program takes Tensors only")
        sizes = program.sizes(tensors)
        mode = program.mode(self.training)
        state = self._state_values()
        outs = program.programs[mode].call(sizes, [*self._consts[method][mode], *state, *tensors])
        n_buf = program.n_buffers
        leaves, new_buffers = (outs[:len(outs) - n_buf], outs[len(outs) - n_buf:]) if n_buf else (outs, [])
        if new_buffers and not any(_is_tracer(t) for t in new_buffers):
            names = [n for kind, n in self._state_names if kind == "buffer"]
            update_state(self, {n: b.detach() for n, b in zip(names, new_buffers)})  # no gradient history
        return _decode_tree(program.outputs[mode], leaves)

    def forward(self, *inputs):
        """Run the saved forward program on `inputs` (Tensors of the saved shapes; -1 dims any size)."""
        return self._run("forward", *inputs)

    def program(self, method_name="forward"):
        """The saved program of `method_name` in the current mode, specialised for the base sizes of its dynamic
        dimensions (print it to read the IR)."""
        if method_name not in self._programs:
            raise ValueError(f"TranslatedLayer has no saved method '{method_name}'; it has {sorted(self._programs)}")
        p = self._programs[method_name]
        exported = p.programs[p.mode(self.training)]
        return exported.specialise({s: 3 for s in exported.symbols})


def _is_tracer(t):
    return isinstance(t, paddle_fn.Tracer)


_PADDLE_HELP = ("paddle_fn runs the programs PaddlePaddle 3 saves as <prefix>.json (PIR), not PaddlePaddle's older "
                "protobuf programs: save the model again with PaddlePaddle 3's paddle.jit.save, or write it as a "
                "paddle_fn Layer in Python and load its weights as a state_dict: in PaddlePaddle, "
                "paddle.save(paddle.jit.load({prefix!r}).state_dict(), 'model.pdparams'), then in paddle_fn "
                "layer.set_state_dict(paddle.load('model.pdparams'))")


def _paddle_format(prefix, model_file, what):
    return ValueError(f"paddle.jit.load: {model_file} is {what}, which paddle_fn does not read (paddle_fn's "
                      "paddle.jit.save writes a JSON .pdmodel of its own); " + _PADDLE_HELP.format(prefix=prefix))


def _read_model(prefix, method):
    """The JSON model of one saved method, refusing with a clear error what paddle_fn's jit.save did not write."""
    model_file = prefix + ".pdmodel"
    if not os.path.exists(model_file):
        if method == "forward":
            raise ValueError(f"paddle.jit.load: {model_file} does not exist; give the path prefix passed to "
                             "paddle.jit.save")
        raise ValueError(f"paddle.jit.load: {prefix}.pdmodel lists the saved method '{method}', but {model_file} "
                         "does not exist (the save is incomplete or the file was removed); save the model again")
    with open(model_file, "rb") as f:
        raw = f.read()
    try:
        model = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        raise _paddle_format(prefix, model_file, "not JSON: PaddlePaddle's protobuf program format, or a damaged "
                             "file") from None
    if not isinstance(model, dict) or model.get("format") != FORMAT:
        if isinstance(model, dict) and {"base_code", "program"} & set(model):
            raise _paddle_format(prefix, model_file, "PaddlePaddle 3's JSON/PIR program format under the "
                                 "name .pdmodel (PaddlePaddle names it .json: rename it)")
        raise ValueError(f"paddle.jit.load: {model_file} is not a paddle_fn model (format "
                         f"{model.get('format') if isinstance(model, dict) else None!r}, expected {FORMAT!r}); "
                         "save the model with paddle_fn's paddle.jit.save")
    if model.get("name") != method:  # a file copied or renamed from another method or model
        raise ValueError(f"paddle.jit.load: {model_file} holds the program of '{model.get('name')}', not of "
                         f"'{method}'; it was renamed or copied in: save the model again")
    return model


def _read_params(path):
    return read_params_file(path, who="paddle.jit.load")


def _saved_methods(model, prefix):
    """The methods `save` listed in the forward model, or ``["forward"]`` (with a warning when other method files
    lie beside it) for a model saved before the list was written: those files are never read."""
    listed = model.get("methods")
    if listed is None:
        dirname, base = os.path.split(prefix)
        others = sorted(entry for entry in os.listdir(dirname or ".")
                        if entry.startswith(base + ".") and entry.endswith(".pdmodel") and entry != base + ".pdmodel")
        if others:
            warnings.warn(f"paddle.jit.load: {prefix}.pdmodel was saved by an older paddle_fn that did not list the "
                          f"saved methods, so only forward is loaded and {others} are not read (any file placed "
                          "beside the model could otherwise add or replace a method); save the model again with "
                          "paddle.jit.save to load its other methods", stacklevel=3)
        return ["forward"]
    # a method becomes an attribute of the loaded layer (a saved `double` hides Layer.double, as on the original
    # class), so a name must not reach TranslatedLayer's own machinery or a file path outside the prefix
    reserved = set(vars(TranslatedLayer)) - {"forward"}
    if (not isinstance(listed, list) or "forward" not in listed or len(set(listed)) != len(listed)
            or not all(isinstance(n, str) and n.isidentifier() and not n.startswith("__") and n not in reserved
                       for n in listed)):
        raise ValueError(f"paddle.jit.load: {prefix}.pdmodel lists the saved methods {listed!r}; expected distinct "
                         "Python identifiers, 'forward' among them, none a name TranslatedLayer uses itself: the "
                         "file is damaged or crafted; save the model again")
    return listed


def _state_key(meta):
    return [(m["name"], list(m["shape"]), m["dtype"]) for m in meta]


def _check_arrays(model, arrays, prefix, method, state):
    """Check the stored weights and constants against the model's metadata at load, rather than failing later
    inside the compiler with a message that names neither the parameter nor the file."""
    params_file = f"{prefix}.pdiparams"
    if method != "forward" and _state_key(model["state"]) != _state_key(state):
        raise ValueError(f"paddle.jit.load: {prefix}.pdmodel (method '{method}') expects other parameters and "
                         "buffers than the model's forward: the files come from different saves; save the model "
                         "again")
    for m in model["state"] if method == "forward" else ():  # a method runs with forward's state
        name = m["name"]
        dtype = _as_dtype(m["dtype"])
        want = np.dtype(np.uint16) if dtype == paddle_fn.bfloat16 else np.dtype(dtype.np)
        found = arrays.get(name)
        if found is None:
            raise ValueError(f"paddle.jit.load: {params_file} has no array for the {m['kind']} '{name}' "
                             f"({m['structured_name']}) that {prefix}.pdmodel expects; save the model again")
        if list(found.shape) != list(m["shape"]) or found.dtype != want:
            raise ValueError(f"paddle.jit.load: the {m['kind']} '{name}' ({m['structured_name']}) in {params_file} "
                             f"has shape {list(found.shape)} and dtype {found.dtype}, but {prefix}.pdmodel expects "
                             f"shape {list(m['shape'])} and dtype {m['dtype']}; the weights file does not belong to "
                             "this model: save the model again")
    for keys in model["consts"].values():
        for key, _ in keys:
            if key not in arrays:
                raise ValueError(f"paddle.jit.load: {params_file} has no array for the constant '{key}' that "
                                 f"{prefix}.pdmodel expects; save the model again")

def load(path, **configs):
    """Load what `save` wrote as a `TranslatedLayer` (``paddle.jit.load``), or what PaddlePaddle 3's
    ``paddle.jit.save`` wrote (``path.json`` and ``path.pdiparams``) as a `PirTranslatedLayer` that runs the
    program's operators as paddle_fn operations. The files are read as data: no code from them runs, and the
    Python class of the saved layer is not needed.

    Args:
        path (str): the path prefix given to `save`.
        **configs: Paddle's ``model_filename`` / ``params_filename`` (for Paddle's own formats) are not supported.

    Returns:
        TranslatedLayer, or PirTranslatedLayer for a model PaddlePaddle 3 saved

    Example:
        >>> import os, tempfile
        >>> import paddle_fn as paddle
        >>> from paddle_fn.static import InputSpec
        >>> def fun(x):
        ...     return paddle.tanh(x)
        >>> path = os.path.join(tempfile.mkdtemp(), "func")
        >>> paddle.jit.save(fun, path, input_spec=[InputSpec(shape=[None, 6], dtype='float32', name='x')])
        >>> loaded = paddle.jit.load(path)
        >>> x = paddle.rand([3, 6])
        >>> bool(paddle.allclose(loaded(x), paddle.tanh(x)))
        True
    """
    if configs:
        raise NotImplementedError(f"paddle.jit.load: the configs {sorted(configs)} (for Paddle's own model files) "
                                  "are not supported")
    _check_path(path, "paddle.jit.load")
    if not os.path.exists(path + ".pdmodel") and os.path.exists(path + ".json"):
        return load_pir(path)  # PaddlePaddle 3's paddle.jit.save output
    model = _read_model(path, "forward")
    arrays = _read_params(path + ".pdiparams")
    _check_arrays(model, arrays, path, "forward", model["state"])
    models, sources = {"forward": model}, {"forward": arrays}
    for name in _saved_methods(model, path):
        if name != "forward":
            prefix = f"{path}.{name}"
            models[name], sources[name] = _read_model(prefix, name), _read_params(prefix + ".pdiparams")
            _check_arrays(models[name], sources[name], prefix, name, model["state"])
    programs = {name: _Program(m) for name, m in models.items()}
    consts = {}
    for name, m in models.items():
        source = sources[name]
        consts[name] = {mode: [paddle_fn.to_tensor(source[key]).astype(dtype) if dtype != "bfloat16" else
                               paddle_fn.to_tensor(source[key].view(paddle_fn.bfloat16.np))
                               for key, dtype in keys] for mode, keys in m["consts"].items()}
    return TranslatedLayer(programs, model["state"], arrays, consts)
