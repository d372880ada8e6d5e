"""The package's plan stays readable: few top-level modules, no import cycles, no hidden imports."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).parent.parent / "numalint"
# import inside functions for start-up time: the CLI per command; the alignment core, the simulation and the
# node-side views only for runs with kubelet configurations, PerformanceProfiles or topologies
LAZY_IMPORTERS = {"numalint.cli", "numalint.analysis", "numalint.checks", "numalint.checks.openshift_rules",
                  "numalint.engine", "numalint.model.sriov", "numalint.checks.sriov_rules", "numalint.config",
                  "numalint.checks.streamed", "numalint.reading.sources",  # the globs of many exclusions
                  "numalint.checks.input_rules",  # the index of names, only for a resource no one provides
                  # the command decides between the server and the command line before importing either
                  "numalint.server.launch", "numalint.server.client", "numalint.server.daemon"}


def _module(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports() -> dict[str, tuple[set[str], set[str]]]:
    """module -> (numalint modules imported at top level, imported inside functions)."""
    modules = {_module(p): p for p in PACKAGE.rglob("*.py")}
    graph: dict[str, tuple[set[str], set[str]]] = {}
    for name, path in modules.items():
        top: set[str] = set()
        nested: set[str] = set()
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("numalint"):
                targets = {node.module} | {f"{node.module}.{a.name}" for a in node.names}
            elif isinstance(node, ast.Import):
                targets = {a.name for a in node.names if a.name.startswith("numalint")}
            else:
                continue
            found = {t for t in targets if t in modules and t != name}
            in_function = any(isinstance(parent, (ast.FunctionDef, ast.AsyncFunctionDef))
                              and node in ast.walk(parent) for parent in ast.walk(tree))
            (nested if in_function else top).update(found)
        graph[name] = (top, nested)
    return graph


def _under_type_checking(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            for inner in ast.walk(node):
                if isinstance(inner, ast.ImportFrom) and inner.module:
                    names.add(inner.module)
    return names


def test_at_most_ten_top_level_modules() -> None:
    assert len(list(PACKAGE.glob("*.py"))) <= 10


def test_no_import_cycles() -> None:
    graph = _imports()
    typing_only = {_module(p): _under_type_checking(p) for p in PACKAGE.rglob("*.py")}
    edges = {m: (top | nested) - typing_only[m] for m, (top, nested) in graph.items()}
    state: dict[str, int] = {}

    def visit(module: str, trail: list[str]) -> None:
        state[module] = 1
        for target in sorted(edges.get(module, ())):
            assert state.get(target) != 1, "import cycle: " + " -> ".join(trail + [module, target])
            if target not in state:
                visit(target, trail + [module])
        state[module] = 2

    for module in sorted(edges):
        if module not in state:
            visit(module, [])


def test_function_level_imports_only_where_start_up_needs_them() -> None:
    hidden = {m: nested for m, (_top, nested) in _imports().items() if nested and m not in LAZY_IMPORTERS}
    assert hidden == {}


def test_every_finding_is_made_by_the_registry() -> None:
    """Checks yield hits the registry stamps; other producers call catalogue.finding, which refuses a rule
    the catalogue does not have. Nothing else constructs a Finding."""
    makers = []
    for path in PACKAGE.rglob("*.py"):
        if _module(path) in ("numalint.findings", "numalint.catalogue"):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "Finding":
                makers.append(f"{_module(path)}:{node.lineno}")
    assert makers == []
