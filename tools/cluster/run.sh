#!/usr/bin/env bash
# tools/cluster/run.sh — the emulated-cluster launcher behind `tools/outrider run`.
#
# Creates N emulated nodes (network namespaces on one bridge, optionally rate-shaped with tc tbf;
# docs/design.md#emulated-cluster), starts one outrider-agent per node, runs a command
# once per rank with torchrun's environment, collects exit codes and logs, and always tears
# everything down again (also on Ctrl-C, SIGTERM, a failing rank or a timeout).
# Run `tools/cluster/run.sh --help` for the full description.
# shellcheck disable=SC2317  # functions run from traps look unreachable to shellcheck
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
PROG="outrider run"
PID=$$

usage() {
  cat <<'USAGE'
usage: tools/outrider run --nodes N [--procs-per-node P] [--rate RATE] [--burst BURST]
                          [--queue QUEUE] [--mtu MTU] [--no-agent]
                          [--agent-arg ARG]... [--keep-logs DIR] [--timeout SECONDS]
                          [--loopback] -- CMD [ARGS...]

Runs CMD once per rank on an emulated cluster of N nodes with P processes each
(N*P ranks; rank = node*P + local_rank), then tears the cluster down again.

Nodes (needs root):
  Each node is a network namespace or<pid>n<i> whose eth0 (a veth pair; host side
  or<pid>h<i>) hangs off one bridge orb<pid>; node i has the address 10.77.<x>.<i+1>/24,
  where <pid> is this launcher's PID and <x> = <pid> mod 256, so concurrent runs do not
  collide. `lo` is up in every namespace. With --rate, each node link is shaped in both
  directions with `tc qdisc ... tbf rate RATE burst BURST latency 5ms` (or `limit QUEUE`
  with --queue; egress on the
  namespace's eth0, ingress on the host-side veth). Without --rate: no shaping.
  A link idle for a while lets its first BURST bytes through at once, faster than RATE: a
  real link of that rate does not, so an op on idle links looks that much faster than it
  would be (docs/benchmarks.md, "Where the op's packets wait"). A small BURST loses rate
  where the shaper is served late: at 2gbit on a busy 2-core host, 64kb carried about half.
  If namespaces cannot be used (not root, `ip netns add` or another setup step fails, or
  --loopback), all nodes share 127.0.0.1 with distinct ports and the rate limit is off;
  a note says so on stderr. If namespaces work but a link cannot be shaped as --rate asks
  (`tc` missing, or a `tc qdisc` step fails), the launcher fails (exit 1, naming the step)
  instead of running unshaped: a measurement that asked for a rate is not made without one.

Agents (unless --no-agent):
  One outrider-agent per node (binary: $OUTRIDER_AGENT, else <repo>/build/bin/outrider-agent),
  run inside the node's namespace as
    outrider-agent --socket RUNDIR/node<i>/agent.sock --port AGENT_PORT
                   --listen-address NODE_IP --log-level info [--agent-arg values...]
                   --ready-fd 3
  with UCX_TLS=tcp UCX_NET_DEVICES=eth0 (lo on loopback) UCX_TCP_CM_REUSEADDR=y.
  AGENT_PORT is 29750 in namespaces and a free port in 29750-30749 on loopback. The launcher
  waits (up to 10 s each) for the agent's ready byte on fd 3 and fails with the agent's log tail
  if it does not arrive or the agent exits. Agent logs: RUNDIR/node<i>/agent.log.

Ranks:
  CMD runs as the invoking user, cwd unchanged, stdin from /dev/null, inside its node's
  namespace, with:
    RANK WORLD_SIZE LOCAL_RANK LOCAL_WORLD_SIZE GROUP_RANK(=node) GROUP_WORLD_SIZE(=N)
    MASTER_ADDR (node 0's IP) MASTER_PORT (29500; a free port in 29500-29749 on loopback)
    OUTRIDER_SOCKET (this node's agent socket; set even with --no-agent)
    OUTRIDER_ROOT_ADDR (node 0's IP:AGENT_PORT) OUTRIDER_JOB_ID (run-<pid>)
    OUTRIDER_JOB_TOKEN (32 random hex chars) OUTRIDER_NODES OUTRIDER_NODE_RANK
    OUTRIDER_RATE_GBIT (Gbit/s as a number, e.g. 2 or 0.5; unset when unshaped)
    OUTRIDER_NETNS (1 in namespaces, 0 on loopback) UCX_TLS UCX_NET_DEVICES
  Each rank's stdout+stderr goes to RUNDIR/rank<r>.log; rank 0's is also streamed to this
  launcher's stdout. The launcher's own messages go to stderr. If a rank fails, the other
  ranks are killed (SIGTERM, SIGKILL after 5 s) and the failed ranks' logs are printed
  (last 200 lines each) after a `--- rank r (exit c) ---` header. The last line is a
  summary. Exit status: 0 if every rank exited 0, else the first failing rank's code
  (1 if unknown); 124 on --timeout, 130/143 on SIGINT/SIGTERM, 2 on bad input.

Teardown (on exit, Ctrl-C, SIGTERM, failure, timeout; idempotent): ranks and agents get
SIGTERM, then SIGKILL after 5 s (and so does anything left in the namespaces); then the
namespaces, veths, the bridge and RUNDIR are deleted.

options:
  --nodes N            number of emulated nodes (1..254; required)
  --procs-per-node P   processes (ranks) per node (default 1)
  --rate RATE          shape every node link to RATE in both directions: a number followed
                       by bit, kbit, mbit, gbit or tbit (e.g. 2gbit, 500mbit, 1.5gbit)
  --burst BURST        the shaper's token bucket: bytes an idle link sends at once (a
                       whole number followed by b, kb or mb; default 512kb; needs --rate)
  --queue QUEUE        bytes the shaper queues before it drops (b, kb or mb, as BURST;
                       default: 5 ms at RATE, 312 KB at 500mbit): a switch port's share of
                       its buffer. Where many nodes send to one at once (a sparse exchange's
                       all-to-all), 5 ms at a low RATE drops packets no fabric of that size
                       would; docs/benchmarks.md. Needs --rate
  --mtu MTU            every node link's MTU (576-65000; default 1500). Training clusters run
                       jumbo frames (9000): at 1500, TCP/IP headers take 4.6 % of the rate
  --no-agent           do not start agents
  --agent-arg ARG      extra argument for every agent (repeatable; ARG may start with -)
  --keep-logs DIR      copy rank and agent logs to DIR before RUNDIR is removed
  --timeout SECONDS    kill everything and fail if the ranks run longer (default 600;
                       0 = no limit), after printing the last lines of the logs of the
                       ranks still running and of every agent
  --loopback           do not create namespaces; run all nodes on 127.0.0.1
  --http-base-port P   node i's agent serves /metrics, /status... on port P+i (default: 9750
                       inside namespaces, none on loopback)
  -h, --help           this text

environment:
  OUTRIDER_AGENT       agent binary (default <repo>/build/bin/outrider-agent)
  TMPDIR               where RUNDIR (outrider-run.<pid>.XXXXXX) is created (default /tmp)

example:
  tools/outrider run --nodes 2 --procs-per-node 2 --rate 2gbit -- \
      sh -c 'echo rank $RANK on $MASTER_ADDR; ip -br addr'
USAGE
}

say() { printf '%s: %s\n' "$PROG" "$*" >&2; }
bad_input() { say "error: $*"; say "see '$PROG --help'"; exit 2; }
is_uint() { [[ $1 =~ ^[0-9]{1,9}$ ]]; }

# ---------------------------------------------------------------------------------------------
# Arguments
NODES="" PROCS=1 RATE="" RATE_GBIT="" BURST="" QUEUE="" MTU="" NO_AGENT=0 KEEP_LOGS="" TIMEOUT=600
FORCE_LOOPBACK=0
AGENT_ARGS=() CMD=() SAW_DASHDASH=0 HTTP_BASE=""

need_value() { (($2 >= 2)) || bad_input "option $1 needs a value"; }

while (($#)); do
  opt="$1"
  val=""
  has_inline=0
  if [[ $opt == --*=* ]]; then val="${opt#*=}"; opt="${opt%%=*}"; has_inline=1; fi
  case "$opt" in
    --) shift; SAW_DASHDASH=1; CMD=("$@"); break ;;
    -h|--help) usage; exit 0 ;;
    --no-agent|--loopback)
      ((has_inline)) && bad_input "option $opt takes no value"
      if [[ $opt == --no-agent ]]; then NO_AGENT=1; else FORCE_LOOPBACK=1; fi
      shift ;;
    --nodes|--procs-per-node|--rate|--burst|--queue|--mtu|--agent-arg|--keep-logs|--timeout|--http-base-port)
      if ((has_inline)); then shift; else need_value "$opt" $#; val="$2"; shift 2; fi
      case "$opt" in
        --nodes) NODES="$val" ;;
        --procs-per-node) PROCS="$val" ;;
        --rate) RATE="$val" ;;
        --burst) BURST="$val" ;;
        --queue) QUEUE="$val" ;;
        --mtu) MTU="$val" ;;
        --agent-arg) AGENT_ARGS+=("$val") ;;
        --keep-logs) KEEP_LOGS="$val" ;;
        --timeout) TIMEOUT="$val" ;;
        --http-base-port) HTTP_BASE="$val" ;;
      esac ;;
    -*) bad_input "unknown option '$1'" ;;
    *) bad_input "unexpected argument '$1' (put '--' before the command to run)" ;;
  esac
done

((SAW_DASHDASH)) || bad_input "missing '--' before the command to run"
((${#CMD[@]})) || bad_input "no command after '--'"
[[ -n $NODES ]] || bad_input "--nodes N is required"
{ is_uint "$NODES" && ((10#$NODES >= 1)); } || bad_input "--nodes must be a positive integer, got '$NODES'"
{ is_uint "$PROCS" && ((10#$PROCS >= 1)); } ||
  bad_input "--procs-per-node must be a positive integer, got '$PROCS'"
NODES=$((10#$NODES)) PROCS=$((10#$PROCS))
((NODES <= 254)) || bad_input "--nodes must be at most 254 (one /24 subnet), got $NODES"
is_uint "$TIMEOUT" || bad_input "--timeout must be a whole number of seconds (0 = none), got '$TIMEOUT'"
TIMEOUT=$((10#$TIMEOUT))
if [[ -n $RATE ]]; then
  rate_lc="${RATE,,}"
  [[ $rate_lc =~ ^([0-9]+(\.[0-9]+)?)(bit|kbit|mbit|gbit|tbit)$ ]] ||
    bad_input "bad --rate '$RATE': use a number and a unit: bit, kbit, mbit, gbit, tbit (e.g. 2gbit, 500mbit)"
  num="${BASH_REMATCH[1]}" unit="${BASH_REMATCH[3]}"
  case "$unit" in bit) f=1e-9 ;; kbit) f=1e-6 ;; mbit) f=1e-3 ;; gbit) f=1 ;; tbit) f=1e3 ;; esac
  RATE_GBIT="$(awk -v n="$num" -v f="$f" 'BEGIN { printf "%.10g", n * f }')"
  awk -v r="$RATE_GBIT" 'BEGIN { exit !(r > 0) }' || bad_input "--rate must be greater than 0, got '$RATE'"
  RATE="$rate_lc"
fi
if [[ -n $BURST ]]; then
  [[ -n $RATE ]] || bad_input "--burst needs --rate (it sizes the rate shaper's bucket)"
  [[ ${BURST,,} =~ ^0*[1-9][0-9]{0,8}(b|kb|mb)$ ]] ||
    bad_input "bad --burst '$BURST': use a whole number and a unit: b, kb or mb (e.g. 512kb, 1mb)"
  BURST="${BURST,,}"
else
  BURST=512kb
fi
SHAPER_QUEUE=(latency 5ms)
if [[ -n $QUEUE ]]; then
  [[ -n $RATE ]] || bad_input "--queue needs --rate (it sizes the rate shaper's queue)"
  [[ ${QUEUE,,} =~ ^0*[1-9][0-9]{0,8}(b|kb|mb)$ ]] ||
    bad_input "bad --queue '$QUEUE': use a whole number and a unit: b, kb or mb (e.g. 4mb)"
  QUEUE="${QUEUE,,}"
  SHAPER_QUEUE=(limit "$QUEUE")
fi
if [[ -n $MTU ]]; then
  { is_uint "$MTU" && ((MTU >= 576 && MTU <= 65000)); } || bad_input "--mtu must be a whole number from 576 to 65000, got '$MTU'"
fi
# Resolve the command now so a typo fails fast instead of as N*P identical rank failures.
if [[ ${CMD[0]} == */* ]]; then
  [[ -f ${CMD[0]} && -x ${CMD[0]} ]] || { say "error: command '${CMD[0]}' is not an executable file"; exit 127; }
elif ! type -P -- "${CMD[0]}" >/dev/null; then
  say "error: command '${CMD[0]}' not found in PATH"; exit 127
fi

AGENT="${OUTRIDER_AGENT:-$ROOT/build/bin/outrider-agent}"
if ((!NO_AGENT)) && [[ ! -x $AGENT ]]; then
  say "error: agent binary '$AGENT' not found or not executable (build it with 'tools/outrider build', set OUTRIDER_AGENT, or pass --no-agent)"
  exit 1
fi

WORLD=$((NODES * PROCS))
JOB_ID="run-$PID"
JOB_TOKEN="$(od -An -tx1 -N16 /dev/urandom | tr -d ' \n')"
SUBNET=$((PID % 256))
BRIDGE="orb$PID"
ns_name() { printf 'or%sn%s' "$PID" "$1"; }
veth_name() { printf 'or%sh%s' "$PID" "$1"; }   # host side; <= 13 chars (pid <= 7 digits)

# ---------------------------------------------------------------------------------------------
# State for teardown (names are recorded before the things are created).
TORN_DOWN=0
RUNDIR=""
CREATED_NS=() CREATED_VETH=() CREATED_BRIDGE=0
AGENT_PIDS=() RANK_PIDS=() TEE_PID="" TIMER_PID="" HEARTBEAT_PID=""
RUNNING=() LIVE_AGENTS=()   # ranks / agents started and not yet seen to exit
USE_NETNS=0

now_ms() { local t="${EPOCHREALTIME/./}"; echo $((10#$t / 1000)); }
# Signal a process group (every rank/agent is started with setsid, so pid == pgid), falling
# back to the single process.
signal_proc() { kill "-$1" -- "-$2" 2>/dev/null || kill "-$1" "$2" 2>/dev/null || true; }
# live_pgids: the process groups that still have a member that is not a zombie (orphaned
# zombies wait for PID 1 to reap them, which can take a second or more).
live_pgids() { ps -e -o pgid=,stat= 2>/dev/null | awk '$2 !~ /^Z/ { print $1 }' | sort -u; }
pid_running() { [[ $(ps -o stat= -p "$1" 2>/dev/null) == [!Z]* ]]; }   # exists, not a zombie
any_alive() {   # PID...: true if any of these groups/processes still runs (one ps call)
  local live p
  live=" $(live_pgids | tr '\n' ' ') "
  for p in "$@"; do
    [[ $live == *" $p "* ]] && return 0
    # Not a group leader (setsid had to fork): fall back to the process itself.
    pid_running "$p" && ! kill -0 -- "-$p" 2>/dev/null && return 0
  done
  return 1
}
# Processes of this run that may have left their rank's process group: everything still inside
# our namespaces, and (also on loopback) every process whose environment carries this run's
# OUTRIDER_JOB_TOKEN, i.e. ranks and whatever they started. Only live processes are matched
# (a zombie's environ is empty), so a reused PID is never mistaken for ours.
stray_pids() {
  local ns
  if ((USE_NETNS)); then
    for ns in "${CREATED_NS[@]}"; do ip netns pids "$ns" 2>/dev/null; done
  fi
  grep -lzx -- "OUTRIDER_JOB_TOKEN=$JOB_TOKEN" /proc/[0-9]*/environ 2>/dev/null |
    sed -e 's|^/proc/||' -e 's|/environ$||'
}
# terminate GRACE_S PID...: SIGTERM to these process groups (each rank/agent was started with
# setsid, so pid == pgid; none of them has been reaped long ago, so the PID is still ours) and
# to stray_pids; wait up to GRACE_S for all to go, then SIGKILL; then wait at most 1 s more.
terminate() {
  local grace_ms=$(($1 * 1000)) p deadline
  shift
  for p in "$@"; do signal_proc TERM "$p"; done
  for p in $(stray_pids); do kill -TERM "$p" 2>/dev/null; done
  deadline=$(($(now_ms) + grace_ms))
  while :; do
    any_alive "$@" || [[ -n $(stray_pids) ]] || return 0
    (($(now_ms) >= deadline)) && break
    sleep 0.05
  done
  for p in "$@"; do signal_proc KILL "$p"; done
  for p in $(stray_pids); do kill -KILL "$p" 2>/dev/null; done
  deadline=$(($(now_ms) + 1000))
  while (($(now_ms) < deadline)); do
    any_alive "$@" || [[ -n $(stray_pids) ]] || return 0
    sleep 0.05
  done
  return 0
}

teardown_network() {
  local ns v
  for ns in "${CREATED_NS[@]}"; do ip netns del "$ns" 2>/dev/null; done
  for v in "${CREATED_VETH[@]}"; do ip link del "$v" 2>/dev/null; done
  ((CREATED_BRIDGE)) && ip link del "$BRIDGE" 2>/dev/null
  CREATED_NS=() CREATED_VETH=() CREATED_BRIDGE=0
  return 0
}

keep_logs() {
  [[ -n $KEEP_LOGS && -n $RUNDIR && -d $RUNDIR ]] || return 0
  if ! mkdir -p -- "$KEEP_LOGS"; then say "warning: cannot create --keep-logs directory '$KEEP_LOGS'"; return 0; fi
  local f rel
  while IFS= read -r -d '' f; do
    rel="${f#"$RUNDIR"/}"
    if ! { mkdir -p -- "$KEEP_LOGS/$(dirname -- "$rel")" && cp -f -- "$f" "$KEEP_LOGS/$rel"; }; then
      say "warning: could not copy $rel to $KEEP_LOGS"
    fi
  done < <(find "$RUNDIR" -type f -name '*.log' -print0)
}

teardown() {
  # The launcher's alone: a subshell forked for a rank or an agent may run a trap it inherited when
  # a signal reaches it before it has reset its traps (or exec'd).
  [[ $BASHPID == "$PID" ]] || return 0
  ((TORN_DOWN)) && return 0
  TORN_DOWN=1
  trap '' INT TERM   # finish cleaning up even if Ctrl-C is pressed again
  # Only ranks and agents not yet seen to exit (finished ranks' PIDs may have been reused;
  # their leftovers are found by stray_pids).
  local all=("${RUNNING[@]}" "${LIVE_AGENTS[@]}") p k
  [[ -n $TIMER_PID ]] && all+=("$TIMER_PID")
  [[ -n $HEARTBEAT_PID ]] && all+=("$HEARTBEAT_PID")
  # stderr off: bash would print a "Killed" line for every job it reaps here.
  {
    terminate 5 "${all[@]}"
    if [[ -n $TEE_PID ]]; then   # rank 0's output: let tee drain, then stop it
      for ((k = 0; k < 20; k++)); do pid_running "$TEE_PID" || break; sleep 0.05; done
      terminate 1 "$TEE_PID"
      all+=("$TEE_PID")
    fi
    for p in "${all[@]}"; do pid_running "$p" || wait "$p"; done
  } 2>/dev/null
  teardown_network
  keep_logs
  [[ -n $RUNDIR ]] && rm -rf -- "$RUNDIR"
  RUNDIR=""
  return 0
}

on_signal() {
  local sig="$1" code="$2"
  [[ $BASHPID == "$PID" ]] || exit "$code"   # a rank's or agent's subshell, not yet exec'd
  trap '' INT TERM
  say "interrupted by SIG$sig; tearing down"
  teardown
  exit "$code"
}

trap teardown EXIT
trap 'on_signal INT 130' INT
trap 'on_signal TERM 143' TERM

# ---------------------------------------------------------------------------------------------
# Run directory
RUNDIR="$(mktemp -d "${TMPDIR:-/tmp}/outrider-run.$PID.XXXXXX")" || { say "error: cannot create a run directory"; exit 1; }
for ((i = 0; i < NODES; i++)); do mkdir -p "$RUNDIR/node$i"; done
sock_probe="$RUNDIR/node$((NODES - 1))/agent.sock"
if ((${#sock_probe} > 107)); then
  say "error: agent socket path '$sock_probe' is too long for a Unix socket; set TMPDIR to a shorter directory"
  exit 1
fi

# ---------------------------------------------------------------------------------------------
# Network
IPS=() AGENT_PORTS=()
NET_ERR="" SHAPE_ERR=""
run_net() {   # run a setup command; on failure remember its message and fail
  local out
  if ! out="$("$@" 2>&1)"; then NET_ERR="'$*' failed: ${out:-exit status $?}"; return 1; fi
}

setup_netns() {
  local i ns v ip
  ns="$(ns_name 0)"
  CREATED_NS+=("$ns")
  run_net ip netns add "$ns" || return 1
  CREATED_BRIDGE=1
  run_net ip link add name "$BRIDGE" type bridge || return 1
  run_net ip link set dev "$BRIDGE" up || return 1
  for ((i = 0; i < NODES; i++)); do
    ns="$(ns_name "$i")" v="$(veth_name "$i")" ip="10.77.$SUBNET.$((i + 1))"
    if ((i > 0)); then CREATED_NS+=("$ns"); run_net ip netns add "$ns" || return 1; fi
    CREATED_VETH+=("$v")
    run_net ip link add name "$v" type veth peer name eth0 netns "$ns" || return 1
    run_net ip -n "$ns" addr add "$ip/24" dev eth0 || return 1
    run_net ip -n "$ns" link set dev lo up || return 1
    if [[ -n $MTU ]]; then
      run_net ip -n "$ns" link set dev eth0 mtu "$MTU" || return 1
      run_net ip link set dev "$v" mtu "$MTU" || return 1
    fi
    run_net ip -n "$ns" link set dev eth0 up || return 1
    run_net ip link set dev "$v" master "$BRIDGE" || return 1
    run_net ip link set dev "$v" up || return 1
    if [[ -n $RATE ]]; then
      if ! command -v tc >/dev/null; then SHAPE_ERR="'tc' not found"; return 1; fi
      run_net ip netns exec "$ns" tc qdisc add dev eth0 root tbf rate "$RATE" burst "$BURST" "${SHAPER_QUEUE[@]}" ||
        { SHAPE_ERR="$NET_ERR"; return 1; }
      run_net tc qdisc add dev "$v" root tbf rate "$RATE" burst "$BURST" "${SHAPER_QUEUE[@]}" ||
        { SHAPE_ERR="$NET_ERR"; return 1; }
    fi
    IPS+=("$ip")
    AGENT_PORTS+=(29750)
  done
  return 0
}

fallback_reason=""
if ((FORCE_LOOPBACK)); then
  fallback_reason="--loopback given"
elif (($(id -u) != 0)); then
  fallback_reason="not running as root"
elif ! command -v ip >/dev/null; then
  fallback_reason="iproute2 'ip' not found"
elif setup_netns; then
  USE_NETNS=1
else
  fallback_reason="$NET_ERR"
  teardown_network
  IPS=() AGENT_PORTS=()
  if [[ -n $SHAPE_ERR ]]; then
    say "error: cannot shape the node links to $RATE: $SHAPE_ERR (run without --rate for unshaped links)"
    exit 1
  fi
fi

# free_loopback_port BASE COUNT OFFSET: a port in BASE..BASE+COUNT-1 that nothing listens on and
# this run has not given an agent yet, scanned from BASE+OFFSET (that one if all are taken).
free_loopback_port() {
  local base=$1 count=$2 off=$3 k q
  for ((k = 0; k < count; k++)); do
    q=$((base + (off + k) % count))
    [[ " ${AGENT_PORTS[*]} " == *" $q "* ]] && continue
    if ! ss -Hltn "sport = :$q" 2>/dev/null | grep -q .; then echo "$q"; return; fi
  done
  echo $((base + off % count))
}

if ((USE_NETNS)); then
  UCX_DEV=eth0
  MASTER_PORT=29500
else
  UCX_DEV=lo
  RATE_GBIT=""
  # Free agent ports in 29750..30749, scanned from a block of 8 of this run's own (concurrent
  # runs, often of consecutive PIDs, start in different blocks). The choice and the agent's bind
  # can still race with another run: an agent that loses its port is started again on another
  # (start_agent).
  for ((i = 0; i < NODES; i++)); do
    IPS+=(127.0.0.1)
    AGENT_PORTS+=("$(free_loopback_port 29750 1000 $((PID % 125 * 8)))")
  done
  # A free port in 29500..29749, from a PID-derived offset (concurrent runs differ).
  MASTER_PORT="$(free_loopback_port 29500 250 $((PID % 250)))"
  say "note: network namespaces unavailable ($fallback_reason); all nodes share 127.0.0.1 (loopback) with distinct ports and the rate limit is off"
fi
node_exec() {   # prints nothing; sets the array NODE_EXEC for node $1
  if ((USE_NETNS)); then NODE_EXEC=(setsid ip netns exec "$(ns_name "$1")"); else NODE_EXEC=(setsid); fi
}

mode="loopback"
if ((USE_NETNS)); then
  mode="netns 10.77.$SUBNET.0/24, unshaped"
  [[ -n $RATE ]] && mode="netns 10.77.$SUBNET.0/24, $RATE burst $BURST${QUEUE:+ queue $QUEUE}"
  [[ -n $MTU ]] && mode+=", mtu $MTU"
fi
say "$NODES nodes x $PROCS procs ($mode; $( ((NO_AGENT)) && echo "no agents" || echo "agents")); run dir $RUNDIR"

# ---------------------------------------------------------------------------------------------
# Agents
agent_fail() {   # node, reason
  local log="$RUNDIR/node$1/agent.log"
  say "error: agent on node $1 $2; last lines of its log ($log):"
  tail -n 30 -- "$log" >&2 2>/dev/null
  exit 1
}

# start_agent NODE: starts node NODE's agent and waits for it to be ready. Returns 0 once it is,
# 2 if it exited because its loopback port was taken meanwhile (by a concurrent run: the port was
# free when chosen); any other failure ends the launcher.
start_agent() {
  local i=$1 fifo="$RUNDIR/node$1/ready.fifo" rw_fd rd_fd wr_fd st apid k
  rm -f -- "$fifo"
  mkfifo -- "$fifo" || { say "error: mkfifo $fifo failed"; exit 1; }
  # Read end (O_RDONLY) owned by us; the only write end is the agent's fd 3, so a dead agent
  # shows up as EOF instead of a hang. The temporary O_RDWR open keeps the opens from blocking.
  exec {rw_fd}<>"$fifo" {rd_fd}<"$fifo" {wr_fd}>"$fifo"
  exec {rw_fd}<&-
  node_exec "$i"
  (
    exec 3>&"$wr_fd"
    exec {wr_fd}>&- {rd_fd}<&-
    export UCX_TLS=tcp UCX_NET_DEVICES="$UCX_DEV" UCX_TCP_CM_REUSEADDR=y
    if [[ -n $HTTP_BASE ]]; then http_port=$((HTTP_BASE + i)); elif ((USE_NETNS)); then http_port=9750; else http_port=0; fi
    exec "${NODE_EXEC[@]}" "$AGENT" --socket "$RUNDIR/node$i/agent.sock" --port "${AGENT_PORTS[i]}" \
      --listen-address "${IPS[i]}" --log-level info --http-port "$http_port" "${AGENT_ARGS[@]}" --ready-fd 3
  ) >"$RUNDIR/node$i/agent.log" 2>&1 </dev/null &
  AGENT_PIDS+=($!) LIVE_AGENTS+=($!)
  exec {wr_fd}>&-
  read -r -d '' -n 1 -t 10 -u "$rd_fd" _
  st=$?
  exec {rd_fd}<&-
  rm -f -- "$fifo"
  ((st == 0)) && return 0
  if ((st > 128)); then agent_fail "$i" "did not become ready within 10 s"; fi
  # EOF: the agent closed fd 3 without the byte, normally by exiting. Give it a moment.
  apid=${AGENT_PIDS[-1]}
  for ((k = 0; k < 20; k++)); do pid_running "$apid" || break; sleep 0.05; done
  if pid_running "$apid"; then
    agent_fail "$i" "closed its ready fd without signalling readiness"
  fi
  wait "$apid" 2>/dev/null
  st=$?
  LIVE_AGENTS=("${LIVE_AGENTS[@]:0:${#LIVE_AGENTS[@]}-1}")
  AGENT_PIDS=("${AGENT_PIDS[@]:0:${#AGENT_PIDS[@]}-1}")
  if ((!USE_NETNS)) && grep -q "binding the agent port .*Address already in use" "$RUNDIR/node$i/agent.log" 2>/dev/null; then
    return 2
  fi
  agent_fail "$i" "exited with code $st before becoming ready"
}

if ((!NO_AGENT)); then
  for ((i = 0; i < NODES; i++)); do
    for ((try = 1; ; try++)); do
      start_agent "$i" && break
      ((try < 5)) || agent_fail "$i" "found its port taken $try times"
      old=${AGENT_PORTS[i]}
      AGENT_PORTS[i]="$(free_loopback_port 29750 1000 $((RANDOM % 1000)))"
      say "note: node $i's agent port $old was taken meanwhile; starting it on ${AGENT_PORTS[i]}"
    done
  done
fi
ROOT_ADDR="${IPS[0]}:${AGENT_PORTS[0]}"

# ---------------------------------------------------------------------------------------------
# Ranks
declare -A PID_RANK=() PID_AGENT=()
for ((i = 0; i < ${#AGENT_PIDS[@]}; i++)); do PID_AGENT[${AGENT_PIDS[i]}]=$i; done

if ((TIMEOUT > 0)); then
  setsid sleep "$TIMEOUT" </dev/null >/dev/null 2>&1 &
  TIMER_PID=$!
fi

rank0_fifo="$RUNDIR/rank0.fifo"
mkfifo -- "$rank0_fifo" || { say "error: mkfifo $rank0_fifo failed"; exit 1; }
setsid tee -- "$RUNDIR/rank0.log" <"$rank0_fifo" 2>/dev/null &
TEE_PID=$!

for ((node = 0; node < NODES; node++)); do
  node_exec "$node"
  for ((lr = 0; lr < PROCS; lr++)); do
    r=$((node * PROCS + lr))
    if ((r == 0)); then out="$rank0_fifo"; else out="$RUNDIR/rank$r.log"; fi
    (
      export RANK=$r WORLD_SIZE=$WORLD LOCAL_RANK=$lr LOCAL_WORLD_SIZE=$PROCS \
        GROUP_RANK=$node GROUP_WORLD_SIZE=$NODES MASTER_ADDR="${IPS[0]}" MASTER_PORT=$MASTER_PORT \
        OUTRIDER_SOCKET="$RUNDIR/node$node/agent.sock" OUTRIDER_ROOT_ADDR="$ROOT_ADDR" \
        OUTRIDER_JOB_ID="$JOB_ID" OUTRIDER_JOB_TOKEN="$JOB_TOKEN" OUTRIDER_NODES=$NODES \
        OUTRIDER_NODE_RANK=$node OUTRIDER_NETNS=$USE_NETNS \
        UCX_TLS=tcp UCX_NET_DEVICES="$UCX_DEV"
      if [[ -n $RATE_GBIT ]]; then export OUTRIDER_RATE_GBIT="$RATE_GBIT"; else unset OUTRIDER_RATE_GBIT; fi
      # The node's agent's HTTP listener (outriderctl, outrider-bench --trace).
      if [[ -n $HTTP_BASE ]]; then export OUTRIDER_HTTP_URL="http://127.0.0.1:$((HTTP_BASE + node))";
      elif ((USE_NETNS)) && ((!NO_AGENT)); then export OUTRIDER_HTTP_URL="http://127.0.0.1:9750"; fi
      exec "${NODE_EXEC[@]}" "${CMD[@]}"
    ) >"$out" 2>&1 </dev/null &
    RANK_PIDS+=($!) RUNNING+=($!)
    PID_RANK[$!]=$r
  done
done

# ---------------------------------------------------------------------------------------------
# Wait
declare -A CODE=()        # rank -> exit code (ranks that finished on their own)
declare -A KILLED=()      # rank -> 1 (killed by the launcher)
FIRST_FAIL_RANK="" FIRST_FAIL_CODE="" TIMED_OUT=0 AGENT_DIED=""

remove_pid() {   # array-name pid
  local -n arr="$1"
  local out=() x
  for x in "${arr[@]}"; do [[ $x == "$2" ]] || out+=("$x"); done
  arr=("${out[@]}")
}

recheck_by_hand() {   # ranks that ended without `wait -n` reporting them
  local p
  for p in "${RUNNING[@]}"; do
    pid_running "$p" && continue
    wait "$p" 2>/dev/null; CODE[${PID_RANK[$p]}]=$?; remove_pid RUNNING "$p"
  done
}
while ((${#RUNNING[@]})); do
  # A heartbeat child wakes this loop every 2 s to look at the ranks by hand too, so a rank's
  # exit that `wait -n` does not report (two children ending at once) cannot hang the launcher.
  if [[ -z $HEARTBEAT_PID ]]; then
    setsid sleep 2 </dev/null >/dev/null 2>&1 &
    HEARTBEAT_PID=$!
  fi
  unset done_pid
  wait -n -p done_pid "${RUNNING[@]}" "${LIVE_AGENTS[@]}" ${TIMER_PID:+"$TIMER_PID"} "$HEARTBEAT_PID" 2>/dev/null
  st=$?
  if [[ -z ${done_pid:-} || $done_pid == "$HEARTBEAT_PID" ]]; then
    # The heartbeat, an interruption without a child (an untrapped signal), or nothing waitable.
    [[ ${done_pid:-} == "$HEARTBEAT_PID" ]] && HEARTBEAT_PID=""
    recheck_by_hand
    [[ -z ${done_pid:-} ]] && sleep 0.05
    continue
  fi
  if [[ $done_pid == "$TIMER_PID" ]]; then
    TIMER_PID="" TIMED_OUT=1
    break
  fi
  if [[ -n ${PID_AGENT[$done_pid]+x} ]]; then
    remove_pid LIVE_AGENTS "$done_pid"
    AGENT_DIED="${PID_AGENT[$done_pid]}:$st"
    break
  fi
  r="${PID_RANK[$done_pid]}"
  remove_pid RUNNING "$done_pid"
  CODE[$r]=$st
  if ((st != 0)); then FIRST_FAIL_RANK=$r FIRST_FAIL_CODE=$st; break; fi
done

[[ -n $HEARTBEAT_PID ]] && { kill "$HEARTBEAT_PID" 2>/dev/null; wait "$HEARTBEAT_PID" 2>/dev/null; HEARTBEAT_PID=""; }
if ((TIMED_OUT)) && ((${#RUNNING[@]})); then
  # What each rank still running and each agent said last: the place to look for a hang.
  for p in "${RUNNING[@]}"; do
    r="${PID_RANK[$p]}"
    say "timed out: rank $r still running; last lines of its log:"
    tail -n 20 -- "$RUNDIR/rank$r.log" >&2 2>/dev/null
  done
  for ((i = 0; i < ${#AGENT_PIDS[@]}; i++)); do
    say "timed out: last lines of node $i's agent log:"
    tail -n 20 -- "$RUNDIR/node$i/agent.log" >&2 2>/dev/null
  done
fi
if ((${#RUNNING[@]})); then
  # A rank failed, an agent died or the time ran out: the others would hang, so stop them.
  terminate 5 "${RUNNING[@]}" 2>/dev/null
  for p in "${RUNNING[@]}"; do
    r="${PID_RANK[$p]}"
    if pid_running "$p"; then KILLED[$r]=1; continue; fi   # unkillable; do not wait
    wait "$p" 2>/dev/null
    st=$?
    # Died from our SIGTERM/SIGKILL: "killed"; otherwise it finished by itself meanwhile.
    if ((st == 143 || st == 137)); then KILLED[$r]=1; else CODE[$r]=$st; fi
    remove_pid RUNNING "$p"
  done
fi

# Let rank 0's output drain (tee ends once every writer of the fifo is gone), bounded.
if [[ -n $TEE_PID ]]; then
  for ((k = 0; k < 40; k++)); do pid_running "$TEE_PID" || break; sleep 0.05; done
  pid_running "$TEE_PID" || { wait "$TEE_PID" 2>/dev/null; TEE_PID=""; }
fi

# ---------------------------------------------------------------------------------------------
# Report
for ((r = 1; r < WORLD; r++)); do
  if [[ -z ${CODE[$r]+x} ]] || ((CODE[$r] == 0)); then continue; fi
  log="$RUNDIR/rank$r.log"
  n=$(wc -l <"$log" 2>/dev/null || echo 0)
  printf -- '--- rank %d (exit %d) ---\n' "$r" "${CODE[$r]}" >&2
  ((n > 200)) && printf '(last 200 of %d lines)\n' "$n" >&2
  tail -n 200 -- "$log" >&2
done

failed=() killed=()
for ((r = 0; r < WORLD; r++)); do
  if [[ -n ${KILLED[$r]+x} ]]; then killed+=("$r")
  elif [[ -n ${CODE[$r]+x} ]] && ((CODE[$r] != 0)); then failed+=("rank $r exit ${CODE[$r]}")
  fi
done
join() { local IFS="$1"; shift; echo "$*"; }
summary="$NODES nodes x $PROCS procs"
exit_code=0
if ((TIMED_OUT)); then
  summary+=", timed out after $TIMEOUT s"
  exit_code=124
elif [[ -n $AGENT_DIED ]]; then
  an="${AGENT_DIED%%:*}" ac="${AGENT_DIED#*:}"
  say "agent on node $an exited with code $ac while ranks were running; last lines of its log:"
  tail -n 30 -- "$RUNDIR/node$an/agent.log" >&2 2>/dev/null
  summary+=", agent on node $an exited with code $ac"
  exit_code=1
fi
if ((${#failed[@]})); then
  summary+=", failed: $(join , "${failed[@]}")"
  [[ -n $FIRST_FAIL_RANK ]] && ((${#failed[@]} > 1)) && summary+=" (first: rank $FIRST_FAIL_RANK)"
  ((exit_code)) || exit_code=${FIRST_FAIL_CODE:-1}
fi
((${#killed[@]})) && summary+=", killed: ranks $(join , "${killed[@]}")"
if ((exit_code == 0)) && ((${#failed[@]} == 0)) && ((${#killed[@]} == 0)); then
  summary+=", all ranks exited 0"
fi
((exit_code == 0 && ${#failed[@]} + ${#killed[@]} > 0)) && exit_code=1
[[ -n $KEEP_LOGS ]] && say "logs (rank<r>.log, node<i>/agent.log) are copied to $KEEP_LOGS at teardown"
say "$summary"
exit "$exit_code"
