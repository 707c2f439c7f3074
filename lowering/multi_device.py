"""Lower a pmap body to ONE StableHLO module that runs on every device of a mesh (pmap's single-process fast path).

Each device's copy of the program is emitted into the same function; argument and result `k` of device `i` carry
`{iree.abi.affinity = #hal.device.promise<@dev<i>>}`, and IREE places every operation on the device of its
operands. IREE's CPU drivers have no collectives, so a collective becomes data movement inside the module:
`flow.tensor.transfer` of the members' values to one device, ordinary StableHLO operations there, and transfers
of the results back (psum: sum on the group's first device, copies to the others). One invoke then runs the
whole step on every device, with no host round trip between segments (../docs/distributed.md measures both paths).

The program must hold its collectives at the top level (pmap inlines the jit calls that contain one and runs
control flow with a collective inside on the host, through the segment path instead). A collective is a primitive
with a `lower_on_mesh` rule, set in its block to one of the `lower_*` functions below; every other equation is
lowered per device by its rule for the CPU target.
"""
from __future__ import annotations

import math

import numpy as np

from paddle_fn.core.ir import Literal, Program, ShapedArray
from paddle_fn.lowering.emitter import FuncLowering, i64_array, tensor_type
from paddle_fn.lowering.targets import lowering_rule


def mesh_groups(mesh, axis_name) -> list:
    """The devices (flat row-major mesh indices) that a collective over `axis_name` combines, group by group;
    `mesh` is ((axis name, size), ...).

    Example:
        >>> from paddle_fn.lowering.multi_device import mesh_groups
        >>> mesh_groups((("i", 2), ("j", 3)), "i")
        [[0, 3], [1, 4], [2, 5]]
    """
    names = [name for name, _ in mesh]
    sizes = [size for _, size in mesh]
    along = names.index(axis_name)
    groups = {}
    for k, index in enumerate(np.ndindex(*sizes)):
        rest = index[:along] + index[along + 1:]
        groups.setdefault(rest, []).append(k)
    return list(groups.values())


def _device(i: int) -> str:
    return f"#hal.device.promise<@dev{i}>"


def target_device_flags(count: int) -> tuple:
    """The iree-compile flags declaring the module's devices `@dev0 ... @dev<count-1>` (local CPU devices)."""
    return tuple(f"--iree-hal-target-device=dev{i}=local" for i in range(count)) + (
        "--iree-hal-local-target-device-backends=llvm-cpu",)


class MeshCollective:
    """Emits one collective equation for every group of the mesh: `values[k]` is device k's operand name. The
    helpers below are what the collectives' `lower_on_mesh` rules (the `lower_*` functions of this module) use."""

    def __init__(self, ctx: FuncLowering, eqn, mesh, placed: set):
        self.ctx, self.eqn, self.params, self.placed = ctx, eqn, eqn.params, placed
        self.aval_in, self.aval_out = eqn.inputs[0].aval if eqn.inputs else None, eqn.outputs[0].aval
        self.groups = mesh_groups(mesh, eqn.params["axis_name"])

    def transfer(self, value: str, aval: ShapedArray, device: int) -> str:
        if value not in self.placed:
            # computed from constants alone, it has no device yet: every device can use it (IREE 3.13 crashes
            # transferring such a value)
            return value
        res = self.ctx.fresh()
        self.ctx.line(f"{res} = flow.tensor.transfer {value} : {tensor_type(aval)} to {_device(device)}")
        self.placed.add(res)
        return res

    def _track(self, result: str, operands) -> str:
        if any(o in self.placed for o in operands):
            self.placed.add(result)
        return result

    def binary(self, opname: str, a: str, b: str, aval: ShapedArray) -> str:
        return self._track(self.ctx.op(opname, [a, b], aval, in_avals=[aval, aval]), [a, b])

    def reshape(self, value: str, aval: ShapedArray, shape) -> str:
        return self._track(self.ctx.op("stablehlo.reshape", [value], aval.update(shape=tuple(shape)),
                                       in_avals=[aval]), [value])

    def concatenate(self, values, aval: ShapedArray, axis: int) -> str:
        out = list(aval.shape)
        out[axis] *= len(values)
        return self._track(self.ctx.op("stablehlo.concatenate", list(values), aval.update(shape=tuple(out)),
                                       in_avals=[aval] * len(values), attrs=f"dim = {axis}", sep=", "), values)

    def block(self, value: str, aval: ShapedArray, axis: int, index: int, count: int) -> str:
        """Block `index` of `count` equal blocks of `value` along `axis`."""
        step = aval.shape[axis] // count
        start = [0] * aval.ndim
        limit = list(aval.shape)
        start[axis], limit[axis] = index * step, (index + 1) * step
        out = list(aval.shape)
        out[axis] = step
        attrs = (f"start_indices = {i64_array(start)}, limit_indices = {i64_array(limit)}, "
                 f"strides = {i64_array([1] * aval.ndim)}")
        return self._track(self.ctx.generic_op("stablehlo.slice", [value], aval.update(shape=tuple(out)),
                                               attrs=attrs, in_avals=[aval]), [value])

    def reduce_to(self, values, group, opname) -> str:
        """The members' values combined on the group's first device."""
        home, aval = group[0], self.aval_in
        total = values[home]
        for k in group[1:]:
            total = self.binary(opname, total, self.transfer(values[k], aval, home), aval)
        return total

    def emit(self, values, rule) -> list:
        """Every device's result of the collective, by `rule(self, values, group)` applied group by group."""
        results = [None] * sum(len(g) for g in self.groups)
        for group in self.groups:
            for k, r in zip(group, rule(self, values, group)):
                results[k] = r
        return results

    def reduction(self, values, group, opname):
        total = self.reduce_to(values, group, opname)
        return [total] + [self.transfer(total, self.aval_out, k) for k in group[1:]]


# ----------------------------------------------------------------------------------------------- the collectives
# Each is a collective primitive's `lower_on_mesh` rule (set in its block in paddle_fn/prims/collectives.py).

def lower_psum(mesh, values, group):
    return mesh.reduction(values, group, "stablehlo.or" if mesh.aval_in.dtype.name == "bool" else "stablehlo.add")


def lower_pmax(mesh, values, group):
    return mesh.reduction(values, group, "stablehlo.maximum")


def lower_pmin(mesh, values, group):
    return mesh.reduction(values, group, "stablehlo.minimum")


def lower_all_gather(mesh, values, group):
    axis, tiled, aval = mesh.params["axis"], mesh.params["tiled"], mesh.aval_in
    if tiled:
        pieces, piece_aval = [values[k] for k in group], aval
    else:  # each member's value with a new unit axis, then concatenated along it
        shape = aval.shape[:axis] + (1,) + aval.shape[axis:]
        pieces, piece_aval = [mesh.reshape(values[k], aval, shape) for k in group], aval.update(shape=shape)
    gathered = mesh.concatenate([pieces[0]] + [mesh.transfer(p, piece_aval, group[0]) for p in pieces[1:]],
                                piece_aval, axis)
    return [gathered] + [mesh.transfer(gathered, mesh.aval_out, k) for k in group[1:]]


def lower_psum_scatter(mesh, values, group):
    s, tiled, aval = mesh.params["scatter_dimension"], mesh.params["tiled"], mesh.aval_in
    total = mesh.reduce_to(values, group, "stablehlo.add")
    out = []
    for index, k in enumerate(group):
        part = mesh.block(total, aval, s, index, len(group))
        if not tiled:
            part_aval = aval.update(shape=aval.shape[:s] + (1,) + aval.shape[s + 1:])
            part = mesh.reshape(part, part_aval, mesh.aval_out.shape)
        out.append(part if k == group[0] else mesh.transfer(part, mesh.aval_out, k))
    return out


def lower_ppermute(mesh, values, group):
    sent = {dst: src for src, dst in mesh.params["perm"]}
    out = []
    for index, k in enumerate(group):
        if index in sent:
            out.append(mesh.transfer(values[group[sent[index]]], mesh.aval_in, k))
        else:  # nothing is sent here: zeros
            out.append(mesh.ctx.constant(0, mesh.aval_in))
    return out


def lower_all_to_all(mesh, values, group):
    s, c, aval = mesh.params["split_axis"], mesh.params["concat_axis"], mesh.aval_in
    n = len(group)
    chunk_shape = list(aval.shape)
    chunk_shape[s] //= n
    chunk_aval = aval.update(shape=tuple(chunk_shape))
    chunks = {j: [mesh.block(values[k], aval, s, i, n) for i in range(n)] for j, k in enumerate(group)}
    out = []
    for i, k in enumerate(group):
        received = [chunks[j][i] if group[j] == k else mesh.transfer(chunks[j][i], chunk_aval, k)
                    for j in range(n)]
        out.append(mesh.concatenate(received, chunk_aval, c))
    return out


def lower_axis_index(mesh, values, group):
    return [mesh.ctx.constant(np.int32(index), mesh.aval_out) for index in range(len(group))]


def lower_multi_device(prog: Program, mesh, *, first_device_outputs=frozenset(), name: str = "main") -> str:
    """One module running `prog` on each device of `mesh` ((axis name, size), ...).

    Arguments are grouped by input: input j of device i is argument ``j * n + i`` (n devices); results likewise,
    except the outputs whose index is in `first_device_outputs` (pmap's ``out_axes=None``), returned once, from
    device 0.
    """
    n = math.prod(size for _, size in mesh)
    ctx = FuncLowering(overrides=lowering_rule)  # the devices of a mesh are CPU devices
    envs = [{} for _ in range(n)]
    placed = set()  # the values that live on a device: the arguments and what is computed from them
    params = []
    for j, v in enumerate(prog.in_vars):
        for i in range(n):
            envs[i][v] = f"%arg{j * n + i}"
            placed.add(envs[i][v])
            params.append(f"%arg{j * n + i}: {tensor_type(v.aval)} {{iree.abi.affinity = {_device(i)}}}")

    def read(i, v):
        return ctx.constant(v.val, v.aval) if isinstance(v, Literal) else envs[i][v]

    for eqn in prog.eqns:
        ctx.avals_in, ctx.avals_out = [v.aval for v in eqn.inputs], [v.aval for v in eqn.outputs]
        if eqn.prim.lower_on_mesh is not None:
            values = [read(i, eqn.inputs[0]) if eqn.inputs else None for i in range(n)]
            for env, out in zip(envs, MeshCollective(ctx, eqn, mesh, placed).emit(values, eqn.prim.lower_on_mesh)):
                env[eqn.outputs[0]] = out
            continue
        for i in range(n):
            ins = [read(i, v) for v in eqn.inputs]
            outs = ctx.rule(eqn.prim)(ctx, *ins, **eqn.params)
            outs = [outs] if isinstance(outs, str) else outs
            if any(name in placed for name in ins):
                placed.update(outs)
            for v, o in zip(eqn.outputs, outs):
                envs[i][v] = o
    results, types = [], []
    for index, v in enumerate(prog.out_vars):
        for i in ([0] if index in first_device_outputs else range(n)):
            results.append(read(i, v))
            types.append(f"{tensor_type(v.aval)} {{iree.abi.affinity = {_device(i)}}}")
    body = "\n".join(ctx.lines)
    ret_types = ", ".join(tensor_type(v.aval) for index, v in enumerate(prog.out_vars)
                          for _ in ([0] if index in first_device_outputs else range(n)))
    ret = f"    return {', '.join(results)} : {ret_types}" if results else "    return"
    return (f"module @paddle_fn {{\n  func.func public @{name}({', '.join(params)}) -> ({', '.join(types)}) {{\n"
            f"{body}\n{ret}\n  }}\n}}\n")
