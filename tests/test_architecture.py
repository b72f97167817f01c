"""The layout of the Rust core keeps its promises (docs/architecture.md): no module cycle between
the top-level modules nor between the files of scenario/, the run loop file stays small, no file
grows past 1,000 lines nor any function past 150, and each extension point's enum is matched where
docs/architecture.md says."""

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
PY_DYNAMIC_IMPORTS = {
    "atmsim.reproduce": ("EXPERIMENT_MODULES", "atmsim.reproduce.{}"),
    "atmsim": ("SUBMODULES", "atmsim.{}"),  # the package's lazy submodules (issue 29)
}


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


def test_an_endpoint_is_one_of_three_kinds() -> None:
    """A cell-level application, a host, or either above a VC end's ABR rate control (issue
    32: ABR beneath whatever feeds the VC): the growth goes into the applications and
    transports below a host, never into the endpoint enum."""
    m = re.search(r"pub enum AnySource\s*\{(.*?)\n\}", _code(SRC / "host" / "endpoint.rs"), re.S)
    assert m, "AnySource not found in host/endpoint.rs"
    variants = re.findall(r"^\s*([A-Z]\w*)\s*[({,]", m.group(1), re.M)
    assert variants == ["App", "Abr", "Host"], variants
    # and nothing outside the host layer matches its variants, apart from the builders
    for f in SRC.rglob("*.rs"):
        rel = f.relative_to(SRC).as_posix()
        if rel.startswith(("host/", "build/")) and rel != "build/mod.rs":
            continue
        assert not re.search(r"\bAnySource::(App|Abr|AbrDest|Host)\b", _code(f)), rel


# --- function lengths (issue 25): no function over 150 lines --------------------------------------

MAX_FUNCTION_LINES = 150

#: functions allowed over the limit (none: the three of issue 25 were split)
LONG_FUNCTIONS_ALLOWED: set[tuple[str, str]] = set()

_CHAR = re.compile(r"'(?:\\(?:x[0-9a-fA-F]{2}|u\{[0-9a-fA-F]*\}|.)|[^\\'\n])'")
_RAW_STRING = re.compile(r'b?r(#*)"')
_TEST_MODULE = re.compile(
    r"#\[cfg\(test\)\]\s*(?:#\[[^\]]*\]\s*)*(?:pub(?:\([^)]*\))?\s+)?mod\s+\w+\s*(?:\{|;)"
)


def _blank_lines(s: str) -> str:
    return re.sub(r"[^\n]", " ", s)


def blank(text: str) -> str:
    """Rust source with its comments, string literals (raw ones included) and char literals
    blanked to spaces, newlines kept: what is left has only the code's own braces and paths."""
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        in_word = i > 0 and (text[i - 1].isalnum() or text[i - 1] == "_")
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
        elif text.startswith("/*", i):
            depth, j = 1, i + 2
            while j < n and depth:
                step = text[j : j + 2]
                depth += (step == "/*") - (step == "*/")
                j += 2 if step in ("/*", "*/") else 1
        elif not in_word and (m := _RAW_STRING.match(text, i)):
            j = text.find('"' + m.group(1), m.end())
            j = n if j < 0 else j + 1 + len(m.group(1))
        elif text[i] == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            j += 1
        elif text[i] == "'" and (m := _CHAR.match(text, i)):
            j = m.end()
        else:
            out.append(text[i])
            i += 1
            continue
        out.append(_blank_lines(text[i:j]))
        i = j
    return "".join(out)


def _closing_brace(code: str, at: int) -> int:
    depth = 0
    for k in range(at, len(code)):
        depth += (code[k] == "{") - (code[k] == "}")
        if depth == 0:
            return k
    raise ValueError("unbalanced braces")


def without_test_modules(code: str) -> str:
    """Blanked code with every `#[cfg(test)]` module (inline body, or the `mod x;` of its file)
    blanked too."""
    while m := _TEST_MODULE.search(code):
        end = _closing_brace(code, m.end() - 1) + 1 if m.group().endswith("{") else m.end()
        code = code[: m.start()] + _blank_lines(code[m.start() : end]) + code[end:]
    return code


def function_lengths(text: str) -> list[tuple[str, int, int]]:
    """(name, first line, lines from `fn` to its closing brace) of every function with a body,
    outside `#[cfg(test)]` modules."""
    code = without_test_modules(blank(text))
    found = []
    for m in re.finditer(r"\bfn\s+([A-Za-z_]\w*)", code):
        depth, j = 0, m.end()
        # the body starts at the first `{` outside the signature's () and [] (`[u8; 4]`)
        while j < len(code) and not (depth == 0 and code[j] in "{;"):
            depth += (code[j] in "([") - (code[j] in ")]")
            j += 1
        if j == len(code) or code[j] == ";":
            continue  # no body: a trait's declaration
        end = _closing_brace(code, j)
        first = code.count("\n", 0, m.start()) + 1
        found.append((m.group(1), first, code.count("\n", m.start(), end) + 1))
    return found


def long_functions(src: Path = SRC, limit: int = MAX_FUNCTION_LINES) -> dict[tuple[str, str], int]:
    """Every function over `limit` lines under `src`, by (file, name); test files left out."""
    long = {}
    for f in sorted(src.rglob("*.rs")):
        if f.name == "tests.rs" or f.name.endswith("_tests.rs"):
            continue
        for name, _, lines in function_lengths(f.read_text(encoding="utf-8")):
            if lines > limit:
                long[(f.relative_to(src).as_posix(), name)] = lines
    return long


def test_no_function_over_150_lines() -> None:
    long = long_functions()
    over = sorted(set(long) - LONG_FUNCTIONS_ALLOWED)
    assert not over, f"functions over {MAX_FUNCTION_LINES} lines: " + ", ".join(
        f"{f}::{n} ({long[(f, n)]})" for f, n in over
    )


def test_line_counter_on_synthetic_source() -> None:
    body = "\n".join(f"    let x{i} = {i};" for i in range(148))
    text = f"""
fn short(a: [u8; 4], b: &'static str) -> usize {{
    // a brace in a comment {{
    let s = "{{ in a string }} \\" {{";
    let r = r#"raw {{ "quoted" {{"#;
    let c = '{{';
    /* a block {{ comment /* nested {{ */ */
    let f = |v: u8| {{ v + 1 }};
    a.len() + b.len() + s.len() + r.len() + (c as usize) + f(1) as usize
}}

trait T {{
    fn declared(&self) -> u8;
}}

fn exactly_150() {{
{body}
}}

fn is_151() {{
{body}
    let y = 0;
}}

#[cfg(test)]
mod tests {{
    fn long_test() {{
{body}
{body}
    }}
}}
"""
    got = {name: lines for name, _, lines in function_lengths(text)}
    assert got == {"short": 9, "exactly_150": 150, "is_151": 151}
    assert [n for n, lines in got.items() if lines > MAX_FUNCTION_LINES] == ["is_151"]


# --- no cycle between the files of scenario/ (issue 25) -------------------------------------------

_ITEM = re.compile(
    r"^(?:pub(?:\([^)]*\))?\s+)?(?:(?:const|async|unsafe|extern)\s+)*"
    r"(?:fn|struct|enum|type|const|static|trait|union|mod|macro_rules!)\s+([A-Za-z_]\w*)",
    re.M,
)
_USE = re.compile(r"(?:^|(?<=[;{}\s]))(pub(?:\([^)]*\))?\s+)?use\s+([^;]+);")
_MOD = re.compile(r"^(?:pub(?:\([^)]*\))?\s+)?mod\s+(\w+)\s*;", re.M)
_PATH_MOD = re.compile(r'#\[path\s*=\s*"([^"]+)"\]\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+(\w+)\s*;')
_PATH = re.compile(r"(?<![\w:])((?:[A-Za-z_]\w*::)+[A-Za-z_]\w*)")

Module = tuple[str, ...]


def _use_tree(tree: str, prefix: Module = ()) -> list[tuple[Module, str]]:
    """A use tree (`a::{b, c::d as e, f::*}`) as (module path, name it binds; `*` for a glob)."""
    tree = tree.strip()
    if tree.endswith("}"):
        head, body = tree[: tree.index("{")], tree[tree.index("{") + 1 : -1]
        base = prefix + tuple(s for s in head.split("::") if s)
        parts, depth, start = [], 0, 0
        for k, ch in enumerate(body + ","):
            depth += (ch == "{") - (ch == "}")
            if ch == "," and depth == 0:
                parts.append(body[start:k])
                start = k + 1
        return [u for p in parts if p.strip() for u in _use_tree(p, base)]
    tree, _, alias = tree.partition(" as ")
    segs = prefix + tuple(s.strip() for s in tree.split("::") if s.strip())
    if segs[-1] in ("*", "self"):
        return [(segs[:-1], alias.strip() or ("*" if segs[-1] == "*" else segs[-2]))]
    return [(segs, alias.strip() or segs[-1])]


class RustFiles:
    """The files of a crate as modules: which file is which module path (from `lib.rs`, through
    `mod x;` and `#[path]`), what each defines, and which other files each one uses."""

    def __init__(self, src: Path) -> None:
        self.file: dict[Module, Path] = {}
        self.code: dict[Path, str] = {}
        todo: list[tuple[Module, Path]] = [(("crate",), src / "lib.rs")]
        while todo:
            module, f = todo.pop()
            raw = f.read_text(encoding="utf-8")
            code = without_test_modules(blank(raw))
            self.file[module], self.code[f] = f, code
            folder = f.parent if f.name in ("lib.rs", "mod.rs") else f.parent / f.stem
            paths = {m.group(2): f.parent / m.group(1) for m in _PATH_MOD.finditer(raw)}
            for name in _MOD.findall(code):
                child = folder / f"{name}.rs"
                child = paths.get(name, child if child.exists() else folder / name / "mod.rs")
                todo.append((module + (name,), child))
        self.module = {f: m for m, f in self.file.items()}

    def items(self, module: Module) -> set[str]:
        return set(_ITEM.findall(self.code[self.file[module]]))

    def uses(self, f: Path) -> list[tuple[bool, Module, str]]:
        """(re-exported, path, name bound) of each `use` in file f."""
        return [
            (bool(m.group(1)), path, name)
            for m in _USE.finditer(self.code[f])
            for path, name in _use_tree(m.group(2))
        ]

    def resolve(self, module: Module, path: Module, seen: frozenset = frozenset()) -> Path | None:
        """The file that defines what `path`, written in `module`, names (through re-exports);
        None outside the crate."""
        if (module, path) in seen:
            return None
        seen |= {(module, path)}
        at, rest = module, list(path)
        if rest and rest[0] == "crate":
            at, rest = ("crate",), rest[1:]
        elif rest and rest[0] == "self":
            rest = rest[1:]
        while rest and rest[0] == "super":
            at, rest = at[:-1], rest[1:]
        if at not in self.file:
            return None
        while rest and at + (rest[0],) in self.file:
            at, rest = at + (rest[0],), rest[1:]
        if not rest:
            return self.file[at]
        name, f = rest[0], self.file[at]
        if name in self.items(at):
            return f
        for public, target, bound in self.uses(f):
            if public and bound == name:
                return self.resolve(at, target, seen)
            if public and bound == "*" and (found := self.resolve(at, target + (name,), seen)):
                return found
        return None

    def deps(self, f: Path) -> set[Path]:
        """The other files whose items file f uses: by a `use` (a re-export only when f's code
        also names it: a `pub use` alone is the module's interface, not a use) or by a path
        written in the code (`super::x::f()`, `crate::a::B`, `child::g()`)."""
        module, code = self.module[f], self.code[f]
        rest = _USE.sub(" ", code)
        words = set(re.findall(r"[A-Za-z_]\w*", rest))
        found: set[Path | None] = set()
        for public, path, bound in self.uses(f):
            if bound == "*":
                target = self.resolve(module, path)
                if target is not None:
                    names = self.items(self.module[target]) & words
                    found |= {self.resolve(self.module[target], (w,)) for w in names}
            elif bound in words or not public:
                found.add(self.resolve(module, path))
        children = {m[-1] for m in self.file if m[:-1] == module}
        for p in _PATH.findall(rest):
            segs = tuple(p.split("::"))
            if segs[0] in ("crate", "super", "self") or segs[0] in children:
                found.add(self.resolve(module, segs))
        return {d for d in found if d is not None and d != f}


def file_graph(src: Path, folder: str) -> dict[str, set[str]]:
    """The files of `folder` (under src) and which others of the folder each one uses."""
    crate = RustFiles(src)
    inside = {f: f.relative_to(src).as_posix() for f in crate.code}
    inside = {f: rel for f, rel in inside.items() if rel.startswith(folder + "/")}
    return {rel: {inside[d] for d in crate.deps(f) if d in inside} for f, rel in inside.items()}


def test_no_cycle_between_scenario_files() -> None:
    graph = file_graph(SRC, "scenario")
    cycle = find_cycle(graph)
    assert cycle is None, f"cycle between files of scenario/: {' -> '.join(cycle or [])}"
    # check.rs is the top of the checks, check_util.rs the bottom (the graph sees real uses)
    assert {"scenario/check_nodes.rs", "scenario/check_connection.rs"} <= graph["scenario/check.rs"]
    assert "scenario/check.rs" in graph["scenario/mod.rs"]
    assert graph["scenario/check_util.rs"] == set()
    assert "scenario/check_util.rs" in graph["scenario/check_connection.rs"]
    users = {f for f, deps in graph.items() if "scenario/check.rs" in deps}
    assert users == {"scenario/mod.rs"}


def test_file_graph_on_synthetic_crate(tmp_path: Path) -> None:
    def crate(files: dict[str, str]) -> dict[str, set[str]]:
        for name, text in files.items():
            (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
            (tmp_path / name).write_text(text)
        return file_graph(tmp_path, "m")

    base = {
        "lib.rs": "mod m;\n",
        "m/mod.rs": "mod a;\nmod b;\n#[path = \"c_file.rs\"]\nmod c;\npub use a::*;\n"
        "pub(crate) use b::{Thing, other};\n\n#[cfg(test)]\nmod tests;\n",
        "m/tests.rs": "use super::a::A;\nuse super::b::Thing;\n",
        "m/a.rs": "use super::{c::{See}, Thing};\npub struct A;\nfn f(_: Thing, _: See) {}\n",
        "m/c_file.rs": "pub struct See;\n",
    }
    # b.rs names a's A in a comment and a string only: no cycle, and re-exports alone are no use
    quiet = '// super::A\npub struct Thing;\nconst S: &str = "super::A";\n'
    graph = crate(base | {"m/b.rs": quiet})
    assert graph == {
        "m/mod.rs": set(),
        "m/a.rs": {"m/b.rs", "m/c_file.rs"},
        "m/b.rs": set(),
        "m/c_file.rs": set(),
    }
    assert find_cycle(graph) is None
    # b.rs uses A through mod.rs's glob re-export: a -> b -> a
    graph = crate(base | {"m/b.rs": "pub struct Thing;\nfn g() -> super::A { super::A }\n"})
    assert graph["m/b.rs"] == {"m/a.rs"}
    assert find_cycle(graph) == ["m/a.rs", "m/b.rs", "m/a.rs"]
    # mod.rs's own code uses the re-exported Thing: mod.rs -> b.rs
    used = base["m/mod.rs"] + "fn h(_: Thing) {}\n"
    graph = crate(base | {"m/mod.rs": used, "m/b.rs": "pub struct Thing;\n"})
    assert graph["m/mod.rs"] == {"m/b.rs"}


# --- layers (issue 32): no dependency that layers.json forbids -------------------------------------

import json  # noqa: E402 - this block keeps its own imports
from typing import NamedTuple  # noqa: E402

import pytest  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
#: the rules beside DESIGN.md (the repository is cloned with ../shared/ beside it)
SHARED_LAYERS = REPO.parent / "shared" / "layers.json"
#: a byte copy of them, used when ../shared/ is absent
LAYERS_COPY = REPO / "tests" / "data" / "layers.json"


def layer_rules() -> dict:
    path = SHARED_LAYERS if SHARED_LAYERS.exists() else LAYERS_COPY
    return json.loads(path.read_text(encoding="utf-8"))


def part_of(rel: str, parts: dict) -> str | None:
    """The part a file (path relative to the repository) belongs to: the one with the longest
    matching `is` prefix (`host/mod.rs` is HostFace, the other files of `host/` are Host)."""
    best: tuple[int, str | None] = (-1, None)
    for name, part in parts.items():
        for prefix in part["is"]:
            matches = rel == prefix or (prefix.endswith("/") and rel.startswith(prefix))
            if matches and len(prefix) > best[0]:
                best = (len(prefix), name)
    return best[1]


class Use(NamedTuple):
    file: Path  # the file that uses
    target: Path  # the file that defines what it names
    name: str  # the path as written (a `use` tree's leaf with its path)


class CrateUses(RustFiles):
    """What every file of the crate names from other files: each path of a `use` (nested braces
    and aliases included), each path written in the code (`crate::a::B`, `super::x::f`, a path
    through a module or item a `use` brought in), and the names a glob `use` brings in that the
    code mentions, each resolved through re-exports (`pub use`, globs included) to the file that
    defines it: a re-export through a face does not hide where the item lives."""

    def __init__(self, src: Path) -> None:
        super().__init__(src)
        self._uses = {f: RustFiles.uses(self, f) for f in self.code}
        self._items = {m: RustFiles.items(self, m) for m in self.file}
        self._exports: dict[Module, dict[str, Path]] = {}

    def uses(self, f: Path) -> list[tuple[bool, Module, str]]:
        return self._uses[f]

    def items(self, module: Module) -> set[str]:
        return self._items[module]

    def exports(self, module: Module, seen: frozenset = frozenset()) -> dict[str, Path]:
        """name -> defining file, for every item a glob of `module` may bring in (its modules
        left out: a local variable named as one is no use of it)."""
        if module in self._exports:
            return self._exports[module]
        if module in seen or module not in self.file:
            return {}
        seen |= {module}
        f = self.file[module]
        out = {name: f for name in self.items(module) if module + (name,) not in self.file}
        for public, path, bound in self.uses(f):
            if not public:
                continue
            if bound == "*":
                target = self.resolve(module, path)
                if target is not None:
                    out = self.exports(self.module[target], seen) | out
            elif (target := self.resolve(module, path)) is not None:
                out.setdefault(bound, target)
        self._exports[module] = out
        return out

    def named(self, f: Path) -> list[Use]:
        module, code = self.module[f], self.code[f]
        rest = _USE.sub(" ", code)
        words = set(re.findall(r"[A-Za-z_]\w*", rest))
        bound: dict[str, Module] = {}
        found: list[Use] = []

        def add(path: Module, written: str) -> None:
            target = self.resolve(module, path)
            if target is not None and target != f:
                found.append(Use(f, target, written))

        for _, path, name in self.uses(f):
            if name == "*":
                target = self.resolve(module, path)
                if target is not None:
                    for w, t in sorted(self.exports(self.module[target]).items()):
                        if w in words and t != f:
                            found.append(Use(f, t, "::".join(path + (w,))))
            else:
                bound[name] = path
                add(path, "::".join(path))
        children = {m[-1] for m in self.file if m[:-1] == module}
        for p in sorted(set(_PATH.findall(rest))):
            segs = tuple(p.split("::"))
            if segs[0] in ("crate", "super", "self") or segs[0] in children:
                add(segs, p)
            elif segs[0] in bound:
                add(bound[segs[0]] + segs[1:], p)
        return found


class Crossing(NamedTuple):
    file: str
    target: str
    name: str
    rule: str

    def __str__(self) -> str:
        return f"{self.file} -> {self.target} ({self.name}): {self.rule}"


def layer_crossings(src: Path, root: Path, rules: dict) -> list[Crossing]:
    """Every use (see CrateUses) from a file of one part to a file of another that a rule of
    `never` forbids, the files named relative to `src`. The rules name files relative to `root`
    (the repository)."""
    crate = CrateUses(src)
    never = {(a, b): f"{a} -> {b}: {why}" for a, b, why in rules["never"]}

    def part(f: Path) -> str | None:
        return part_of(f.relative_to(root).as_posix(), rules["parts"])

    def rel(f: Path) -> str:
        return f.relative_to(src).as_posix()

    out = set()
    for f in crate.code:
        for u in crate.named(f):
            rule = never.get((part(f), part(u.target)))
            if rule:
                out.add(Crossing(rel(f), rel(u.target), u.name, rule))
    return sorted(out)


def test_layers_copy_is_the_shared_file() -> None:
    """tests/data/layers.json is a byte copy of ../shared/layers.json (used when ../shared/ is
    not beside the repository); copy it again when the shared file changes."""
    if not SHARED_LAYERS.exists():
        pytest.skip(f"{SHARED_LAYERS} absent: the copy is the only version here")
    assert LAYERS_COPY.read_bytes() == SHARED_LAYERS.read_bytes(), (
        f"{LAYERS_COPY.relative_to(REPO)} differs from {SHARED_LAYERS}: copy it again")


def test_no_forbidden_layer_crossing() -> None:
    """No file of the core uses a file of a part that `layers.json` (../shared/, or the copy in
    tests/data/) says its part must never reach (DESIGN.md, "Layers that must not be crossed").
    Each file's part is the longest matching prefix of the rules; each name a file uses
    (`use crate::...` trees, inline paths, names brought in by globs) is resolved through
    re-exports to the file that defines it. Test code is left out: `#[cfg(test)]` modules inside
    files, and the files that only a `#[cfg(test)] mod` declares (the `*_tests.rs` and
    `tests.rs` files, compiled into tests only; checked below to be all that is left out)."""
    rules = layer_rules()
    root = REPO
    for part in rules["parts"].values():
        for prefix in part["is"]:
            assert (root / prefix).exists(), f"layers.json names {prefix}, which is not in the tree"
    crate = CrateUses(SRC)
    walked = set(crate.code)
    left_out = sorted(
        f.relative_to(SRC).as_posix() for f in SRC.rglob("*.rs")
        if f not in walked and f.relative_to(SRC).parts[0] != "bin"
    )
    assert all(f.endswith(("/tests.rs", "_tests.rs")) for f in left_out), left_out
    # the checker sees the uses it should (allowed edges, through a glob and re-exports)
    forward = crate.named(SRC / "sim" / "forward.rs")
    engine = {(u.target.relative_to(SRC).as_posix(), u.name) for u in forward}
    assert {("net/category.rs", "crate::net::Category"), ("wire/cell.rs", "crate::wire::Cell")} <= engine
    crossings = layer_crossings(SRC, root, rules)
    assert not crossings, f"{len(crossings)} forbidden dependencies:\n" + "\n".join(map(str, crossings))


def test_layer_checker_on_synthetic_crate(tmp_path: Path) -> None:
    """The checker finds a crossing hidden behind a face's re-export, in nested use braces, in an
    inline path, through a module or a glob a `use` brought in and in a relative path, and
    nothing where the rules allow the edge or where only a comment, a string or a test (an
    inline `#[cfg(test)]` module, a file only a `#[cfg(test)] mod` declares) names it."""
    rules = {
        "parts": {
            "Engine": {"is": ["src/sim/"]},
            "Face": {"is": ["src/tr/mod.rs"]},
            "Impl": {"is": ["src/tr/"]},
        },
        "never": [["Engine", "Impl", "the engine calls the face only"]],
    }
    files = {
        "lib.rs": "pub mod sim;\npub mod tr;\n",
        "tr/mod.rs": "mod tcp;\npub use tcp::*;\npub trait Hooks { fn go(&self); }\n",
        "tr/tcp.rs": "pub struct Sender;\npub fn helper() {}\n",
        "sim/mod.rs": "mod run;\n#[cfg(test)]\nmod run_tests;\n",
        # allowed: the face's own trait
        "sim/run.rs": "use crate::{tr::{Hooks}};\n// crate::tr::Sender in a comment\n"
        "const S: &str = \"crate::tr::Sender\";\npub fn f(_: &dyn Hooks) {}\n"
        "#[cfg(test)]\nmod tests {\n    use crate::tr::Sender;\n}\n",
        "sim/run_tests.rs": "use crate::tr::Sender;\n",
    }
    for name, text in files.items():
        (tmp_path / "src" / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "src" / name).write_text(text)

    def crossings() -> list[str]:
        return [str(c) for c in layer_crossings(tmp_path / "src", tmp_path, rules)]

    assert crossings() == []
    rule = "Engine -> Impl: the engine calls the face only"
    # a struct re-exported by the face, in nested braces: it resolves to tr/tcp.rs
    (tmp_path / "src/sim/run.rs").write_text("use crate::{tr::{Hooks, Sender as S}};\nfn g(_: S) {}\n")
    assert crossings() == [f"sim/run.rs -> tr/tcp.rs (crate::tr::Sender): {rule}"]
    # an inline path, a path through a module a use brought in, a glob
    (tmp_path / "src/sim/run.rs").write_text(
        "use crate::tr;\nuse crate::tr::*;\n"
        "fn g() { crate::tr::helper(); tr::helper(); let _ = Sender; }\n")
    assert crossings() == [
        f"sim/run.rs -> tr/tcp.rs (crate::tr::Sender): {rule}",
        f"sim/run.rs -> tr/tcp.rs (crate::tr::helper): {rule}",
        f"sim/run.rs -> tr/tcp.rs (tr::helper): {rule}",
    ]
    # a relative path from a file of the engine's own folder
    (tmp_path / "src/sim/run.rs").write_text("use super::super::tr::Sender;\nfn g(_: Sender) {}\n")
    assert crossings() == [f"sim/run.rs -> tr/tcp.rs (super::super::tr::Sender): {rule}"]
    assert part_of("src/tr/mod.rs", rules["parts"]) == "Face"
    assert part_of("src/tr/tcp.rs", rules["parts"]) == "Impl"
    assert part_of("src/other.rs", rules["parts"]) is None
