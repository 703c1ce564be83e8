#!/usr/bin/env bash
# GPU acceptance: the gpu-labelled tests (the handoff matrix: cudaMalloc, cudaMalloc at an offset,
# cuMem, an expandable segment; gpu_mode staging and ipc; 2 and 4 trainers on one GPU; bitwise
# against the host path; agent SIGKILL mid-op), the PyTorch checks (tools/gpu/torch_accept.py in
# both modes, with and without PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True) with the backend
# installed with pip (setup.py) against the machine's own PyTorch, the GPU benchmark, the agent's
# NCCL against the ranks calling NCCL themselves, sparse rows coalesced on the GPU, and PyTorch's
# own NCCL under the LD_PRELOAD interposer (passthrough and offload) and under the profiler plugin;
# then one table.
# Exit status 1 if anything failed, 0 otherwise (skips named in the table).
#
# On a machine without the build's Debian libraries (a lent GPU machine, a user's GPU node):
# `--pack DIR` here (tree, build outputs and the non-system libraries they need, in one folder),
# copy DIR there, and run `DIR/tools/gpu/accept.sh --packed` (docs/gpu.md, "Acceptance on a GPU and the benchmark").
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
here=$PWD

usage() {
  cat <<'USAGE'
usage: tools/gpu/accept.sh [--build-dir DIR] [--no-build] [--out DIR] [--quick] [--fake] [--torch-ranks "2 4"]
       tools/gpu/accept.sh --pack DIR [--build-dir DIR] [--no-build]
       DIR/tools/gpu/accept.sh --packed [--out DIR] [--quick] [--torch-ranks "2 4"]

  --build-dir DIR  build tree to use (default: build-gpu; configured with OUTRIDER_WITH_CUDA=ON)
  --no-build       use the build tree as it is
  --pack DIR       build, then write DIR: the source tree, the build outputs the acceptance runs and
                   the shared libraries they need that a bare machine lacks (at most 64 MiB); run it
                   on the GPU machine with DIR/tools/gpu/accept.sh --packed
  --packed         run from such a folder: nothing is built but the PyTorch backend (against the
                   machine's own PyTorch), and the folder's libraries serve Outrider's binaries only
  --out DIR        where the logs, JSON results and table go (default: a new directory in /tmp)
  --quick          the benchmarks' sizes up to 64 MiB only
  --fake           the fake CUDA driver and the host build of the sparse kernels (from the build's
                   tests/): checks the acceptance itself without a GPU; its timings mean nothing
  --torch-ranks N  rank counts for torch_accept.py, space-separated (default "2")

environment: PYTHON, the Python with a CUDA PyTorch (default: python3); OUTRIDER_CUDA_DRIVER,
another CUDA driver library.
USAGE
}

build_dir=build-gpu
build=1
py=${PYTHON:-python3}
out=""
max_bytes=256M
pack=""
packed=0
fake=0
torch_ranks="2"
while [[ $# -gt 0 ]]; do
  case "$1" in
    --build-dir) build_dir=$(cd "$here" && realpath -m "$2"); shift 2 ;;
    --no-build) build=0; shift ;;
    --out) out=$(cd "$here" && realpath -m "$2"); shift 2 ;;
    --quick) max_bytes=64M; shift ;;
    --pack) pack=$(cd "$here" && realpath -m "$2"); shift 2 ;;
    --packed) packed=1; build=0; build_dir="$root/build"; shift ;;
    --fake) fake=1; shift ;;
    --torch-ranks) torch_ranks="$2"; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "accept.sh: unknown argument '$1'" >&2; usage >&2; exit 2 ;;
  esac
done
cd "$root"  # paths given are the caller's; the defaults are the repository's

# What the acceptance runs, relative to the build tree.
pack_files=(bin/outrider-agent bin/outrider-bench tests/gpu_accept_test tests/gpu_sparse_accept_test
            lib/liboutrider.so lib/liboutrider.so.0 lib/liboutrider_nccl.so lib/libnccl-profiler-outrider.so
            lib/liboutrider_gpu_sparse.so tests/libfakecuda.so tests/libgpusparsehost.so tests/libfakenccl.so)

if [[ $build -eq 1 ]]; then
  [[ -f "$build_dir/CMakeCache.txt" ]] ||
    cmake -S . -B "$build_dir" -G Ninja -DOUTRIDER_WITH_CUDA=ON -DCMAKE_BUILD_TYPE=Release >/tmp/outrider-gpu-configure.log 2>&1 ||
    { echo "accept.sh: configure failed (see /tmp/outrider-gpu-configure.log)" >&2; exit 1; }
  targets=(gpu_accept_test outrider-agent outrider-bench outrider outrider_nccl outrider_nccl_profiler)
  for t in gpu_sparse_accept_test outrider_gpu_sparse fakecuda gpusparsehost fakenccl; do  # where the build has them
    grep -q "^build $t:\|^build $t " "$build_dir/build.ninja" 2>/dev/null && targets+=("$t")
  done
  cmake --build "$build_dir" -j"$(nproc)" --target "${targets[@]}" >/tmp/outrider-gpu-build.log 2>&1 ||
    { echo "accept.sh: build failed (see /tmp/outrider-gpu-build.log)" >&2; exit 1; }
fi
build_abs=$(cd "$build_dir" && pwd)

if [[ -n "$pack" ]]; then
  rm -rf "$pack"
  mkdir -p "$pack/build/bin" "$pack/build/lib" "$pack/build/tests" "$pack/libs"
  git ls-files -z --cached --others --exclude-standard | tar -C "$root" --null -T - -cf - | tar -C "$pack" -xf -
  for f in "${pack_files[@]}"; do
    [[ -e "$build_abs/$f" ]] && cp -L "$build_abs/$f" "$pack/build/$f"
  done
  # The agent runs with the folder's libraries; nothing else (Python above all) sees them.
  mv "$pack/build/bin/outrider-agent" "$pack/build/bin/outrider-agent.bin"
  cat >"$pack/build/bin/outrider-agent" <<'AGENT'
#!/bin/sh
# outrider-agent with the shared libraries packed beside it (tools/gpu/accept.sh --pack).
here=$(dirname "$(readlink -f "$0")")
LD_LIBRARY_PATH="$here/../../libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" exec "$here/outrider-agent.bin" "$@"
AGENT
  chmod +x "$pack/build/bin/outrider-agent"
  # Every library they load that is not the C/C++ runtime or the GPU stack (the target has its own).
  for f in "${pack_files[@]}"; do
    [[ -e "$build_abs/$f" ]] || continue
    ldd "$build_abs/$f" 2>/dev/null | awk '$3 ~ /^\// {print $1, $3}'
  done | sort -u | while read -r name path; do
    case "$name" in
      linux-vdso*|ld-linux*|libc.so*|libm.so*|libstdc++*|libgcc_s*|libpthread*|libdl.so*|librt.so*|libresolv*) ;;
      libcuda.so*|libnccl.so*|libcudart*|liboutrider*) ;;
      *) cp -L "$path" "$pack/libs/$name" ;;
    esac
  done
  {
    echo "outrider GPU acceptance pack"
    echo "commit: $(git rev-parse HEAD 2>/dev/null || echo unknown)$(git diff --quiet 2>/dev/null || echo ' (with local changes)')"
    echo "built on: $(. /etc/os-release && echo "$PRETTY_NAME"), glibc $(ldd --version | head -1 | awk '{print $NF}')"
    echo "run: DIR/tools/gpu/accept.sh --packed"
  } >"$pack/PACKED"
  bytes=$(du -sb "$pack" | cut -f1)
  echo "accept.sh: packed $((bytes >> 20)) MiB into $pack ($(ls "$pack/libs" | wc -l) libraries)"
  if [[ $bytes -gt $((64 << 20)) ]]; then
    echo "accept.sh: the pack is over 64 MiB" >&2
    exit 1
  fi
  exit 0
fi

[[ -n "$out" ]] || out=$(mktemp -d /tmp/outrider-gpu-accept.XXXXXX)
mkdir -p "$out"
out=$(cd "$out" && pwd)
results="$out/results.tsv"  # name, PASS/FAIL/SKIP, detail
: >"$results"
row() { printf '%s\t%s\t%s\n' "$1" "$2" "$3" >>"$results"; }
t_start=$(date +%s)

# Outrider's C++ binaries get the packed libraries; Python processes keep the machine's own.
libs=""
[[ $packed -eq 1 ]] && libs="$root/libs"
native() { LD_LIBRARY_PATH="${libs}${libs:+:}$build_abs/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$@"; }
if [[ $fake -eq 1 ]]; then
  export OUTRIDER_CUDA_DRIVER="$build_abs/tests/libfakecuda.so" OUTRIDER_NCCL_LIBRARY="$build_abs/tests/libfakenccl.so"
  [[ -e "$build_abs/tests/libgpusparsehost.so" ]] && export OUTRIDER_GPU_SPARSE_LIBRARY="$build_abs/tests/libgpusparsehost.so"
fi

# The PyTorch backend installed with pip against this machine's PyTorch (in the background: it
# takes a while).
torch_dir="$out/torch"
pyreason=$("$py" -c '
import torch
if not torch.cuda.is_available(): print("PyTorch %s sees no GPU" % torch.__version__)' 2>&1) || pyreason="$py: $(tail -1 <<<"$pyreason")"
if [[ -z "$pyreason" ]] && ! "$py" -m pip --version >/dev/null 2>&1; then
  pyreason="$py has no pip, which installs the backend (setup.py)"
fi
if [[ -z "$pyreason" ]]; then  # the package, as users install it, into a folder of this run
  (start=$(date +%s)
   "$py" -m pip install --no-build-isolation --no-index --no-deps --target "$torch_dir" "$root" &&
     echo "outrider_torch installed with pip (setup.py) in $(( $(date +%s) - start )) s: $torch_dir") \
    >"$out/torch-build.log" 2>&1 &
  torch_build=$!
fi

# 1. The gpu tests: the handoff matrix, agent death and an agent replaced mid-op.
native "$build_abs/tests/gpu_accept_test" --gtest_output="json:$out/gtest.json" >"$out/gtest.log" 2>&1 || true
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
        if suite["name"].endswith("GpuHandOverAcceptTest"):
            name = "agent SIGTERM mid-op, next agent takes it [staging]"
            detail = "the op given back ran at the next agent; both streams saw the sum"
        elif suite["name"].endswith("GpuAgentDeathTest"):
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

# 2. PyTorch: torch_accept.py in both modes, with and without expandable segments.
if [[ -z "$pyreason" ]] && ! wait "$torch_build"; then
  pyreason="the backend did not install against this PyTorch: $(tail -3 "$out/torch-build.log" | tr '\n' ' ')"
  row "torch: the backend installed against this PyTorch" FAIL "see $out/torch-build.log"
fi
if [[ -n "$pyreason" ]]; then
  row "torch (all checks)" SKIP "$pyreason"
else
  row "torch: the backend installed against this PyTorch" PASS "$(tail -1 "$out/torch-build.log")"
  for alloc in default expandable; do
    for mode in staging ipc; do
      for n in $torch_ranks; do
        conf=""
        [[ $alloc == expandable ]] && conf="expandable_segments:True"
        log="$out/torch-$alloc-$mode-$n.log"
        OUTRIDER_AGENT="$build_abs/bin/outrider-agent" PYTHONPATH="$torch_dir" OUTRIDER_GPU_MODE=$mode PYTORCH_CUDA_ALLOC_CONF=$conf \
          timeout 150 bash tools/cluster/run.sh --loopback --timeout 120 --nodes 1 --procs-per-node "$n" -- \
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
if native "$build_abs/bin/outrider-bench" local --device cuda -n 2 -b 1M -e "$max_bytes" -f 4 --json "$bench_json" >"$out/bench.log" 2>&1; then
  FAKE=$fake python3 - "$bench_json" >>"$results" <<'PY'
import json, os, sys
FAKE = os.environ.get("FAKE") == "1"  # the fake driver's timings are not judged
rows = [r for r in json.load(open(sys.argv[1]))["rows"] if r.get("metric") != "rtt"]
big = max(rows, key=lambda r: r["bytes"])
ratio = big.get("staging_copy_ratio", 0)
status = "PASS" if ratio >= 0.9 or FAKE else "FAIL"
note = "fake driver, not judged: " if FAKE else ""
print(f"staging copy vs pinned copy ({big['bytes'] >> 20} MiB)\t{status}\t{note}ratio {ratio:.2f} (>= 0.90); "
      f"allreduce host {big['host_us']:.0f} us, staging {big.get('staging_us', 0):.0f} us, ipc {big.get('ipc_us', 0):.0f} us")
for r in json.load(open(sys.argv[1]))["rows"]:
    if r.get("metric") == "rtt":
        fences = max(r.get("staging_us", 0), r.get("ipc_us", 0))
        status = "PASS" if fences <= 30 or FAKE else "FAIL"
        print(f"8-byte allreduce round trip on the stream\t{status}\t{note}staging {r.get('staging_us', 0):.1f} us, "
              f"ipc {r.get('ipc_us', 0):.1f} us (<= 30); host buffers {r['host_us']:.1f} us")
PY
else
  row "benchmark" FAIL "see $out/bench.log"
fi

# 4. The agent's NCCL against the ranks calling NCCL themselves, one rank per GPU, in the same run.
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
if [[ $fake -eq 1 ]]; then
  export OUTRIDER_FAKE_CUDA_DEVICES=${OUTRIDER_FAKE_CUDA_DEVICES:-2}
  gpus=$OUTRIDER_FAKE_CUDA_DEVICES
fi
[[ "${gpus:-0}" -ge 1 ]] || gpus=1
nccl_json="$out/bench-nccl.json"
if native "$build_abs/bin/outrider-bench" local --device cuda --against-nccl -n "$gpus" -b 1M -e "$max_bytes" -f 4 \
    --json "$nccl_json" >"$out/bench-nccl.log" 2>&1; then
  FAKE=$fake python3 - "$nccl_json" "$gpus" >>"$results" <<'PY'
import json, os, sys
FAKE = os.environ.get("FAKE") == "1"  # the fake driver's timings are not judged
rows = json.load(open(sys.argv[1]))["rows"]
big = [r for r in rows if r["bytes"] >= 64 << 20]
if not big:
    print("agent NCCL vs direct NCCL\tSKIP\tno size of 64 MiB or more (--quick?)")
    sys.exit(0)
worst = max(big, key=lambda r: r["time_ratio"])
status = "PASS" if worst["time_ratio"] <= 1.2 or FAKE else "FAIL"
bw = ", ".join(f"{r['bytes'] >> 20} MiB: {r['busbw_agent_gbs']:.1f} vs {r['busbw_direct_gbs']:.1f} GB/s" for r in big)
what = f"busbw agent vs direct: {bw}" if int(sys.argv[2]) > 1 else \
    "one GPU: no bus bandwidth; times " + ", ".join(f"{r['bytes'] >> 20} MiB: {r['agent_nccl_us']:.0f} vs {r['direct_nccl_us']:.0f} us" for r in big)
note = "fake driver, not judged: " if FAKE else ""
print(f"agent NCCL vs direct NCCL ({sys.argv[2]} GPU(s), >= 64 MiB)\t{status}\t{note}"
      f"worst time ratio {worst['time_ratio']:.2f} (<= 1.20); {what}")
PY
else
  row "agent NCCL vs direct NCCL" FAIL "see $out/bench-nccl.log"
fi

# 5. Sparse rows coalesced on the GPU (liboutrider_gpu_sparse.so): bitwise the host algorithm, the
# agent coalescing two trainers' rows, and the time beside the host engine's sum.
if [[ -x "$build_abs/tests/gpu_sparse_accept_test" ]]; then
  native "$build_abs/tests/gpu_sparse_accept_test" --gtest_output="json:$out/gtest-sparse.json" >"$out/gtest-sparse.log" 2>&1 || true
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

# 6. PyTorch's own NCCL (one rank per GPU) under Outrider: plain, then with the LD_PRELOAD
# interposer passing calls through, offloading them to the agent, and under the profiler plugin.
if [[ -n "$pyreason" ]]; then
  row "PyTorch's NCCL under Outrider (all checks)" SKIP "$pyreason"
else
  torch_gpus=$("$py" -c 'import torch; print(torch.cuda.device_count())')
  sock="$out/nccl-agent.sock"
  http=$(( 19000 + RANDOM % 1000 ))
  "$build_abs/bin/outrider-agent" --socket "$sock" --port 0 --http-port "$http" >"$out/nccl-agent.log" 2>&1 &
  nccl_agent=$!
  for _ in $(seq 100); do [[ -S "$sock" ]] && break; sleep 0.1; done
  metric() {  # sum of a metric's samples whose labels contain every argument after the first
    "$py" - "$http" "$@" 2>/dev/null <<'PY' || echo 0
import sys, urllib.request
port, name, *want = sys.argv[1:]
text = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5).read().decode()
total = 0.0
for line in text.splitlines():
    if line.startswith(name + "{") and all(w in line for w in want):
        total += float(line.rsplit(" ", 1)[1])
print(f"{total:g}")
PY
  }
  nccl_run() {  # name, then environment assignments: runs nccl_accept.py on every GPU
    local name=$1; shift
    env OUTRIDER_SOCKET="$sock" OUTRIDER_JOB_ID="nccl-$name" "$@" timeout 180 "$py" -m torch.distributed.run \
      --nproc-per-node "$torch_gpus" --master-port $(( 29400 + RANDOM % 100 )) tools/gpu/nccl_accept.py \
      >"$out/nccl-$name.log" 2>&1
  }
  field() { { grep -o "RESULT .*" "$out/nccl-$1.log" || true; } | tr ' ' '\n' | sed -n "s/^$2=//p"; }
  size_us() { field "$1" sizes | tr ',' '\n' | sed -n "s/^$2://p"; }
  big=$((64 << 20))
  if nccl_run plain && [[ "$(field plain ok)" == 1 ]]; then
    base=$(size_us plain $big)
    calls=$(field plain calls)
    # Passthrough: every call counted and timed, results and speed as NCCL's.
    if nccl_run pass LD_PRELOAD="$build_abs/lib/liboutrider_nccl.so" && [[ "$(field pass ok)" == 1 ]]; then
      sleep 1  # counts reach the agent every 500 ms and at exit
      counted=$(metric outrider_nccl_calls_total 'training_job="nccl-pass"' 'op="allreduce"' 'source="interposer"')
      timed=$(metric outrider_nccl_timed_calls_total 'training_job="nccl-pass"' 'op="allreduce"')
      st=FAIL; [[ ${counted%.*} -ge $calls && ${timed%.*} -ge 1 ]] && st=PASS
      row "NCCL LD_PRELOAD passthrough" $st "$counted allreduces counted (>= $calls made), $timed timed; 64 MiB $(size_us pass $big) us vs plain $base us"
    else
      row "NCCL LD_PRELOAD passthrough" FAIL "see $out/nccl-pass.log"
    fi
    # Offload: the agent runs every allreduce, results exact, no failed op.
    if nccl_run offload LD_PRELOAD="$build_abs/lib/liboutrider_nccl.so" OUTRIDER_NCCL_OFFLOAD=allreduce &&
        [[ "$(field offload ok)" == 1 ]]; then
      ran=$(metric outrider_ops_total 'training_job="nccl-offload-nccl-' 'op="allreduce"' 'result="OK"')
      st=PASS; why=""
      grep -q "offloading allreduce" "$out/nccl-offload.log" || { st=FAIL; why="no offload said; "; }
      grep -q "offload: an op failed\|offload: the agent refused" "$out/nccl-offload.log" && { st=FAIL; why="$(grep -m1 'offload: ' "$out/nccl-offload.log"); "; }
      [[ ${ran%.*} -ge $calls ]] || st=FAIL
      row "NCCL offload (OUTRIDER_NCCL_OFFLOAD=allreduce)" $st "${why}$ran allreduces run by the agent (>= $calls); 64 MiB $(size_us offload $big) us vs NCCL $base us"
    else
      row "NCCL offload (OUTRIDER_NCCL_OFFLOAD=allreduce)" FAIL "see $out/nccl-offload.log"
    fi
    # The profiler plugin: counts from inside NCCL (none for one-rank communicators: NCCL runs
    # their collectives as copies and starts no profiler event).
    if nccl_run profiler NCCL_PROFILER_PLUGIN="$build_abs/lib/libnccl-profiler-outrider.so" && [[ "$(field profiler ok)" == 1 ]]; then
      sleep 1
      counted=$(metric outrider_nccl_calls_total 'training_job="nccl-profiler"' 'op="allreduce"' 'source="profiler"')
      if [[ $torch_gpus -eq 1 ]]; then
        st=FAIL; grep -q "a communicator of one rank" "$out/nccl-profiler.log" && st=SKIP
        row "NCCL profiler plugin" $st "one GPU: NCCL gives profiler plugins no events for a one-rank communicator (the plugin said so: $([[ $st == SKIP ]] && echo yes || echo no)); $counted counted"
      else
        st=FAIL; [[ ${counted%.*} -ge $calls ]] && st=PASS
        row "NCCL profiler plugin" $st "$counted allreduces counted (>= $calls made)"
      fi
    else
      row "NCCL profiler plugin" FAIL "see $out/nccl-profiler.log"
    fi
  else
    row "PyTorch's NCCL" FAIL "plain NCCL failed; see $out/nccl-plain.log"
  fi
  kill "$nccl_agent" 2>/dev/null || true
  wait "$nccl_agent" 2>/dev/null || true
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
echo "logs and results: $out ($(( $(date +%s) - t_start )) s)"
! grep -q $'\tFAIL\t' "$results"
