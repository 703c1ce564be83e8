"""What the torch backend's tests share: the rank, the world size and the check that stops a rank
at the first failure (every rank runs the test; rank 0 reports what passed)."""
import os
import sys

RANK = int(os.environ["RANK"])
WORLD = int(os.environ["WORLD_SIZE"])


def check(what, ok, detail=""):
    if not ok:
        print(f"rank {RANK}: FAIL - {what}: {detail}", flush=True)
        sys.exit(1)
    if RANK == 0:
        print(f"ok   - {what}", flush=True)
