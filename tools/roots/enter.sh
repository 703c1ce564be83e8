#!/usr/bin/env bash
# tools/roots/enter.sh — runs a command inside a root of tools/roots/make-root.sh. By default with
# the host's /proc, /sys, /dev (and /dev/shm), /tmp, /etc/hosts and this repository at the same
# paths, so a rank started there reaches the host's agent through its socket under /tmp and shares
# memfds with it (the PyTorch 2.x root). --isolated shares only /proc, /sys, /dev and name
# resolution; --overlay writes every change to a directory of its own, leaving the root as it was
# (the clean Debian 12 root of the package test).
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
PROG="roots/enter"
ROOT_DIR="${OUTRIDER_TORCH2_ROOT:-/var/cache/outrider/trixie-root}"

usage() {
  cat <<'USAGE'
usage: tools/roots/enter.sh [--root DIR] [--isolated] [--private-network] [--overlay DIR] -- CMD [ARGS...]

Runs CMD (as root, environment and working directory kept when the directory is inside the root
too) chrooted into a root made by tools/roots/make-root.sh. The mounts live in a private mount
namespace (unshare --mount) that ends with CMD: nothing stays mounted afterwards, whatever way
CMD ends, and concurrent runs do not see each other's mounts. Bind-mounted (recursively): /proc,
/sys, /dev (with /dev/shm and /dev/pts), /tmp, /etc/hosts (read-only) and the repository at its
own path. Exit status: CMD's.

options:
  --root DIR      the root (default $OUTRIDER_TORCH2_ROOT, else /var/cache/outrider/trixie-root)
  --isolated      bind only /proc, /sys, /dev, /etc/hosts and /etc/resolv.conf (read-only): no
                  /tmp, no repository
  --private-network
                  CMD in a network namespace of its own with only loopback (up): its ports
                  meet nothing of the host's
  --overlay DIR   the root seen through an overlay whose writes go to DIR/upper (made if missing;
                  DIR/work is the overlay's scratch): the root itself is not changed, and DIR
                  holds everything CMD changed
USAGE
}

say() { printf '%s: %s\n' "$PROG" "$*" >&2; }
die() { say "error: $*"; exit 1; }

IN_NAMESPACE=0 ISOLATED=0 PRIVATE_NET=0 OVERLAY=""
while (($#)); do
  case "$1" in
    --root) (($# >= 2)) || die "--root needs a value"; ROOT_DIR="$2"; shift 2 ;;
    --isolated) ISOLATED=1; shift ;;
    --private-network) PRIVATE_NET=1; shift ;;
    --overlay) (($# >= 2)) || die "--overlay needs a value"; OVERLAY="$2"; shift 2 ;;
    --in-namespace) IN_NAMESPACE=1; shift ;;  # internal: the re-executed copy inside unshare
    -h|--help) usage; exit 0 ;;
    --) shift; break ;;
    *) say "unknown option $1"; usage >&2; exit 2 ;;
  esac
done
(($# > 0)) || { usage >&2; exit 2; }
ROOT_DIR="${ROOT_DIR%/}"
[[ $ROOT_DIR == /* && $ROOT_DIR != "" ]] || die "--root must be an absolute path other than /"
[[ -e $ROOT_DIR/etc/debian_version && -x $ROOT_DIR/bin/sh ]] ||
  die "$ROOT_DIR is not a root made by tools/roots/make-root.sh (run it first)"
[[ -z $OVERLAY || $OVERLAY == /* ]] || die "--overlay must be an absolute path, got '$OVERLAY'"
[[ $(id -u) -eq 0 ]] || die "entering the root needs root (mount, chroot): run as root (or with sudo)"

if ((!IN_NAMESPACE)); then
  command -v unshare >/dev/null || die "unshare (util-linux) is missing"
  extra=() net=()
  ((ISOLATED)) && extra+=(--isolated)
  ((PRIVATE_NET)) && extra+=(--private-network) && net=(--net)
  [[ -n $OVERLAY ]] && extra+=(--overlay "$OVERLAY")
  exec unshare --mount "${net[@]}" --propagation private -- "${BASH_SOURCE[0]}" --in-namespace --root "$ROOT_DIR" \
    "${extra[@]}" -- "$@"
fi

# Inside the private mount namespace: these mounts vanish with it.
if ((PRIVATE_NET)); then
  ip link set lo up || die "cannot bring up loopback in the new network namespace (iproute2)"
fi
if [[ -n $OVERLAY ]]; then
  mkdir -p "$OVERLAY/upper" "$OVERLAY/work" "$OVERLAY/merged"
  mount -t overlay overlay -o "lowerdir=$ROOT_DIR,upperdir=$OVERLAY/upper,workdir=$OVERLAY/work" \
    "$OVERLAY/merged" || die "cannot mount an overlay of $ROOT_DIR on $OVERLAY/merged"
  ROOT_DIR="$OVERLAY/merged"
fi
bind() {  # bind SOURCE TARGET-INSIDE-ROOT [ro]
  local src="$1" dst="$ROOT_DIR$2"
  if [[ -d $src ]]; then mkdir -p "$dst"; else [[ -e $dst ]] || : >"$dst"; fi
  mount --rbind "$src" "$dst" || die "cannot bind-mount $src on $dst"
  if [[ ${3:-} == ro ]]; then mount -o remount,bind,ro "$dst" || die "cannot make $dst read-only"; fi
}
bind /proc /proc
bind /sys /sys
bind /dev /dev
bind /etc/hosts /etc/hosts ro
if ((ISOLATED)); then
  [[ -e /etc/resolv.conf ]] && bind "$(realpath /etc/resolv.conf)" /etc/resolv.conf ro
else
  bind /tmp /tmp
  bind "$REPO" "$REPO"
fi

dir="$PWD"
[[ -d $ROOT_DIR$dir ]] || dir=/
# shellcheck disable=SC2016  # $1 and $@ are the inner shell's
exec chroot "$ROOT_DIR" /bin/sh -c 'cd "$1" && shift && exec "$@"' sh "$dir" "$@"
