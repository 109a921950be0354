#!/usr/bin/env bash
# The fleet through the real engine (issue 38 item 3): a single-node Slurm cluster on localhost
# (munged, slurmctld, slurmd with a generated slurm.conf in a temporary directory), the sbatch
# script (scripts/fleet/sbatch-memtopo) with one task per simulated GPU, one of them with a
# slower DRAM, then `memtopo fleet` must name that one and no other.
# Usage: slurm_fleet_test.sh MEMTOPO SOURCE_DIR. Exit 77 (skipped, with the reason) without root
# or without the Debian packages slurmctld, slurmd, slurm-client and munge (scripts/setup).
set -uo pipefail
memtopo=$(realpath "$1")
source_dir=$(realpath "$2")
tasks=4
slow_task=2

skip() {
  echo "SKIPPED: $*"
  exit 77
}
[[ "$(id -u)" -eq 0 ]] || skip "needs root (slurmd runs the job steps as root here)"
for command in munged slurmctld slurmd sbatch scontrol python3; do
  command -v "$command" >/dev/null || skip "$command is missing (scripts/setup installs it)"
done

work=$(mktemp -d /tmp/memtopo-slurm.XXXXXX)
chmod 755 "$work"
export SLURM_CONF="$work/slurm.conf"

# The daemons this test started, by their pid files; the job first, so that no step is left.
cleanup() {
  local status=$?
  if [[ -n "${job_id:-}" ]]; then scancel "$job_id" 2>/dev/null; fi
  for daemon in slurmd slurmctld munged; do
    local pid_file="$work/$daemon.pid"
    [[ -s "$pid_file" ]] || continue
    local pid
    pid=$(cat "$pid_file")
    kill "$pid" 2>/dev/null
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null
  done
  if ((status != 0 && status != 77)); then
    for log in "$work"/*.log "$work"/job.out "$work"/fleet/logs/*; do
      [[ -f "$log" ]] && { echo "== $log"; tail -n 30 "$log"; }
    done
  fi
  rm -rf "$work"
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

fail() {
  echo "FAILED: $*"
  exit 1
}

# munge: a key of our own and a socket in the temporary directory.
mkdir -p "$work/munge" && chmod 700 "$work/munge"
head -c 1024 /dev/urandom >"$work/munge/munge.key" && chmod 400 "$work/munge/munge.key"
munged --force --socket="$work/munge/socket" --key-file="$work/munge/munge.key" \
  --pid-file="$work/munged.pid" --log-file="$work/munged.log" --seed-file="$work/munge/seed" ||
  fail "munged did not start"

port=$((20000 + RANDOM % 20000))
mkdir -p "$work/state" "$work/spool"
cat >"$SLURM_CONF" <<CONF
ClusterName=memtopo-ci
SlurmctldHost=localhost(127.0.0.1)
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$port
SlurmdPort=$((port + 1))
AuthType=auth/munge
AuthInfo=socket=$work/munge/socket
CredType=cred/munge
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/slurmctld.log
SlurmdLogFile=$work/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/builtin
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
MpiDefault=none
ReturnToService=2
SlurmdParameters=config_overrides
NodeName=memtopo-ci NodeAddr=127.0.0.1 NodeHostname=localhost CPUs=$tasks State=UNKNOWN
PartitionName=ci Nodes=ALL Default=YES MaxTime=10 State=UP OverSubscribe=YES
CONF

slurmctld -i || fail "slurmctld did not start"
slurmd -N memtopo-ci || fail "slurmd did not start"
for _ in $(seq 100); do
  scontrol show node memtopo-ci 2>/dev/null | grep -q 'State=IDLE' && break
  sleep 0.2
done
scontrol show node memtopo-ci | grep -q 'State=IDLE' || fail "the node did not become idle"

# The simulated GPUs: one model (same name), each its own noise; task $slow_task's DRAM 25 % slower.
mkdir -p "$work/sims"
for ((i = 0; i < tasks; i++)); do
  python3 - "$source_dir/tests/sims/tiny.json" "$work/sims/gpu$i.json" "$i" "$slow_task" <<'PY'
import json, sys
source, target, index, slow = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
description = json.load(open(source))
description["noise"]["seed"] = 100 + index
if index == slow:
    description["dram_latency"] = int(description["dram_latency"] * 1.25)
json.dump(description, open(target, "w"), indent=2)
PY
done

job_id=$(sbatch --parsable --ntasks="$tasks" --output="$work/job.out" \
  --export=ALL,MEMTOPO="$memtopo" "$source_dir/scripts/fleet/sbatch-memtopo" "$work/fleet" \
  --sim "$work/sims/gpu{localid}.json" --only dram.latency) ||
  fail "sbatch refused the job"
for _ in $(seq 600); do
  state=$(scontrol show job "$job_id" 2>/dev/null | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p')
  case "$state" in COMPLETED | FAILED | CANCELLED | TIMEOUT | NODE_FAIL | OUT_OF_MEMORY) break ;; esac
  sleep 0.2
done
[[ "$state" == COMPLETED ]] || fail "job $job_id ended $state"
job_done=$job_id
job_id=""

count=$(find "$work/fleet" -maxdepth 1 -name '*.json' | wc -l)
((count == tasks)) || fail "$count JSON files in the fleet directory, $tasks expected"
"$memtopo" fleet "$work/fleet" --json "$work/fleet.json" --html "$work/fleet.html" >"$work/fleet.txt"
status=$?
cat "$work/fleet.txt"
((status == 9)) || fail "memtopo fleet exited $status, 9 (outliers) expected"
python3 - "$work/fleet.json" "$job_done" "$slow_task" <<'PY' || fail "the fleet JSON does not name the slow GPU alone"
import json, sys
fleet, job, slow = json.load(open(sys.argv[1])), sys.argv[2], int(sys.argv[3])
outliers = {fleet["gpus"][v["gpu"]]["sim_file"]
            for model in fleet["models"] for p in model["properties"] for v in p["values"]
            if v["outlier"]}
print("outlier GPUs:", sorted(outliers))
assert outliers and all(f.endswith(f"gpu{slow}.json") for f in outliers), outliers
for gpu in fleet["gpus"]:
    assert gpu["slurm"]["job_id"] == job, gpu["slurm"]
    assert gpu["sim_file"].endswith(f'gpu{gpu["slurm"]["local_id"]}.json'), gpu
PY
grep -q '<svg' "$work/fleet.html" || fail "the HTML page has no plot"
echo "PASSED: memtopo fleet named the slower GPU of $tasks, run as Slurm job $job_done"
