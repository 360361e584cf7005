"""The package layout holds: no import cycles, imports run down the README's layers, and the wheel
ships every package.

Run as a script (``python tests/test_layout.py``) it prints the import graph's cycles and every
import that runs upwards (none of either), for anyone reshaping the tree.
"""
from __future__ import annotations

import ast
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# The repository folder that each installed top-level name maps to (see pyproject's package-dir).
FOLDERS = {"tutor.model": ROOT / "model", "tutor.lessons": ROOT / "lessons", "tutor.docs": ROOT / "docs",
           "tutor": ROOT / "tutor"}
# The README's layers, lowest first.  A module imports its own package and packages of lower layers,
# never one beside or above it: the course validates lessons without the experiments (it reads their
# names and costs from course/experiment_index.py), and nothing below the UI knows the UI exists.
LAYERS = (
    ("tutor.model", "tutor.lessons", "tutor.docs", "tutor.locale"),   # the GPT and shipped data: no tutor imports
    ("tutor.common",),
    ("tutor.formulas",),
    ("tutor.grading",),
    ("tutor.course",),
    ("tutor.experiments",),
    ("tutor.live",),
    ("tutor.authoring", "tutor.progress", "tutor.training"),
    ("tutor.classroom", "tutor.web"),
    ("tutor.session",),   # the question loop's rules, between the domain and the screens that draw them
    ("tutor.ui",),
    ("tutor.cli",),
    ("tutor", "tutor.__main__"),
)
# Lower packages may not import these higher ones (grading and lesson logic never import Textual).
NO_TEXTUAL = ("tutor.model", "tutor.common", "tutor.formulas", "tutor.grading", "tutor.course", "tutor.live",
              "tutor.experiments", "tutor.training", "tutor.progress", "tutor.authoring", "tutor.session")


def modules() -> dict[str, Path]:
    found = {}
    for name, folder in FOLDERS.items():
        for path in folder.rglob("*.py"):
            if name == "tutor" and path.is_relative_to(ROOT / "tutor") is False:
                continue
            parts = list(path.relative_to(folder).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            found[".".join([name, *parts])] = path
    return found


def imports_of(module: str, path: Path, known: set[str]) -> set[str]:
    """Every module this one imports, at the top or inside a function (a late import still ties)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join(anchor + ([base] if base else []))
            names = [base] + [f"{base}.{alias.name}" for alias in node.names]
        else:
            continue
        for name in names:
            if name in known and name != module:
                out.add(name)
            elif name.startswith(("textual", "tutor", "model")):
                out.add(name)
    return out


def graph() -> dict[str, set[str]]:
    found = modules()
    known = set(found)
    return {module: imports_of(module, path, known) & known for module, path in found.items()}


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    result: list[list[str]] = []
    counter = [0]
    sys.setrecursionlimit(10_000)

    def visit(node: str) -> None:
        index[node] = low[node] = counter[0]
        counter[0] += 1
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(edges.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                result.append(sorted(component))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return result


def _package_face_edges(edges: dict[str, set[str]]) -> dict[str, set[str]]:
    """A package's __init__ that only re-exports its own modules is its face, not a tie: drop the
    edges from a module to its own package so ``import tutor.x.y`` (which runs tutor.x) is no loop."""
    return {m: {t for t in targets if not m.startswith(t + ".")} for m, targets in edges.items()}


def layer_of(module: str) -> tuple[int, str]:
    """(rank, package) of the layer package that holds ``module``: the longest name that prefixes it."""
    found = [(rank, package) for rank, packages in enumerate(LAYERS) for package in packages
             if module == package or module.startswith(package + ".")]
    return max(found, key=lambda item: len(item[1])) if found else (-1, "")


def upward_imports(edges: dict[str, set[str]]) -> list[str]:
    """Every import of a package in the same layer or a higher one, as 'a (layer) imports b (layer)'."""
    found = []
    for module, targets in sorted(edges.items()):
        rank, package = layer_of(module)
        for target in sorted(targets):
            target_rank, target_package = layer_of(target)
            if target_package != package and target_rank >= rank:
                found.append(f"{module} ({package}, layer {rank}) imports {target} ({target_package}, layer {target_rank})")
    return found


def test_every_package_has_a_layer():
    unplaced = sorted({module for module in modules() if layer_of(module)[0] < 0})
    assert unplaced == [], f"add these to LAYERS in tests/test_layout.py and to the README: {unplaced}"


def test_imports_run_down_the_layers():
    assert upward_imports(_package_face_edges(graph())) == []


def test_no_import_cycles():
    assert cycles(_package_face_edges(graph())) == []


def test_model_never_imports_tutor():
    found = modules()
    for module, path in found.items():
        if module.startswith("tutor.model"):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for node in ast.walk(tree):
                if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                    assert not node.module.startswith(("tutor", "model")), f"{path}: use relative imports in model/"
                if isinstance(node, ast.Import):
                    assert not any(a.name.startswith(("tutor", "model")) for a in node.names), path


def test_lower_layers_never_import_textual():
    found = modules()
    for module, path in found.items():
        if module.startswith(NO_TEXTUAL):
            text_imports = {name for name in imports_of(module, path, set(found)) if name.startswith("textual")}
            assert not text_imports, f"{module} imports {sorted(text_imports)}"


# The author's side (tutor lessons check/new/probes, and the live check a hot reload runs for the author
# on save) is the only way into tutor.authoring: the lesson runtime does not depend on the checker.
AUTHORING_DOORS = ("tutor.cli", "tutor.ui.reload_check")


def test_only_the_authors_doors_import_authoring():
    found = modules()
    for module, path in found.items():
        if module.startswith(("tutor.authoring", *AUTHORING_DOORS)):
            continue
        used = {name for name in imports_of(module, path, set(found)) if name.startswith("tutor.authoring")}
        assert not used, f"{module} imports {sorted(used)}: move what the runtime needs below tutor.authoring"


def test_the_wheel_lists_every_package():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    listed = set(config["tool"]["setuptools"]["packages"])
    packages = {m for m, p in modules().items() if p.name == "__init__.py"}
    assert packages == listed, f"missing from pyproject: {sorted(packages - listed)}; stale: {sorted(listed - packages)}"


if __name__ == "__main__":
    edges = _package_face_edges(graph())
    found = cycles(edges)
    upward = upward_imports(edges)
    print(f"{len(edges)} modules, {sum(len(t) for t in edges.values())} imports, {len(found)} cycles, "
          f"{len(upward)} upward imports")
    for component in found:
        print("cycle:", " -> ".join(component))
    for line in upward:
        print("upward:", line)
    sys.exit(1 if found or upward else 0)
