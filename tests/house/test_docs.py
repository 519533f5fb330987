"""The documentation stays true to the tree: every relative link of README.md and
docs/*.md reaches a file (and, into a Markdown file, a heading), and the layout of
docs/architecture.md names exactly the files of sft_ui/ that exist."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
ARCHITECTURE = ROOT / "docs" / "architecture.md"

LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
CODE_SPAN = re.compile(r"`[^`\n]*`")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
LAYOUT_ITEM = re.compile(r"^\s*[-*]\s+`([^`]+)`")


def prose_lines(path: Path):
    """(line number, text) of a Markdown file outside fenced code blocks."""
    fenced = False
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
            continue
        if not fenced:
            yield number, line


def slug(heading: str) -> str:
    """The anchor GitHub gives a heading: lower case, punctuation dropped, spaces as -."""
    text = re.sub(r"[`*_]|\[([^\]]*)\]\([^)]*\)", lambda m: m.group(1) or "", heading)
    text = re.sub(r"[^\w\- ]", "", text.strip().lower())
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    found, seen = set(), {}
    for _, line in prose_lines(path):
        match = HEADING.match(line)
        if match:
            base = slug(match.group(2))
            count = seen.get(base, 0)
            found.add(base if count == 0 else f"{base}-{count}")
            seen[base] = count + 1
    return found


def links(path: Path):
    """(line number, target) of every link and image in a Markdown file."""
    for number, line in prose_lines(path):
        for match in LINK.finditer(CODE_SPAN.sub("code", line)):
            yield number, match.group(1)


def broken_links(path: Path) -> list[str]:
    broken = []
    for number, target in links(path):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I):  # http:, https:, mailto:
            continue
        file, _, anchor = target.partition("#")
        where = f"{path.relative_to(ROOT)}:{number}: {target}"
        goal = (path.parent / file).resolve() if file else path
        if not goal.exists():
            broken.append(f"{where} (no such file)")
        elif anchor and goal.suffix == ".md" and anchor not in anchors(goal):
            broken.append(f"{where} (no heading #{anchor} in {goal.relative_to(ROOT)})")
    return broken


def layout_paths() -> list[str]:
    """The paths of the Layout section of docs/architecture.md: every list item that
    starts with a backquoted path (from the repository root), up to the next `## `."""
    paths, inside = [], False
    for _, line in prose_lines(ARCHITECTURE):
        if line.startswith("## "):
            inside = line.strip() == "## Layout"
            continue
        match = LAYOUT_ITEM.match(line) if inside else None
        if match:
            paths.append(match.group(1).strip())
    return paths


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_relative_links_reach_a_file(doc):
    assert broken_links(doc) == []


def test_the_layout_names_only_what_exists():
    paths = layout_paths()
    assert len(paths) > 50, "the Layout section of docs/architecture.md lists too few paths"
    missing = [p for p in paths if not (ROOT / p.rstrip("/")).exists()]
    assert missing == [], f"named in docs/architecture.md's layout, not in the tree: {missing}"


def test_the_layout_names_every_module():
    named = {p.rstrip("/") for p in layout_paths()}
    code = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "sft_ui").rglob("*")
                  if p.suffix in (".py", ".sh") and "__pycache__" not in p.parts)
    unnamed = [p for p in code if p not in named]
    assert unnamed == [], f"files of sft_ui/ missing from docs/architecture.md's layout: " \
                          f"{unnamed}"


def test_the_readme_stays_short():
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert lines[0] == "---" and "app_file: app.py" in lines, "the Space front matter"
    assert len(lines) <= 250
