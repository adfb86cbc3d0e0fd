#!/usr/bin/env python3
"""A compile gate (scripts/gates.sh) on the SASS of the attention kernels (cuobjdump -sass of
kernels_attention_attention_c.cu.o): with the overlap (kernels/attention/attention_variant.h),
each stage's softmax must run while the last stage's P V product does, i.e. its exponentials
(MUFU.EX2) lie between the wait for S (WARPGROUP.DEPBAR.LE gsb0, 0x1) and the wait for P V (the
last WARPGROUP.DEPBAR.LE gsb0, 0x0 before the next WARPGROUP.ARRIVE). ptxas is free to hoist that
second wait above the softmax, and did. Kernels without the overlap wait are skipped, but for
those named by --require: a kernel that should overlap and has no wait for S alone had its wgmma
serialized by ptxas (each product waited for at once), which ptxas does not always report.

    python3 scripts/attention-overlap-gate.py FILE.sass [--require REGEX]   exit 1 when a kernel fails
"""
import re
import sys

MIN_EXP = 32  # of the 64 exponentials of a thread's share of a stage's scores (16 x 128 a warp)


def main():
    args = sys.argv[1:]
    require = None
    if "--require" in args:
        i = args.index("--require")
        require = re.compile(args[i + 1])
        del args[i:i + 2]
    kernels, name = {}, None
    for line in open(args[0]):
        m = re.search(r"Function : (\S+)", line)
        if m:
            name = m.group(1)
            kernels[name] = []
            continue
        m = re.match(r"\s*/\*([0-9a-f]{4,})\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)([^;]*)", line)
        if m and name:
            kernels[name].append((m.group(2), m.group(3).strip()))
    bad = 0
    for name, ops in sorted(kernels.items()):
        if "ts_attn_" not in name:
            continue
        s_wait = next((i for i, (op, args) in enumerate(ops)
                       if op == "WARPGROUP.DEPBAR.LE" and args.endswith("0x1")), None)
        if s_wait is None:
            if require and require.search(name):
                print("BAD", name, "has no wait for S alone: its wgmma are serialized")
                bad += 1
            else:
                print("skip", name, "(no overlap)")
            continue
        arrive = next((i for i in range(s_wait, len(ops)) if ops[i][0] == "WARPGROUP.ARRIVE"), len(ops))
        pv_waits = [i for i in range(s_wait, arrive)
                    if ops[i][0] == "WARPGROUP.DEPBAR.LE" and ops[i][1].endswith("0x0")]
        end = pv_waits[-1] if pv_waits else s_wait
        exps = sum(1 for i in range(s_wait, end) if ops[i][0] == "MUFU.EX2")
        ok = exps >= MIN_EXP
        print("ok " if ok else "BAD", name, exps, "exponentials before the wait for P V")
        bad += not ok
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
