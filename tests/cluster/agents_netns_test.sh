#!/usr/bin/env bash
# Multi-node collectives through real agents in network namespaces (emulated nodes, shaped
# links): every collective of outrider-bench, its result checks on every rank, and for allreduce
# the per-op traces of node 0's agent after every size (--trace, read from its /status); then a
# small training-step replay (`schedule --trace`). Skips (exit 0) without root or network
# namespaces. Prints "N passed, M failed" last.
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
# Counts one case: passed when $1 is 0; else prints "FAILED: $3" and the last $4 lines of $out.
record() {
  if (($1 == 0)); then
    passed=$((passed + 1))
    echo "ok: $2"
  else
    failed=$((failed + 1))
    echo "FAILED: $3"
    tail -"$4" <<<"$out"
  fi
}
for op in allreduce broadcast allgather reducescatter alltoall; do
  # The launcher's own timeout reports the ranks still running and the agents' last words;
  # the outer one only guards against the launcher itself hanging.
  trace=()
  [[ $op == allreduce ]] && trace=(--trace)
  out=$(timeout 300 "$ROOT/tools/cluster/run.sh" --nodes 3 --procs-per-node 2 --rate 2gbit --timeout 240 -- \
        "$BUILD/bin/outrider-bench" "$op" --min-bytes 8 --max-bytes 2M --factor 16 "${trace[@]}" 2>&1)
  rc=$?
  sizes=$(grep -cE '^ +[0-9]+ +[0-9]+ +f32' <<<"$out")
  traced=$(grep -c 'trace (this node.s agent) .* ms: agreed' <<<"$out")
  if [[ ${#trace[@]} -gt 0 && ( $traced -ne $sizes || $sizes -eq 0 ) ]]; then
    echo "FAILED: $op --trace gave $traced trace lines for $sizes sizes"
    rc=1
  fi
  ok=1
  [[ $rc -eq 0 ]] && ! grep -q WRONG <<<"$out" && ok=0
  record "$ok" "$op across 3 namespaces x 2 ranks" "$op (exit $rc)" 150
done
# The training-step replay, small, with --trace: its table, and rank 0's agent trace of the op
# alone and of each step's embedding op, every round.
rounds=2
out=$(timeout 300 "$ROOT/tools/cluster/run.sh" --nodes 3 --rate 2gbit --timeout 240 -- \
      "$BUILD/bin/outrider-bench" schedule --rounds "$rounds" --buckets-mib 2 2 2 --backward-ms 5 \
      --forward-ms 2 --trace 2>&1)
rc=$?
rows=$(grep -cE '^ +(fifo|priority|demand) +[0-9.]+ +[0-9.]+ ' <<<"$out")
traced=$(grep -cE '^# rank 0 round [0-9]+ (alone|fifo|priority|demand), embedding .* ms: agreed' <<<"$out")
ok=1
[[ $rc -eq 0 && $rows -eq 3 && $traced -eq $((4 * rounds)) ]] &&
  grep -q '^  iteration speed-up over fifo: priority [0-9.]*x, demand [0-9.]*x$' <<<"$out" && ok=0
record "$ok" "schedule --trace across 3 namespaces" \
  "schedule --trace (exit $rc, $rows table rows, $traced traced ops)" 60
echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]
