#!/usr/bin/env bash
# Tests for the emulated-cluster launcher tools/cluster/run.sh (`tools/outrider run`):
# per-rank environment, agent arguments (with a fake agent), a failing rank's exit code and
# the cleanup after it, an agent port taken before its bind (loopback), Ctrl-C teardown, --timeout,
# bad input, and a --rate that cannot be applied. Needs root and network namespaces; otherwise it
# skips (exit 0). Last line: "N passed, M failed". Runs in ~10 s.
set -uo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
RUN="${OUTRIDER_RUN_SH:-$HERE/../../tools/cluster/run.sh}"
PASS=0 FAIL=0

skip() { echo "SKIP: $*"; echo "0 passed, 0 failed (skipped)"; exit 0; }
ok() { PASS=$((PASS + 1)); echo "ok   - $*"; }
not_ok() { FAIL=$((FAIL + 1)); echo "FAIL - $*"; }
check() { local what="$1"; shift; if "$@"; then ok "$what"; else not_ok "$what"; fi; }
dump() {   # FILE...: show what the launcher printed, for a failed check
  local f
  for f in "$@"; do [[ -f $f ]] && sed "s|^|    ${f##*/}: |" "$f"; done
}

(($(id -u) == 0)) || skip "not root; the launcher needs root for network namespaces"
command -v ip >/dev/null || skip "iproute2 'ip' not found"
probe="orprobe$$"
ip netns add "$probe" 2>/dev/null || skip "cannot create network namespaces here (ip netns add failed)"
ip netns del "$probe" 2>/dev/null
[[ -x $RUN ]] || { echo "launcher $RUN not found or not executable"; echo "0 passed, 1 failed"; exit 1; }

T="$(mktemp -d "${TMPDIR:-/tmp}/outrider-run-test.XXXXXX")"
trap 'rm -rf -- "$T"' EXIT

# Nothing of launcher PID $1 may be left: namespaces, links, run dir.
no_leftovers() {
  local pid="$1"
  ! ip netns list 2>/dev/null | grep -q "^or${pid}n" &&
    ! ip -o link show 2>/dev/null | grep -Eq ": (or${pid}h[0-9]+|orb${pid})[@:]" &&
    ! compgen -G "${TMPDIR:-/tmp}/outrider-run.${pid}.*" >/dev/null
}
field() { sed -n "s/^$2=//p" "$1" | head -n 1; }   # log, NAME -> value

# ---------------------------------------------------------------------------------------------
# 1. Environment per rank: 2 nodes x 2 procs, shaped, no agents.
cat >"$T/env_rank.sh" <<'EOF'
#!/bin/sh
for v in RANK WORLD_SIZE LOCAL_RANK LOCAL_WORLD_SIZE GROUP_RANK MASTER_ADDR MASTER_PORT \
         OUTRIDER_SOCKET OUTRIDER_ROOT_ADDR OUTRIDER_JOB_ID OUTRIDER_JOB_TOKEN OUTRIDER_NODES \
         OUTRIDER_NODE_RANK OUTRIDER_RATE_GBIT OUTRIDER_NETNS UCX_TLS UCX_NET_DEVICES; do
  eval "echo $v=\${$v-UNSET}"
done
echo "IP=$(ip -4 -o addr show dev eth0 2>/dev/null | awk '{print $4}')"
echo "CWD=$(pwd)"
echo "QDISC=$(tc qdisc show dev eth0 2>/dev/null | grep -o 'tbf.*rate [^ ]*' | head -n 1)"
EOF
chmod +x "$T/env_rank.sh"
cd "$T" || exit 1
"$RUN" --nodes 2 --procs-per-node 2 --rate 2gbit --no-agent --keep-logs "$T/env" -- "$T/env_rank.sh" \
  >"$T/env.out" 2>"$T/env.err"
rc=$?
check "2x2 run exits 0" test "$rc" -eq 0
check "summary line says all ranks exited 0" \
  grep -q "^outrider run: 2 nodes x 2 procs, all ranks exited 0$" "$T/env.err"
check "rank 0 output streamed to stdout" grep -q "^RANK=0$" "$T/env.out"
envok=1 why=""
lpid="$(field "$T/env/rank0.log" OUTRIDER_JOB_ID)"; lpid="${lpid#run-}"
token0="$(field "$T/env/rank0.log" OUTRIDER_JOB_TOKEN)"
master="$(field "$T/env/rank0.log" IP)"; master="${master%/24}"
[[ $master =~ ^10\.77\.[0-9]+\.1$ ]] || { envok=0; why+=" node0-ip=$master"; }
[[ $token0 =~ ^[0-9a-f]{32}$ ]] || { envok=0; why+=" token=$token0"; }
for r in 0 1 2 3; do
  log="$T/env/rank$r.log" node=$((r / 2)) lr=$((r % 2))
  [[ -f $log ]] || { envok=0; why+=" no-log-$r"; continue; }
  subnet="${master%.1}"
  declare -A want=(
    [RANK]=$r [WORLD_SIZE]=4 [LOCAL_RANK]=$lr [LOCAL_WORLD_SIZE]=2 [GROUP_RANK]=$node
    [MASTER_ADDR]=$master [MASTER_PORT]=29500 [OUTRIDER_ROOT_ADDR]="$master:29750"
    [OUTRIDER_JOB_ID]="run-$lpid" [OUTRIDER_JOB_TOKEN]=$token0 [OUTRIDER_NODES]=2
    [OUTRIDER_NODE_RANK]=$node [OUTRIDER_RATE_GBIT]=2 [OUTRIDER_NETNS]=1 [UCX_TLS]=tcp
    [UCX_NET_DEVICES]=eth0 [IP]="$subnet.$((node + 1))/24" [CWD]="$T"
  )
  for k in "${!want[@]}"; do
    got="$(field "$log" "$k")"
    [[ $got == "${want[$k]}" ]] || { envok=0; why+=" rank$r:$k='$got'!='${want[$k]}'"; }
  done
  unset want
  sock="$(field "$log" OUTRIDER_SOCKET)"
  [[ $sock == */node$node/agent.sock ]] || { envok=0; why+=" rank$r:socket=$sock"; }
  grep -q "^QDISC=tbf.*rate 2Gbit" "$log" || { envok=0; why+=" rank$r:qdisc"; }
done
if ((envok)); then ok "per-rank environment, addresses and shaping"; else not_ok "per-rank environment:$why"; fi
check "run 1 left no namespaces, links or run dir" no_leftovers "$lpid"

# ---------------------------------------------------------------------------------------------
# 2. Agent start with a fake agent (writes its arguments and environment, then signals ready).
agent_marker="95.$$"
cat >"$T/fake_agent.sh" <<EOF
#!/bin/sh
echo "ARGS=\$*"
echo "ENV=\$UCX_TLS \$UCX_NET_DEVICES \$UCX_TCP_CM_REUSEADDR"
printf R >&3
exec 3>&-
exec sleep $agent_marker
EOF
chmod +x "$T/fake_agent.sh"
OUTRIDER_AGENT="$T/fake_agent.sh" "$RUN" --nodes 2 --agent-arg --spin-us --agent-arg 0 \
  --keep-logs "$T/agent" -- sh -c 'echo JOB=$OUTRIDER_JOB_ID' >"$T/agent.out" 2>"$T/agent.err"
rc=$?
check "run with (fake) agents exits 0" test "$rc" -eq 0
lpid="$(sed -n 's/^JOB=run-//p' "$T/agent.out")"
a1="$(field "$T/agent/node1/agent.log" ARGS)"
want_re="^--socket /.*/node1/agent\.sock --port 29750 --listen-address 10\.77\.[0-9]+\.2 --log-level info --http-port 9750 --spin-us 0 --ready-fd 3$"
check "agent arguments (got: $a1)" bash -c '[[ $1 =~ $2 ]]' _ "$a1" "$want_re"
check "agent environment" test "$(field "$T/agent/node0/agent.log" ENV)" = "tcp eth0 y"
check "agents stopped after the run" bash -c '! pgrep -f "^sleep $1$" >/dev/null' _ "$agent_marker"
check "run 2 left no namespaces, links or run dir" no_leftovers "$lpid"

# An agent that exits before it is ready fails the run with its log tail.
printf '#!/bin/sh\necho "agent: bad flag" >&2\nexit 5\n' >"$T/bad_agent.sh"
chmod +x "$T/bad_agent.sh"
OUTRIDER_AGENT="$T/bad_agent.sh" "$RUN" --nodes 2 -- true >/dev/null 2>"$T/bad_agent.err"
rc=$?
check "agent that exits early: exit 1 with its log tail" \
  bash -c '(($1 == 1)) && grep -q "agent: bad flag" "$2" && grep -q "exited with code 5" "$2"' _ "$rc" "$T/bad_agent.err"

# On loopback, a port taken between its choice and the agent's bind (by a concurrent run): the
# agent is started again on another port, and the ranks get that one.
cat >"$T/taken_agent.sh" <<EOF
#!/bin/sh
if mkdir "$T/taken.once" 2>/dev/null; then
  echo "critical [agent] cannot start: INTERNAL: binding the agent port 127.0.0.1:\$4: Address already in use"
  exit 1
fi
echo "ARGS=\$*"
printf R >&3
exec 3>&-
exec sleep $agent_marker
EOF
chmod +x "$T/taken_agent.sh"
OUTRIDER_AGENT="$T/taken_agent.sh" "$RUN" --loopback --nodes 2 --keep-logs "$T/taken" -- \
  sh -c 'echo ROOT=$OUTRIDER_ROOT_ADDR' >"$T/taken.out" 2>"$T/taken.err"
rc=$?
p0="$(field "$T/taken/node0/agent.log" ARGS | awk '{ print $4 }')"
check "port taken before the agent's bind: exit 0 (got $rc)" test "$rc" -eq 0
check "port taken: said, and node 0 restarted on another port ($p0)" \
  grep -q "note: node 0's agent port [0-9]* was taken meanwhile; starting it on $p0$" "$T/taken.err"
check "port taken: the ranks get the new port" grep -q "^ROOT=127.0.0.1:$p0$" "$T/taken.out"

# ---------------------------------------------------------------------------------------------
# 3. A failing rank: its code propagates, the others are killed promptly, all is cleaned up.
marker="97.$$"
start=$SECONDS
"$RUN" --nodes 2 --procs-per-node 2 --no-agent --timeout 15 -- \
  sh -c 'echo JOB=$OUTRIDER_JOB_ID; if [ "$RANK" = 2 ]; then echo rank2-dies >&2; exit 3; fi; exec sleep '"$marker" \
  >"$T/fail.out" 2>"$T/fail.err"
rc=$?
elapsed=$((SECONDS - start))
lpid="$(sed -n 's/^JOB=run-//p' "$T/fail.out")"
check "failing rank: launcher exits with its code 3 (got $rc)" test "$rc" -eq 3
check "failing rank: finished promptly (${elapsed}s)" test "$elapsed" -le 8
check "failing rank: its log is printed with a header" \
  bash -c 'grep -q -- "^--- rank 2 (exit 3) ---$" "$1" && grep -q rank2-dies "$1"' _ "$T/fail.err"
check "failing rank: summary names it" grep -q "failed: rank 2 exit 3" "$T/fail.err"
check "failing rank: other ranks are gone" bash -c '! pgrep -f "^sleep $1$" >/dev/null' _ "$marker"
check "failing rank: no namespaces, links or run dir left" no_leftovers "$lpid"
((FAIL)) && dump "$T/fail.out" "$T/fail.err"

# ---------------------------------------------------------------------------------------------
# 4. SIGINT (Ctrl-C) while ranks sleep: everything is torn down, exit 130.
marker="96.$$"
# A background job of a script starts with SIGINT ignored, and bash cannot trap a signal that
# was ignored on entry; env --default-signal gives the launcher a terminal-like SIGINT.
env --default-signal=INT "$RUN" --nodes 2 --procs-per-node 2 --rate 1gbit --no-agent --timeout 15 -- \
  sh -c 'echo JOB=$OUTRIDER_JOB_ID; exec sleep '"$marker" >"$T/int.out" 2>"$T/int.err" &
lp=$!
for ((i = 0; i < 100; i++)); do   # up to 10 s for all 4 ranks to be running
  (($(pgrep -fc "^sleep $marker$") >= 4)) && break
  sleep 0.1
done
had_ns=0
ip netns list | grep -q "^or${lp}n" && had_ns=1
kill -INT "$lp"
rc=0
for ((i = 0; i < 100; i++)); do kill -0 "$lp" 2>/dev/null || break; sleep 0.1; done
if kill -0 "$lp" 2>/dev/null; then
  rc=999   # SIGINT did not work: stop it with SIGTERM so that it still cleans up
  kill -TERM "$lp"
  for ((i = 0; i < 100; i++)); do kill -0 "$lp" 2>/dev/null || break; sleep 0.1; done
  wait "$lp"
else
  wait "$lp"; rc=$?
fi
check "SIGINT: namespaces existed while running" test "$had_ns" -eq 1
check "SIGINT: launcher exits 130 (got $rc)" test "$rc" -eq 130
check "SIGINT: ranks are gone" bash -c '! pgrep -f "^sleep $1$" >/dev/null' _ "$marker"
check "SIGINT: no namespaces, links or run dir left" no_leftovers "$lp"
((FAIL)) && dump "$T/int.out" "$T/int.err"

# ---------------------------------------------------------------------------------------------
# 5. --timeout and bad input.
"$RUN" --nodes 1 --no-agent --timeout 1 -- sleep 30 >/dev/null 2>"$T/to.err"
rc=$?
check "--timeout 1: exit 124 (got $rc)" bash -c '(($1 == 124)) && grep -q "timed out after 1 s" "$2"' _ "$rc" "$T/to.err"
for args in "--nodes 2 true" "--nodes 0 -- true" "--nodes 2 --procs-per-node x -- true" \
            "--nodes 2 --bogus -- true" "--nodes 2 --rate 2 -- true" "--nodes 2 --" \
            "--nodes 2 --burst 1mb -- true" "--nodes 2 --rate 2gbit --burst 1x -- true" \
            "--nodes 2 --rate 2gbit --burst 0kb -- true" "--nodes 2 --queue 4mb -- true" \
            "--nodes 2 --rate 2gbit --queue 4 -- true" "--nodes 2 --mtu 100 -- true" \
            "--nodes 2 --mtu 9k -- true"; do
  # shellcheck disable=SC2086
  "$RUN" $args >/dev/null 2>"$T/bad.err"
  rc=$?
  check "bad input '$args' -> exit 2 (got $rc)" bash -c '(($1 == 2)) && grep -q error "$2"' _ "$rc" "$T/bad.err"
done

# ---------------------------------------------------------------------------------------------
# 6. A link that cannot be shaped as --rate asks fails the launch instead of running unshaped
# (a `tc` that refuses every qdisc stands in for a kernel without tbf).
mkdir -p "$T/badtc"
printf '#!/bin/sh\necho "RTNETLINK answers: Operation not supported" >&2\nexit 2\n' >"$T/badtc/tc"
chmod +x "$T/badtc/tc"
PATH="$T/badtc:$PATH" "$RUN" --nodes 2 --rate 2gbit --no-agent -- true >"$T/shape.out" 2>"$T/shape.err" &
lp=$!
wait "$lp"
rc=$?
check "unshapable --rate: exit 1 (got $rc)" test "$rc" -eq 1
check "unshapable --rate: the error names the rate and tc's answer" \
  grep -q "error: cannot shape the node links to 2gbit: .*tc qdisc add.*Operation not supported" "$T/shape.err"
check "unshapable --rate: no note of a loopback run" bash -c '! grep -q loopback "$1"' _ "$T/shape.err"
check "unshapable --rate: no namespaces, links or run dir left" no_leftovers "$lp"
((FAIL)) && dump "$T/shape.out" "$T/shape.err"

# ---------------------------------------------------------------------------------------------
# 7. --burst sizes the shaper's bucket (every node's egress here; the host side is set alike), and the
# banner says so.
"$RUN" --nodes 2 --rate 2gbit --burst 256KB --no-agent --keep-logs "$T/burst" -- \
  sh -c 'tc qdisc show dev eth0' >"$T/burst.out" 2>"$T/burst.err" &
lp=$!
wait "$lp"
rc=$?
check "--burst 256KB: exit 0 (got $rc)" test "$rc" -eq 0
# tc prints the bucket in bytes, rounded to its clock: 256 KiB shows as 262000b, 512 KiB as 524250b.
check "--burst 256KB: every node's egress tbf has a 256 KiB bucket" \
  bash -c '(($(cat "$1"/rank*.log | grep -cE "tbf .*rate 2Gbit burst 26[0-9]{4}b") == 2))' _ "$T/burst"
check "--burst 256KB: the banner names the rate and the burst" grep -q "2gbit burst 256kb" "$T/burst.err"
check "--burst: no namespaces, links or run dir left" no_leftovers "$lp"
((FAIL)) && dump "$T/burst.out" "$T/burst.err"

# ---------------------------------------------------------------------------------------------
# 8. --queue sizes the shaper's queue in bytes instead of 5 ms at the rate, --mtu every node link's
# MTU (the host side too: the bridge takes the smallest of its ports'), and the banner says both.
"$RUN" --nodes 2 --rate 500mbit --queue 4mb --mtu 9000 --no-agent --keep-logs "$T/queue" -- \
  sh -c 'tc qdisc show dev eth0; ip -o link show dev eth0' >"$T/queue.out" 2>"$T/queue.err" &
lp=$!
wait "$lp"
rc=$?
check "--queue 4mb --mtu 9000: exit 0 (got $rc)" test "$rc" -eq 0
# tc shows the queue as the time it holds beyond the bucket: (4 MiB - 512 KiB) at 500 Mbit/s is
# about 58 ms (5 ms without --queue).
check "--queue 4mb: every node's egress tbf queues 4 MiB" \
  bash -c '(($(cat "$1"/rank*.log | grep -cE "tbf .*rate 500Mbit burst 524[0-9]{3}b lat 5[0-9][.][0-9]ms") == 2))' _ "$T/queue"
check "--mtu 9000: every node's link has MTU 9000" \
  bash -c '(($(cat "$1"/rank*.log | grep -cE "eth0@.* mtu 9000 ") == 2))' _ "$T/queue"
check "--queue, --mtu: the banner names them" grep -q "500mbit burst 512kb queue 4mb, mtu 9000" "$T/queue.err"
check "--queue: no namespaces, links or run dir left" no_leftovers "$lp"
((FAIL)) && dump "$T/queue.out" "$T/queue.err"

echo "$PASS passed, $FAIL failed"
((FAIL == 0))
