#!/usr/bin/env python3
"""The log of scripts/gpu-ab.sh as one table: per bench and point the mean TFLOP/s (or TB/s) of each
variant over its rounds, and its change against the first variant, for the header of a
bench/results/*-ab.txt file. Reads the '== NAME BENCH (round N)' markers and the points printed
under them.

    python3 scripts/gpu-ab-table.py LOG
"""
import collections
import re
import sys


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    points = collections.OrderedDict()
    variants, current, bench, unit = [], None, "", "TFLOP/s"
    for line in open(sys.argv[1]):
        m = re.match(r"== (\S+) (\S+) \(round \d+\)", line)
        if m:
            current, bench = m.group(1), m.group(2)
            if current not in variants:
                variants.append(current)
            continue
        m = re.match(r"\s+(.*?)\s+(?:ms|baseline_ms|max_rel_diff)=.*?\s([\d.]+) (TFLOP/s|TB/s)", line)
        if m and current:
            # The bench's name leads the point: benches of one log may share their parameters.
            point = bench + " " + re.sub(r"\s*(ms|dtype)=\S+", "", m.group(1)).strip()
            unit = m.group(3)
            points.setdefault(point, collections.defaultdict(list))[current].append(float(m.group(2)))
    if not points:
        sys.exit("no bench points in " + sys.argv[1])
    base = variants[0]
    width = max(len(p) for p in points)
    print(f"# mean {unit} over the rounds, and the change against {base}")
    print(f"{'point':{width}}" + "".join(f"{v:>17}" for v in variants))
    for point, by_variant in points.items():
        ref = sum(by_variant[base]) / len(by_variant[base]) if by_variant[base] else None
        cells = []
        for v in variants:
            vals = by_variant[v]
            if not vals:
                cells.append(f"{'-':>17}")
                continue
            mean = sum(vals) / len(vals)
            change = f"{100 * (mean / ref - 1):+5.1f}%" if ref else "     "
            cells.append(f"{mean:10.3f} {change}" if unit == "TB/s" else f"{mean:10.1f} {change}")
        print(f"{point:{width}}" + "".join(cells))


if __name__ == "__main__":
    main()
