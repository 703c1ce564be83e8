#!/usr/bin/env bash
# The outrider_torch package as a user installs it, the fixture of the backend's Python tests
# (tests/python/CMakeLists.txt): `pip install --no-build-isolation` of the repository (or, with
# --from-sdist, of an sdist made from it with `python -m build --sdist --no-isolation`), offline,
# into a fresh venv over PYTHON (--system-site-packages: that Python's PyTorch). Then it checks the
# installed copy with nothing on PYTHONPATH: it imports from the venv, loads the package's own
# liboutrider, and `python -m outrider_torch` sees a running agent. The tests then run the venv's
# Python, so they test that installed copy and not a build tree.
#
# usage: install_package.sh [--from-sdist] VENV AGENT PYTHON [PREFIX...]
#   VENV    the venv to make (an old one is removed); the package's build scratch goes to VENV.build
#   AGENT   an outrider-agent binary, for the diagnosis check
#   PYTHON  the interpreter the venv is made over (e.g. /usr/bin/python3)
#   PREFIX  a command every Python process starts with (e.g. tools/roots/enter.sh --root DIR --);
#           VENV must be at the same path inside it
set -euo pipefail
from_sdist=0
if [[ ${1:-} == --from-sdist ]]; then from_sdist=1; shift; fi
(($# >= 3)) || { sed -n '10,15p' "$0" >&2; exit 2; }
venv=$1 agent=$2 python=$3
shift 3
prefix=("$@")
root=$(cd "$(dirname "$0")/../.." && pwd)
say() { echo "install_package: $*" >&2; }
unset PYTHONPATH

rm -rf "$venv" "$venv.build"
"${prefix[@]}" "$python" -m venv --system-site-packages "$venv"
start=$SECONDS
what=.
if ((from_sdist)); then
  (cd "$root" && OUTRIDER_PIP_BUILD_DIR="$venv.build" \
    "${prefix[@]}" "$venv/bin/python" -m build --sdist --no-isolation --outdir "$venv.build/dist" . >/dev/null)
  what=$(echo "$venv.build/dist"/outrider_torch-*.tar.gz)
  [[ -f $what ]] || { say "no sdist in $venv.build/dist"; exit 1; }
fi
(cd "$root" && MAX_JOBS=${MAX_JOBS:-2} OUTRIDER_PIP_BUILD_DIR="$venv.build" \
  "${prefix[@]}" "$venv/bin/python" -m pip install --no-build-isolation --no-index --quiet "$what")
say "installed $( ((from_sdist)) && echo "the sdist $(basename "$what")" || echo "the repository") into $venv in $((SECONDS - start)) s"
rm -rf "$venv.build"

cd "$(dirname "$venv")"  # not the source tree: the import must find the installed package
where=$("${prefix[@]}" "$venv/bin/python" -c 'import outrider_torch, os; print(os.path.dirname(outrider_torch.__file__))')
[[ "$where" == "$venv"/* ]] || { say "outrider_torch came from $where, not the venv"; exit 1; }

dir=$(mktemp -d /tmp/outrider-install-package.XXXXXX)
mkfifo "$dir/ready"
"$agent" --socket "$dir/agent.sock" --port 0 --http-port 0 --ready-fd 3 3>"$dir/ready" >"$dir/agent.log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; rm -rf "$dir"' EXIT
# One byte once it listens; end of file (nothing read) if it exits first.
if ! read -r -n 1 -t 60 _ <"$dir/ready"; then
  say "the agent did not start:"; cat "$dir/agent.log" >&2; exit 1
fi
diag=$(OUTRIDER_SOCKET="$dir/agent.sock" "${prefix[@]}" "$venv/bin/python" -m outrider_torch) ||
  { echo "$diag"; exit 1; }
echo "$diag"
grep -q "^agent: *answers" <<<"$diag" || { say "the diagnosis does not see the agent"; exit 1; }
grep -q "^liboutrider: *$venv/" <<<"$diag" || { say "liboutrider is not the package's own"; exit 1; }
