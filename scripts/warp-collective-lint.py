#!/usr/bin/env python3
"""A source gate (scripts/gates.sh): no warp-wide call inside a branch taken by some lanes only.

On CUDA ts_warp_id(), ts_warpgroup_id(), ts_warp_in_group() and the ts_shfl_* functions are
full-warp shuffles; a lone lane that runs one reads undefined values (an address made that way
hung the attention kernel on the H200). The host backend runs a warp as one thread, where
ts_lane_id() is always 0, so its tests cannot see this. The gate looks for an `if` whose condition
reads the lane (ts_lane_id() or a variable named lane), and for a TS_ONE_LANE region (ops/one_lane.h),
and flags those calls in the statement or block it guards.

    python3 scripts/warp-collective-lint.py [PATH ...]

Each PATH is a C source (.c, .h, .cu) or a folder searched for them; a folder that is a Tessera tree
(it holds ops/ and kernels/) is searched in its kernel-side folders only (kernels, ops, templates,
tests/kernels, examples), and with no PATH this tree is. Exits 1 when a call is found, and 2, naming
it, for a PATH that was not read: missing, unreadable, not a C source, or a folder without one.
"""
import os
import re
import sys

COLLECTIVE = re.compile(r"\b(ts_warp_id|ts_warpgroup_id|ts_warp_in_group|ts_shfl_\w+)\s*\(")
LANE_IF = re.compile(r"\bif\s*\(")
LANE_COND = re.compile(r"\bts_lane_id\s*\(|\blane\b")
ONE_LANE = re.compile(r"\bTS_ONE_LANE\b(?!\s*\()")
FOLDERS = ("kernels", "ops", "templates", "tests/kernels", "examples")
SOURCES = (".c", ".h", ".cu")


def balanced(text, start, open_ch, close_ch):
    """Index just past the bracket that closes the one at text[start]."""
    depth = 0
    for i in range(start, len(text)):
        if text[i] == open_ch:
            depth += 1
        elif text[i] == close_ch:
            depth -= 1
            if depth == 0:
                return i + 1
    return len(text)


def guarded(text, after):
    """The statement or block an `if` guards, from just past its condition."""
    i = after
    while i < len(text) and text[i].isspace():
        i += 1
    if i < len(text) and text[i] == "{":
        return text[i:balanced(text, i, "{", "}")]
    end = text.find(";", i)
    return text[i:end + 1 if end >= 0 else len(text)]


def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", lambda m: re.sub(r"[^\n]", " ", m.group(0)), text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


def strip_defines(text):
    """Blanks the definitions of TS_ONE_LANE itself (the backends' one-pass loops)."""
    return re.sub(r"#\s*define\s+TS_ONE_LANE\b(?:[^\n]*\\\n)*[^\n]*", lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)


def lane_branches(text):
    """(start, guarded text) of each branch taken by some lanes only."""
    for m in LANE_IF.finditer(text):
        cond_end = balanced(text, m.end() - 1, "(", ")")
        if LANE_COND.search(text[m.end():cond_end - 1]):
            yield m.start(), guarded(text, cond_end)
    for m in ONE_LANE.finditer(text):
        yield m.start(), guarded(text, m.end())


def check_file(path, shown):
    """Prints each finding of one source; returns how many, or None when it could not be read."""
    try:
        with open(path, encoding="utf-8") as f:
            text = strip_defines(strip_comments(f.read()))
    except (OSError, UnicodeDecodeError) as e:
        print(f"warp-collective-lint: cannot read {shown}: {e}", file=sys.stderr)
        return None
    found = 0
    for start, body in sorted(lane_branches(text)):
        call = COLLECTIVE.search(body)
        if call:
            line = text.count("\n", 0, start) + 1
            print(f"{shown}:{line}: {call.group(1)}() inside a branch on the lane")
            found += 1
    return found


def sources_under(folder):
    for base, dirs, files in os.walk(folder):
        dirs.sort()
        for f in sorted(files):
            if f.endswith(SOURCES):
                yield os.path.join(base, f)


def is_tree(folder):
    return os.path.isdir(os.path.join(folder, "ops")) and os.path.isdir(os.path.join(folder, "kernels"))


def targets(path):
    """The sources a PATH stands for, and how to name them; an error message when there are none."""
    if not os.path.exists(path):
        return None, f"{path}: no such file or folder"
    if os.path.isfile(path):
        if not path.endswith(SOURCES):
            return None, f"{path}: not a C source ({', '.join(SOURCES)})"
        return [(path, path)], None
    if not os.access(path, os.R_OK | os.X_OK):
        return None, f"{path}: folder not readable"
    if is_tree(path):
        files = [(p, os.path.relpath(p, path)) for d in FOLDERS for p in sources_under(os.path.join(path, d))]
    else:
        files = [(p, p) for p in sources_under(path)]
    if not files:
        return None, f"{path}: no C sources in this folder"
    return files, None


def main(argv):
    paths = argv[1:] or [os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")]
    found = 0
    unread = 0
    for path in paths:
        files, error = targets(path)
        if error:
            print(f"warp-collective-lint: {error}", file=sys.stderr)
            unread += 1
            continue
        for full, shown in files:
            n = check_file(full, shown)
            if n is None:
                unread += 1
            else:
                found += n
    if found:
        print(f"{found} warp-wide call(s) in lane branches: take the value before the branch")
    if unread:
        print(f"warp-collective-lint: {unread} path(s) not read", file=sys.stderr)
        return 2
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
