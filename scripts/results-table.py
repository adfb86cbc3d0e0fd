#!/usr/bin/env python3
"""Tables of results from JSON lines (tessera-bench --json, bench/compare_torch.py,
bench/compare_torch_memory.py). Python 3 alone, no third-party modules; the output depends only on
the files read.

    python3 scripts/results-table.py              the current table, from bench/results/current.txt
    python3 scripts/results-table.py --write      ... written into docs/results.md between its markers
    python3 scripts/results-table.py --check      exit 1 if docs/results.md's table is not the one the
                                                  manifest gives, or bench/results/INDEX.md misses a file
    python3 scripts/results-table.py RUN.jsonl... one table of the points of several runs

A point is a bench and its parameters (measurements, protocol and build labels left out). Each
JSON line is one run's measurement of a point; over the runs of a point the table gives the median
value, the median ratio to the baseline, and the ratios' range. A point is ahead of its baseline when
that range, widened to at least +-0.5% around the median (the spread between processes of the PyTorch
driver, bench/results/nvidia-h200-2026-12-02-norm-placement.txt), lies above 1.0, behind when it lies
below, and a tie otherwise. Lines measured with the write-back charged (params.writeback "charged",
TESSERA_BENCH_CHARGE_WRITEBACK=1) make the "charged" columns of the same point; the others the plain
ones.

The manifest, bench/results/current.txt, names the runs that hold the current numbers: one line a run,
`NAME FILE... [KEY=VALUE...] [commit=SHA]`, files as glob patterns in bench/results/, each KEY=VALUE
keeping only the lines whose label KEY is one of the comma-separated VALUEs. Labels are a line's params and, in logs of
scripts/gpu-driver-ab.sh, the marker lines before it: `== part X Y` sets part (to X-Y), `== [call C]
NAME round R` sets call, build and round. A point measured by several runs takes the figure of the run listed
last. Each point's commit is its lines' "commit" where they carry one, else the run's commit=, else
its files' "code" column in bench/results/INDEX.md.
"""
import glob
import json
import os
import re
import statistics
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RESULTS = os.path.join(ROOT, "bench", "results")
MANIFEST = os.path.join(RESULTS, "current.txt")
INDEX = os.path.join(RESULTS, "INDEX.md")
DOC = os.path.join(ROOT, "docs", "results.md")
BEGIN, END = "<!-- results-table: begin (scripts/results-table.py --write) -->", "<!-- results-table: end -->"
SPREAD_FLOOR = 0.005

# Parameters that are measurements, protocol or labels of a run, not part of a point's identity.
NOT_IDENTITY = {"ms", "baseline_ms", "max_rel_diff", "copy_value", "copy_fraction", "eager_value", "ratio_eager",
                "max_abs_diff_vs_eager", "writeback", "outputs", "build", "round", "call", "part", "variant",
                "lead_cycles"}
BENCH_ORDER = ["gemm", "attention", "layernorm", "rmsnorm", "softmax", "rope"]
BENCH_TITLE = {
    "gemm": "GEMM, bf16 in and out, fp32 accumulation",
    "attention": "Attention forward, bf16",
    "layernorm": "LayerNorm (+ residual)",
    "rmsnorm": "RMSNorm (+ residual)",
    "softmax": "Softmax over rows",
    "rope": "Rotary embedding on Q and K",
}


def read_lines(path):
    """The JSON records of a file, each with its labels (params and the marker lines before it)."""
    labels = {}
    records = []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line.startswith("{"):
                record = json.loads(line)
                record["_labels"] = dict(labels, **{k: str(v) for k, v in record["params"].items()})
                record["_file"] = os.path.basename(path)
                records.append(record)
                continue
            m = re.match(r"==\s*part\s+(.+)", line)
            if m:
                labels = {"part": "-".join(m.group(1).split())}
                continue
            m = re.match(r"==\s*(?:call\s+(\S+)\s+)?(\S+)\s+round\s+(\S+)", line)
            if m:
                labels = dict(labels, build=m.group(2), round=m.group(3))
                if m.group(1):
                    labels["call"] = m.group(1)
    return records


def point_key(record):
    params = {k: v for k, v in record["params"].items() if k not in NOT_IDENTITY}
    return (record["bench"],) + tuple(sorted((k, str(v)) for k, v in params.items()))


def charged(record):
    return record["params"].get("writeback") == "charged"


def shape_label(key):
    """A point's parameters as people write them."""
    bench, p = key[0], dict(key[1:])
    def take(*names):
        return [p.pop(n) for n in names if n in p]
    if bench == "gemm":
        m, n, k = take("M", "N", "K")
        label = f"{m} x {n} x {k}"
        if p.get("layout") == "NN":
            p.pop("layout")
        if p.get("dtype") == "bf16":
            p.pop("dtype")
    elif bench == "attention":
        b, h, n, d = take("B", "H", "N", "D")
        label = f"B{b} H{h} N{n} D{d}" + (" causal" if p.pop("causal", "0") == "1" else "")
        if p.get("dtype") == "bf16":
            p.pop("dtype")
    elif bench in ("layernorm", "rmsnorm", "softmax"):
        rows, cols = take("rows", "cols")
        label = f"{rows} x {cols}"
        if bench != "softmax":
            label += " + residual" if p.pop("residual", "0") == "1" else ""
        else:
            label += " causal" if p.pop("causal", "0") == "1" else ""
        label += " " + p.pop("dtype", "?")
    elif bench == "rope":
        b, n, h, d = take("B", "N", "H", "D")
        label = f"B{b} N{n} H{h} D{d} " + " ".join(take("layout", "convention", "angles")) + " " + p.pop("dtype", "")
    else:
        label = ""
    rest = " ".join(f"{k}={v}" for k, v in sorted(p.items()))
    return (label + (" " + rest if rest else "")).strip()


def summary(records, field="ratio"):
    """Median value, median ratio, the ratios' range and the verdict of one point's lines."""
    ratios = [r[field] for r in records if r.get(field) is not None]
    if not ratios:
        return None
    med = statistics.median(ratios)
    lo, hi = min(ratios), max(ratios)
    wide_lo, wide_hi = min(lo, med * (1 - SPREAD_FLOOR)), max(hi, med * (1 + SPREAD_FLOOR))
    verdict = "ahead" if wide_lo > 1.0 else "behind" if wide_hi < 1.0 else "tie"
    span = f"{lo:.3f}" if f"{lo:.3f}" == f"{hi:.3f}" else f"{lo:.3f}-{hi:.3f}"
    return {"ratio": med, "span": f"{span} ({len(ratios)})", "verdict": verdict}


def fmt(v):
    return f"{v:.4g}" if isinstance(v, (int, float)) else "—"


# ---- the manifest's table ---------------------------------------------------------------------

def index_codes():
    """bench/results/INDEX.md: file -> the commit of the code it measured (its "code" column)."""
    codes = {}
    if not os.path.exists(INDEX):
        return codes
    for line in open(INDEX):
        m = re.match(r"\|[^|]*\|\s*\[[^\]]*\]\(([^)]+)\)\s*\|\s*([^|]*?)\s*\|\s*([^|]*?)\s*\|", line)
        if m:
            code = m.group(2) if re.fullmatch(r"[0-9a-f]{7,12}", m.group(2)) else ""
            codes[m.group(1)] = code
    return codes


def read_manifest():
    runs = []
    for number, line in enumerate(open(MANIFEST), 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        words = line.split()
        name, files, filters, commit = words[0], [], {}, ""
        for w in words[1:]:
            if w.startswith("commit="):
                commit = w[len("commit="):]
            elif "=" in w:
                k, v = w.split("=", 1)
                filters[k] = set(v.split(","))
            else:
                found = sorted(glob.glob(os.path.join(RESULTS, w)))
                if not found:
                    sys.exit(f"{MANIFEST}:{number}: no file matches {w}")
                files += found
        if not files:
            sys.exit(f"{MANIFEST}:{number}: run {name} names no file")
        records = []
        for path in files:
            records += [r for r in read_lines(path)
                        if all(r["_labels"].get(k) in v for k, v in filters.items())]
        if not records:
            sys.exit(f"{MANIFEST}:{number}: run {name} selects no line")
        runs.append({"name": name, "files": [os.path.basename(p) for p in files], "records": records,
                     "filters": filters, "commit": commit})
    return runs


def run_commit(run, codes):
    commits = sorted({r["commit"] for r in run["records"] if r.get("commit")})
    if not commits and run["commit"]:
        commits = [run["commit"]]
    if not commits:
        commits = sorted({codes.get(f, "") for f in run["files"]} - {""})
    return ", ".join(commits) or "—"


def current_table():
    runs = read_manifest()
    codes = index_codes()
    points = {}   # key -> (run index, plain records, charged records); the last run listed wins
    order = []
    for i, run in enumerate(runs):
        mine = {}
        for r in run["records"]:
            key = point_key(r)
            mine.setdefault(key, ([], []))[1 if charged(r) else 0].append(r)
        for key, (plain, charged_records) in mine.items():
            if key not in points:
                order.append(key)
            old = points.get(key)
            # A run with only charged lines keeps an earlier run's plain figure, and the other way round.
            if old and not plain:
                plain, pi = old[1], old[3]
            else:
                pi = i
            if old and not charged_records:
                charged_records, ci = old[2], old[4]
            else:
                ci = i
            points[key] = (i, plain, charged_records, pi, ci)
    for i, run in enumerate(runs):
        if not any(i in (p[3], p[4]) for p in points.values()):
            sys.exit(f"{MANIFEST}: run {run['name']} gives no point that a later run does not measure: delete it")
    out = []
    benches = sorted({k[0] for k in order}, key=lambda b: (BENCH_ORDER.index(b) if b in BENCH_ORDER else 99, b))
    for bench in benches:
        keys = [k for k in order if k[0] == bench]
        sample = next(r for k in keys for r in points[k][1] + points[k][2])
        memory = any(points[k][2] for k in keys)
        flash = any("flash_value" in r for k in keys for r in points[k][1])
        base = sample.get("baseline") or "baseline"
        out.append(f"\n### {BENCH_TITLE.get(bench, bench)}: {sample['metric']} against {base}\n")
        head = ["shape", f"Tessera {sample['metric']}", base, "ratio", "range (runs)", "verdict"]
        if memory:
            head += ["charged: ratio", "range (runs)", "verdict"]
        if flash:
            head += ["vs flash"]
        head += ["run", "commit"]
        out.append("| " + " | ".join(head) + " |")
        out.append("|" + " --- |" * len(head))
        for key in keys:
            _, plain, charged_records, pi, ci = points[key]
            cells = [shape_label(key)]
            s = summary(plain)
            if s:
                cells += [fmt(statistics.median(r["value"] for r in plain)),
                          fmt(statistics.median(r["baseline_value"] for r in plain)),
                          f"{s['ratio']:.3f}x", s["span"], s["verdict"]]
            else:
                cells += ["—"] * 5
            if memory:
                c = summary(charged_records)
                cells += [f"{c['ratio']:.3f}x", c["span"], c["verdict"]] if c else ["—"] * 3
            if flash:
                f = summary(plain, "ratio_flash")
                cells += [f"{f['ratio']:.2f}x" if f else "—"]
            names = [runs[pi]["name"]] if plain else []
            if charged_records and runs[ci]["name"] not in names:
                names.append(runs[ci]["name"])
            cells += [", ".join(names), ", ".join(dict.fromkeys(run_commit(runs[j], codes)
                                                               for j in ({pi} if plain else set()) |
                                                               ({ci} if charged_records else set())))]
            out.append("| " + " | ".join(cells) + " |")
    out.append("\n### The runs\n")
    out.append("| run | files (bench/results/) | lines kept | commit | date |")
    out.append("| --- | --- | --- | --- | --- |")
    for run in runs:
        files = run["files"]
        shown = f"`{files[0]}`" + (f" and {len(files) - 1} more like it" if len(files) > 1 else "")
        kept = " ".join(f"{k}={','.join(sorted(v))}" for k, v in sorted(run["filters"].items())) or "all"
        dates = sorted({r.get("date", "") for r in run["records"]})
        out.append(f"| {run['name']} | {shown} | {kept} | {run_commit(run, codes)} | {', '.join(dates)} |")
    return "\n".join(out).strip() + "\n"


def doc_with_table(doc, table):
    if BEGIN not in doc or END not in doc:
        sys.exit(f"{DOC} lacks the markers {BEGIN} / {END}")
    head, rest = doc.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    return head + BEGIN + "\n" + table + END + tail


def check():
    failures = 0
    doc = open(DOC).read()
    if doc_with_table(doc, current_table()) != doc:
        print("docs/results.md: the table is not the manifest's; run python3 scripts/results-table.py --write")
        failures += 1
    listed = set(re.findall(r"\]\((nvidia-[^)]+|amd-[^)]+)\)", open(INDEX).read())) if os.path.exists(INDEX) else set()
    present = {f for f in os.listdir(RESULTS) if f not in ("INDEX.md", "current.txt")}
    for f in sorted(present - listed):
        print(f"bench/results/INDEX.md: no line for {f}")
        failures += 1
    for f in sorted(listed - present):
        print(f"bench/results/INDEX.md: a line for {f}, which is not in bench/results/")
        failures += 1
    return 1 if failures else 0


# ---- several runs of one bench --------------------------------------------------------------

def runs_table(paths):
    runs = [{point_key(r): r for r in read_lines(p)} for p in paths]
    order = []
    for run in runs:
        order += [k for k in run if k not in order]
    first = next(iter(runs[0].values()))
    extra = [k for k in ("flash_value", "eager_value") if k in first or k in first["params"]]
    head = ["point", f"Tessera {first['metric']}", first["baseline"] or "baseline"]
    head += [k.replace("_value", "") for k in extra]
    lines = ["| " + " | ".join(head + [f"vs {first['baseline']} ({len(runs)} runs)", "median ratio", "verdict"]) + " |",
             "|" + " --- |" * (len(head) + 3)]
    for key in order:
        recs = [run[key] for run in runs if key in run]
        def med(name):
            return statistics.median(r[name] if name in r else r["params"][name] for r in recs)
        s = summary(recs)
        cells = [key[0] + " " + shape_label(key), fmt(med("value")), fmt(med("baseline_value"))]
        cells += [fmt(med(k)) for k in extra]
        missing = len(runs) - len(recs)
        if s:
            cells += [s["span"] + (f", {missing} runs without it" if missing else ""), f"{s['ratio']:.3f}x", s["verdict"]]
        else:
            cells += ["—"] * 3
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def main():
    args = sys.argv[1:]
    if args in ([], ["--write"], ["--check"]):
        if args == ["--check"]:
            return check()
        table = current_table()
        if args == ["--write"]:
            doc = open(DOC).read()
            open(DOC, "w").write(doc_with_table(doc, table))
        else:
            sys.stdout.write(table)
        return 0
    if any(a.startswith("-") for a in args):
        sys.exit(__doc__)
    sys.stdout.write(runs_table(args))
    return 0


if __name__ == "__main__":
    sys.exit(main())
