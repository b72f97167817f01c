"""The layout of the Rust core keeps its promises (docs/architecture.md): no module cycle between
the top-level modules, the run loop file stays small, no file grows past 1,000 lines, and each
extension point's enum is matched where docs/architecture.md says."""

from __future__ import annotations

import re
from pathlib import Path

SRC = Path(__file__).resolve().parent.parent / "crates" / "atmsim-core" / "src"


def _code(path: Path) -> str:
    if path.name.endswith("_tests.rs") or path.name == "tests.rs":
        return ""  # a file of tests only: tests may name anything
    text = path.read_text(encoding="utf-8")
    text = re.split(r"#\[cfg\(test\)\]\s*(?:pub\(crate\) )?mod tests", text)[0]
    return "\n".join(line for line in text.splitlines() if not line.strip().startswith("//"))


def module_graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for f in SRC.rglob("*.rs"):
        rel = f.relative_to(SRC)
        if rel.parts[0] == "bin" or rel.name == "lib.rs":
            continue
        top = rel.parts[0].removesuffix(".rs")
        deps = set(re.findall(r"crate::([a-z_0-9]+)", _code(f)))
        if top != "sim" and re.search(r"\bimpl Simulation\b", _code(f)):
            deps.add("sim")  # an impl of the engine's type is a dependency on it
        deps.discard(top)
        graph.setdefault(top, set()).update(deps)
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(v: str) -> list[str] | None:
        state[v] = 1
        stack.append(v)
        for w in sorted(graph.get(v, ())):
            if state.get(w) == 1:
                return stack[stack.index(w):] + [w]
            if w not in state and (c := visit(w)):
                return c
        stack.pop()
        state[v] = 2
        return None

    for v in sorted(graph):
        if v not in state and (c := visit(v)):
            return c
    return None


def test_no_module_cycle() -> None:
    graph = module_graph()
    assert {"sim", "net", "build", "app", "transport", "abr", "host"} <= set(graph)
    assert find_cycle(graph) is None, f"module cycle: {' -> '.join(find_cycle(graph) or [])}"
    # the layering docs/architecture.md describes
    assert "host" not in graph["app"] and "abr" not in graph["app"]
    assert "sim" not in graph["net"] and "build" not in graph["sim"]


def test_cycle_finder_finds_a_cycle() -> None:
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


def test_file_sizes() -> None:
    sizes = {f.relative_to(SRC).as_posix(): len(f.read_text().splitlines()) for f in SRC.rglob("*.rs")}
    assert sizes["sim/mod.rs"] < 600
    big = {k: v for k, v in sizes.items() if v > 1000}
    assert not big, f"files over 1,000 lines: {big}"


def test_extension_enum_variants_are_named_only_where_documented() -> None:
    """A new fabric, scheduler, ABR scheme, transport or application adds a variant to its enum;
    its variants are named only in the enum's own file and the builder (for fabrics, the fabrics'
    own build file: the engine calls their hooks through the enum's methods), the places
    docs/architecture.md lists, so a new variant touches nothing else."""
    homes = {
        "AnyFabric": {"net/switch/mod.rs", "build/fabric.rs"},
        "Scheduler": {"net/sched.rs", "build/port.rs"},
        "PortScheme": {"abr/switch/mod.rs", "build/abr.rs"},
        # the builders (one file per source kind under build/, never build/mod.rs) make them
        "AnyTransport": {"transport/mod.rs", "build/"},
        # an application may name its own peer's variant (the far end of the same model)
        "AnyApp": {"app/mod.rs", "app/video_tx.rs", "app/workload.rs", "host/endpoint.rs", "build/"},
    }
    for enum, allowed in homes.items():
        users = {
            f.relative_to(SRC).as_posix()
            for f in SRC.rglob("*.rs")
            if re.search(rf"\b{enum}::[A-Z]", _code(f))
        }
        outside = {
            u for u in users
            if u not in allowed
            and not any(a.endswith("/") and u.startswith(a) and u != a + "mod.rs" for a in allowed)
        }
        assert not outside, f"{enum} variants named outside {sorted(allowed)}: {sorted(outside)}"


def fabric_names() -> set[str]:
    """What names a fabric: the variants of ``AnyFabric``, every type and constant a fabric's own
    file under ``net/switch/`` declares, and those files as modules (``switch::credit``)."""
    switch = SRC / "net" / "switch"
    enum = re.search(r"pub enum AnyFabric\s*\{(.*?)\n\}", _code(switch / "mod.rs"), re.S)
    assert enum, "AnyFabric not found in net/switch/mod.rs"
    names = set(re.findall(r"^\s*([A-Z]\w*)\s*[({,]", enum.group(1), re.M))
    for f in switch.glob("*.rs"):
        if f.name == "mod.rs" or f.name.endswith("_tests.rs"):
            continue
        declared = r"\bpub(?:\([a-z]+\))?\s+(?:struct|enum|trait|type|const)\s+([A-Za-z_]\w*)"
        names |= set(re.findall(declared, _code(f)))
        names.add(f"switch::{f.stem}")
    return names


def test_engine_names_no_fabric() -> None:
    """The engine (``sim/``, its tests apart) drives every fabric through the hooks of
    ``net/switch/mod.rs`` (``AnyFabric``'s methods, ``Arrival``, ``FabricAsks``): it names no
    fabric, so a new fabric changes nothing there."""
    names = fabric_names()
    assert {"OutputBuffered", "Credit", "CreditFabric", "switch::credit"} <= names, sorted(names)
    for f in sorted((SRC / "sim").rglob("*.rs")):
        if f.name.endswith("_tests.rs"):
            continue
        code = _code(f)
        named = sorted(n for n in names if re.search(rf"\b{re.escape(n)}\b", code))
        if re.search(r"\bAnyFabric::", code):
            named.append("AnyFabric::")
        assert not named, f"{f.relative_to(SRC).as_posix()} names a fabric: {named}"


# =================================================================================================
# Python package (python/atmsim), issue 25: no import cycle among its modules, no private name
# imported from another of its modules, no function over 150 lines. Separate from the Rust checks
# above; each guard has a test on a synthetic package showing it fails when it should.

import ast  # noqa: E402 - this block keeps its own imports
from dataclasses import dataclass  # noqa: E402

PY_ROOT = Path(__file__).resolve().parent.parent / "python"
PY_PACKAGE = "atmsim"
MAX_FUNCTION_LINES = 150
#: modules that import by a computed name: module -> (a module-level tuple of names in it, the
#: module each name stands for). The registry of ``atmsim reproduce`` loads its experiment modules
#: by name; the guard adds those edges. Any other computed import fails
#: test_py_dynamic_imports_are_declared.
PY_DYNAMIC_IMPORTS = {"atmsim.reproduce": ("EXPERIMENT_MODULES", "atmsim.reproduce.{}")}


@dataclass(frozen=True)
class PyImport:
    importer: str
    module: str  # the atmsim module imported from (or imported, when name is None)
    name: str | None  # the name taken from it; None when a module itself is imported
    line: int


def py_modules(root: Path = PY_ROOT, package: str = PY_PACKAGE) -> dict[str, Path]:
    """Dotted name -> file of every module of ``package`` under ``root``: a package's
    ``__init__.py`` is the module named like the package; a compiled module (only its ``.pyi``
    stub is in the tree, e.g. ``atmsim._core``) is a module without imports."""
    out: dict[str, Path] = {}
    for f in sorted((root / package).rglob("*.py*")):
        if f.suffix not in (".py", ".pyi") or (f.suffix == ".pyi" and f.with_suffix(".py").exists()):
            continue
        parts = list(f.relative_to(root).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = f
    return out


def _py_dynamic_targets(tree: ast.Module, module: str) -> list[str]:
    """The modules a declared computed import of ``module`` (PY_DYNAMIC_IMPORTS) stands for."""
    if module not in PY_DYNAMIC_IMPORTS:
        return []
    table, pattern = PY_DYNAMIC_IMPORTS[module]
    for node in tree.body:
        target = node.target if isinstance(node, ast.AnnAssign) else (node.targets[0] if isinstance(node, ast.Assign) else None)
        if isinstance(target, ast.Name) and target.id == table and node.value is not None:
            return [pattern.format(n) for n in ast.literal_eval(node.value)]
    raise AssertionError(f"{module}: no module-level {table} for PY_DYNAMIC_IMPORTS")


def py_imports(root: Path = PY_ROOT, package: str = PY_PACKAGE) -> tuple[list[PyImport], list[str]]:
    """Every import among the package's modules, at any depth (inside functions too):
    ``import X``, ``from X import a`` (relative ones resolved), ``importlib.import_module("X")`` /
    ``__import__("X")`` with a literal name, and the declared computed ones (PY_DYNAMIC_IMPORTS).
    Also returns ``module:line`` of each computed import that is not declared."""
    modules = py_modules(root, package)
    found: list[PyImport] = []
    undeclared: list[str] = []
    for mod, path in modules.items():
        if path.suffix == ".pyi":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        here = mod if path.name == "__init__.py" else mod.rpartition(".")[0]
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                found += [PyImport(mod, a.name, None, node.lineno) for a in node.names if a.name in modules]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = here.split(".")[: len(here.split(".")) - (node.level - 1)]
                    target = ".".join(base + ([node.module] if node.module else []))
                else:
                    target = node.module or ""
                for a in node.names:
                    if f"{target}.{a.name}" in modules:
                        found.append(PyImport(mod, f"{target}.{a.name}", None, node.lineno))
                    elif target in modules:
                        found.append(PyImport(mod, target, a.name, node.lineno))
            elif isinstance(node, ast.Call) and _py_is_import_call(node):
                arg = node.args[0] if node.args else None
                if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                    if arg.value in modules:
                        found.append(PyImport(mod, arg.value, None, node.lineno))
                elif mod in PY_DYNAMIC_IMPORTS:
                    found += [PyImport(mod, t, None, node.lineno) for t in _py_dynamic_targets(tree, mod)]
                else:
                    undeclared.append(f"{mod}:{node.lineno}")
    return found, undeclared


def _py_is_import_call(node: ast.Call) -> bool:
    f = node.func
    return (isinstance(f, ast.Name) and f.id == "__import__") or (
        isinstance(f, ast.Attribute) and f.attr == "import_module"
        and isinstance(f.value, ast.Name) and f.value.id == "importlib"
    )


def py_import_graph(root: Path = PY_ROOT, package: str = PY_PACKAGE) -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {m: set() for m in py_modules(root, package)}
    for imp in py_imports(root, package)[0]:
        if imp.module != imp.importer:
            graph[imp.importer].add(imp.module)
    return graph


def _py_private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def py_private_imports(root: Path = PY_ROOT, package: str = PY_PACKAGE) -> list[str]:
    """``importer:line: module._name`` for each private name (one leading underscore; dunders
    such as ``__version__`` are public) one module takes from another. Importing a module is not
    a name: ``from . import _core`` (the compiled core) is allowed."""
    return [
        f"{i.importer}:{i.line}: {i.module}.{i.name}"
        for i in py_imports(root, package)[0]
        if i.name is not None and _py_private(i.name) and i.module != i.importer
    ]


def py_long_functions(root: Path = PY_ROOT, package: str = PY_PACKAGE, limit: int = MAX_FUNCTION_LINES) -> dict[str, int]:
    """``file:line name`` -> lines, for every function or method (nested ones too) longer than
    ``limit`` lines, counted from its ``def`` line to its last line."""
    out = {}
    for f in sorted((root / package).rglob("*.py")):
        for node in ast.walk(ast.parse(f.read_text(encoding="utf-8"), str(f))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                n = (node.end_lineno or node.lineno) - node.lineno + 1
                if n > limit:
                    out[f"{f.relative_to(root).as_posix()}:{node.lineno} {node.name}"] = n
    return out


def test_py_no_import_cycle() -> None:
    graph = py_import_graph()
    cycle = find_cycle(graph)
    assert cycle is None, f"import cycle among the modules of python/atmsim: {' -> '.join(cycle or [])}"
    # the imports a reading of module-level statements alone would miss are counted
    assert "atmsim.study" in graph["atmsim"]  # atmsim.__getattr__'s function-level import
    assert "atmsim.reproduce.seed001" in graph["atmsim.reproduce"]  # the registry's computed import
    assert "atmsim._core" in graph["atmsim.errors"]  # a compiled module (only its stub is in the tree)


def test_py_dynamic_imports_are_declared() -> None:
    assert py_imports()[1] == [], "an import by computed name the cycle guard cannot follow: declare it in PY_DYNAMIC_IMPORTS"


def test_py_no_private_name_imported_from_another_module() -> None:
    private = py_private_imports()
    assert not private, "private names imported across modules (make them public where defined): " + "; ".join(private)


def test_py_no_function_over_150_lines() -> None:
    long = py_long_functions()
    assert not long, f"functions over {MAX_FUNCTION_LINES} lines: {long}"


def _write_package(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def test_py_cycle_guard_sees_relative_lazy_and_computed_imports(tmp_path: Path) -> None:
    root = _write_package(tmp_path, {
        "pkg/__init__.py": "def load():\n    from .sub import c  # lazy\n",
        "pkg/b.py": "X = 1\n",
        "pkg/sub/__init__.py": "",
        "pkg/sub/c.py": "from ..b import X\nfrom .. import helper\n",
        "pkg/helper.py": "import importlib\ndef f():\n    return importlib.import_module('pkg')\n",
        "pkg/_ext.pyi": "def g() -> None: ...\n",
    })
    graph = py_import_graph(root, "pkg")
    assert graph["pkg"] == {"pkg.sub.c"} and graph["pkg.sub.c"] == {"pkg.b", "pkg.helper"}
    assert graph["pkg.helper"] == {"pkg"} and graph["pkg._ext"] == set()
    assert find_cycle(graph) == ["pkg", "pkg.sub.c", "pkg.helper", "pkg"]
    (root / "pkg/helper.py").write_text("def f():\n    return 1\n")
    assert find_cycle(py_import_graph(root, "pkg")) is None
    (root / "pkg/helper.py").write_text("import importlib\ndef f(n):\n    return importlib.import_module(n)\n")
    assert py_imports(root, "pkg")[1] == ["pkg.helper:3"]


def test_py_private_guard_flags_a_private_name(tmp_path: Path) -> None:
    root = _write_package(tmp_path, {
        "pkg/__init__.py": "__version__ = '1'\n",
        "pkg/a.py": "def _helper():\n    pass\ndef public():\n    _helper()\n",
        "pkg/b.py": "from . import __version__, _ext\nfrom .a import public\n",
        "pkg/_ext.pyi": "",
    })
    assert py_private_imports(root, "pkg") == []
    (root / "pkg/c.py").write_text("def f():\n    from .a import _helper\n    return _helper\n")
    assert py_private_imports(root, "pkg") == ["pkg.c:2: pkg.a._helper"]


def test_py_length_guard_flags_a_long_function(tmp_path: Path) -> None:
    def source(n: int) -> str:  # a function of n lines
        return "def f():\n" + "    x = 1\n" * (n - 2) + "    return x\n"

    root = _write_package(tmp_path, {"pkg/__init__.py": source(MAX_FUNCTION_LINES)})
    assert py_long_functions(root, "pkg") == {}
    (root / "pkg/m.py").write_text("class C:\n    " + source(MAX_FUNCTION_LINES + 1).replace("\n", "\n    ").rstrip() + "\n")
    assert py_long_functions(root, "pkg") == {"pkg/m.py:2 f": MAX_FUNCTION_LINES + 1}


# =================================================================================================
# The host layer and the engine (issue 25): the engine (sim/) and the build dispatch
# (build/mod.rs) name no model kind; an endpoint is one of at most four kinds.

#: the folders whose files each hold models of one extension point (their mod.rs is the face)
MODEL_DIRS = ("app", "transport", "net/switch", "abr/switch")


def model_names() -> dict[str, str]:
    """Every type, trait and constant a model file declares (applications, transports, fabrics,
    ABR switch schemes), and the variants of the enums that list them: name -> where."""
    declared = r"\bpub(?:\([a-z]+\))?\s+(?:struct|enum|trait|type|const)\s+([A-Za-z_]\w*)"
    names: dict[str, str] = {}
    for d in MODEL_DIRS:
        for f in sorted((SRC / d).rglob("*.rs")):
            if f.name == "mod.rs" and f.parent == SRC / d:
                continue
            for n in re.findall(declared, _code(f)):
                names.setdefault(n, f.relative_to(SRC).as_posix())
    faces = {"AnyApp": "app/mod.rs", "AnyTransport": "transport/mod.rs",
             "AnyFabric": "net/switch/mod.rs", "PortScheme": "abr/switch/mod.rs"}
    for enum, f in faces.items():
        m = re.search(rf"pub enum {enum}\s*\{{(.*?)\n\}}", _code(SRC / f), re.S)
        body = m.group(1) if m else ""
        if enum == "AnyApp":  # listed by the applications! macro
            body = re.search(r"applications!\s*\{(.*?)\n\}", _code(SRC / f), re.S).group(1)
        for v in re.findall(r"^\s*([A-Z]\w*)\s*[({,]", body, re.M):
            names.setdefault(f"{enum}::{v}", f)
    return names


def names_used(code: str, names: dict[str, str]) -> list[str]:
    return sorted(n for n in names if re.search(rf"(?<![\w:]){re.escape(n)}\b", code))


def test_engine_and_build_dispatch_name_no_model() -> None:
    """The engine and the build dispatch call hooks: a new application, transport, fabric or
    switch scheme adds nothing to sim/ or build/mod.rs (DESIGN.md, "The host layer")."""
    names = model_names()
    for must in ("TcpSender", "XtpxSender", "UdpEnd", "VideoSender", "WorkloadApp", "Echo",
                 "CreditFabric", "Erica", "AnyApp::Cbr", "AnyTransport::Udp", "AnyFabric::Credit"):
        assert must in names, must
    files = [f for f in sorted((SRC / "sim").glob("*.rs")) if not f.name.endswith("_tests.rs")]
    files.append(SRC / "build" / "mod.rs")
    for f in files:
        used = names_used(_code(f), names)
        assert not used, f"{f.relative_to(SRC).as_posix()} names models: {used}"


def test_model_name_finder_finds_names() -> None:
    names = {"TcpSender": "transport/tcp/sender.rs", "AnyApp::Cbr": "app/mod.rs"}
    assert names_used("let t: TcpSender = x; match a { AnyApp::Cbr(_) => 1 }", names) == [
        "AnyApp::Cbr", "TcpSender"]
    assert names_used("TcpSenderish; crate::transport::tcp::TcpSenderX", names) == []


def test_an_endpoint_is_one_of_at_most_four_kinds() -> None:
    """A cell-level application, an ABR source, an ABR destination, or a host: the growth goes
    into the applications and transports below a host, never into the endpoint enum."""
    m = re.search(r"pub enum AnySource\s*\{(.*?)\n\}", _code(SRC / "host" / "endpoint.rs"), re.S)
    assert m, "AnySource not found in host/endpoint.rs"
    variants = re.findall(r"^\s*([A-Z]\w*)\s*[({,]", m.group(1), re.M)
    assert variants == ["App", "Abr", "AbrDest", "Host"], variants
    # and nothing outside the host layer matches its variants, apart from the builders
    for f in SRC.rglob("*.rs"):
        rel = f.relative_to(SRC).as_posix()
        if rel.startswith(("host/", "build/")) and rel != "build/mod.rs":
            continue
        assert not re.search(r"\bAnySource::(App|Abr|AbrDest|Host)\b", _code(f)), rel
