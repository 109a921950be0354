#!/usr/bin/env python3
"""Issue 15 item 3: why ro.size (ld.global.nc) stops short of l1.size (ld.global.ca) and
tex.size on one L1. Reads memtopo --traces CSVs of the size probes and prints, per trace whose
footprint lies in [MIN, MAX] bytes, one CSV row: probe, label, path, footprint, stride, elements,
passes, slow loads in each of the first 4 passes, elements slow in every pass, the overlap of the slow elements of the
first two passes, the slow share by 32 B sector within the 128 B line, and by 128 B line within a
4 KiB block (coarse: 4 bins of 8 lines). A load is slow above THRESHOLD cycles.
Usage: l1-path-traces.py TRACE_DIR [MIN MAX THRESHOLD]"""

import csv
import os
import re
import sys


def header_fields(line):
    return dict(re.findall(r"(\w+)=([^\s|]+)", line))


def main(folder, low=180000, high=262144, threshold=150.0):
    print("probe,label,path,footprint,stride,elements,passes,slow_per_pass,slow_every_pass,"
          "overlap_first_two,slow_by_sector,slow_by_line_quarter")
    for name in sorted(os.listdir(folder)):
        if not re.match(r"\d+_(ro|l1|tex)\.size_", name):
            continue
        with open(os.path.join(folder, name)) as handle:
            meta = header_fields(handle.readline())
            rows = list(csv.DictReader(handle))
        footprint = int(meta.get("footprint_bytes", 0))
        if not low <= footprint <= high or not rows:
            continue
        stride = int(meta["stride_bytes"])
        elements = footprint // stride
        passes = len(rows) // elements
        if passes < 1:
            continue
        slow = [set() for _ in range(passes)]
        for k, row in enumerate(rows[: passes * elements]):
            if float(row["cycles"]) > threshold:
                slow[k // elements].add(int(row["index"]))
        every = set.intersection(*slow) if slow else set()
        union01 = slow[0] | slow[1] if passes > 1 else slow[0]
        overlap = len(slow[0] & slow[1]) / len(union01) if passes > 1 and union01 else 0
        by_sector = [0] * 4
        by_quarter = [0] * 4
        for s in slow:
            for index in s:
                byte = index * 4
                by_sector[(byte % 128) // 32] += 1
                by_quarter[(byte % 4096) // 1024] += 1
        probe, label = name.split("_", 2)[1:3] if name.count("_") >= 2 else (name, "")
        print(f"{probe},{label.removesuffix('.csv')},{meta.get('path')},{footprint},{stride},"
              f"{elements},{passes},{'/'.join(str(len(s)) for s in slow[:4])},{len(every)},"
              f"{overlap:.2f},{'/'.join(map(str, by_sector))},{'/'.join(map(str, by_quarter))}")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    args = [float(a) for a in sys.argv[2:5]]
    main(sys.argv[1], *[int(a) for a in args[:2]], *args[2:3])
