#!/usr/bin/env python3
"""A source gate (scripts/gates.sh): no warp-wide call inside a branch taken by some lanes only.

On CUDA ts_warp_id(), ts_warpgroup_id(), ts_warp_in_group() and the ts_shfl_* functions are
full-warp shuffles; a lone lane that runs one reads undefined values (an address made that way
hung the attention kernel on the H200). The host backend runs a warp as one thread, where
ts_lane_id() is always 0, so its tests cannot see this. The gate looks for an `if` whose condition
reads the lane (ts_lane_id() or a variable named lane) and flags those calls in the statement or
block it guards.

    python3 scripts/warp-collective-lint.py [ROOT]      exit 1 when a call is found
"""
import os
import re
import sys

COLLECTIVE = re.compile(r"\b(ts_warp_id|ts_warpgroup_id|ts_warp_in_group|ts_shfl_\w+)\s*\(")
LANE_IF = re.compile(r"\bif\s*\(")
LANE_COND = re.compile(r"\bts_lane_id\s*\(|\blane\b")
FOLDERS = ("kernels", "ops", "templates", "tests/kernels", "examples")


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


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..")
    found = 0
    for folder in FOLDERS:
        for base, _, files in os.walk(os.path.join(root, folder)):
            for f in sorted(files):
                if not f.endswith((".c", ".h", ".cu")):
                    continue
                path = os.path.join(base, f)
                text = strip_comments(open(path, encoding="utf-8").read())
                for m in LANE_IF.finditer(text):
                    cond_end = balanced(text, m.end() - 1, "(", ")")
                    if not LANE_COND.search(text[m.end():cond_end - 1]):
                        continue
                    call = COLLECTIVE.search(guarded(text, cond_end))
                    if call:
                        line = text.count("\n", 0, m.start()) + 1
                        print(f"{os.path.relpath(path, root)}:{line}: {call.group(1)}() inside a branch on the lane")
                        found += 1
    if found:
        print(f"{found} warp-wide call(s) in lane branches: take the value before the branch")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
