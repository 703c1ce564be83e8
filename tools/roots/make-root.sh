#!/usr/bin/env bash
# tools/roots/make-root.sh — a Debian root made with debootstrap (--variant=minbase), one of two:
#   torch2   Debian trixie with PyTorch 2.6 and what building and testing the outrider_torch
#            backend against it needs. The host (bookworm) has PyTorch 1.13; this root is where the
#            package is pip-installed (a venv over the root's Python) and its tests run against 2.x
#            (tools/outrider test-torch2).
#   debian12 a clean Debian 12 (bookworm) with systemd's tools and nothing of Outrider: the package
#            test installs the .deb into a throw-away overlay of it (tests/package/install_test.sh).
# Idempotent: an existing root whose stamp matches is reused as it is.
set -euo pipefail

SELF="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
PROG="roots/make-root"
# Bump when the way a root is made changes (not the package list: that is stamped itself).
RECIPE=1

KIND=torch2
ROOT_DIR=""
MIRROR="${OUTRIDER_ROOTS_MIRROR:-${OUTRIDER_TORCH2_MIRROR:-}}"
REBUILD=0

usage() {
  cat <<USAGE
usage: tools/roots/make-root.sh [--kind torch2|debian12] [--root DIR] [--mirror URL] [--rebuild]

Makes a Debian root with debootstrap (--variant=minbase) and prints its path on stdout:
  torch2    trixie, with PyTorch 2.6, its headers, the compiler, CMake and Ninja (default root
            \$OUTRIDER_TORCH2_ROOT, else /var/cache/outrider/trixie-root)
  debian12  bookworm, with systemd (systemd-analyze, systemd-sysusers, systemd-tmpfiles) and
            nothing else (default root \$OUTRIDER_DEBIAN12_ROOT, else /var/cache/outrider/bookworm-root)
An existing root with a matching stamp (DIR/.outrider-root) is reused; one without (an interrupted
run) or with another stamp is made again. The root is made in DIR.new and renamed into place when
complete. Installs debootstrap on the host if missing. Needs root (debootstrap, chroot).

options:
  --kind K       which root (default torch2)
  --root DIR     where the root lives
  --mirror URL   Debian mirror (default \$OUTRIDER_ROOTS_MIRROR, else the first Debian archive
                 URI in /etc/apt/sources.list*, else http://deb.debian.org/debian)
  --rebuild      make it again even if the stamp matches

Enter it with tools/roots/enter.sh --root DIR -- CMD ARGS...
USAGE
}

say() { printf '%s: %s\n' "$PROG" "$*" >&2; }
die() { say "error: $*"; exit 1; }

while (($#)); do
  case "$1" in
    --kind) (($# >= 2)) || die "--kind needs a value"; KIND="$2"; shift 2 ;;
    --root) (($# >= 2)) || die "--root needs a value"; ROOT_DIR="$2"; shift 2 ;;
    --mirror) (($# >= 2)) || die "--mirror needs a value"; MIRROR="$2"; shift 2 ;;
    --rebuild) REBUILD=1; shift ;;
    -h|--help) usage; exit 0 ;;
    *) say "unknown option $1"; usage >&2; exit 2 ;;
  esac
done

case "$KIND" in
  torch2)
    SUITE=trixie
    ROOT_DIR="${ROOT_DIR:-${OUTRIDER_TORCH2_ROOT:-/var/cache/outrider/trixie-root}}"
    # PyTorch 2.6's Python package and C++ headers (python3-torch, libtorch-dev), Python headers and
    # pybind11, what `python3 -m venv` and `pip install --no-build-isolation` need (python3-venv
    # brings pip's wheel; setuptools and wheel build the package), the compiler, and CMake with
    # Ninja for configuring the tests. Keep in step with tools/outrider test-torch2.
    PACKAGES=(
      python3 python3-dev python3-torch libtorch-dev pybind11-dev
      python3-venv python3-setuptools python3-wheel
      g++ cmake ninja-build
    )
    ;;
  debian12)
    SUITE=bookworm
    ROOT_DIR="${ROOT_DIR:-${OUTRIDER_DEBIAN12_ROOT:-/var/cache/outrider/bookworm-root}}"
    # A node before Outrider: systemd's tools (the unit is verified and its users and directories
    # made with them); apt installs the package and whatever it depends on from the mirror.
    PACKAGES=(systemd)
    ;;
  *) die "--kind must be torch2 or debian12, got '$KIND'" ;;
esac

[[ $ROOT_DIR == /* ]] || die "--root must be an absolute path, got '$ROOT_DIR'"
ROOT_DIR="${ROOT_DIR%/}"
[[ -n $ROOT_DIR && $ROOT_DIR != / ]] || die "refusing to use / as the root"

# The mirror the host's apt already uses for Debian's main archive (deb822 or one-line format).
host_mirror() {
  local f
  for f in /etc/apt/sources.list.d/*.sources; do
    [[ -f $f ]] || continue
    awk '/^URIs:/ { for (i = 2; i <= NF; i++) if ($i !~ /security/) { print $i; exit } }' "$f"
  done
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    [[ -f $f ]] || continue
    awk '$1 == "deb" { for (i = 2; i <= NF; i++) if ($i ~ /^(https?|file):/ && $i !~ /security/) { print $i; exit } }' "$f"
  done
}
if [[ -z $MIRROR ]]; then
  MIRROR="$(host_mirror | grep -m1 -i 'debian' || true)"
  MIRROR="${MIRROR:-http://deb.debian.org/debian}"
fi

STAMP_FILE=".outrider-root"
STAMP="recipe=$RECIPE suite=$SUITE packages=${PACKAGES[*]}"

reuse_if_made() {
  if ((!REBUILD)) && [[ -f $ROOT_DIR/$STAMP_FILE ]] && [[ "$(cat "$ROOT_DIR/$STAMP_FILE")" == "$STAMP" ]]; then
    say "reusing $ROOT_DIR"
    echo "$ROOT_DIR"
    exit 0
  fi
}
reuse_if_made

[[ $(id -u) -eq 0 ]] || die "making the root needs root (debootstrap, chroot): run as root (or with sudo)"
# One maker at a time (CI makes the roots in the background while it builds, and the tests that
# use them may ask first): a second one waits here, then finds the root made.
mkdir -p "$(dirname "$ROOT_DIR")"
exec 9>"$ROOT_DIR.lock"
flock 9
reuse_if_made

# Fails unless DIR is absent, empty or a root this script made (or began), with nothing mounted
# below it (a bind-mounted repository would be deleted with it).
check_removable() {
  local dir="$1"
  [[ -e $dir ]] || return 0
  if awk -v d="$dir" '$5 == d || index($5, d "/") == 1 { found = 1 } END { exit !found }' /proc/self/mountinfo; then
    die "$dir has file systems mounted below it (see /proc/self/mountinfo); unmount them first"
  fi
  if [[ -n "$(ls -A "$dir" 2>/dev/null)" && ! -e $dir/debootstrap && ! -e $dir/$STAMP_FILE && ! -e $dir/etc/debian_version ]]; then
    die "$dir exists and does not look like a root this script made; remove it or choose another --root"
  fi
}
remove_tree() {
  check_removable "$1"
  rm -rf --one-file-system "$1"
}

if ! command -v debootstrap >/dev/null; then
  say "installing debootstrap on the host"
  DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300 -y -q install --no-install-recommends debootstrap >&2 ||
    { apt-get -o DPkg::Lock::Timeout=300 -y -q update >&2 &&
      DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300 -y -q install --no-install-recommends debootstrap >&2; } ||
    die "cannot install debootstrap (apt-get failed)"
fi
[[ -e /usr/share/debootstrap/scripts/$SUITE ]] ||
  die "this debootstrap ($(dpkg-query -W -f='${Version}' debootstrap 2>/dev/null)) does not know $SUITE; upgrade it"
KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg
[[ -f $KEYRING ]] || die "no $KEYRING (install debian-archive-keyring)"

NEW="$ROOT_DIR.new"
check_removable "$ROOT_DIR"  # before minutes of debootstrap, not after
mkdir -p "$(dirname "$ROOT_DIR")"
remove_tree "$NEW"
start=$SECONDS
say "debootstrap $SUITE from $MIRROR into $NEW (minbase + ${#PACKAGES[@]} packages and their dependencies)"
include="$(IFS=,; echo "${PACKAGES[*]}")"
if ! debootstrap --variant=minbase --include="$include" --components=main --keyring="$KEYRING" \
    "$SUITE" "$NEW" "$MIRROR" >&2; then
  log="$NEW/debootstrap/debootstrap.log"
  [[ -f $log ]] && { say "last lines of $log:"; tail -n 30 "$log" >&2; }
  die "debootstrap failed (mirror $MIRROR; set --mirror or OUTRIDER_ROOTS_MIRROR if it is not reachable)"
fi

# Check that what the root is for is there and works.
case "$KIND" in
  torch2)
    if ! "$SELF/enter.sh" --root "$NEW" -- /usr/bin/python3 -c \
        'import torch, torch.distributed as d; assert d.is_available(); print("torch", torch.__version__)' >&2; then
      die "torch.distributed does not import in the new root"
    fi
    for f in /usr/bin/cmake /usr/bin/g++ /usr/bin/ninja; do
      [[ -e $NEW$f ]] || die "the new root lacks $f"
    done
    "$SELF/enter.sh" --root "$NEW" -- /usr/bin/python3 -c 'import ensurepip, setuptools' ||
      die "the new root's Python cannot make a venv and build a package (ensurepip, setuptools)"
    ;;
  debian12)
    "$SELF/enter.sh" --isolated --root "$NEW" -- systemd-analyze --version >&2 ||
      die "systemd-analyze does not run in the new root"
    ;;
esac

# Downloaded packages are not needed any more.
rm -f "$NEW"/var/cache/apt/archives/*.deb "$NEW"/var/cache/apt/*.bin
echo "$STAMP" >"$NEW/$STAMP_FILE"
remove_tree "$ROOT_DIR"
mv "$NEW" "$ROOT_DIR"
say "made $ROOT_DIR in $((SECONDS - start)) s ($(du -sh --one-file-system "$ROOT_DIR" | cut -f1))"
echo "$ROOT_DIR"
