#!/usr/bin/env python3
"""Where a kernel's warps stall, by SASS instruction: reads the source page of an Nsight Compute
report exported as CSV (ncu -i REP --page source --csv --print-source sass > FILE; the report
needs the SourceCounters section) and prints the instructions with the most stall samples, and
the samples summed by opcode.

    python3 scripts/ncu-stalls.py FILE [top]
"""
import collections
import csv
import sys


def main():
    path = sys.argv[1]
    top = int(sys.argv[2]) if len(sys.argv) > 2 else 40
    with open(path, newline="") as f:
        lines = [l for l in f if l.strip() and not l.startswith("==")]
    # The export opens with the kernel's name on a line of its own; the table starts at "Address".
    start = next((i for i, l in enumerate(lines) if l.startswith('"Address"')), 0)
    rows = list(csv.DictReader(lines[start:]))
    if not rows:
        sys.exit("no rows in " + path)
    key = next(k for k in rows[0] if k.startswith("Warp Stall Sampling (All"))
    nkey = next((k for k in rows[0] if k.startswith("Warp Stall Sampling (Not")), None)
    src = next(k for k in ("Source", "Sass", "SASS") if k in rows[0])

    def num(v):
        try:
            return float(str(v).replace(",", ""))
        except ValueError:
            return 0.0

    total = sum(num(r[key]) for r in rows) or 1.0
    print(f"{len(rows)} instructions, {total:.0f} stall samples")
    by_op = collections.Counter()
    for r in rows:
        by_op[r[src].split()[0] if r[src].split() else "?"] += num(r[key])
    print("by opcode:")
    for op, n in by_op.most_common(20):
        print(f"  {100 * n / total:5.1f}%  {op}")
    print(f"top {top} instructions (index, all samples %, not-issued %, SASS):")
    ranked = sorted(enumerate(rows), key=lambda ir: -num(ir[1][key]))[:top]
    for i, r in sorted(ranked):
        ni = f"{100 * num(r[nkey]) / total:5.1f}" if nkey else "  -  "
        print(f"  {i:5d} {100 * num(r[key]) / total:5.1f} {ni}  {r[src][:90]}")


if __name__ == "__main__":
    main()
