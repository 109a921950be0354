#!/usr/bin/env bash
# Renders the HTML report of a run on a simulated device with headless Chromium and checks that
# the file has its sections and that the picture is a page with charts, not a blank one.
# usage: render_test.sh MEMTOPO SIM_FILE WORK_DIR [STUDY]
# With STUDY (a study id), the page is `memtopo study STUDY --html`'s instead of a discovery's.
# Exit 77 (ctest: skipped) with the reason where chromium or python3 is not installed;
# scripts/setup installs both.
set -euo pipefail
memtopo=$1 sim=$2 work=$3 study=${4:-}
here=$(cd "$(dirname "$0")" && pwd)

browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ]; then
  echo "SKIP: chromium is not installed (scripts/setup installs it: apt-get install chromium)"
  exit 77
fi
if ! command -v python3 >/dev/null; then
  echo "SKIP: python3 is not installed (scripts/setup installs it); it checks the PNG"
  exit 77
fi

rm -rf "$work"
mkdir -p "$work"
if [ -n "$study" ]; then
  "$memtopo" study "$study" --sim "$sim" --quiet --html "$work/report.html" >/dev/null
  ids="summary findings plots console"
  case "$study" in
    coalescing) ids="$ids plot-coalescing-offset-throughput plot-coalescing-misaligned-throughput" ;;
    stride) ids="$ids plot-stride-ca-throughput plot-stride-shared-throughput" ;;
  esac
else
  "$memtopo" --sim "$sim" --quiet --html "$work/report.html" >/dev/null
  ids="summary map table-elements contents findings plots console warnings plot-staircase-l2-size plot-search-l1-size
    plot-latency plot-l1-carveout plot-staircase-tlb-l1-reach plot-shared-banks"
fi

for id in $ids; do
  if ! grep -q "id=\"$id\"" "$work/report.html"; then
    echo "FAIL: the report has no element with id \"$id\""
    exit 1
  fi
done

# Tall enough (at half scale, so that the check stays quick) to reach the first plots.
timeout 90 "$browser" --headless --disable-gpu --no-sandbox --hide-scrollbars \
  --user-data-dir="$work/profile" --force-device-scale-factor=0.5 --window-size=1280,10000 \
  --screenshot="$work/report.png" "file://$work/report.html" 2>"$work/chromium.log" || {
  echo "FAIL: chromium did not render the report:"
  tail -20 "$work/chromium.log"
  exit 1
}
if [ ! -s "$work/report.png" ]; then
  echo "FAIL: chromium wrote no screenshot"
  tail -20 "$work/chromium.log"
  exit 1
fi
# #1f77b4 is the first series' colour (src/report/svg_plot.cpp): legend swatches and dots.
python3 "$here/png_check.py" "$work/report.png" --colour 1f77b4 --min-pixels 100
