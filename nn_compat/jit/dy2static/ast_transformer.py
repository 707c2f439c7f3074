"""The source-to-source rewrite of dynamic-to-static (Paddle's ``DygraphToStaticAst`` and its transformers).

Passes over a function's AST, in order:

1. `ReturnTransformer`: ``return`` inside ``if`` becomes ``__jst_ret_val = ...; __jst_ret_flag = True`` with the
   rest of the block guarded by ``if not __jst_ret_flag`` and one ``return __jst_ret_val`` at the end.
2. `ForToWhileTransformer`: ``for t in it:`` becomes a ``while`` over an index into ``_jst.convert_iter(it)``.
3. `BreakContinueTransformer`: ``break``/``continue`` become flag variables; the statements after them are guarded
   and the loop's test checks the break flag.
4. `ControlFlowTransformer`: ``if``/``while`` become calls of ``_jst.convert_ifelse`` / ``_jst.convert_while_loop``
   with the block as nested functions over the variables it assigns; ``a if c else b``, ``and``/``or``/``not`` and
   every call go through ``_jst`` helpers, and each function's locals start as ``_jst.UndefinedVar``.

Blocks the passes cannot express (a ``return`` or ``yield`` inside a loop, ``for ... else``) stay Python: they run
as written, and a Tensor condition there raises the tracer's ConcretizationError.
"""
from __future__ import annotations

import ast
import itertools

__all__ = ["JST", "transform_function"]

JST = "_jst"  # the name converted code reaches the runtime helpers by
_GEN = "__jst_"  # prefix of every name the converter makes
_GEN_FN = "__jst_fn_"


def _jst(attr):
    return ast.Attribute(value=ast.Name(id=JST, ctx=ast.Load()), attr=attr, ctx=ast.Load())


def _call(attr, *args):
    return ast.Call(func=_jst(attr), args=list(args), keywords=[])


def _name(id_, store=False):
    return ast.Name(id=id_, ctx=ast.Store() if store else ast.Load())


def _assign(id_, value):
    return ast.Assign(targets=[_name(id_, True)], value=value)


def _const(v):
    return ast.Constant(value=v)


_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef, ast.ListComp, ast.SetComp,
           ast.DictComp, ast.GeneratorExp)
_LOOPS = (ast.For, ast.While, ast.AsyncFor)


def _walk(nodes, stop):
    """The nodes of `nodes` and below, not descending into nodes of the types `stop` (which are yielded: a
    nested function's name is bound here)."""
    stack = list(reversed(nodes))  # depth first in source order: variables are listed as they first appear
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, stop):
            stack.extend(reversed(list(ast.iter_child_nodes(node))))


def _walk_scope(nodes):
    """The nodes of `nodes` without descending into nested functions, lambdas, classes or comprehensions."""
    return _walk(nodes, _SCOPES)


def _walk_loop_level(nodes):
    """Like `_walk_scope`, also not descending into nested loops (their break/continue are their own)."""
    return _walk(nodes, _SCOPES + _LOOPS)


def assigned_names(stmts):
    """The local names `stmts` bind, in first-binding order (not counting the converter's own functions).

    Example:
        >>> import ast
        >>> from paddle_fn.nn_compat.jit.dy2static import ast_transformer as at
        >>> at.assigned_names(ast.parse("a = 1\\nfor i in x:\\n    b, a = i, 2\\ndef g(): c = 3").body)
        ['a', 'i', 'b', 'g']
    """
    names = []
    for node in _walk_scope(stmts):
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            found = node.id
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            found = node.name
        elif isinstance(node, ast.alias):
            found = (node.asname or node.name).split(".")[0]
        elif isinstance(node, ast.ExceptHandler) and node.name:
            found = node.name
        else:
            continue
        if not found.startswith(_GEN_FN) and found not in names:
            names.append(found)
    return names


def _contains(stmts, types, loop_level=False):
    walk = _walk_loop_level if loop_level else _walk_scope
    return any(isinstance(n, types) for n in walk(stmts))


# ----------------------------------------------------------------------------------------------- 1. return

class ReturnTransformer:
    """Early returns inside ``if`` → a return flag and value (for functions with no ``return`` inside a loop).

    Example:
        >>> import ast
        >>> from paddle_fn.nn_compat.jit.dy2static import ast_transformer as at
        >>> f = ast.parse("def f(x):\\n    if x:\\n        return 1\\n    return 2").body[0]
        >>> at.ReturnTransformer().apply(f)
        True
        >>> print(ast.unparse(ast.fix_missing_locations(f)))
        def f(x):
            __jst_ret_flag = False
            if x:
                __jst_ret_val = 1
                __jst_ret_flag = True
            if not __jst_ret_flag:
                __jst_ret_val = 2
                __jst_ret_flag = True
            return __jst_ret_val
    """

    FLAG, VALUE = _GEN + "ret_flag", _GEN + "ret_val"

    def apply(self, fdef):
        body = fdef.body
        nested = [n for n in _walk_scope(body) if isinstance(n, ast.Return)]
        if not nested or (len(nested) == 1 and body[-1] is nested[0]):
            return False
        if any(isinstance(n, (ast.For, ast.While, ast.AsyncFor)) and _contains(n.body + n.orelse, ast.Return)
               for n in _walk_scope(body)):
            return False
        if _contains(body, (ast.Yield, ast.YieldFrom)) or not self._only_in_ifs(body):
            return False
        fdef.body = [_assign(self.FLAG, _const(False))] + self._rewrite(body) + [ast.Return(value=_name(self.VALUE))]
        return True

    def _only_in_ifs(self, stmts):
        """Whether every ``return`` is a statement of `stmts` or of ``if`` blocks nested in it (the rewritten
        pattern); one inside ``with``/``try`` keeps the function as written."""
        for s in stmts:
            if isinstance(s, ast.If):
                if not (self._only_in_ifs(s.body) and self._only_in_ifs(s.orelse)):
                    return False
            elif not isinstance(s, ast.Return) and _contains([s], ast.Return):
                return False
        return True

    def _rewrite(self, stmts):
        out = []
        for k, s in enumerate(stmts):
            if isinstance(s, ast.Return):
                out += [_assign(self.VALUE, s.value or _const(None)), _assign(self.FLAG, _const(True))]
                return out
            if isinstance(s, ast.If) and _contains([s], ast.Return):
                s.body = self._rewrite(s.body)
                s.orelse = self._rewrite(s.orelse)
                out.append(s)
                rest = stmts[k + 1:]
                if rest:
                    out.append(ast.If(test=ast.UnaryOp(op=ast.Not(), operand=_name(self.FLAG)),
                                      body=self._rewrite(rest), orelse=[]))
                return out
            out.append(s)
        return out


# ----------------------------------------------------------------------------------------------- 2. for

class ForToWhileTransformer(ast.NodeTransformer):
    """``for target in iterable: body`` → a ``while`` over ``_jst.convert_iter(iterable)`` by index.

    Example:
        >>> import ast
        >>> from paddle_fn.nn_compat.jit.dy2static import ast_transformer as at
        >>> import itertools
        >>> tree = at.ForToWhileTransformer(itertools.count()).visit(ast.parse("for i in range(n):\\n    s += i"))
        >>> print(ast.unparse(ast.fix_missing_locations(tree)))
        __jst_it_0 = _jst.convert_iter(range(n))
        __jst_i_0 = 0
        while _jst.iter_has_next(__jst_it_0, __jst_i_0):
            i = _jst.iter_next(__jst_it_0, __jst_i_0)
            __jst_i_0 = __jst_i_0 + 1
            s += i
    """

    def __init__(self, counter):
        self.counter = counter

    def visit_For(self, node):
        self.generic_visit(node)
        if node.orelse or _contains(node.body, (ast.Return, ast.Yield, ast.YieldFrom)):
            return node
        n = next(self.counter)
        it, idx = f"{_GEN}it_{n}", f"{_GEN}i_{n}"
        body = [ast.Assign(targets=[node.target], value=_call("iter_next", _name(it), _name(idx))),
                _assign(idx, ast.BinOp(left=_name(idx), op=ast.Add(), right=_const(1)))] + node.body
        loop = ast.While(test=_call("iter_has_next", _name(it), _name(idx)), body=body, orelse=[])
        return [_assign(it, _call("convert_iter", node.iter)), _assign(idx, _const(0)), loop]


# ----------------------------------------------------------------------------------------------- 3. break

class BreakContinueTransformer(ast.NodeTransformer):
    """``break`` / ``continue`` in a ``while`` → flags; later statements guarded, the test checks the break flag.

    Example:
        >>> import ast
        >>> from paddle_fn.nn_compat.jit.dy2static import ast_transformer as at
        >>> import itertools
        >>> code = "while c:\\n    if a:\\n        break\\n    s += 1"
        >>> tree = at.BreakContinueTransformer(itertools.count()).visit(ast.parse(code))
        >>> print(ast.unparse(ast.fix_missing_locations(tree)))
        __jst_break_0 = False
        while not __jst_break_0 and c:
            if a:
                __jst_break_0 = True
            if not __jst_break_0:
                s += 1
    """

    def __init__(self, counter):
        self.counter = counter

    def visit_While(self, node):
        self.generic_visit(node)
        has_break = _contains(node.body, ast.Break, loop_level=True)
        has_cont = _contains(node.body, ast.Continue, loop_level=True)
        if node.orelse or not (has_break or has_cont):
            return node
        n = next(self.counter)
        self.brk, self.cont = f"{_GEN}break_{n}", f"{_GEN}continue_{n}"
        self.flags = [f for f, used in ((self.brk, has_break), (self.cont, has_cont)) if used]
        node.body = ([_assign(self.cont, _const(False))] if has_cont else []) + self._rewrite(node.body)
        if not has_break:
            return node
        node.test = ast.BoolOp(op=ast.And(), values=[ast.UnaryOp(op=ast.Not(), operand=_name(self.brk)), node.test])
        return [_assign(self.brk, _const(False)), node]

    def _guard(self):
        test = _name(self.flags[0]) if len(self.flags) == 1 else ast.BoolOp(
            op=ast.Or(), values=[_name(f) for f in self.flags])
        return ast.UnaryOp(op=ast.Not(), operand=test)

    def _rewrite(self, stmts):
        out = []
        for k, s in enumerate(stmts):
            if isinstance(s, ast.Break):
                return out + [_assign(self.brk, _const(True))]
            if isinstance(s, ast.Continue):
                return out + [_assign(self.cont, _const(True))]
            if _contains([s], (ast.Break, ast.Continue), loop_level=True):
                for field in ("body", "orelse", "finalbody"):
                    if isinstance(getattr(s, field, None), list):
                        setattr(s, field, self._rewrite(getattr(s, field)))
                out.append(s)
                rest = stmts[k + 1:]
                if rest:
                    out.append(ast.If(test=self._guard(), body=self._rewrite(rest), orelse=[]))
                return out
            out.append(s)
        return out


# ----------------------------------------------------------------------------------------------- 4. if/while

class ControlFlowTransformer(ast.NodeTransformer):
    """``if``/``while``/``a if c else b``/``and``/``or``/``not``/calls → the ``_jst`` runtime helpers.

    Example:
        >>> import ast
        >>> from paddle_fn.nn_compat.jit.dy2static import ast_transformer as at
        >>> import itertools
        >>> tree = at.ControlFlowTransformer(itertools.count(), frozenset()).visit(ast.parse("y = a if c else b"))
        >>> print(ast.unparse(ast.fix_missing_locations(tree)))
        y = _jst.convert_ifelse_expr(c, lambda: a, lambda: b)
    """

    @staticmethod
    def _blocked(stmts):
        """A block that leaves the function or an enclosing loop cannot become a nested function."""
        return (_contains(stmts, (ast.Return, ast.Yield, ast.YieldFrom, ast.Global, ast.Nonlocal))
                or _contains(stmts, (ast.Break, ast.Continue), loop_level=True))

    def __init__(self, counter, scope_fixed):
        self.counter = counter
        self.fixed = scope_fixed  # names that must stay as they are (global / nonlocal declarations)

    def _vars(self, stmts):
        """The variables a block assigns, or None when it assigns a ``global``/``nonlocal`` name (a nested function
        could not assign it: such a block stays Python)."""
        names = assigned_names(stmts)
        return None if any(n in self.fixed for n in names) else names

    def _fn(self, name, params, body):
        args = ast.arguments(posonlyargs=[], args=[ast.arg(arg=p) for p in params], vararg=None, kwonlyargs=[],
                             kw_defaults=[], kwarg=None, defaults=[])
        return ast.FunctionDef(name=name, args=args, body=body or [ast.Pass()], decorator_list=[], returns=None,
                               type_comment=None)

    def _tuple(self, names, store=False):
        return ast.Tuple(elts=[_name(v, store) for v in names], ctx=ast.Store() if store else ast.Load())

    def _result(self, names, value):
        if not names:
            return ast.Expr(value=value)
        return ast.Assign(targets=[self._tuple(names, store=True)], value=value)

    def visit_If(self, node):
        self.generic_visit(node)
        if self._blocked(node.body + node.orelse):
            return node
        names = self._vars(node.body + node.orelse)
        if names is None:
            return node
        n = next(self.counter)
        ret = ast.Return(value=self._tuple(names))
        true_fn = self._fn(f"{_GEN_FN}true_{n}", names, node.body + [ret])
        false_fn = self._fn(f"{_GEN_FN}false_{n}", names, node.orelse + [ret])
        call = _call("convert_ifelse", node.test, _name(true_fn.name), _name(false_fn.name), self._tuple(names),
                     ast.Tuple(elts=[_const(v) for v in names], ctx=ast.Load()))
        return [true_fn, false_fn, self._result(names, call)]

    def visit_While(self, node):
        self.generic_visit(node)
        if node.orelse or self._blocked(node.body):
            return node
        names = self._vars(node.body)
        if names is None:
            return node
        n = next(self.counter)
        cond_fn = self._fn(f"{_GEN_FN}cond_{n}", names, [ast.Return(value=node.test)])
        body_fn = self._fn(f"{_GEN_FN}body_{n}", names, node.body + [ast.Return(value=self._tuple(names))])
        call = _call("convert_while_loop", _name(cond_fn.name), _name(body_fn.name), self._tuple(names),
                     ast.Tuple(elts=[_const(v) for v in names], ctx=ast.Load()))
        return [cond_fn, body_fn, self._result(names, call)]

    def visit_IfExp(self, node):
        self.generic_visit(node)
        return _call("convert_ifelse_expr", node.test, _lambda(node.body), _lambda(node.orelse))

    def visit_BoolOp(self, node):
        self.generic_visit(node)
        helper = "convert_logical_and" if isinstance(node.op, ast.And) else "convert_logical_or"
        result = node.values[-1]
        for value in reversed(node.values[:-1]):
            result = _call(helper, _lambda(value), _lambda(result))
        return result

    def visit_UnaryOp(self, node):
        self.generic_visit(node)
        if isinstance(node.op, ast.Not):
            return _call("convert_logical_not", node.operand)
        return node

    def visit_Call(self, node):
        self.generic_visit(node)
        f = node.func
        if isinstance(f, ast.Name) and (f.id == "super" or f.id.startswith(_GEN)):
            return node
        if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id == JST:
            return node
        node.func = _call("convert_call", f)
        return node

    def visit_FunctionDef(self, node):
        if node.name.startswith(_GEN_FN):
            self.generic_visit(node)
            return node
        saved = self.fixed
        self.fixed = saved | _declared(node.body)
        self.generic_visit(node)
        self.fixed = saved
        params = {a.arg for a in node.args.posonlyargs + node.args.args + node.args.kwonlyargs}
        params |= {a.arg for a in (node.args.vararg, node.args.kwarg) if a is not None}
        fixed = _declared(node.body) | _assigned_first(node.body)
        init = [_assign(v, _call("UndefinedVar", _const(v))) for v in assigned_names(node.body)
                if v not in params and v not in fixed]
        node.body = init + node.body
        return node


def _lambda(body):
    args = ast.arguments(posonlyargs=[], args=[], vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[])
    return ast.Lambda(args=args, body=body)


def _assigned_first(stmts):
    """Names bound by the plain ``name = value`` statements that open the body, before any block: they have a
    value before any converted statement can read them, so they need no UndefinedVar."""
    names = set()
    for s in stmts:
        if not (isinstance(s, ast.Assign) and all(isinstance(t, ast.Name) for t in s.targets)):
            break
        names.update(t.id for t in s.targets)
    return names


def _declared(stmts):
    return {n for s in _walk_scope(stmts) if isinstance(s, (ast.Global, ast.Nonlocal)) for n in s.names}


def transform_function(fdef):
    """Rewrite the ``FunctionDef`` `fdef` in place (passes 1-4); returns it.

    Example:
        >>> import ast
        >>> from paddle_fn.nn_compat.jit.dy2static import ast_transformer as at
        >>> f = at.transform_function(ast.parse("def f(x):\\n    while x > 0:\\n        x = x - 1\\n    return x").body[0])
        >>> print(ast.unparse(f))
        def f(x):
        <BLANKLINE>
            def __jst_fn_cond_0(x):
                return x > 0
        <BLANKLINE>
            def __jst_fn_body_0(x):
                x = x - 1
                return (x,)
            x, = _jst.convert_while_loop(__jst_fn_cond_0, __jst_fn_body_0, (x,), ('x',))
            return x
    """
    counter = itertools.count()
    fdef.decorator_list = []
    for a in fdef.args.posonlyargs + fdef.args.args + fdef.args.kwonlyargs + [fdef.args.vararg, fdef.args.kwarg]:
        if a is not None:
            a.annotation = None  # evaluated when the converted def runs; not needed, and may name later classes
    fdef.returns = None
    ReturnTransformer().apply(fdef)
    fdef = ForToWhileTransformer(counter).visit(fdef)
    fdef = BreakContinueTransformer(counter).visit(fdef)
    fdef = ControlFlowTransformer(counter, frozenset()).visit(fdef)
    return ast.fix_missing_locations(fdef)
