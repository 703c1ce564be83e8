#!/usr/bin/env bash
# tools/package/make-deb.sh — the outrider-agent Debian package from a build directory: what
# `cmake --install` puts under /usr (the agent, outriderctl, the shim library and its headers, the
# systemd unit, sysusers.d and tmpfiles.d entries) and /etc/outrider/agent.toml as a conffile,
# with dependencies from dpkg-shlibdeps and the maintainer scripts of deploy/debian/. Used by
# `tools/outrider package`; tests/package/install_test.sh installs the result into a clean Debian 12.
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
PROG="package/make-deb"
say() { printf '%s: %s\n' "$PROG" "$*" >&2; }
die() { say "error: $*"; exit 1; }

usage() {
  cat <<'USAGE'
usage: tools/package/make-deb.sh BUILD_DIR [OUT_DIR]

Packages what BUILD_DIR has built (outrider-agent and the outrider library must be built) as
OUT_DIR/outrider-agent_VERSION_ARCH.deb (OUT_DIR defaults to BUILD_DIR) and prints its path.
Needs dpkg-dev (dpkg-shlibdeps) and binutils (strip).
USAGE
}

case "${1:-}" in -h|--help) usage; exit 0 ;; "") usage >&2; exit 2 ;; esac
build="$(cd "$1" && pwd)" || die "no build directory $1"
out="$(cd "${2:-$build}" && pwd)" || die "no output directory ${2:-}"
[[ -x $build/bin/outrider-agent ]] || die "$build/bin/outrider-agent is not built (tools/outrider package builds it)"
command -v dpkg-shlibdeps >/dev/null || die "dpkg-shlibdeps is missing: apt-get install dpkg-dev"

version="$(sed -n 's/^CMAKE_PROJECT_VERSION:STATIC=//p' "$build/CMakeCache.txt")"
[[ -n $version ]] || die "no CMAKE_PROJECT_VERSION in $build/CMakeCache.txt"
arch="$(dpkg --print-architecture)"
work="$(mktemp -d "${TMPDIR:-/tmp}/outrider-deb.XXXXXX")"
trap 'rm -rf "$work"' EXIT
stage="$work/stage"

DESTDIR="$stage" cmake --install "$build" --prefix /usr >/dev/null
# The binaries ship without their symbol tables, as Debian's packages do.
mapfile -t elves < <(find "$stage/usr" -type f \( -perm -u+x -o -name '*.so*' \) -exec sh -c \
  'head -c 4 "$1" | grep -q "ELF" && echo "$1"' sh {} \;)
((${#elves[@]})) || die "nothing to package: no ELF file under $stage/usr"
strip --strip-unneeded "${elves[@]}"

# Dependencies: the libraries the binaries link (dpkg-shlibdeps reads a debian/control), and
# python3 for outriderctl.
mkdir -p "$work/src/debian"
printf 'Source: outrider\n\nPackage: outrider-agent\nArchitecture: any\n' >"$work/src/debian/control"
shlibs="$(cd "$work/src" && dpkg-shlibdeps -O "${elves[@]}" 2>"$work/shlibdeps.log")" ||
  { cat "$work/shlibdeps.log" >&2; die "dpkg-shlibdeps failed"; }
depends="${shlibs#shlibs:Depends=}, python3"

mkdir -p "$stage/DEBIAN"
cat >"$stage/DEBIAN/control" <<CONTROL
Package: outrider-agent
Version: $version
Architecture: $arch
Maintainer: Outrider maintainers <maintainers@outrider.invalid>
Section: net
Priority: optional
Depends: $depends
Installed-Size: $(du -sk --exclude=DEBIAN "$stage" | cut -f1)
Homepage: https://github.com/outrider/outrider
Description: communication-offload agent for distributed deep-learning training
 One outrider-agent per node owns all inter-node communication of the training processes on it
 (dense gradient buckets and sparse embedding-row gradients handed over through shared memory),
 reduces local contributions once, exchanges them with the other nodes' agents and orders the
 traffic by when it is needed. Includes outriderctl, the systemd unit (enabled on install) with
 group outrider for the trainers that may connect, /etc/outrider/agent.toml, and liboutrider (the
 C API and its headers).
CONTROL
(cd "$stage" && find etc -type f | sed 's|^|/|' | sort) >"$stage/DEBIAN/conffiles"
echo "activate-noawait ldconfig" >"$stage/DEBIAN/triggers"
install -m 0755 "$REPO/deploy/debian/postinst" "$REPO/deploy/debian/prerm" "$REPO/deploy/debian/postrm" "$stage/DEBIAN/"
(cd "$stage" && find . -path ./DEBIAN -prune -o -type f -printf '%P\0' | sort -z | xargs -0 md5sum) >"$stage/DEBIAN/md5sums"

deb="$out/outrider-agent_${version}_${arch}.deb"
dpkg-deb --root-owner-group -Zxz --build "$stage" "$deb" >/dev/null
say "made $deb ($(du -h "$deb" | cut -f1); Depends: $depends)"
echo "$deb"
