#!/usr/bin/env python3
"""Fails on a dangling reference into porta's documentation (CTest: doc_refs).

    python3 scripts/check_doc_refs.py [ROOT]

Scans the text files of the tree at ROOT (default: this repository): the files git tracks or
would track (git ls-files --cached --others --exclude-standard) when ROOT is a git work tree's
top, else every file under ROOT but build*/ and hidden folders. Two kinds of reference:

- `docs/<path>.md` with an optional `#anchor`, anywhere in a source, header, CMake, Python,
  shell, kernel (.cl) or Markdown file: the path is relative to ROOT;
- a relative Markdown link, `[text](target)` or `[id]: target`, in README.md and docs/**/*.md:
  the target is relative to the linking file (`/...` to ROOT; `#anchor` alone is the file itself).

A reference dangles when its file does not exist, or when it names an anchor of a Markdown file
that no heading of that file makes (GitHub's slugs: lowercase, punctuation dropped, spaces to
'-', -1, -2... for repeated headings; `<a name=...>` and `id="..."` count too). Each dangling
reference is printed as `file:line: reference (why)`; the exit status is 1 when there is one.

A folder holding a file named .doc-refs-fixture (tests/doc_refs/, the check's own test) is a
tree of its own: skipped unless it is ROOT.
"""
import os
import re
import subprocess
import sys

TEXT_SUFFIXES = (".cpp", ".hpp", ".h", ".c", ".cc", ".cu", ".cl", ".cmake", ".in", ".py", ".pyi", ".sh",
                 ".md", ".txt", ".toml", ".yml", ".yaml")
FIXTURE_MARKER = ".doc-refs-fixture"

DOC_REF = re.compile(r"(?<![\w/.-])(docs/[\w./-]*?\.md)(#[\w-]+)?")
MD_LINK = re.compile(r"\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
MD_REF_DEF = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+\"[^\"]*\")?\s*$")
FENCE = re.compile(r"^\s{0,3}(```|~~~)")
ATX = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
SETEXT = re.compile(r"^\s{0,3}(=+|-+)\s*$")
HTML_ID = re.compile(r"<a\s+[^>]*?(?:name|id)\s*=\s*\"([^\"]+)\"", re.I)
SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")


def slug(text):
    """GitHub's anchor for a heading's text."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", text)  # a link's text only
    text = re.sub(r"<[^>]+>", "", text)                        # inline HTML
    text = text.strip().lower()
    text = "".join(ch for ch in text if ch.isalnum() or ch in " -_")
    return text.replace(" ", "-")


def code_free_lines(lines):
    """(line number, text) of the lines outside fenced code blocks."""
    fence = None
    for n, line in enumerate(lines, 1):
        m = FENCE.match(line)
        if m:
            if fence is None:
                fence = m.group(1)
            elif m.group(1) == fence:
                fence = None
            continue
        if fence is None:
            yield n, line


def anchors_of(lines):
    anchors, seen = set(), {}

    def add(text):
        base = slug(text)
        k = seen.get(base, 0)
        seen[base] = k + 1
        anchors.add(base if k == 0 else f"{base}-{k}")

    previous = None  # the last line of a paragraph, for setext headings
    for n, line in code_free_lines(lines):
        for a in HTML_ID.findall(line):
            anchors.add(a)
        m = ATX.match(line)
        if m:
            add(m.group(2))
            previous = None
            continue
        if SETEXT.match(line) and previous and previous[0] == n - 1:
            add(previous[1])
            previous = None
            continue
        text = line.strip()
        previous = (n, text) if text and not text.startswith(("-", "*", "+", ">", "|")) else None
    return anchors


class Tree:
    def __init__(self, root):
        self.root = os.path.realpath(root)
        self._anchors = {}

    def files(self):
        listed = None
        try:
            top = subprocess.run(["git", "-C", self.root, "rev-parse", "--show-toplevel"], capture_output=True,
                                 text=True, check=True).stdout.strip()
            if os.path.realpath(top) == self.root:
                out = subprocess.run(["git", "-C", self.root, "ls-files", "-z", "--cached", "--others",
                                      "--exclude-standard"], capture_output=True, check=True).stdout
                listed = sorted({p for p in out.decode().split("\0") if p})
        except (OSError, subprocess.CalledProcessError):
            pass
        if listed is None:
            listed = []
            for d, dirs, names in os.walk(self.root):
                rel_d = os.path.relpath(d, self.root)
                dirs[:] = sorted(x for x in dirs if not x.startswith(".") and not
                                 (rel_d == "." and x.startswith("build")))
                listed += [os.path.normpath(os.path.join(rel_d, x)) for x in sorted(names)]
        fixtures = {os.path.dirname(p) for p in listed
                    if os.path.basename(p) == FIXTURE_MARKER and os.path.dirname(p)}
        for p in listed:
            if any(p.startswith(f + "/") for f in fixtures):
                continue
            if (p.endswith(TEXT_SUFFIXES) or os.path.basename(p) == "CMakeLists.txt") and \
                    os.path.isfile(os.path.join(self.root, p)):
                yield p

    def anchors(self, rel):
        if rel not in self._anchors:
            with open(os.path.join(self.root, rel), encoding="utf-8", errors="replace") as f:
                self._anchors[rel] = anchors_of(f.read().splitlines())
        return self._anchors[rel]

    def problem(self, target, anchor):
        """Why `target` (relative to the root) with `anchor` (no '#', or None) dangles, or None."""
        path = os.path.normpath(os.path.join(self.root, target))
        if not os.path.exists(path):
            return "no such file"
        if anchor and path.endswith(".md") and os.path.isfile(path):
            if anchor.lower() not in self.anchors(os.path.relpath(path, self.root)):
                return f"no heading of {os.path.relpath(path, self.root)} has the anchor #{anchor}"
        return None


def check(root):
    tree = Tree(root)
    found = []
    for rel in tree.files():
        with open(os.path.join(tree.root, rel), encoding="utf-8", errors="replace") as f:
            lines = f.read().splitlines()
        for n, line in enumerate(lines, 1):
            for m in DOC_REF.finditer(line):
                why = tree.problem(m.group(1), m.group(2)[1:] if m.group(2) else None)
                if why:
                    found.append(f"{rel}:{n}: {m.group(0)} ({why})")
        is_doc = rel.endswith(".md") and (rel == "README.md" or rel.startswith("docs/"))
        if not is_doc:
            continue
        here = os.path.dirname(rel)
        for n, line in code_free_lines(lines):
            text = re.sub(r"`[^`]*`", "", line)  # inline code is not a link
            targets = MD_LINK.findall(text)
            m = MD_REF_DEF.match(text)
            if m:
                targets.append(m.group(1))
            for t in targets:
                if SCHEME.match(t) or t.startswith("//"):
                    continue  # http:, https:, mailto:...
                path, _, anchor = t.partition("#")
                if not path:
                    target = rel
                elif path.startswith("/"):
                    target = path.lstrip("/")
                else:
                    target = os.path.join(here, path)
                why = tree.problem(target, anchor or None)
                if why:
                    found.append(f"{rel}:{n}: {t} ({why})")
    return found


def main(argv):
    root = argv[1] if len(argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    found = check(root)
    if found:
        print(f"porta doc references: {len(found)} dangling reference(s) under {os.path.realpath(root)}:")
        for f in found:
            print("  " + f)
        return 1
    print(f"porta doc references: every docs/ reference and Markdown link under {os.path.realpath(root)} resolves")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
