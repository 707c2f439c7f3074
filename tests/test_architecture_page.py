"""docs/architecture.md's tables of the primitive contract and of the per-target overrides, against the code (and
docs/contributing.md's list of the optional fields).

The page's layer table and module map are checked in tests/test_layering.py; these are the tables a contributor
follows when adding a primitive's field or a target's override, so they must list exactly what the code holds.
"""
import dataclasses
import pathlib
import re
from collections import Counter

import paddle_fn  # noqa: F401 - registers the primitives the override rows name
from paddle_fn.core.primitive import Primitive
from paddle_fn.lowering.targets import EVERY_TARGET, GPU_TARGETS, OVERRIDES

DOCS = pathlib.Path(__file__).resolve().parents[1] / "docs"
PAGE = (DOCS / "architecture.md").read_text()


def _section(title):
    start = PAGE.index(f"\n{title}\n")
    return PAGE[start:PAGE.index("\n## ", start + 1)]


def _tables(text):
    """Each Markdown table of `text` as (header cells, rows of cells); a cell may hold an escaped pipe."""
    tables, lines = [], None
    for line in text.splitlines() + [""]:
        if line.startswith("|"):
            cells = [c.strip() for c in re.split(r"(?<!\\)\|", line)[1:-1]]
            if lines is None:
                lines = [cells]
            elif not set("".join(cells)) <= set("-: "):
                lines.append(cells)
        elif lines is not None:
            tables.append((lines[0], lines[1:]))
            lines = None
    return tables


def _names(cell):
    return re.findall(r"`(\w+)`", cell)


def test_override_tables_list_exactly_the_rows_of_OVERRIDES():
    """The section's first table is the EVERY_TARGET rows, the second the llvm-cpu rows, the third the rows of the
    GPU backends (each of GPU_TARGETS has the same): each row of OVERRIDES is listed once, at its target, with its
    rule's module and its IREE version named."""
    tables = _tables(_section("### Per-target overrides"))
    assert len(tables) == 3, "expected the EVERY_TARGET table, the llvm-cpu table and the GPU table"
    documented, wrong = Counter(), []
    for targets, (header, rows) in zip(((EVERY_TARGET,), ("llvm-cpu",), GPU_TARGETS), tables):
        for (primitives, override, _why), target in ((row, target) for row in rows for target in targets):
            for name in _names(primitives):
                documented[name, target] += 1
                row = OVERRIDES.get((name, target))
                if row is None:
                    continue
                module = row.rule.__module__.rpartition(".")[2]
                if module not in override:
                    wrong.append(f"{name} on {target}: the rule is in {module}, the page says {override!r}")
                if f"IREE {row.iree}" not in header[-1]:
                    wrong.append(f"{name} on {target}: measured with IREE {row.iree}, the table says {header[-1]!r}")
    assert documented == Counter(list(OVERRIDES)), (
        f"listed but not in OVERRIDES (or listed twice): {sorted((documented - Counter(list(OVERRIDES))).elements())}; "
        f"in OVERRIDES but not listed: {sorted((Counter(list(OVERRIDES)) - documented).elements())}")
    assert not wrong, "\n".join(wrong)


def test_field_tables_list_exactly_the_fields_of_Primitive():
    """The contract's first table is the required fields, the second the optional ones with their defaults; the
    `Primitive` docstring describes every field too."""
    fields = [f for f in dataclasses.fields(Primitive) if f.name != "name"]
    required = [f.name for f in fields if f.default is dataclasses.MISSING]
    optional = {f.name: f.default for f in fields if f.default is not dataclasses.MISSING}
    tables = _tables(_section("## The primitive contract"))
    assert len(tables) == 2, "expected the table of required fields and the table of optional ones"
    (_, required_rows), (_, optional_rows) = tables
    assert [_names(row[0])[0] for row in required_rows] == required
    assert [_names(row[0])[0] for row in optional_rows] == list(optional)
    for name, default, _what in optional_rows:
        if isinstance(optional[_names(name)[0]], bool):
            assert f"`{optional[_names(name)[0]]}`" in default, f"{name}: its default is {optional[_names(name)[0]]}"
    described = re.findall(r"^ {6}(\w+)\b", Primitive.__doc__, flags=re.M)
    assert described == [f.name for f in fields], "the Primitive docstring describes each field, in order"


def test_contributing_guide_names_every_optional_field():
    """docs/contributing.md's checklist names each optional field as the keyword a block passes."""
    guide = (DOCS / "contributing.md").read_text()
    unnamed = [f.name for f in dataclasses.fields(Primitive)
               if f.default is not dataclasses.MISSING and f"`{f.name}=" not in guide]
    assert not unnamed, f"docs/contributing.md does not name the optional Primitive fields {unnamed}"
