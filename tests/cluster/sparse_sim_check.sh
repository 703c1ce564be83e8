#!/usr/bin/env bash
# The sparse simulator against measurement: outrider-bench sparse on 3 emulated nodes (loopback
# agents, so it runs anywhere) compares the wire bytes each algorithm actually moved with what
# `sparse-sim`'s accounting predicts for the same id streams, and checks that every algorithm
# gave bitwise the same result. Fails if any prediction is off by more than 5 % or any check
# failed. With --turn-ms, every rank must run the same ops per turn (they agree on them; a
# disagreement hangs the run), and every timed op must be in the JSON. No timing is asserted.
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
