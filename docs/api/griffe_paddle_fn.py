"""Griffe extensions for the API reference (mkdocs.yml, mkdocstrings' `extensions` option).

Griffe reads the sources without running them; three things in paddle_fn need the running module's help:

- `RuntimeFunctions`: functions made by a factory (``sin = _unary("sin", ...)``) look like plain attributes in the
  source; they are documented as the functions they are, with their runtime signature and docstring.
- `PublicNames`: griffe counts a name imported into a module without an ``__all__`` as private, does not expand
  ``from paddle_fn.tensor import *`` below a package without ``__all__``, and confuses ``vmap`` the function with
  ``transforms/vmap.py`` the module. ``paddle_fn/__init__.py`` consists of such imports, so for the modules named
  in ``modules``, the public names are exactly those the imported module
  lists in ``dir()`` (no leading underscore, not a module; the names it loads on first use included), each
  pointing at its definition. Griffe follows an ``__all__``
  elsewhere, but misses names bound by a tuple assignment (``relu, gelu = act.relu, act.gelu``); those are added.
  A public name whose definition cannot be found is a warning (an error in strict mode).
- `ExampleSections`: paddle_fn's docstrings head their doctests ``Example:``, which griffe reads as an admonition
  (Markdown, so ``>>>`` would render as quotes); they are read as Google-style ``Examples:`` sections instead,
  rendered as Python console code.
"""
from __future__ import annotations

import importlib
import inspect
import re
import sys

import griffe

_EXAMPLE_HEADER = re.compile(r"^(\s*)Example:[ \t]*$", re.MULTILINE)


def _modules(module: griffe.Module):
    yield module
    for submodule in module.modules.values():
        if not submodule.is_alias:
            yield from _modules(submodule)


def _import_everything(package: str):
    """Import `package` and resolve every name it lists, so the namespaces paddle_fn loads on first use (its
    module-level ``__getattr__``) are in ``sys.modules`` too."""
    runtime = importlib.import_module(package)
    for name in dir(runtime):
        getattr(runtime, name)


def _function(name: str, value, attribute: griffe.Attribute, loader: griffe.GriffeLoader) -> griffe.Function | None:
    try:
        signature = inspect.signature(value)
    except (TypeError, ValueError):
        return None
    parameters = griffe.Parameters(*(
        griffe.Parameter(p.name, kind=griffe.ParameterKind(p.kind.description),
                         default=None if p.default is p.empty else repr(p.default))
        for p in signature.parameters.values()))
    function = griffe.Function(name, lineno=attribute.lineno, endlineno=attribute.endlineno, parameters=parameters)
    function.docstring = griffe.Docstring(inspect.cleandoc(value.__doc__), parent=function,
                                          parser=loader.docstring_parser, parser_options=loader.docstring_options)
    return function


class RuntimeFunctions(griffe.Extension):
    def on_package(self, *, pkg: griffe.Module, loader: griffe.GriffeLoader, **kwargs) -> None:
        _import_everything(pkg.path)
        for module in _modules(pkg):
            runtime = sys.modules.get(module.path)
            if runtime is None:
                continue
            for name, member in list(module.members.items()):
                if member.is_alias or not member.is_attribute:
                    continue
                value = getattr(runtime, name, None)
                if inspect.isfunction(value) and value.__doc__ and not member.docstring:
                    function = _function(name, value, member, loader)
                    if function is not None:
                        module.set_member(name, function)


class PublicNames(griffe.Extension):
    def __init__(self, modules: list[str]):
        super().__init__()
        self.modules = set(modules)

    def on_package(self, *, pkg: griffe.Module, loader: griffe.GriffeLoader, **kwargs) -> None:
        _import_everything(pkg.path)
        for module in list(_modules(pkg)):
            runtime = sys.modules.get(module.path)
            if runtime is None:
                continue
            if module.path in self.modules:
                exposed = {name: getattr(runtime, name) for name in dir(runtime) if not name.startswith("_")}
                exposed = {name: value for name, value in exposed.items() if not inspect.ismodule(value)}
                for name, member in list(module.members.items()):
                    if member.is_alias or not member.is_module:
                        member.public = name in exposed
                names = sorted(exposed)
            elif isinstance(getattr(runtime, "__all__", None), (list, tuple)):
                # griffe follows __all__, but misses names bound by tuple assignment (a, b = f, g)
                names = [name for name in runtime.__all__ if name not in module.members]
            else:
                continue
            for name in names:
                value = getattr(runtime, name, None)
                target = None if inspect.ismodule(value) else self._definition(loader, name, value)
                if target == f"{module.path}.{name}":  # defined right here
                    module.get_member(name).public = True
                elif target is not None:
                    module.set_member(name, griffe.Alias(name, target, parent=module))
                    module.get_member(name).public = True
                elif name not in module.members:
                    griffe.logger.warning("%s.%s is public, but its definition was not found: it is missing from "
                                          "the API reference", module.path, name)

    @staticmethod
    def _definition(loader, name, value):
        """The path of `value`'s definition (where it got its docstring) if griffe knows it, else None."""
        home = getattr(value, "__module__", None)
        if not isinstance(home, str):
            return None
        candidates = [f"{home}.{getattr(value, '__qualname__', '')}"]
        if getattr(sys.modules.get(home), name, None) is value:
            candidates.append(f"{home}.{name}")
        for target in candidates:
            try:
                if not loader.modules_collection.get_member(target).is_module:
                    return target
            except (KeyError, ValueError):
                pass
        return None


class ExampleSections(griffe.Extension):
    def on_object(self, *, obj: griffe.Object, **kwargs) -> None:
        if obj.docstring is not None:
            obj.docstring.value = _EXAMPLE_HEADER.sub(r"\1Examples:", obj.docstring.value)
