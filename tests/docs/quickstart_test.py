#!/usr/bin/env python3
"""The quick starts run as written (CTest docs.quickstarts): every ```sh block of README.md, and
every ```sh block of docs/*.md marked as a quick start, runs from the repository's root with
bash -e, one block at a time, each within a time limit; a block fails the test when it exits
non-zero. A marker on the line before a block's fence says otherwise:

  <!-- doc-test: run -->                  a quick start of docs/*.md: run it (README's always run)
  <!-- doc-test: skip: needs REASON -->   not run here: it needs a GPU, Kubernetes or a second
                                          machine (REASON says which); the summary lists them
  <!-- doc-test: by TEST: WHAT -->        run where it belongs by another CTest test (TEST must
                                          be one, e.g. package.install_debian12 installs the .deb
                                          into a clean Debian 12 root and runs the block there)

A line that .ci/run itself runs (tools/outrider test) is not run again inside the test suite it
starts. Blocks of docs/*.md without a marker are reference material (multi-node recipes,
benchmark and conformance options), not quick starts, and are counted but not run.

  quickstart_test.py                   run every quick start
  quickstart_test.py --list            list the blocks and what happens to each
  quickstart_test.py --block MARKER    print the block marked `by MARKER` (its commands, for the
                                       test that runs it) and exit
"""
import argparse
import glob
import os
import re
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MARKER = re.compile(r"^<!--\s*doc-test:\s*(run|skip|by)\b:?\s*(.*?)\s*-->\s*$")
BLOCK_TIMEOUT_S = 1200


class Block:
    def __init__(self, path, line, text, kind, detail):
        self.path, self.line, self.text, self.kind, self.detail = path, line, text, kind, detail

    def where(self):
        return f"{os.path.relpath(self.path, ROOT)}:{self.line}"


def blocks(path):
    """The ```sh blocks of a Markdown file with the marker before each (kind None without one)."""
    out, lines = [], open(path).read().split("\n")
    i = 0
    while i < len(lines):
        if lines[i].strip() == "```sh":
            start, body = i, []
            i += 1
            while i < len(lines) and lines[i].strip() != "```":
                body.append(lines[i])
                i += 1
            m = MARKER.match(lines[start - 1]) if start > 0 else None
            kind, detail = (m.group(1), m.group(2)) if m else (None, "")
            out.append(Block(path, start + 1, "\n".join(body) + "\n", kind, detail))
        i += 1
    return out


def all_blocks():
    found = []
    for path in [os.path.join(ROOT, "README.md")] + sorted(glob.glob(os.path.join(ROOT, "docs", "*.md"))):
        for b in blocks(path):
            if b.kind is None:
                b.kind = "run" if path.endswith("README.md") else "reference"
            found.append(b)
    return found


def ci_lines():
    """The commands .ci/run runs, one per line."""
    with open(os.path.join(ROOT, ".ci", "run")) as f:
        return {l.strip() for l in f if l.strip() and not l.lstrip().startswith("#")}


def command_of(line):
    return line.split(" #", 1)[0].strip()


def ctest_names(build):
    r = subprocess.run(["ctest", "-N"], cwd=build, capture_output=True, text=True)
    return set(re.findall(r"Test\s+#\d+: (\S+)", r.stdout))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--block", metavar="MARKER")
    ap.add_argument("--build", default=os.environ.get("OUTRIDER_BUILD_DIR", os.path.join(ROOT, "build")))
    args = ap.parse_args()
    found = all_blocks()
    if args.block:
        chosen = [b for b in found if b.kind == "by" and b.detail.split(":")[0].strip() == args.block]
        if len(chosen) != 1:
            print(f"quickstart_test: {len(chosen)} blocks are marked `by {args.block}`, not one", file=sys.stderr)
            return 2
        sys.stdout.write(chosen[0].text)
        return 0
    if args.list:
        for b in found:
            print(f"{b.where():28} {b.kind:9} {b.detail or b.text.splitlines()[0][:70]}")
        return 0

    failed, ran, skipped, by, reference = [], 0, [], [], 0
    ci = ci_lines()
    tests = ctest_names(args.build)
    for b in found:
        if b.kind == "reference":
            reference += 1
            continue
        if b.kind == "skip":
            if not b.detail.startswith("needs "):
                failed.append(f"{b.where()}: a skipped block must say what it needs ('skip: needs ...')")
            skipped.append(f"{b.where()} ({b.detail})")
            continue
        if b.kind == "by":
            test = b.detail.split(":")[0].strip()
            ok = test in tests
            print(("ok   - " if ok else "FAIL - ") + f"{b.where()} is run by CTest {test}", flush=True)
            if not ok:
                failed.append(f"{b.where()}: no CTest test {test}")
            by.append(b.where())
            continue
        script, left_to_ci = [], []
        for line in b.text.splitlines():
            (left_to_ci if command_of(line) in ci else script).append(line)
        for line in left_to_ci:
            print(f"# {b.where()}: `{command_of(line)}` is .ci/run's own command; not run again here")
        print(f"# {b.where()}:\n" + "".join(f"#   {l}\n" for l in script), end="", flush=True)
        start = time.monotonic()
        try:
            r = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", "\n".join(script)], cwd=ROOT,
                               timeout=BLOCK_TIMEOUT_S, stdin=subprocess.DEVNULL, capture_output=True, text=True)
            code, out = r.returncode, r.stdout + r.stderr
        except subprocess.TimeoutExpired as e:
            code, out = "timeout", (e.stdout or b"").decode(errors="replace") + (e.stderr or b"").decode(errors="replace")
        took = time.monotonic() - start
        ran += 1
        if code == 0:
            print(f"ok   - {b.where()} ({took:.0f} s)", flush=True)
        else:
            print(f"FAIL - {b.where()} exited {code} after {took:.0f} s; its last output:\n{out[-4000:]}", flush=True)
            failed.append(b.where())
    print(f"# {ran} run, {len(by)} run by other tests, {len(skipped)} skipped, {reference} reference blocks of docs/ not "
          f"quick starts")
    for s in skipped:
        print(f"# skipped: {s}")
    if failed:
        print("FAILED: " + "; ".join(failed))
        return 1
    print("all quick starts passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
