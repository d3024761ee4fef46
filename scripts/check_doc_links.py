#!/usr/bin/env python3
"""Checks that the repository's Markdown links resolve inside the repository: every relative
link [text](path) or [text](path#anchor) of every .md file names an existing file, an anchor
names a heading of the target page, and no link leaves the repository (the documents the code
is built from live in docs/, not beside the checkout).

  python3 scripts/check_doc_links.py    # prints each broken link as FILE:LINE: problem; exit 1

Standard library only; the CTest test docs_links_resolve runs it."""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SKIP_DIRS = {".git", ".venv", "node_modules", "__pycache__"}
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
FENCE = re.compile(r"^\s*```")


def markdown_files():
    for dirpath, dirnames, filenames in os.walk(ROOT):
        # Build trees (build/, build-*/) hold generated copies; they are not the repository's.
        dirnames[:] = sorted(d for d in dirnames
                             if d not in SKIP_DIRS and not d.startswith("build"))
        for name in sorted(filenames):
            if name.endswith(".md"):
                yield os.path.join(dirpath, name)


def slug(heading):
    """GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def anchors(path, cache={}):
    if path not in cache:
        found, fence = set(), False
        with open(path, encoding="utf-8") as f:
            for line in f:
                if FENCE.match(line):
                    fence = not fence
                elif not fence and line.startswith("#"):
                    base = slug(line.lstrip("#"))
                    name, n = base, 1
                    while name in found:
                        name, n = f"{base}-{n}", n + 1
                    found.add(name)
        cache[path] = found
    return cache[path]


def check(path):
    problems, fence = [], False
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    for number, line in enumerate(lines, 1):
        if FENCE.match(line):
            fence = not fence
            continue
        if fence:
            continue
        for match in LINK.finditer(line):
            target = match.group(1)
            if re.match(r"[a-z][a-z0-9+.-]*:", target):  # http:, https:, mailto:
                continue
            file_part, _, anchor = target.partition("#")
            resolved = path if not file_part else os.path.normpath(
                os.path.join(os.path.dirname(path), file_part))
            where = f"{os.path.relpath(path, ROOT)}:{number}"
            if os.path.relpath(resolved, ROOT).startswith(".."):
                problems.append(f"{where}: link '{target}' leaves the repository")
            elif not os.path.exists(resolved):
                problems.append(f"{where}: link '{target}': no such file")
            elif anchor and resolved.endswith(".md") and anchor not in anchors(resolved):
                problems.append(f"{where}: link '{target}': no heading '#{anchor}' in "
                                f"{os.path.relpath(resolved, ROOT)}")
    return problems


def main():
    problems = [p for md in markdown_files() for p in check(md)]
    for p in problems:
        print(p, file=sys.stderr)
    if problems:
        print(f"{len(problems)} broken link(s)", file=sys.stderr)
        return 1
    print("every Markdown link resolves inside the repository")
    return 0


if __name__ == "__main__":
    sys.exit(main())
