#!/usr/bin/env bash
# GPU acceptance: builds Outrider with CUDA, runs the gpu-labelled tests (the handoff matrix:
# cudaMalloc, cudaMalloc at an offset, cuMem, an expandable segment; gpu_mode staging and ipc; 2 and
# 4 trainers on one GPU; bitwise against the host path; agent SIGKILL mid-op), the PyTorch checks
# (a tensor at a non-zero offset, the other ops, sparse COO, DDP with a sparse embedding bitwise
# against host tensors, with and without PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True) where a
# CUDA PyTorch and the backend built against it are there, the GPU benchmark, the agent's NCCL
# against the ranks calling NCCL themselves (one rank per GPU), and sparse rows coalesced on the
# GPU (liboutrider_gpu_sparse.so against the host algorithm, in the agent, and its time); then
# prints one table. Exit status 1 if anything failed, 0 otherwise (skips named in the table).
set -euo pipefail
cd "$(dirname "$0")/../.."

usage() {
  cat <<'USAGE'
usage: tools/gpu/accept.sh [--build-dir DIR] [--no-build] [--out DIR] [--quick]

  --build-dir DIR  build tree to use (default: build-gpu; configured with OUTRIDER_WITH_CUDA=ON)
  --no-build       use the build tree as it is (built on another machine and carried here)
  --out DIR        where the logs, JSON results and table go (default: a new directory in /tmp)
  --quick          the benchmark's sizes up to 64 MiB only

environment: PYTHON, the Python with a CUDA PyTorch (default: python3); OUTRIDER_CUDA_DRIVER,
another CUDA driver library (the fake one in build/tests/libfakecuda.so runs the matrix without
a GPU: its timings mean nothing).
USAGE
}

build_dir=build-gpu
build=1
py=${PYTHON:-python3}
out=""
max_bytes=256M
while [[ $# -gt 0 ]]; do
  case "$1" in
    --build-dir) build_dir="$2"; shift 2 ;;
    --no-build) build=0; shift ;;
    --out) out="$2"; shift 2 ;;
    --quick) max_bytes=64M; shift ;;
    -h|--help) usage; exit 0 ;;
    *) echo "accept.sh: unknown argument '$1'" >&2; usage >&2; exit 2 ;;
  esac
done
[[ -n "$out" ]] || out=$(mktemp -d /tmp/outrider-gpu-accept.XXXXXX)
mkdir -p "$out"
results="$out/results.tsv"  # name, PASS/FAIL/SKIP, detail
: >"$results"
row() { printf '%s\t%s\t%s\n' "$1" "$2" "$3" >>"$results"; }

if [[ $build -eq 1 ]]; then
  cmake -S . -B "$build_dir" -DOUTRIDER_WITH_CUDA=ON -DCMAKE_BUILD_TYPE=Release >"$out/configure.log" 2>&1
  cmake --build "$build_dir" -j"$(nproc)" --target gpu_accept_test outrider-agent outrider-bench >"$out/build.log" 2>&1 ||
    { echo "accept.sh: build failed (see $out/build.log)" >&2; exit 1; }
  cmake --build "$build_dir" -j"$(nproc)" --target gpu_sparse_accept_test >>"$out/build.log" 2>&1 || true  # only with nvcc
  cmake --build "$build_dir" -j"$(nproc)" --target outrider_torch_ext >>"$out/build.log" 2>&1 || true  # only where PyTorch is
fi
build_abs=$(cd "$build_dir" && pwd)

# 1. The gpu tests: the handoff matrix and agent death.
"$build_abs/tests/gpu_accept_test" --gtest_output="json:$out/gtest.json" >"$out/gtest.log" 2>&1 || true
python3 - "$out/gtest.json" "$out/gtest.log" >>"$results" <<'PY'
import json, re, sys
try:
    suites = json.load(open(sys.argv[1]))["testsuites"]
except Exception as e:
    print(f"gpu_accept_test\tFAIL\tno results ({e}); see {sys.argv[2]}")
    sys.exit(0)
log = open(sys.argv[2]).read()
for suite in suites:
    for t in suite["testsuite"]:
        name = t["name"].split("/")[-1]
        if suite["name"].endswith("GpuAgentDeathTest"):
            mode = ["staging", "ipc"][int(name)]
            name = f"agent SIGKILL mid-op [{mode}]"
            m = re.search(rf"gpu_mode {mode}: stream released ([0-9.]+) ms", log)
            detail = f"stream released {m.group(1)} ms after the kill" if m else ""
        else:
            kind, mode, trainers = name.split("_")
            name = f"allreduce {kind} [{mode},{trainers.replace('trainers', '')}]"
            detail = "bitwise = host path"
        if t.get("result") == "SKIPPED":
            status, detail = "SKIP", (t.get("skipped", {}) or {}).get("message", "").strip().splitlines()[-1:] or ["skipped"]
            detail = detail[0] if isinstance(detail, list) else detail
        elif "failures" in t:
            status, detail = "FAIL", t["failures"][0]["failure"].strip().splitlines()[-1]
        else:
            status = "PASS"
        print(f"{name}\t{status}\t{detail}")
PY

# 2. PyTorch: where a CUDA PyTorch and the backend built against it are there.
pyreason=$(PYTHONPATH="$build_abs/python" "$py" -c '
import torch
if not torch.cuda.is_available(): print("PyTorch sees no GPU"); raise SystemExit
try:
    import outrider_torch
except Exception as e: print("outrider_torch not importable: %s" % e)' 2>&1) || pyreason="$py: $(tail -1 <<<"$pyreason")"
if [[ -n "$pyreason" ]]; then
  row "torch (all checks)" SKIP "$pyreason"
else
  for alloc in default expandable; do
    for mode in staging ipc; do
      for n in 2 4; do
        conf=""
        [[ $alloc == expandable ]] && conf="expandable_segments:True"
        log="$out/torch-$alloc-$mode-$n.log"
        OUTRIDER_BUILD_DIR="$build_abs" PYTHONPATH="$build_abs/python" OUTRIDER_GPU_MODE=$mode PYTORCH_CUDA_ALLOC_CONF=$conf \
          timeout 600 bash tools/cluster/run.sh --loopback --timeout 300 --nodes 1 --procs-per-node "$n" -- \
          "$py" tools/gpu/torch_accept.py --device cuda >"$log" 2>&1 || true
        found=0
        while IFS= read -r line; do
          found=1
          status=${line%% *}; rest=${line#* }; name=${rest%%:*}
          detail=""; [[ "$rest" == *:* ]] && detail=${rest#*: }
          [[ $alloc == expandable ]] && name="$name (expandable segments)"
          row "$name" "$status" "$detail"
        done < <(grep -E '^(PASS|FAIL) ' "$log" || true)
        [[ $found -eq 1 ]] || row "torch [$alloc,$mode,$n]" FAIL "no results; see $log"
      done
    done
  done
fi

# 3. The benchmark: staging copies against a plain pinned copy, in the same run.
bench_json="$out/bench.json"
if "$build_abs/bin/outrider-bench" local --device cuda -n 2 -b 1M -e "$max_bytes" -f 4 --json "$bench_json" >"$out/bench.log" 2>&1; then
  python3 - "$bench_json" >>"$results" <<'PY'
import json, sys
rows = [r for r in json.load(open(sys.argv[1]))["rows"] if r.get("metric") != "rtt"]
big = max(rows, key=lambda r: r["bytes"])
ratio = big.get("staging_copy_ratio", 0)
status = "PASS" if ratio >= 0.9 else "FAIL"
print(f"staging copy vs pinned copy ({big['bytes'] >> 20} MiB)\t{status}\tratio {ratio:.2f} (>= 0.90); "
      f"allreduce host {big['host_us']:.0f} us, staging {big.get('staging_us', 0):.0f} us, ipc {big.get('ipc_us', 0):.0f} us")
PY
else
  row "benchmark" FAIL "see $out/bench.log"
fi

# 4. The agent's NCCL against the ranks calling NCCL themselves, one rank per GPU, in the same run.
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
[[ "${gpus:-0}" -ge 1 ]] || gpus=${OUTRIDER_FAKE_CUDA_DEVICES:-1}
nccl_json="$out/bench-nccl.json"
if "$build_abs/bin/outrider-bench" local --device cuda --against-nccl -n "$gpus" -b 1M -e "$max_bytes" -f 4 \
    --json "$nccl_json" >"$out/bench-nccl.log" 2>&1; then
  python3 - "$nccl_json" "$gpus" >>"$results" <<'PY'
import json, sys
rows = json.load(open(sys.argv[1]))["rows"]
big = [r for r in rows if r["bytes"] >= 64 << 20]
if not big:
    print("agent NCCL vs direct NCCL\tSKIP\tno size of 64 MiB or more (--quick?)")
    sys.exit(0)
worst = max(big, key=lambda r: r["time_ratio"])
status = "PASS" if worst["time_ratio"] <= 1.2 else "FAIL"
bw = ", ".join(f"{r['bytes'] >> 20} MiB: {r['busbw_agent_gbs']:.1f} vs {r['busbw_direct_gbs']:.1f} GB/s" for r in big)
what = f"busbw agent vs direct: {bw}" if int(sys.argv[2]) > 1 else \
    "one GPU: no bus bandwidth; times " + ", ".join(f"{r['bytes'] >> 20} MiB: {r['agent_nccl_us']:.0f} vs {r['direct_nccl_us']:.0f} us" for r in big)
print(f"agent NCCL vs direct NCCL ({sys.argv[2]} GPU(s), >= 64 MiB)\t{status}\t"
      f"worst time ratio {worst['time_ratio']:.2f} (<= 1.20); {what}")
PY
else
  row "agent NCCL vs direct NCCL" FAIL "see $out/bench-nccl.log"
fi

# 5. Sparse rows coalesced on the GPU (liboutrider_gpu_sparse.so): bitwise the host algorithm, the
# agent coalescing two trainers' rows, and the time beside the host engine's sum.
if [[ -x "$build_abs/tests/gpu_sparse_accept_test" ]]; then
  "$build_abs/tests/gpu_sparse_accept_test" --gtest_output="json:$out/gtest-sparse.json" >"$out/gtest-sparse.log" 2>&1 || true
  python3 - "$out/gtest-sparse.json" "$out/gtest-sparse.log" >>"$results" <<'PY'
import json, re, sys
try:
    tests = [t for s in json.load(open(sys.argv[1]))["testsuites"] for t in s["testsuite"]]
except Exception as e:
    print(f"gpu_sparse_accept_test\tFAIL\tno results ({e}); see {sys.argv[2]}")
    sys.exit(0)
log = open(sys.argv[2]).read()
for t in tests:
    name, detail = "sparse: " + t["name"], ""
    m = re.search(r"gpu sparse coalesce: (.*)", log)
    if "Time" in t["name"] and m:
        detail = m.group(1)
    if t.get("result") == "SKIPPED":
        status = "SKIP"
        detail = ((t.get("skipped", {}) or {}).get("message", "") or "skipped").strip().splitlines()[-1]
    elif "failures" in t:
        status, detail = "FAIL", t["failures"][0]["failure"].strip().splitlines()[-1]
    else:
        status = "PASS"
    print(f"{name}\t{status}\t{detail}")
PY
else
  row "sparse rows coalesced on the GPU" SKIP "gpu_sparse_accept_test not built (no nvcc: OUTRIDER_WITH_GPU_KERNELS)"
fi

# The table.
python3 - "$results" <<'PY' | tee "$out/table.md"
import sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1]) if l.strip()]
w = max(len(r[0]) for r in rows)
print(f"| {'check'.ljust(w)} | result | detail |")
print(f"| {'-' * w} | ------ | ------ |")
for name, status, detail in rows:
    print(f"| {name.ljust(w)} | {status.ljust(6)} | {detail} |")
counts = {s: sum(1 for r in rows if r[1] == s) for s in ("PASS", "FAIL", "SKIP")}
print(f"\n{counts['PASS']} passed, {counts['FAIL']} failed, {counts['SKIP']} skipped")
PY
echo "logs and results: $out"
! grep -q $'\tFAIL\t' "$results"
