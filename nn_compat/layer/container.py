"""Containers: `Sequential`, `LayerList`, `LayerDict`, `ParameterList` (Paddle's ``paddle.nn`` containers).

A plain Python list of layers is not registered by a Layer (its parameters would be invisible to
``parameters()`` and ``state_dict()``); these containers are.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping

from paddle_fn.nn_compat.layer.layers import Layer
from paddle_fn.nn_compat.parameter import Parameter

__all__ = ["LayerDict", "LayerList", "ParameterList", "Sequential"]


def _index(n, idx, what):
    if isinstance(idx, bool) or not isinstance(idx, int):
        raise TypeError(f"{what} indices must be integers or slices, not {type(idx).__name__}")
    if not -n <= idx < n:
        raise IndexError(f"index {idx} is out of range for a {what} of length {n}")
    return idx + n if idx < 0 else idx


class Sequential(Layer):
    """Layers run one after another: ``Sequential(l1, l2)(x) == l2(l1(x))``.

    Build it from layers (named ``'0'``, ``'1'``, ..., so the state_dict keys are ``0.weight``, ``1.bias``),
    from ``(name, layer)`` pairs, or from an OrderedDict. Index it with an int, a name or a slice (a new
    Sequential); `append`, `insert`, `extend`, ``len`` and iteration work as on a list.

    Args:
        *layers (Layer|tuple(str, Layer)|OrderedDict): the layers.

    Example:
        >>> import paddle_fn as paddle
        >>> model = paddle.nn.Sequential(paddle.nn.Linear(10, 4), paddle.nn.Linear(4, 2))
        >>> model(paddle.ones([3, 10])).shape
        paddle.Size([3, 2])
        >>> list(model.state_dict())
        ['0.weight', '0.bias', '1.weight', '1.bias']
        >>> named = paddle.nn.Sequential(('l1', paddle.nn.Linear(10, 2)), ('l2', paddle.nn.Linear(2, 3)))
        >>> named['l1'], len(named), named[-1] is named['l2']
        (Linear(in_features=10, out_features=2, dtype=float32), 2, True)
    """

    def __init__(self, *layers):
        super().__init__()
        if len(layers) == 1 and isinstance(layers[0], Mapping):
            for name, layer in layers[0].items():
                self.add_sublayer(str(name), layer)
        elif layers and isinstance(layers[0], (list, tuple)):
            for item in layers:
                if not (isinstance(item, (list, tuple)) and len(item) == 2):
                    raise TypeError("Sequential: give layers, or (name, layer) pairs, not a mix of both")
                self.add_sublayer(str(item[0]), item[1])
        else:
            for i, layer in enumerate(layers):
                self.add_sublayer(str(i), layer)

    def _keys(self):
        return list(self._sub_layers.keys())

    def __getitem__(self, name):
        if isinstance(name, slice):
            return type(self)(*list(self._sub_layers.values())[name])
        if isinstance(name, str):
            return self._sub_layers[name]
        keys = self._keys()
        return self._sub_layers[keys[_index(len(keys), name, "Sequential")]]

    def __setitem__(self, name, layer):
        if not isinstance(layer, Layer):
            raise TypeError(f"Sequential: only Layers can be stored, got {type(layer).__name__}")
        if isinstance(name, str):
            key = name
        else:
            keys = self._keys()
            key = keys[_index(len(keys), name, "Sequential")]
        self._sub_layers[key] = layer

    def __delitem__(self, name):
        if isinstance(name, slice):
            for key in self._keys()[name]:
                del self._sub_layers[key]
        elif isinstance(name, str):
            del self._sub_layers[name]
        else:
            keys = self._keys()
            del self._sub_layers[keys[_index(len(keys), name, "Sequential")]]
        self._renumber()

    def _renumber(self):
        """Keep ``'0'..'n-1'`` keys contiguous when every key is positional."""
        if all(k.isdigit() for k in self._sub_layers):
            items = list(self._sub_layers.values())
            self._sub_layers.clear()
            for i, layer in enumerate(items):
                self._sub_layers[str(i)] = layer

    def __len__(self):
        return len(self._sub_layers)

    def __iter__(self):
        return iter(list(self._sub_layers.values()))

    def append(self, layer):
        """Add `layer` at the end (key ``str(len(self))``); returns self.

        Example:
            >>> import paddle_fn as paddle
            >>> model = paddle.nn.Sequential(paddle.nn.Linear(10, 20))
            >>> model.append(paddle.nn.Linear(20, 30))(paddle.ones([2, 10])).shape
            paddle.Size([2, 30])
        """
        self.add_sublayer(str(len(self)), layer)
        return self

    def insert(self, index, layer):
        """Insert `layer` before position `index`; returns self.

        Example:
            >>> import paddle_fn as paddle
            >>> model = paddle.nn.Sequential(paddle.nn.Linear(20, 30))
            >>> model.insert(0, paddle.nn.Linear(10, 20))(paddle.ones([2, 10])).shape
            paddle.Size([2, 30])
        """
        if not isinstance(layer, Layer):
            raise TypeError(f"Sequential.insert: expected a Layer, got {type(layer).__name__}")
        n = len(self)
        if isinstance(index, bool) or not isinstance(index, int) or not -n <= index <= n:
            raise IndexError(f"Sequential.insert: index {index} is out of range for length {n}")
        index = index + n if index < 0 else index
        items = list(self._sub_layers.items())
        if all(k.isdigit() for k, _ in items):
            items = [(None, v) for _, v in items]
            items.insert(index, (None, layer))
            items = [(str(i), v) for i, (_, v) in enumerate(items)]
        else:
            key = str(n)
            while key in self._sub_layers:
                key = "_" + key
            items.insert(index, (key, layer))
        self._sub_layers.clear()
        self._sub_layers.update(items)
        return self

    def extend(self, layers):
        """Append every layer of `layers`; returns self.

        Example:
            >>> import paddle_fn as paddle
            >>> len(paddle.nn.Sequential().extend([paddle.nn.Linear(1, 2), paddle.nn.Linear(2, 3)]))
            2
        """
        for layer in layers:
            self.append(layer)
        return self

    def forward(self, input):  # noqa: A002 - Paddle's argument name
        for layer in self._sub_layers.values():
            input = layer(input)  # noqa: A001
        return input


class LayerList(Layer):
    """A list of layers whose parameters are registered (keys ``'0'``, ``'1'``, ...). It has no forward: the
    owner iterates or indexes it.

    Args:
        sublayers (iterable of Layer, optional): the initial layers.

    Example:
        >>> import paddle_fn as paddle
        >>> class Stack(paddle.nn.Layer):
        ...     def __init__(self):
        ...         super().__init__()
        ...         self.blocks = paddle.nn.LayerList([paddle.nn.Linear(4, 4) for _ in range(3)])
        ...     def forward(self, x):
        ...         for block in self.blocks:
        ...             x = block(x)
        ...         return x
        >>> model = Stack()
        >>> model(paddle.ones([1, 4])).shape, len(model.parameters()), list(model.state_dict())[:2]
        (paddle.Size([1, 4]), 6, ['blocks.0.weight', 'blocks.0.bias'])
    """

    def __init__(self, sublayers=None):
        super().__init__()
        if sublayers is not None:
            for i, layer in enumerate(sublayers):
                self.add_sublayer(str(i), layer)

    def _items(self):
        return list(self._sub_layers.values())

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return type(self)(self._items()[idx])
        return self._sub_layers[str(_index(len(self), idx, "LayerList"))]

    def __setitem__(self, idx, sublayer):
        if not isinstance(sublayer, Layer):
            raise TypeError(f"LayerList: only Layers can be stored, got {type(sublayer).__name__}")
        self._sub_layers[str(_index(len(self), idx, "LayerList"))] = sublayer

    def __delitem__(self, idx):
        items = self._items()
        if isinstance(idx, slice):
            del items[idx]
        else:
            del items[_index(len(items), idx, "LayerList")]
        self._sub_layers.clear()
        for i, layer in enumerate(items):
            self._sub_layers[str(i)] = layer

    def __len__(self):
        return len(self._sub_layers)

    def __iter__(self):
        return iter(self._items())

    def append(self, sublayer):
        """Add `sublayer` at the end; returns self.

        Example:
            >>> import paddle_fn as paddle
            >>> len(paddle.nn.LayerList().append(paddle.nn.Linear(1, 1)))
            1
        """
        self.add_sublayer(str(len(self)), sublayer)
        return self

    def insert(self, index, sublayer):
        """Insert `sublayer` before position `index`.

        Example:
            >>> import paddle_fn as paddle
            >>> layers = paddle.nn.LayerList([paddle.nn.Linear(1, 1)])
            >>> layers.insert(0, paddle.nn.Linear(2, 2)); layers[0].weight.shape
            paddle.Size([2, 2])
        """
        if not isinstance(sublayer, Layer):
            raise TypeError(f"LayerList.insert: expected a Layer, got {type(sublayer).__name__}")
        n = len(self)
        if isinstance(index, bool) or not isinstance(index, int) or not -n <= index <= n:
            raise IndexError(f"LayerList.insert: index {index} is out of range for length {n}")
        items = self._items()
        items.insert(index + n if index < 0 else index, sublayer)
        self._sub_layers.clear()
        for i, layer in enumerate(items):
            self._sub_layers[str(i)] = layer

    def extend(self, sublayers):
        """Append every layer of `sublayers`; returns self.

        Example:
            >>> import paddle_fn as paddle
            >>> len(paddle.nn.LayerList().extend([paddle.nn.Linear(1, 1), paddle.nn.Linear(1, 1)]))
            2
        """
        for layer in sublayers:
            self.append(layer)
        return self


class LayerDict(Layer):
    """An ordered dict of layers whose parameters are registered (keys are the dict keys).

    Args:
        sublayers (dict|OrderedDict|iterable of (str, Layer), optional): the initial layers.

    Example:
        >>> import paddle_fn as paddle
        >>> heads = paddle.nn.LayerDict({"cls": paddle.nn.Linear(4, 3), "box": paddle.nn.Linear(4, 2)})
        >>> list(heads.keys()), heads["box"](paddle.ones([1, 4])).shape, "cls" in heads
        (['cls', 'box'], paddle.Size([1, 2]), True)
        >>> list(heads.state_dict())[0]
        'cls.weight'
    """

    def __init__(self, sublayers=None):
        super().__init__()
        if sublayers is not None:
            self.update(sublayers)

    def __getitem__(self, key):
        return self._sub_layers[key]

    def __setitem__(self, key, sublayer):
        self.add_sublayer(key, sublayer)

    def __delitem__(self, key):
        del self._sub_layers[key]

    def __len__(self):
        return len(self._sub_layers)

    def __iter__(self):
        return iter(list(self._sub_layers.keys()))

    def __contains__(self, key):
        return key in self._sub_layers

    def clear(self):
        """Remove every layer.

        Example:
            >>> import paddle_fn as paddle
            >>> d = paddle.nn.LayerDict({"a": paddle.nn.Linear(1, 1)}); d.clear(); len(d)
            0
        """
        self._sub_layers.clear()

    def pop(self, key):
        """Remove the layer under `key` and return it.

        Example:
            >>> import paddle_fn as paddle
            >>> d = paddle.nn.LayerDict({"a": paddle.nn.Linear(1, 1)})
            >>> d.pop("a"), len(d)
            (Linear(in_features=1, out_features=1, dtype=float32), 0)
        """
        return self._sub_layers.pop(key)

    def keys(self):
        """The keys, in insertion order.

        Example:
            >>> import paddle_fn as paddle
            >>> list(paddle.nn.LayerDict({"a": paddle.nn.Linear(1, 1)}).keys())
            ['a']
        """
        return self._sub_layers.keys()

    def items(self):
        """The ``(key, layer)`` pairs, in insertion order.

        Example:
            >>> import paddle_fn as paddle
            >>> [k for k, _ in paddle.nn.LayerDict({"a": paddle.nn.Linear(1, 1)}).items()]
            ['a']
        """
        return self._sub_layers.items()

    def values(self):
        """The layers, in insertion order.

        Example:
            >>> import paddle_fn as paddle
            >>> len(list(paddle.nn.LayerDict({"a": paddle.nn.Linear(1, 1)}).values()))
            1
        """
        return self._sub_layers.values()

    def update(self, sublayers):
        """Add the layers of a dict or of an iterable of ``(key, layer)`` pairs.

        Example:
            >>> import paddle_fn as paddle
            >>> d = paddle.nn.LayerDict(); d.update([("a", paddle.nn.Linear(1, 1))]); list(d)
            ['a']
        """
        if isinstance(sublayers, (Mapping, LayerDict)):
            pairs = list(sublayers.items())
        elif isinstance(sublayers, Iterable):
            pairs = []
            for i, kv in enumerate(sublayers):
                if not (isinstance(kv, (list, tuple)) and len(kv) == 2):
                    raise ValueError(f"LayerDict.update: element {i} should be a (key, layer) pair, got {kv!r}")
                pairs.append(tuple(kv))
        else:
            raise TypeError(f"LayerDict.update: expected a dict or an iterable of (key, layer) pairs, got "
                            f"{type(sublayers).__name__}")
        for key, layer in pairs:
            self.add_sublayer(key, layer)


class ParameterList(Layer):
    """A list of parameters that are registered (keys ``'0'``, ``'1'``, ...).

    Args:
        parameters (iterable of Parameter, optional): the initial parameters.

    Example:
        >>> import paddle_fn as paddle
        >>> class Weights(paddle.nn.Layer):
        ...     def __init__(self, n):
        ...         super().__init__()
        ...         self.ws = paddle.nn.ParameterList(
        ...             [self.create_parameter([2, 2]) for _ in range(n)])
        >>> model = Weights(3)
        >>> len(model.ws), list(model.state_dict())
        (3, ['ws.0', 'ws.1', 'ws.2'])
    """

    def __init__(self, parameters=None):
        super().__init__()
        if parameters is not None:
            for i, p in enumerate(parameters):
                self.add_parameter(str(i), p)

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return list(self._parameters.values())[idx]
        return self._parameters[str(_index(len(self), idx, "ParameterList"))]

    def __setitem__(self, idx, param):
        if not isinstance(param, Parameter):
            raise TypeError(f"ParameterList: only Parameters can be stored, got {type(param).__name__}")
        self._parameters[str(_index(len(self), idx, "ParameterList"))] = param

    def __len__(self):
        return len(self._parameters)

    def __iter__(self):
        return iter(list(self._parameters.values()))

    def append(self, parameter):
        """Add `parameter` at the end; returns self.

        Example:
            >>> import paddle_fn as paddle
            >>> len(paddle.nn.ParameterList().append(paddle.nn.Parameter([2], 'float32')))
            1
        """
        self.add_parameter(str(len(self)), parameter)
        return self

    def extend(self, parameters):
        """Append every parameter of `parameters`; returns self.

        Example:
            >>> import paddle_fn as paddle
            >>> len(paddle.nn.ParameterList().extend([paddle.nn.Parameter([2], 'float32')] * 2))
            2
        """
        for p in parameters:
            self.append(p)
        return self


class ParameterDict(Layer):
    """An ordered dict of parameters that are registered (keys are the dict keys).

    Args:
        parameters (dict|iterable of (str, Parameter), optional): the initial parameters.

    Example:
        >>> import paddle_fn as paddle
        >>> params = paddle.nn.ParameterDict({"scale": paddle.nn.Parameter(paddle.ones([2]))})
        >>> params.update({"shift": paddle.nn.Parameter(paddle.zeros([2]))})
        >>> len(params), list(params), "shift" in params
        (2, ['scale', 'shift'], True)
        >>> [name for name, _ in params.named_parameters()]
        ['scale', 'shift']
    """

    def __init__(self, parameters=None):
        super().__init__()
        if parameters is not None:
            self.update(parameters)

    def __getitem__(self, key):
        return self._parameters[key]

    def __setitem__(self, key, param):
        self.add_parameter(key, param)

    def __len__(self):
        return len(self._parameters)

    def __iter__(self):
        return iter(list(self._parameters))

    def __contains__(self, key):
        return key in self._parameters

    def update(self, parameters):
        """Add (or replace) the parameters of a dict or of (key, parameter) pairs.

        Example:
            >>> import paddle_fn as paddle
            >>> d = paddle.nn.ParameterDict()
            >>> d.update([("w", paddle.nn.Parameter(paddle.ones([1])))])
            >>> list(d)
            ['w']
        """
        if isinstance(parameters, ParameterDict):
            parameters = parameters._parameters
        items = parameters.items() if isinstance(parameters, Mapping) else parameters
        for key, param in items:
            self.add_parameter(key, param)
