"""named_scope names in IREE's dispatch names, so profiles (``iree-profile``, Tracy) show them.

IREE names each dispatch after its root operation (``main_dispatch_3_matmul_64x64x64_f32``) and no flag makes it
use the operations' locations, although the locations a named_scope gives (``loc("encoder")`` in the StableHLO)
survive into the dispatches. So a program whose text carries scopes compiles in two phases: up to IREE's flow
phase, where each dispatch is a ``flow.executable`` whose export's operations carry the location of the scope its
root operation was traced in, then, with each such export renamed ``main_dispatch_3_encoder_matmul_64x64x64_f32``
(each run of the scope's characters other than letters, digits and ``_`` becomes one ``_``, none at the ends:
``transpose(jvp(encoder))`` gives ``transpose_jvp_encoder``), from flow to the end. Dispatches
outside any scope keep IREE's names.
"""
from __future__ import annotations

import re

# an export line, then the first location on the lines after it: the scope of the dispatch's root operation
_EXPORT = re.compile(r'flow\.executable\.export public @([\w$.]+)[^\n]*\n[^\n]*?loc\(callsite\("([^"]+)" at ')
_ORDINAL = re.compile(r'^(.*?_dispatch_\d+)_')


def has_scopes(text: str) -> bool:
    """Whether the StableHLO text has operations located in a named_scope (lowering's ``loc("...")``)."""
    return ' loc("' in text


def scoped_dispatch_names(flow_text: str) -> str:
    """The flow-phase program text with each dispatch whose root operation was in a named_scope renamed after it."""
    renames = {}
    for match in _EXPORT.finditer(flow_text):
        name, scope = match.groups()
        ordinal = _ORDINAL.match(name)
        if ordinal is None:
            continue
        label = re.sub(r"\W+", "_", scope).strip("_")
        renames[name] = f"{ordinal.group(1)}_{label}_{name[ordinal.end():]}"
    if not renames:
        return flow_text
    pattern = re.compile(r"@(" + "|".join(re.escape(n) for n in sorted(renames, key=len, reverse=True)) + r")\b")
    return pattern.sub(lambda m: "@" + renames[m.group(1)], flow_text)
