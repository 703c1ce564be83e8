#!/usr/bin/env bash
# The outrider_torch package as a user installs it: `pip install --no-build-isolation` of the
# repository, offline, into a fresh venv over this Python (--system-site-packages: its PyTorch),
# then the installed copy, with no build tree on PYTHONPATH: `python -m outrider_torch` against a
# running agent, and the backend's test suite on 2 nodes x 2 ranks.
#
# usage: package_install_test.sh BUILD_DIR [PYTHON]   (PYTHON default /usr/bin/python3)
set -euo pipefail
build=$(cd "$1" && pwd)
python=${2:-/usr/bin/python3}
root=$(cd "$(dirname "$0")/../.." && pwd)
venv="$build/package-venv"
rm -rf "$venv"
"$python" -m venv --system-site-packages "$venv"
start=$(date +%s)
(cd "$root" && MAX_JOBS=${MAX_JOBS:-2} "$venv/bin/pip" install --no-build-isolation --no-index --quiet .)
echo "package_install_test: installed in $(( $(date +%s) - start )) s"
unset PYTHONPATH
cd "$build"  # not the source tree: the import must find the installed package
where=$("$venv/bin/python" -c 'import outrider_torch, os; print(os.path.dirname(outrider_torch.__file__))')
[[ "$where" == "$venv"/* ]] || { echo "package_install_test: outrider_torch came from $where, not the venv" >&2; exit 1; }

dir=$(mktemp -d /tmp/outrider-package-test.XXXXXX)
"$build/bin/outrider-agent" --socket "$dir/agent.sock" --port 0 --http-port 0 --ready-fd 3 3>"$dir/ready" >"$dir/agent.log" 2>&1 &
agent=$!
trap 'kill $agent 2>/dev/null; wait $agent 2>/dev/null; rm -rf "$dir"' EXIT
for _ in $(seq 100); do [[ -s "$dir/ready" ]] && break; sleep 0.1; done
diag=$(OUTRIDER_SOCKET="$dir/agent.sock" "$venv/bin/python" -m outrider_torch) || { echo "$diag"; exit 1; }
echo "$diag"
grep -q "^agent: *answers" <<<"$diag" || { echo "package_install_test: the diagnosis does not see the agent" >&2; exit 1; }
grep -q "^liboutrider: *$venv/" <<<"$diag" || { echo "package_install_test: liboutrider is not the package's own" >&2; exit 1; }

OUTRIDER_AGENT="$build/bin/outrider-agent" USE_LIBUV=0 bash "$root/tools/cluster/run.sh" --loopback --timeout 240 --nodes 2 --procs-per-node 2 -- \
  "$venv/bin/python" "$root/tests/python/backend_test.py"
