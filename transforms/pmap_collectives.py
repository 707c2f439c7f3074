"""The `Collectives` backend interface pmap performs its collectives through, and the in-process backend.

pmap runs each compiled segment of its program on every device, then performs the collective that ends the
segment on the host: it hands the backend the value of every local device (in order along the mapped axis) and
gets back each local device's result. The in-process backend combines the arrays it is given; a backend spanning
several processes (MPI) combines them with the other processes' values and returns this process's part, with
`first_index` telling where this process's devices sit along the global axis.
"""
from __future__ import annotations

import numpy as np


class Collectives:
    """What pmap needs from a communication backend. `arrays` is the list of this process's per-device values
    (numpy arrays, in axis order); every method returns one result per local device, in the same order.

    Example:
        >>> import paddle_fn as paddle
        >>> from paddle_fn.transforms.pmap_collectives import InProcessCollectives
        >>> class Counting(InProcessCollectives):   # a backend is passed to pmap
        ...     calls = 0
        ...     def all_reduce(self, arrays, op):
        ...         Counting.calls += 1
        ...         return super().all_reduce(arrays, op)
        >>> f = paddle.pmap(lambda v: paddle.psum(v, 'i'), axis_name='i', devices=paddle.devices()[:1],
        ...                 backend=Counting())
        >>> f(paddle.ones([1, 3])).numpy(), Counting.calls
        (array([[1., 1., 1.]], dtype=float32), 1)
    """

    def first_index(self, local_count: int) -> int:
        """The global axis index of this process's first device."""
        raise NotImplementedError

    def axis_size(self, local_count: int) -> int:
        """The global size of the mapped axis (the devices of every process)."""
        raise NotImplementedError

    def all_reduce(self, arrays: list, op: str) -> list:
        """op 'sum', 'max' or 'min' over every device; each gets the result."""
        raise NotImplementedError

    def all_gather(self, arrays: list, axis: int, tiled: bool) -> list:
        """Every device's value stacked along a new `axis` (concatenated along `axis` when tiled)."""
        raise NotImplementedError

    def reduce_scatter(self, arrays: list, scatter_dimension: int, tiled: bool) -> list:
        """The sum over devices; device i keeps slice i (block i when tiled) of `scatter_dimension`."""
        raise NotImplementedError

    def ppermute(self, arrays: list, perm: tuple) -> list:
        """Device d receives the value of device s for each (s, d) in perm; zeros where nothing is sent."""
        raise NotImplementedError

    def all_to_all(self, arrays: list, split_axis: int, concat_axis: int) -> list:
        """Chunk j of device i's split_axis goes to device j; received chunks are concatenated on concat_axis."""
        raise NotImplementedError


_REDUCE = {"sum": np.add, "max": np.maximum, "min": np.minimum}


class InProcessCollectives(Collectives):
    """All devices of the mapped axis belong to this process: the collectives are numpy on the host.

    Example:
        >>> import numpy as np
        >>> from paddle_fn.transforms.pmap_collectives import InProcessCollectives
        >>> InProcessCollectives().reduce_scatter([np.array([1, 2]), np.array([10, 20])], 0, False)
        [np.int64(11), np.int64(22)]
    """

    def first_index(self, local_count):
        return 0

    def axis_size(self, local_count):
        return local_count

    def all_reduce(self, arrays, op):
        ufunc = np.logical_or if op == "sum" and arrays[0].dtype == np.bool_ else _REDUCE[op]
        total = arrays[0]
        for a in arrays[1:]:
            total = ufunc(total, a)
        total = np.asarray(total, dtype=arrays[0].dtype)
        return [total] * len(arrays)

    def all_gather(self, arrays, axis, tiled):
        out = np.concatenate(arrays, axis=axis) if tiled else np.stack(arrays, axis=axis)
        return [out] * len(arrays)

    def reduce_scatter(self, arrays, scatter_dimension, tiled):
        total = self.all_reduce(arrays, "sum")[0]
        n = len(arrays)
        if tiled:
            return np.split(total, n, axis=scatter_dimension)
        return [np.take(total, i, axis=scatter_dimension) for i in range(n)]

    def ppermute(self, arrays, perm):
        out = [np.zeros_like(a) for a in arrays]
        for s, d in perm:
            out[d] = arrays[s]
        return out

    def all_to_all(self, arrays, split_axis, concat_axis):
        n = len(arrays)
        chunks = [np.split(a, n, axis=split_axis) for a in arrays]
        return [np.concatenate([chunks[j][i] for j in range(n)], axis=concat_axis) for i in range(n)]


_IN_PROCESS = InProcessCollectives()
_default_backend = {"factory": None}


def set_default_backend(factory) -> None:
    """Make `factory()`, asked at each call, the backend of every pmap called without ``backend=``
    (``paddle_fn.distributed`` installs one that spans the job's processes once it has several; None restores the
    in-process backend)."""
    _default_backend["factory"] = factory


def default_backend() -> Collectives:
    """The backend of a pmap called without ``backend=``: the installed default's choice, else in-process."""
    factory = _default_backend["factory"]
    return _IN_PROCESS if factory is None else factory()
