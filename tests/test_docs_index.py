"""docs/index.md lists every document in docs/ with one line (issue 29 item 7), and every link of
the README and the index points at a file that exists."""

from __future__ import annotations

import re

from conftest import REPO


def test_index_lists_every_doc() -> None:
    index = (REPO / "docs" / "index.md").read_text(encoding="utf-8")
    listed = re.findall(r"^- \[([\w.-]+\.md)\]\(\1\): \S", index, re.M)
    docs = sorted(p.name for p in (REPO / "docs").glob("*.md") if p.name != "index.md")
    assert sorted(listed) == docs


def test_links_resolve() -> None:
    for page in (REPO / "README.md", REPO / "docs" / "index.md"):
        text = page.read_text(encoding="utf-8")
        for target in re.findall(r"\]\(([^)#\s]+)\)", text):
            if "://" not in target:
                assert (page.parent / target).exists(), f"{page.name}: {target}"


def test_readme_starts_with_make_run_and_make_test() -> None:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    first = re.search(r"```sh\n(.*?)```", text, re.S)
    assert first is not None
    commands = [line.split("#")[0].strip() for line in first.group(1).splitlines()]
    assert commands[:2] == ["make run", "make test"]
    assert "docs/index.md" in "\n".join(text.splitlines()[:40])  # where the docs are: on the first screen
