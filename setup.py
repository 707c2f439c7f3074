"""Package discovery for setuptools (all other metadata is in pyproject.toml).

The top-level folders transforms/, lowering/, runtime/ and nn_compat/ install as subpackages of paddle_fn, so the
only import name is paddle_fn. Every package below each root (a folder with an __init__.py) is found here, so a new
subpackage needs no entry anywhere.
"""
from setuptools import find_packages, setup

ROOTS = {
    "paddle_fn": "paddle_fn",
    "paddle_fn.transforms": "transforms",
    "paddle_fn.lowering": "lowering",
    "paddle_fn.runtime": "runtime",
    "paddle_fn.nn_compat": "nn_compat",
}

packages = []
for name, folder in ROOTS.items():
    packages += [name] + [f"{name}.{sub}" for sub in find_packages(folder)]

setup(package_dir=ROOTS, packages=packages)
