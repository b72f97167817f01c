"""The layout of the Rust core keeps its promises (docs/architecture.md): no module cycle between
the top-level modules, the run loop file stays small, no file grows past 1,000 lines, and each
extension point's enum is matched where docs/architecture.md says."""

from __future__ import annotations

import re
from pathlib import Path

SRC = Path(__file__).resolve().parent.parent / "crates" / "atmsim-core" / "src"


def _code(path: Path) -> str:
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
        "PortScheme": {"abr/switch/mod.rs", "build/mod.rs"},
        "AnyTransport": {"transport/mod.rs", "host/endpoint.rs", "build/mod.rs", "build/connection.rs"},
        "AnyApp": {"app/mod.rs", "host/endpoint.rs", "build/mod.rs"},
    }
    for enum, allowed in homes.items():
        users = {
            f.relative_to(SRC).as_posix()
            for f in SRC.rglob("*.rs")
            if re.search(rf"\b{enum}::[A-Z]", _code(f))
        }
        assert users <= allowed, f"{enum} variants named outside {sorted(allowed)}: {sorted(users - allowed)}"


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
