"""Loading scenario files: TOML, ``extends`` layering, ``--set`` overrides, validation.

A scenario is a TOML file whose model (and JSON Schema) is defined once, in the Rust core. This
module turns one or more files plus command-line overrides into the single JSON document the core
takes, and remembers where each part came from so that an error found by the core names the file
(or ``--set``) that actually wrote the bad value.

Layering (as in OMNeT++ ``.ini`` inheritance): ``extends = "base.toml"`` names a base file, relative
to the extending file; bases may extend further. Tables merge recursively; arrays and scalars replace
the base's value wholesale. ``extends`` itself never reaches the core.

Overrides (``--set KEY=VALUE``): ``KEY`` is a key path such as ``run.duration_s``,
``connections[0].source.rate_mbps``, ``connections.0.source.rate_mbps`` or, selecting the element of
an array of tables by its ``name``, ``connections.c1.source.rate_mbps``. ``VALUE`` is read as a TOML
value (``20``, ``1.5``, ``true``, ``"text"``, ``[1, 2]``, ``{ ubr = 5 }``) and otherwise taken as a
plain string. Every override path is checked against the core's JSON Schema.
"""

from __future__ import annotations

import copy
import functools
import json
import math
import os
import re
import tomllib
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from .errors import ScenarioError
from .traces import resolve_traces

__all__ = [
    "Provenance",
    "load_scenario",
    "apply_overrides",
    "check_document",
    "document_json",
    "with_file",
    "to_json",
    "format_path",
    "parse_path",
    "schema",
]

SET = "--set"

Token = str | int


# --------------------------------------------------------------------------------------------
# key paths


_SEGMENT = re.compile(r"([^.\[\]]*)((?:\[[^\[\]]*\])*)")


def parse_path(key: str) -> list[Token]:
    """Split ``a.b[0].c`` / ``a.b.0.c`` / ``a.b.name.c`` into tokens.

    Bracketed or all-digit segments become ``int`` indices; other segments stay ``str`` (whether a
    string selects a key of a table or the ``name`` of an array element is decided while walking).
    """
    key = key.strip()
    if not key:
        raise ValueError("empty key path")
    tokens: list[Token] = []
    for part in key.split("."):
        m = _SEGMENT.fullmatch(part)
        if m is None:
            raise ValueError(f"malformed key path segment {part!r}")
        name, brackets = m.group(1), m.group(2)
        if not name and not brackets:
            raise ValueError("empty segment in key path")
        if name:
            tokens.append(int(name) if name.isdigit() else name)
        for idx in re.findall(r"\[([^\[\]]*)\]", brackets):
            idx = idx.strip().strip("\"'")
            if not idx:
                raise ValueError("empty [] in key path")
            tokens.append(int(idx) if idx.isdigit() else idx)
    return tokens


def format_path(tokens: Iterable[Token]) -> str:
    """Canonical form of a key path: ``connections[0].source.rate_mbps``."""
    out = ""
    for tok in tokens:
        if isinstance(tok, int):
            out += f"[{tok}]"
        else:
            out += ("." if out else "") + tok
    return out


def _parse_core_path(path: str) -> tuple[Token, ...]:
    try:
        return tuple(parse_path(path)) if path else ()
    except ValueError:
        return ()


# --------------------------------------------------------------------------------------------
# provenance


class Provenance:
    """Which file (or ``--set`` / ``--seed`` / ``--duration``) wrote each part of a document.

    ``files`` lists the scenario files in load order (base first, the named file last);
    ``file`` is the named file (``""`` for a scenario given as a dict). ``file_for(path)`` answers
    for the longest recorded prefix of a key path, falling back to ``file``.
    """

    def __init__(self, file: str = "") -> None:
        self.file = file
        self.files: list[str] = []
        self._entries: dict[tuple[Token, ...], str] = {}
        # workload scripts read from files: core key path of the script -> the file as shown
        self.workload_files: dict[str, str] = {}
        #: every number and nesting depth of the document was checked as it was read and
        #: overridden (load_scenario): document_json does not walk it again
        self.numbers_checked = False

    def record(self, tokens: Iterable[Token], source: str) -> None:
        key = tuple(tokens)
        n = len(key)
        for k in [k for k in self._entries if len(k) > n and k[:n] == key]:
            del self._entries[k]
        self._entries[key] = source

    def file_for(self, path: str | Iterable[Token]) -> str:
        tokens = _parse_core_path(path) if isinstance(path, str) else tuple(path)
        n = len(tokens)
        if n:
            # a problem reported for a table or array element that a command-line override changed
            # part of (e.g. "needs bidirectional" after --set ...reverse_source.kind) is the override's
            below = [src for k, src in self._entries.items() if len(k) > n and k[:n] == tokens]
            overrides = [src for src in below if src.startswith("--")]
            if overrides and tokens not in self._entries:
                return overrides[-1]
        for n in range(len(tokens), 0, -1):
            src = self._entries.get(tokens[:n])
            if src is not None:
                return src
        return self.file

    def as_dict(self) -> dict[str, str]:
        """Recorded ``{key path: source}`` pairs (for display / debugging)."""
        return {format_path(k): v for k, v in sorted(self._entries.items(), key=lambda kv: str(kv[0]))}

    def __repr__(self) -> str:
        return f"Provenance(file={self.file!r}, files={self.files!r})"


# --------------------------------------------------------------------------------------------
# files and layering


def _read_toml(path: Path, display: str) -> dict[str, Any]:
    from .files import MAX_SCENARIO_BYTES, Unreadable, read_limited

    try:
        # a regular file of at most MAX_SCENARIO_BYTES: a FIFO, a device or a directory is
        # refused at once (atmsim.files)
        data = read_limited(path, MAX_SCENARIO_BYTES)
    except Unreadable as e:
        if e.kind == "missing":
            raise ScenarioError(display, "", "file not found") from None
        if e.kind == "directory":
            raise ScenarioError(display, "", "is a directory, not a scenario file") from None
        raise ScenarioError(display, "", e.reason) from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ScenarioError(display, "", f"not valid TOML: not UTF-8 text ({e.reason} at byte {e.start})") from None
    from . import _core

    # the fast path (issue 27 item 5): the core's TOML parser gives the document as JSON text,
    # which json.loads turns into the same dict as tomllib's at C speed, numbers and nesting
    # checked as _check_numbers does; None for anything it does not reproduce exactly (not
    # TOML, dates and times, floats that are not finite, deep nesting), which tomllib reads as
    # before with the same errors
    fast = _core.toml_to_json(text)
    if fast is not None:
        return json.loads(fast)
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ScenarioError(display, "", f"not valid TOML: {e}") from None
    except RecursionError:
        raise ScenarioError(display, "", f"nested too deeply (at most {MAX_DEPTH} levels of tables and arrays)") from None
    _check_numbers(doc, [], Provenance(display))
    return doc


def _layers_from(
    doc: dict[str, Any], display: str, base_dir: Path, chain: list[tuple[Path, str]]
) -> list[tuple[str, dict[str, Any]]]:
    """Resolve ``extends`` of one already-read document; returns layers base first."""
    doc = dict(doc)
    ext = doc.pop("extends", None)
    if ext is None:
        return [(display, doc)]
    if not isinstance(ext, str) or not ext.strip():
        raise ScenarioError(display, "extends", "must be a file name (a string), relative to this file")
    target = (base_dir / ext).resolve()
    target_display = os.path.normpath(os.path.join(os.path.dirname(display), ext)) if display else ext
    seen = [p for p, _ in chain]
    if target in seen:
        cycle = [d for _, d in chain[seen.index(target):]] + [target_display]
        raise ScenarioError(display, "extends", "extends cycle: " + " -> ".join(cycle))
    if not target.exists():
        raise ScenarioError(display, "extends", f"base file not found: {target_display}")
    base_doc = _read_toml(target, target_display)
    layers = _layers_from(base_doc, target_display, target.parent, chain + [(target, target_display)])
    return layers + [(display, doc)]


def _merge(target: dict[str, Any], layer: Mapping[str, Any], source: str, prov: Provenance, prefix: tuple) -> None:
    for key, value in layer.items():
        p = prefix + (key,)
        if isinstance(value, dict) and isinstance(target.get(key), dict):
            _merge(target[key], value, source, prov, p)
        else:
            # no copy: every layer is the document's own (a file read for this load, or the
            # deep copy load_scenario makes of a dict), merged once
            target[key] = value
            prov.record(p, source)


# --------------------------------------------------------------------------------------------
# the schema


@functools.lru_cache(maxsize=1)
def _schema_text() -> str:
    from . import _core

    return _core.schema()


def schema() -> dict[str, Any]:
    """The JSON Schema of a scenario document (from the core), plus the Python-only ``extends``."""
    doc = json.loads(_schema_text())
    props = doc.get("properties")
    if isinstance(props, dict) and "extends" not in props:
        props["extends"] = {
            "description": "Base scenario file (relative to this file) whose tables this file "
            "merges into; arrays and scalars replace wholesale. Handled by the Python front end.",
            "type": "string",
        }
    return doc


class _Schema:
    """Just enough JSON Schema walking to tell whether a key path exists."""

    def __init__(self, root: dict[str, Any]) -> None:
        self.root = root

    def _ref(self, ref: str) -> Any:
        if not ref.startswith("#"):
            return True
        node: Any = self.root
        for part in ref[1:].split("/"):
            if not part:
                continue
            part = part.replace("~1", "/").replace("~0", "~")
            if not isinstance(node, dict) or part not in node:
                return True
            node = node[part]
        return node

    def variants(self, sch: Any, depth: int = 0) -> list[dict[str, Any]]:
        """Flatten $ref / anyOf / oneOf / allOf into plain non-null alternatives."""
        if depth > 40:
            return [{}]
        if sch is True or sch is None:
            return [{}]
        if sch is False or not isinstance(sch, dict):
            return []
        if "$ref" in sch:
            rest = {k: v for k, v in sch.items() if k != "$ref"}
            target = self.variants(self._ref(sch["$ref"]), depth + 1)
            if not any(k in rest for k in ("properties", "anyOf", "oneOf", "allOf", "items", "type")):
                return target
            return [self._combine(t, r) for t in target for r in self.variants(rest, depth + 1)]
        out: list[dict[str, Any]] = []
        alts = [a for key in ("anyOf", "oneOf") for a in sch.get(key, [])]
        base = {k: v for k, v in sch.items() if k not in ("anyOf", "oneOf", "allOf")}
        if "allOf" in sch:
            combined = [base]
            for part in sch["allOf"]:
                combined = [self._combine(c, p) for c in combined for p in self.variants(part, depth + 1)]
            bases = combined
        else:
            bases = [base]
        if alts:
            for b in bases:
                for a in alts:
                    for v in self.variants(a, depth + 1):
                        out.append(self._combine(b, v))
        else:
            out = bases
        return [v for v in out if not _is_null_only(v)]

    @staticmethod
    def _combine(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
        merged = dict(a)
        for k, v in b.items():
            if k == "properties" and isinstance(merged.get(k), dict):
                merged[k] = {**merged[k], **v}
            else:
                merged[k] = v
        return merged


def _is_null_only(sch: dict[str, Any]) -> bool:
    return sch.get("type") == "null" or sch.get("const", 0) is None and "type" not in sch and len(sch) == 1


def _types(sch: dict[str, Any]) -> set[str]:
    t = sch.get("type")
    if isinstance(t, str):
        return {t}
    if isinstance(t, list):
        return set(t)
    return set()


# --------------------------------------------------------------------------------------------
# overrides


def _parse_value(text: str) -> Any:
    try:
        return tomllib.loads("v = " + text)["v"]
    except (tomllib.TOMLDecodeError, RecursionError):
        return text


def override_items(overrides: Any, label: str) -> list[tuple[str, str, Any]]:
    """Normalise overrides to ``(label, key, value)``."""
    if overrides is None:
        return []
    if isinstance(overrides, Mapping):
        return [(label, str(k), v) for k, v in overrides.items()]
    if isinstance(overrides, str):
        overrides = [overrides]
    items = []
    for item in overrides:
        if isinstance(item, tuple) and len(item) == 2:
            items.append((label, str(item[0]), item[1]))
            continue
        text = str(item)
        key, sep, value = text.partition("=")
        if not sep or not key.strip():
            raise ScenarioError(label, text, "expected KEY=VALUE, e.g. run.duration_s=2")
        items.append((label, key.strip(), _parse_value(value.strip())))
    return items


def apply_overrides(
    doc: dict[str, Any],
    overrides: Any,
    provenance: Provenance | None = None,
    label: str = SET,
    schema_doc: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Apply ``KEY=VALUE`` strings (or a ``{key: value}`` dict) to ``doc`` in place.

    Each key path is checked against the scenario's JSON Schema; a path that does not exist raises
    ``ScenarioError(label, key, "no such key; allowed here: ...")``.
    """
    items = override_items(overrides, label)
    if not items:
        return doc
    walker = _Schema(schema_doc if schema_doc is not None else schema())
    for source, key, value in items:
        canonical = _set_path(doc, key, value, walker, source)
        if provenance is not None:
            provenance.record(canonical, source)
            # the value's numbers and depth, where it now sits: the error document_json's walk of
            # the whole document gave (Provenance.numbers_checked)
            _check_numbers(value, list(canonical), provenance)
    return doc


def _set_path(doc: dict[str, Any], key: str, value: Any, walker: _Schema, source: str) -> list[Token]:
    try:
        tokens = parse_path(key)
    except ValueError as e:
        raise ScenarioError(source, key, str(e)) from None
    node: Any = doc
    sch: Any = walker.root
    done: list[Token] = []
    for i, tok in enumerate(tokens):
        last = i == len(tokens) - 1
        variants = walker.variants(sch)
        is_array = isinstance(node, list) or any("array" in _types(v) or "items" in v for v in variants)
        if is_array:
            items_schemas = [v.get("items", True) for v in variants if "items" in v] or [True]
            if not isinstance(node, list):
                where = format_path(done) or key
                raise ScenarioError(source, key, f"{where} has no elements to select from")
            if isinstance(tok, int):
                if tok >= len(node):
                    raise ScenarioError(
                        source, key, f"index {tok} out of range: {format_path(done)} has {len(node)} element(s)"
                    )
                idx = tok
            else:
                names = [e.get("name") for e in node if isinstance(e, dict)]
                if tok not in names:
                    shown = ", ".join(str(n) for n in names if n is not None) or "(none)"
                    raise ScenarioError(
                        source, key, f"no element named {tok!r} in {format_path(done)}; names here: {shown}"
                    )
                idx = names.index(tok)
            done.append(idx)
            sch = {"anyOf": items_schemas} if len(items_schemas) > 1 else items_schemas[0]
            if last:
                node[idx] = value
            else:
                node = node[idx]
            continue

        # a table key
        name = str(tok)
        props: dict[str, Any] = {}
        extra: list[Any] = []
        open_object = not variants
        for v in variants:
            if isinstance(v.get("properties"), dict):
                props.update(v["properties"])
            ap = v.get("additionalProperties")
            if isinstance(ap, dict) or ap is True:
                extra.append(ap)
            elif ap is None and "properties" not in v and not (_types(v) - {"object"}) and not v.get("enum") and "const" not in v:
                # a schema with no constraint on keys (e.g. any JSON value)
                if not _types(v) or "object" in _types(v):
                    extra.append(True)
        if name in props:
            sch = props[name]
        elif extra or open_object:
            sch = extra[0] if extra else True
        else:
            allowed = sorted(k for k in props if k != "extends")
            if props:
                msg = "no such key; allowed here: " + ", ".join(allowed)
            else:
                msg = f"no such key; {format_path(done) or 'this value'} is not a table"
            raise ScenarioError(source, format_path(done + [name]), msg)
        if node is not None and not isinstance(node, dict):
            raise ScenarioError(source, key, f"{format_path(done)} is not a table")
        done.append(name)
        if last:
            node[name] = value
        else:
            child = node.get(name)
            if child is None:
                nxt_variants = walker.variants(sch)
                if any("array" in _types(v) or "items" in v for v in nxt_variants):
                    raise ScenarioError(source, key, f"{format_path(done)} has no elements to select from")
                child = node[name] = {}
            node = child
    return done


# --------------------------------------------------------------------------------------------
# validation and serialisation


#: deepest nesting of tables and arrays accepted (the core's limit is the same)
MAX_DEPTH = 32
_INT_MIN, _INT_MAX = -(2**63), 2**64 - 1


def _check_numbers(value: Any, tokens: list[Token], prov: Provenance) -> None:
    """Finite floats, integers that fit 64 bits, at most ``MAX_DEPTH`` levels of nesting.

    Iterative, so a deeply nested document gets this one-line error rather than Python's
    ``RecursionError``.
    """
    stack: list[tuple[Any, list[Token]]] = [(value, tokens)]
    while stack:
        v, toks = stack.pop()
        if isinstance(v, bool):
            continue
        if isinstance(v, float) and not math.isfinite(v):
            raise ScenarioError(prov.file_for(toks), format_path(toks), "must be a finite number")
        if isinstance(v, int) and not _INT_MIN <= v <= _INT_MAX:
            digits = len(str(abs(v)))
            raise ScenarioError(
                prov.file_for(toks), format_path(toks),
                f"integer out of range: every integer key is at most {_INT_MAX} (2^64 - 1), "
                f"got {'-' if v < 0 else ''}{digits} digits",
            )
        if isinstance(v, (dict, list)) and len(toks) >= MAX_DEPTH:
            raise ScenarioError(
                prov.file_for(toks), format_path(toks[:MAX_DEPTH]),
                f"nested too deeply (at most {MAX_DEPTH} levels of tables and arrays)",
            )
        if isinstance(v, dict):
            stack.extend((e, toks + [str(k)]) for k, e in v.items())
        elif isinstance(v, list):
            stack.extend((e, toks + [i]) for i, e in enumerate(v))


def to_json(doc: Mapping[str, Any]) -> str:
    """The JSON text the core takes (TOML dates and times become strings)."""
    return json.dumps(doc, default=str, allow_nan=False)


def with_file(err: ScenarioError, provenance: Provenance | None) -> ScenarioError:
    """A ``ScenarioError`` from the core (key path, no file) with the file that wrote the key.

    An error that already names its file is returned unchanged.
    """
    if err.file or provenance is None:
        return err
    shown = getattr(provenance, "workload_files", {}).get(err.path)
    if shown is not None:
        # a script read from a file: "FILE: line L, column C: message"
        return ScenarioError(shown, "", err.message)
    return ScenarioError(provenance.file_for(err.path), err.path, err.message)


def document_json(doc: dict[str, Any], provenance: Provenance | None = None) -> str:
    """The JSON text the core takes, after the checks Python makes itself (finite numbers).

    The core validates the rest (``_core.check``, or ``_core.Simulation`` before it builds);
    ``ScenarioError`` names the file that wrote the bad value.
    """
    prov = provenance or Provenance()
    if not prov.numbers_checked:
        _check_numbers(doc, [], prov)
        return to_json(doc)
    try:
        return to_json(doc)
    except ValueError:  # a float that is not finite, put into the document after it was loaded
        _check_numbers(doc, [], prov)
        raise


def check_document(doc: dict[str, Any], provenance: Provenance | None = None) -> str:
    """Validate with the core; returns the JSON text, or raises ``ScenarioError``.

    Validation works on the document alone (no network is built; CAC admission of permanent
    connections is checked from the specs): ``atmsim.run`` does not call this, its
    ``_core.Simulation`` validates before it builds.
    """
    from . import _core

    text = document_json(doc, provenance)
    try:
        _core.check(text)
    except ScenarioError as e:
        raise with_file(e, provenance or Provenance()) from None
    return text


def load_scenario(
    source: str | os.PathLike[str] | Mapping[str, Any],
    overrides: Any = None,
    *,
    validate: bool = True,
    extra_overrides: Iterable[tuple[str, Mapping[str, Any]]] = (),
) -> tuple[dict[str, Any], Provenance]:
    """Load a scenario (a TOML file path or a dict), resolve ``extends``, apply overrides.

    Returns ``(doc, provenance)``: ``doc`` is the merged document without ``extends`` (a plain
    dict, ready for ``json.dumps``); ``provenance.file_for(path)`` names where a key came from.
    With ``validate`` (the default) the core checks the result and any problem is raised as a
    ``ScenarioError`` naming the file (or ``--set``) that wrote the offending key.
    ``extra_overrides`` is ``[(label, {key: value})]`` applied after ``overrides``.
    """
    if isinstance(source, Mapping):
        display = ""
        _check_numbers(source, [], Provenance(display))
        layers = _layers_from(copy.deepcopy(dict(source)), "", Path.cwd(), [])
    else:
        display = os.fspath(source)
        path = Path(display)
        first = _read_toml(path, display)
        layers = _layers_from(first, display, path.resolve().parent, [(path.resolve(), display)])
    prov = Provenance(display)
    doc: dict[str, Any] = {}
    for file, layer in layers:
        prov.files.append(file)
        _merge(doc, layer, file, prov, ())
    doc.pop("extends", None)
    apply_overrides(doc, overrides, prov, SET)
    for label, extra in extra_overrides:
        apply_overrides(doc, extra, prov, label)
    _cap_duration(doc, prov)
    resolve_traces(doc, prov.file_for)  # video traces: each file read once (traces.py)
    resolve_workloads(doc, prov)  # workload scripts given as files
    prov.numbers_checked = True  # the layers as read, the overrides as applied
    if validate:
        check_document(doc, prov)
    return doc, prov


#: the environment variable that caps every run's simulated time (see ``_cap_duration``)
MAX_DURATION_ENV = "ATMSIM_MAX_DURATION_S"


def _cap_duration(doc: dict[str, Any], prov: Provenance) -> None:
    """With ``ATMSIM_MAX_DURATION_S`` set (seconds > 0), ``run.duration_s`` is at most that, and a
    warm-up that would no longer end before it is cut to half the run: a smoke test of an
    example, a script or a whole reproduction in seconds (tests/test_examples.py runs every
    documented example this way). The values it sets are recorded as set by that variable."""
    text = os.environ.get(MAX_DURATION_ENV)
    if not text:
        return
    try:
        cap = float(text)
    except ValueError:
        cap = -1.0
    if not cap > 0 or cap != cap or cap == float("inf"):
        raise ScenarioError(MAX_DURATION_ENV, "", f"must be a number of seconds > 0, got {text!r}")
    run = doc.get("run")
    if not isinstance(run, dict) or not isinstance(run.get("duration_s"), (int, float)):
        return
    if run["duration_s"] <= cap:
        return
    changes: dict[str, Any] = {"run.duration_s": cap}
    warmup = run.get("warmup_s")
    if isinstance(warmup, (int, float)) and warmup >= cap:
        changes["run.warmup_s"] = cap / 2
    apply_overrides(doc, changes, prov, MAX_DURATION_ENV)


def resolve_workloads(doc: dict[str, Any], prov: Provenance) -> None:
    """Fill ``connections[i].source.workload.script`` from ``...workload.file`` (in place).

    The file is relative to the scenario file that set the key (``--set``: to the current
    directory), as trace files are (``traces.py``). The core parses the script; its errors at
    ``...workload.script`` come back as ``FILE: line L, column C: message`` (``with_file``).
    """
    conns = doc.get("connections")
    if not isinstance(conns, list):
        return
    for i, c in enumerate(conns):
        src_spec = c.get("source") if isinstance(c, dict) else None
        w = src_spec.get("workload") if isinstance(src_spec, dict) else None
        if not isinstance(w, dict) or "file" not in w:
            continue
        key = f"connections[{i}].source.workload.file"
        src = prov.file_for(key)
        f = w["file"]
        if not isinstance(f, str) or not f:
            raise ScenarioError(src, key, "must be a file name (a string)")
        if w.get("script") is not None:
            raise ScenarioError(src, f"connections[{i}].source.workload.script", "give script or file, not both")
        base = Path.cwd() if src.startswith("--") or not src else Path(src).parent
        path = base / f
        shown = os.fspath(path) if src and not src.startswith("--") else f
        from .files import MAX_SCRIPT_BYTES, Unreadable, read_limited

        try:
            # a regular file of at most MAX_SCRIPT_BYTES (atmsim.files)
            text = read_limited(path, MAX_SCRIPT_BYTES).decode("utf-8")
        except Unreadable as e:
            if e.kind == "missing":
                raise ScenarioError(src, key, f"workload file not found: {shown}") from None
            if e.kind == "directory":
                raise ScenarioError(src, key, f"workload file is a directory: {shown}") from None
            raise ScenarioError(src, key, f"workload file {shown} {e.reason}") from None
        except UnicodeDecodeError:
            raise ScenarioError(src, key, f"workload file {shown} is not UTF-8 text") from None
        del w["file"]
        w["script"] = text
        prov.workload_files[f"connections[{i}].source.workload.script"] = shown
