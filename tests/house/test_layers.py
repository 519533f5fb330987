"""The package's layers hold by construction: every module's imports (at the top and inside
functions) are read, and none may run against the layer order or close a cycle. An import
inside a function is allowed only where a heavy library is loaded late on purpose, and
then a comment on its line (or on the first import of its group) says so.

The order, top to bottom (docs/architecture.md draws it): a module imports from its own
layer or from lower ones.
"""
from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "sft_ui"
LAYERS = [
    ("__main__",),
    ("cli", "space_app"),
    ("ui",),
    ("actions", "asking"),
    ("sweeps",),
    ("share",),
    ("evaluate",),
    ("chat",),
    ("runs",),
    ("backends",),
    ("train",),
    ("plan",),
    ("data",),
    ("models",),
    ("config",),
    ("rewards",),
    ("stages",),
    ("access", "limits", "i18n", "lazy", "errors"),
]
RANK = {room: depth for depth, rooms in enumerate(LAYERS) for room in rooms}


def _modules() -> dict[str, Path]:
    found = {}
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


MODULES = _modules()


def _target(node: ast.ImportFrom | ast.Import, name: str, module: str, alias: str) -> str:
    """The package module an import names (the submodule where `from x import sub` names
    one), or '' for another library."""
    if isinstance(node, ast.ImportFrom):
        if node.level:
            package = module.split(".")
            if not str(MODULES[module]).endswith("__init__.py"):
                package = package[:-1]
            base = package[:len(package) - node.level + 1]
            name = ".".join(base + ([node.module] if node.module else []))
        if f"{name}.{alias}" in MODULES:
            name = f"{name}.{alias}"
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name if name.startswith("sft_ui") else ""


def imports() -> list[tuple[str, str, int, bool]]:
    """(module, imported package module, line, inside a function) for every import."""
    found = []
    for module, path in MODULES.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        inner = {id(n) for f in ast.walk(tree)
                 if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))
                 for n in ast.walk(f) if isinstance(n, (ast.Import, ast.ImportFrom))}
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [(a.name, "") for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [(node.module or "", a.name) for a in node.names]
            else:
                continue
            for name, alias in names:
                target = _target(node, name, module, alias)
                if target and target != module:
                    found.append((module, target, node.lineno, id(node) in inner))
    return found


def room(module: str) -> str:
    return module.split(".")[1] if "." in module else "__init__"


def test_every_module_belongs_to_a_layer():
    rooms = {room(m) for m in MODULES} - {"__init__"}
    assert rooms <= set(RANK), f"add {sorted(rooms - set(RANK))} to LAYERS (and the docs)"


def test_no_import_runs_against_the_layer_order():
    wrong = [f"{m} (line {line}) imports {t}: {room(t)} is a layer above {room(m)}"
             for m, t, line, _ in imports()
             if room(m) in RANK and room(t) in RANK and RANK[room(t)] < RANK[room(m)]]
    assert not wrong, "\n".join(wrong)


def test_no_import_cycle():
    graph: dict[str, set[str]] = {m: set() for m in MODULES}
    for module, target, _, _ in imports():
        graph[module].add(target)
    # A package's __init__ that re-exports its modules is imported with them: count the
    # edge parent -> child only, as Python runs it.
    state: dict[str, int] = {}
    cycles: list[list[str]] = []

    def visit(node: str, path: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                cycles.append(path[path.index(nxt):] + [nxt] if nxt in path else [node, nxt])
            elif nxt not in state:
                visit(nxt, path + [nxt])
        state[node] = 2

    for start in sorted(graph):
        if start not in state:
            visit(start, [start])
    cycles = [c for c in cycles if not _parent_and_child(c)]
    assert not cycles, "\n".join(" -> ".join(c) for c in cycles)


def _parent_and_child(cycle: list[str]) -> bool:
    """A package and a module of its own importing each other's names is how Python
    packages re-export; anything longer is a real cycle."""
    return len(set(cycle)) == 2 and any(a.startswith(b + ".") or b.startswith(a + ".")
                                        for a in cycle for b in cycle)


def test_imports_inside_functions_say_why():
    """Imports sit at the top of files; one inside a function loads a heavy library late on
    purpose (torch, transformers, TRL, gradio, or a module of ours that imports them) and
    a comment says so, on its line or on the first import of its group."""
    silent = []
    for module, path in MODULES.items():
        lines = path.read_text(encoding="utf-8").splitlines()
        tree = ast.parse("\n".join(lines))
        for func in ast.walk(tree):
            if not isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for node in ast.walk(func):
                if not isinstance(node, (ast.Import, ast.ImportFrom)):
                    continue
                at = node.lineno - 1
                while at > 0 and "#" not in lines[at] and \
                        lines[at - 1].strip().startswith(("import ", "from ")):
                    at -= 1  # the first import of a group speaks for it
                said = "#" in lines[at] or lines[at - 1].strip().startswith("#")
                if not said:
                    silent.append(f"{path.relative_to(PACKAGE.parent)}:{node.lineno}: "
                                  f"{lines[node.lineno - 1].strip()}")
    assert not silent, ("move these imports to the top of the file, or say in a comment "
                        "why they are loaded late:\n" + "\n".join(silent))


def test_the_documented_diagram_is_this_order():
    """docs/architecture.md draws the layers this test holds, in the same order."""
    text = (PACKAGE.parent / "docs" / "architecture.md").read_text(encoding="utf-8")
    diagram = text.split("## Layers", 1)[1].split("```")[1]
    drawn = []
    for line in diagram.splitlines():
        names = line.split("  ")[0].strip()
        if names and names != "|":
            drawn.append(tuple(n.strip().removesuffix(".py").rstrip("/")
                               for n in names.split(",")))
    assert [set(layer) for layer in drawn] == [set(layer) for layer in LAYERS[1:]]


def test_the_check_sees_what_it_checks():
    """The readers find the arrows they guard: the page imports the actions, the engine
    the plan, and the command line's training entry loads the engine late."""
    found = {(m, t): inner for m, t, _, inner in imports()}
    assert ("sft_ui.actions", "sft_ui.runs") in found
    assert ("sft_ui.train.engine", "sft_ui.plan.loading") in found
    assert found[("sft_ui.backends", "sft_ui.train.engine")] is True
    assert len(MODULES) > 80


# ---- stages live in their room -------------------------------------------------------------
STAGE_NAMES = {"sft", "dpo", "orpo", "kto", "grpo"}
MOST_STAGE_COMPARISONS = 5


def _names_a_stage(node: ast.AST) -> bool:
    if isinstance(node, ast.Constant):
        return node.value in STAGE_NAMES
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return any(_names_a_stage(e) for e in node.elts)
    return False


def stage_comparisons() -> list[str]:
    """Every comparison with a stage's name (==, !=, in, not in a literal of names) outside
    the stages' room (sft_ui/stages/) and the translations: where a layer would decide by a
    stage's name instead of asking the stage."""
    found = []
    for module, path in MODULES.items():
        if room(module) in ("stages", "i18n"):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Compare) and \
                    any(_names_a_stage(side) for side in [node.left, *node.comparators]):
                found.append(f"{module}:{node.lineno}")
    return found


def test_stage_names_are_compared_only_in_the_stages_room():
    found = stage_comparisons()
    assert len(found) <= MOST_STAGE_COMPARISONS, \
        f"{len(found)} comparisons with a stage's name outside sft_ui/stages/: {found}; " \
        "ask the stage (sft_ui.stages.stage_of) instead"


def test_the_stage_count_sees_a_comparison(tmp_path, monkeypatch):
    """The count is no stub: a module comparing cfg.stage with "dpo" is found."""
    module = tmp_path / "probe.py"
    module.write_text('def f(cfg):\n    return cfg.stage == "dpo" or cfg.stage in ("kto",)\n')
    monkeypatch.setitem(MODULES, "sft_ui.probe", module)
    assert [f for f in stage_comparisons() if f.startswith("sft_ui.probe:")] == \
        ["sft_ui.probe:2", "sft_ui.probe:2"]


def test_each_family_hook_lies_in_the_layer_that_calls_it_or_below():
    """A family names its code by import path (stages/base.py's HOOKS), which no import
    statement shows: each named module must exist, hold the function, and sit in the
    layer that calls the hook or a lower one, as an import there would have to."""
    import importlib

    from sft_ui import stages
    wrong = []
    for family in stages.families():
        for name, path in family.hooks.items():
            module, _, function = path.partition(":")
            caller = stages.HOOKS[name]
            if module not in MODULES or RANK[room(module)] < RANK[caller] or \
                    not callable(getattr(importlib.import_module(module), function, None)):
                wrong.append(f"{family.name}.{name}: {path} (called from {caller})")
    assert wrong == []
    assert {h for f in stages.families() for h in f.hooks} == set(stages.HOOKS)  # all used
