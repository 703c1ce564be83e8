#!/bin/bash
# The 3D-parallel example (tools/examples/train_3d.py: 2 replicas x 2 pipeline stages x 2
# tensor-parallel ranks) through outrider and through gloo on 4 loopback nodes x 2 ranks: both
# train, each run's replicas end with bitwise equal parameters (the example exits 1 otherwise),
# and the two runs' loss curves agree within float tolerance.
# Usage: train_3d_test.sh RUN_SH PYTHON...
set -euo pipefail
run=$1
shift
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
example=$(dirname "$0")/../../tools/examples/train_3d.py
args=(--steps 5 --warmup 1 --micro 4 --max-words 200000)
bash "$run" --loopback --timeout 240 --nodes 4 --procs-per-node 2 -- "$@" "$example" \
  --backend outrider "${args[@]}" --json "$dir/outrider.json"
bash "$run" --loopback --timeout 240 --no-agent --nodes 4 --procs-per-node 2 -- "$@" "$example" \
  --backend gloo "${args[@]}" --json "$dir/gloo.json"
/usr/bin/python3 - "$dir/outrider.json" "$dir/gloo.json" <<'PY'
import json, sys
ours, gloo = (json.load(open(p))["rows"][0] for p in sys.argv[1:])
assert ours["params_identical"] and gloo["params_identical"], "replicas' parameters differ"
pairs = list(zip(ours["losses"], gloo["losses"]))
assert len(pairs) == 5, pairs
worst = max(abs(a - b) / max(abs(b), 1e-6) for a, b in pairs)
print(f"train_3d: losses outrider {ours['losses']}, gloo {gloo['losses']}; largest relative difference {worst:.2e}")
assert worst < 1e-4, f"loss curves differ by {worst:.2e}"
assert ours["losses"][-1] < ours["losses"][0], "the loss did not fall"
PY
