#!/usr/bin/env bash
# The Debian package as a platform team installs it (CTest package.install_debian12): makes the
# .deb from BUILD_DIR (tools/package/make-deb.sh), then in a throw-away overlay of a clean Debian 12
# root (tools/roots/make-root.sh --kind debian12; made once, then reused), README's quick start
# for platform engineers, the block marked `by package.install_debian12`, as written:
#   1. its install command (`apt install ./build/outrider-agent_*.deb`, apt's question answered
#      yes as a user would) and what it leaves (tests/package/install_in_root.sh): tools on the
#      PATH, group, socket directory, conffile, the unit enabled and verified by systemd-analyze;
#   2. in a network namespace of its own, the unit's ExecStart run as systemd runs it, the block's
#      other commands (outriderctl status), and a 2-rank job over the unit's socket
#      (tests/package/run_unit.py).
# Needs root (debootstrap, mounts, chroot) and the Debian archive; exits 77 (skipped) without root.
#
# usage: install_test.sh BUILD_DIR   (outrider-agent, the outrider library and outrider-bench built)
set -euo pipefail
repo="$(cd "$(dirname "$0")/../.." && pwd)"
(($# == 1)) || { sed -n '2,12p' "$0" >&2; exit 2; }
build="$(cd "$1" && pwd)"
if [[ $(id -u) -ne 0 ]]; then
  echo "SKIP: installing a package into a Debian root needs root (debootstrap, mount, chroot)"
  exit 77
fi
work="$(mktemp -d /tmp/outrider-package-test.XXXXXX)"
trap 'rm -rf --one-file-system "$work"' EXIT
start=$SECONDS
deb="$("$repo/tools/package/make-deb.sh" "$build" "$work")"
root="$("$repo/tools/roots/make-root.sh" --kind debian12)"
echo "# package and clean root ready in $((SECONDS - start)) s: $(basename "$deb"), $root"
opt="$work/overlay/upper/opt/outrider-test"
mkdir -p "$opt/build" "$work/overlay/upper/etc/apt/apt.conf.d"
cp "$deb" "$opt/build/"
cp "$build/bin/outrider-bench" "$repo/tests/package/install_in_root.sh" "$repo/tests/package/run_unit.py" "$opt/"
# The quick start's commands: up to its apt install, then the rest once the agent runs.
block="$(python3 "$repo/tests/docs/quickstart_test.py" --block package.install_debian12)"
awk '{ print } /^apt install / { exit }' <<<"$block" >"$opt/quickstart-install.sh"
awk 'done { print } /^apt install / { done = 1 }' <<<"$block" >"$opt/quickstart-after.sh"
grep -q '^apt install ' "$opt/quickstart-install.sh" || { echo "FAIL - README's block has no apt install"; exit 1; }
echo 'APT::Get::Assume-Yes "true";' >"$work/overlay/upper/etc/apt/apt.conf.d/90answer-yes"
enter=("$repo/tools/roots/enter.sh" --root "$root" --isolated --overlay "$work/overlay")
status=0
"${enter[@]}" -- /bin/sh /opt/outrider-test/install_in_root.sh || status=$?
if ((status == 0)); then
  "${enter[@]:0:${#enter[@]}}" --private-network -- /usr/bin/python3 /opt/outrider-test/run_unit.py || status=$?
fi
echo "# $((SECONDS - start)) s in all"
exit "$status"
