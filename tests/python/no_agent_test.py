#!/usr/bin/python3
"""init_process_group("outrider") without a running agent raises a RuntimeError that says what to
check, within the shim's connect deadline (no hang)."""
import os
import sys
import tempfile
import time

import torch.distributed as dist

import outrider_torch  # noqa: F401  (registers the backend)

os.environ["OUTRIDER_SOCKET"] = os.path.join(tempfile.mkdtemp(prefix="outrider-noagent-"), "agent.sock")
store = os.path.join(tempfile.mkdtemp(prefix="outrider-store-"), "store")
start = time.monotonic()
try:
    dist.init_process_group("outrider", init_method="file://" + store, rank=0, world_size=1)
except RuntimeError as e:
    took = time.monotonic() - start
    ok = "cannot reach this node's agent" in str(e) and "is outrider-agent running?" in str(e)
    print(("ok   - " if ok else "FAIL - ") + f"no agent: RuntimeError after {took:.1f} s: {e}")
    sys.exit(0 if ok and took < 30 else 1)
print("FAIL - init_process_group succeeded without an agent")
sys.exit(1)
