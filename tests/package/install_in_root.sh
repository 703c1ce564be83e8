#!/bin/sh
# Inside a clean Debian 12 root (tests/package/install_test.sh): installs the package the way its
# users do (README's `apt install ./build/outrider-agent_*.deb`, its dependencies from the
# archive) and checks
# what the install leaves: the tools on the PATH, the group, the socket directory, the config file
# as a conffile, the unit enabled and accepted by systemd-analyze verify.
set -eu
here=$(dirname "$0")
failed=0
ok() { echo "ok   - $1"; }
fail() { echo "FAIL - $1${2:+: $2}"; failed=1; }
check() {  # check WHAT CMD...
  what=$1; shift
  if out=$("$@" 2>&1); then ok "$what"; else fail "$what" "$out"; fi
}

export DEBIAN_FRONTEND=noninteractive
apt-get -q update >/dev/null
# README's install command as written, from the folder whose build/ holds the package.
if (cd "$here" && sh -e ./quickstart-install.sh) >"$here/apt.log" 2>&1; then
  ok "README's $(grep '^apt install' "$here/quickstart-install.sh" | cut -d'#' -f1)(its dependencies from the archive)"
else
  tail -n 30 "$here/apt.log"
  fail "README's $(cat "$here/quickstart-install.sh")"
  exit 1
fi
check "outrider-agent is on the PATH at /usr/bin" test "$(command -v outrider-agent)" = /usr/bin/outrider-agent
check "outriderctl is on the PATH and runs" outriderctl --help
check "the installed agent runs" outrider-agent --version
check "group outrider exists (sysusers.d)" getent group outrider
check "/run/outrider is root:outrider 0750 (tmpfiles.d)" \
  test "$(stat -c '%U:%G %a' /run/outrider)" = "root:outrider 750"
check "/etc/outrider/agent.toml is a conffile" \
  sh -c "dpkg-query -W -f='\${Conffiles}' outrider-agent | grep -q ' /etc/outrider/agent.toml '"
check "the unit is enabled" test "$(systemctl is-enabled outrider-agent.service)" = enabled
unit=/usr/lib/systemd/system/outrider-agent.service
check "the unit starts the installed agent" grep -q '^ExecStart=/usr/bin/outrider-agent ' "$unit"
if out=$(systemd-analyze verify "$unit" 2>&1) && [ -z "$out" ]; then
  ok "systemd-analyze verify $unit"
else
  fail "systemd-analyze verify $unit" "$out"
fi
check "the shim library resolves from the package for a program linked against it" \
  sh -c "ldd '$here/outrider-bench' | grep -Eq 'liboutrider.so.0 => (/usr)?/lib/liboutrider.so.0 '"
exit $failed
