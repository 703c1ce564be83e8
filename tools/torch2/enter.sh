#!/usr/bin/env bash
# tools/torch2/enter.sh — runs a command inside the PyTorch 2.x root of tools/torch2/make-root.sh,
# with the host's /proc, /sys, /dev (and /dev/shm), /tmp, /etc/hosts and this repository at the
# same paths, so a rank started there reaches the host's agent through its socket under /tmp and
# shares memfds with it.
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
PROG="torch2/enter"
ROOT_DIR="${OUTRIDER_TORCH2_ROOT:-/var/cache/outrider/trixie-root}"

usage() {
  cat <<'USAGE'
usage: tools/torch2/enter.sh [--root DIR] -- CMD [ARGS...]

Runs CMD (as root, environment and working directory kept when the directory is inside the root
too) chrooted into the root made by tools/torch2/make-root.sh. The mounts live in a private mount
namespace (unshare --mount) that ends with CMD: nothing stays mounted afterwards, whatever way
CMD ends, and concurrent runs do not see each other's mounts. Bind-mounted (recursively): /proc,
/sys, /dev (with /dev/shm and /dev/pts), /tmp, /etc/hosts (read-only) and the repository at its
own path. Exit status: CMD's.

options:
  --root DIR   the root (default $OUTRIDER_TORCH2_ROOT, else /var/cache/outrider/trixie-root)
USAGE
}

say() { printf '%s: %s\n' "$PROG" "$*" >&2; }
die() { say "error: $*"; exit 1; }

IN_NAMESPACE=0
while (($#)); do
  case "$1" in
    --root) (($# >= 2)) || die "--root needs a value"; ROOT_DIR="$2"; shift 2 ;;
    --in-namespace) IN_NAMESPACE=1; shift ;;  # internal: the re-executed copy inside unshare
    -h|--help) usage; exit 0 ;;
    --) shift; break ;;
    *) say "unknown option $1"; usage >&2; exit 2 ;;
  esac
done
(($# > 0)) || { usage >&2; exit 2; }
ROOT_DIR="${ROOT_DIR%/}"
[[ $ROOT_DIR == /* && $ROOT_DIR != "" ]] || die "--root must be an absolute path other than /"
[[ -x $ROOT_DIR/usr/bin/python3 ]] || die "$ROOT_DIR is not a root made by tools/torch2/make-root.sh (run it first)"
[[ $(id -u) -eq 0 ]] || die "entering the root needs root (mount, chroot): run as root (or with sudo)"

if ((!IN_NAMESPACE)); then
  command -v unshare >/dev/null || die "unshare (util-linux) is missing"
  exec unshare --mount --propagation private -- "${BASH_SOURCE[0]}" --in-namespace --root "$ROOT_DIR" -- "$@"
fi

# Inside the private mount namespace: these mounts vanish with it.
bind() {  # bind SOURCE TARGET-INSIDE-ROOT [ro]
  local src="$1" dst="$ROOT_DIR$2"
  if [[ -d $src ]]; then mkdir -p "$dst"; else [[ -e $dst ]] || : >"$dst"; fi
  mount --rbind "$src" "$dst" || die "cannot bind-mount $src on $dst"
  if [[ ${3:-} == ro ]]; then mount -o remount,bind,ro "$dst" || die "cannot make $dst read-only"; fi
}
bind /proc /proc
bind /sys /sys
bind /dev /dev
bind /tmp /tmp
bind /etc/hosts /etc/hosts ro
bind "$REPO" "$REPO"

dir="$PWD"
[[ -d $ROOT_DIR$dir ]] || dir=/
# shellcheck disable=SC2016  # $1 and $@ are the inner shell's
exec chroot "$ROOT_DIR" /bin/sh -c 'cd "$1" && shift && exec "$@"' sh "$dir" "$@"
