"""The layout of the Rust core keeps its promises (docs/architecture.md): no module cycle between
the top-level modules nor between the files of scenario/, the run loop file stays small, no file
grows past 1,000 lines nor any function past 150, and each extension point's enum is matched where
docs/architecture.md says."""

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
    its variants are named only in the enum's own file, the one engine dispatch (fabrics) and the
    builder, the places docs/architecture.md lists, so a new variant touches nothing else."""
    homes = {
        "AnyFabric": {"net/switch/mod.rs", "sim/forward.rs", "build/mod.rs"},
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


# --- function lengths (issue 25): no function over 150 lines --------------------------------------

MAX_FUNCTION_LINES = 150

# shrinking in parallel work of issue 25; remove when merged
LONG_FUNCTIONS_ALLOWED = {
    ("sim/summary.rs", "summary"),
    ("build/connection.rs", "connection"),
    ("build/mod.rs", "build"),
}

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
