#!/usr/bin/env bash
# The sparse simulator against measurement: outrider-bench sparse on 3 emulated nodes (loopback
# agents, so it runs anywhere) compares the wire bytes each algorithm actually moved with what
# `sparse-sim`'s accounting predicts for the same id streams, and checks that every algorithm
# gave bitwise the same result. Fails if any prediction is off by more than 5 % or any check
# failed. With --turn-ms, every rank must run the same ops per turn (they agree on them; a
# disagreement hangs the run), and every timed op must be in the JSON. No timing is asserted.
# Then `sparse-sim` alone, up to 1,024 nodes: at every node count, auto's choice (the cost model on
# the announcements) must be the algorithm the time model finds fastest on the simulated bytes, or
# within 5 % of it; bad time-model parameters are refused.
set -uo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
BUILD="${OUTRIDER_BUILD_DIR:-$HERE/../../build}"
T="$(mktemp -d "${TMPDIR:-/tmp}/outrider-sparse-sim.XXXXXX")"
trap 'rm -rf -- "$T"' EXIT
"$BUILD/bin/outrider-bench" sparse --turn-ms -5 >"$T/bad.txt" 2>&1
rc=$?
if ((rc != 2)) || ! grep -q -- '--turn-ms' "$T/bad.txt"; then
  cat "$T/bad.txt"
  echo "FAIL - a negative --turn-ms was not refused with usage status 2 (got $rc)"
  exit 1
fi
for bad in "--link-gbit 0" "--round-us -1" "--sum-gbyte 0"; do
  # shellcheck disable=SC2086
  "$BUILD/bin/outrider-bench" sparse-sim --nodes 4 $bad >"$T/bad.txt" 2>&1
  rc=$?
  if ((rc != 2)); then
    cat "$T/bad.txt"
    echo "FAIL - sparse-sim $bad was not refused with usage status 2 (got $rc)"
    exit 1
  fi
done
if ! "$BUILD/bin/outrider-bench" sparse-sim --rows 100000 --dim 64 --density 0.01 \
    --nodes 4,16,64,256,1024 --json "$T/sim.json" >"$T/sim.txt" 2>&1; then
  cat "$T/sim.txt"
  echo "FAIL - outrider-bench sparse-sim did not finish"
  exit 1
fi
cat "$T/sim.txt"
python3 - "$T/sim.json" <<'PY' || exit 1
import json, sys
rows = json.load(open(sys.argv[1]))["rows"]
bad = []
for n in sorted({r["nodes"] for r in rows}):
    at = [r for r in rows if r["nodes"] == n]
    named = {r["algo"]: r["model_time_us"] for r in at if r["algo"] != "auto"}
    fastest = min(named, key=named.get)
    choice = at[0]["auto_choice"]
    print(f"{n:>5} nodes: fastest by the time model {fastest} ({named[fastest]:.0f} us), auto chose "
          f"{choice} ({named[choice]:.0f} us)")
    if named[choice] > 1.05 * named[fastest]:
        bad.append(n)
if bad:
    print(f"FAIL - auto's choice is more than 5 % slower than the fastest by the time model at {bad} nodes")
    sys.exit(1)
print("ok   - auto picks what the time model finds fastest at every node count")
PY
if ! "$HERE/../../tools/cluster/run.sh" --nodes 3 --loopback --timeout 300 -- "$BUILD/bin/outrider-bench" sparse \
    --rows 20000 --dim 16 --density 0.03 --iters 2 --turn-ms 30 --json "$T/sparse.json" >"$T/out.txt" 2>&1; then
  cat "$T/out.txt"
  echo "FAIL - outrider-bench sparse did not finish"
  exit 1
fi
cat "$T/out.txt"
python3 - "$T/sparse.json" <<'PY'
import json, sys
rows = json.load(open(sys.argv[1]))["rows"]
algos = {r["algo"] for r in rows}
bad = [r for r in rows if not r["check"] or r["sim_error"] > 0.05 or r["wire_bytes_sent"] <= 0
       or len(r["op_times_us"]) != r["iters"] * r["ops_per_turn"]]
if max(r["ops_per_turn"] for r in rows) < 2:
    print("FAIL - no algorithm ran more than one op per 30 ms turn")
    sys.exit(1)
for r in rows:
    print(f'{r["algo"]:<10} measured {r["wire_bytes_sent"]:>10} simulated {r["sim_wire_bytes_sent"]:>12.0f} '
          f'error {r["sim_error"]:.4f} check {r["check"]} ops {len(r["op_times_us"])}')
missing = {"allgather", "balanced", "block", "dense", "auto"} - algos
if missing or bad:
    print(f"FAIL - missing {sorted(missing)}, bad {[r['algo'] for r in bad]}")
    sys.exit(1)
print("ok   - every algorithm's wire bytes within 5 % of the simulator, identical results")
PY
