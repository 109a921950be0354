#!/usr/bin/env python3
"""Issue 12 item 1: what the TLB row's chases saw on a GPU. Reads memtopo --traces CSVs of the
tlb_l1.reach probe and prints one CSV row per trace: sequence number, label, stride, footprint,
elements (footprint / stride), loads, mean, p50, p95 and max cycles (timing overhead not
subtracted), and the loads above the trace's p50 + THRESHOLD cycles.
Usage: tlb-traces.py TRACE_DIR [THRESHOLD]"""

import csv
import os
import re
import statistics
import sys


def header_fields(line):
    return dict(re.findall(r"(\w+)=([^\s|]+)", line))


def main(folder, threshold=6.0):
    print("seq,label,stride,footprint,elements,indices,loads,mean,p50,p95,max,slow")
    for name in sorted(os.listdir(folder)):
        match = re.match(r"(\d+)_tlb_l1\.reach_(\w+)\.csv", name)
        if not match:
            continue
        with open(os.path.join(folder, name)) as handle:
            meta = header_fields(handle.readline())
            cycles = [float(row["cycles"]) for row in csv.DictReader(handle)]
        if not cycles:
            continue
        cycles.sort()
        stride = int(meta.get("stride_bytes", 0))
        footprint = int(meta.get("footprint_bytes", 0))
        p50 = cycles[len(cycles) // 2]
        slow = sum(1 for c in cycles if c > p50 + threshold)
        print(f"{match.group(1)},{match.group(2)},{stride},{footprint},"
              f"{footprint // stride if stride else 0},{meta.get('indices', '')},{len(cycles)},"
              f"{statistics.fmean(cycles):.1f},{p50:.1f},{cycles[int(len(cycles) * 0.95)]:.1f},"
              f"{cycles[-1]:.1f},{slow}")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    main(sys.argv[1], *(float(a) for a in sys.argv[2:3]))
