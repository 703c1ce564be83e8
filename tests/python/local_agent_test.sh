#!/usr/bin/env bash
# After pip, one command gives a machine its agent (README, Quick start): `tools/outrider agent`
# with only a login session's XDG_RUNTIME_DIR set; then `python -m outrider_torch` says it answers,
# and a 2-rank job of the venv's Python, setting nothing of Outrider's, finds it and allreduces;
# Ctrl-C (SIGINT) stops the agent with exit status 0.
#
# usage: local_agent_test.sh PYTHON_COMMAND...   (the venv's python, after any command it starts
#                                                 with, e.g. tools/roots/enter.sh --root DIR --)
set -euo pipefail
(($# >= 1)) || { sed -n '2,8p' "$0" >&2; exit 2; }
python=("$@")
repo="$(cd "$(dirname "$0")/../.." && pwd)"
# Under /tmp, which a PREFIX's root shares with the host; a session's runtime directory is 0700.
session="$(mktemp -d /tmp/outrider-session.XXXXXX)"
agent_pid=""
cleanup() {
  [[ -n $agent_pid ]] && kill "$agent_pid" 2>/dev/null && wait "$agent_pid" 2>/dev/null
  rm -rf "$session"
}
trap cleanup EXIT
unset OUTRIDER_SOCKET PYTHONPATH
export XDG_RUNTIME_DIR="$session"

mkfifo "$session/ready"
# The agent writes one byte to the fifo once it listens (or closes it on failure): no polling.
setsid "$repo/tools/outrider" agent --ready-fd 3 --http-port 0 3>"$session/ready" >"$session/agent.log" 2>&1 &
agent_pid=$!
if ! read -r -n 1 -t 600 _ <"$session/ready"; then
  echo "FAIL - tools/outrider agent did not become ready"; tail -n 30 "$session/agent.log"; exit 1
fi
echo "ok   - tools/outrider agent listens at \$XDG_RUNTIME_DIR/outrider/agent.sock"

out="$("${python[@]}" -m outrider_torch 2>&1)" || { echo "FAIL - python -m outrider_torch: $out"; exit 1; }
grep -q "agent:  *answers" <<<"$out" || { echo "FAIL - python -m outrider_torch does not see the agent: $out"; exit 1; }
echo "ok   - python -m outrider_torch finds it with nothing set"

port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
job='
import torch, torch.distributed as dist, outrider_torch
dist.init_process_group("outrider")
t = torch.full((4,), float(dist.get_rank() + 1))
dist.all_reduce(t)
assert t.tolist() == [3.0] * 4, t
dist.destroy_process_group()
'
pids=()
for r in 0 1; do
  env RANK=$r WORLD_SIZE=2 LOCAL_RANK=$r LOCAL_WORLD_SIZE=2 MASTER_ADDR=127.0.0.1 MASTER_PORT="$port" USE_LIBUV=0 \
    "${python[@]}" -c "$job" >"$session/rank$r.log" 2>&1 &
  pids+=($!)
done
for r in 0 1; do
  if ! wait "${pids[$r]}"; then echo "FAIL - rank $r of the 2-rank job:"; cat "$session/rank$r.log"; exit 1; fi
done
echo "ok   - a 2-rank job setting nothing of Outrider's allreduces through it"

kill -INT -- "-$agent_pid"
code=0
wait "$agent_pid" || code=$?
agent_pid=""
[[ $code == 0 ]] || { echo "FAIL - the agent exited $code on Ctrl-C"; tail -n 20 "$session/agent.log"; exit 1; }
echo "ok   - Ctrl-C stops it (exit 0)"
