#!/usr/bin/env bash
# Multi-node collectives through real agents in network namespaces (emulated nodes, shaped
# links): every collective of outrider-bench, its result checks on every rank. Skips (exit 0)
# without root or network namespaces. Prints "N passed, M failed" last.
set -u
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BUILD="${OUTRIDER_BUILD_DIR:-$ROOT/build}"
if [[ $(id -u) -ne 0 ]] || ! ip netns add "orprobe$$" 2>/dev/null; then
  echo "SKIP: needs root and network namespaces (the loopback multi-node tests still ran)"
  echo "0 passed, 0 failed"
  exit 0
fi
ip netns del "orprobe$$"
passed=0 failed=0
for op in allreduce broadcast allgather reducescatter alltoall; do
  # The launcher's own timeout reports the ranks still running and the agents' last words;
  # the outer one only guards against the launcher itself hanging.
  out=$(timeout 300 "$ROOT/tools/cluster/run.sh" --nodes 3 --procs-per-node 2 --rate 2gbit --timeout 240 -- \
        "$BUILD/bin/outrider-bench" "$op" --min-bytes 8 --max-bytes 2M --factor 16 2>&1)
  rc=$?
  if [[ $rc -eq 0 ]] && ! grep -q WRONG <<<"$out"; then
    passed=$((passed + 1))
    echo "ok: $op across 3 namespaces x 2 ranks"
  else
    failed=$((failed + 1))
    echo "FAILED: $op (exit $rc)"
    tail -150 <<<"$out"
  fi
done
echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]
