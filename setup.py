"""Package discovery for setuptools (all other metadata is in pyproject.toml).

The package map (which top-level folders install as which subpackages of paddle_fn) is
paddle_fn/core/packages.py's ROOTS, read here without importing paddle_fn. Every package below each root (a folder
with an __init__.py) is found here, so a new subpackage needs no entry anywhere.
"""
import ast
import os

from setuptools import find_packages, setup


def _package_map() -> dict:
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "paddle_fn", "core", "packages.py")
    with open(path) as source:
        tree = ast.parse(source.read())
    return next(ast.literal_eval(node.value) for node in tree.body
                if isinstance(node, ast.Assign) and [t.id for t in node.targets] == ["ROOTS"])


ROOTS = _package_map()

packages = []
for name, folder in ROOTS.items():
    packages += [name] + [f"{name}.{sub}" for sub in find_packages(folder)]

setup(package_dir=ROOTS, packages=packages)
