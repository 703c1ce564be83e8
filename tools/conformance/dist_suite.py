#!/usr/bin/python3
"""One test of PyTorch's backend suite (torch/testing/_internal/distributed/distributed_test.py),
run the way upstream's test/distributed/test_distributed_spawn.py runs it, against gloo or outrider.

    dist_suite.py TEST_NAME        (environment: see CONFORMANCE_* below; conformance.py sets it)

This process is the test's parent: it starts WORLD_SIZE rank processes ($CONFORMANCE_START_METHOD:
fork, or spawn as upstream does, where this file is their __main__ too), joins them, and writes
the outcome as JSON to $CONFORMANCE_RESULT:
{"status": pass|fail|error|timeout|skip, "reason": one line, "detail": the full error text}.

The suite is always imported with BACKEND=gloo, so every skip decision and every branch on the
backend's name takes gloo's side for both backends: the same tests run with the same checks, and
outrider is held to what the suite expects of gloo. For outrider, each rank process then gets its
node's environment (agent socket, local rank, job id) and every process group the test creates as
gloo, the default group included, is created as an outrider group. Departures, only in outrider's
rank processes: test_get_backend expects the backend's own name; the profiler events of
collectives are checked only with CONFORMANCE_PROFILER_CHECKS=1 (the suite checks them only for
the backends on its lists, which is how it treats any plugin backend). For both backends, DDP may
stay in its default mode (_keep_ddp_default_mode says when and why).
"""
import faulthandler
import json
import os
import re
import signal
import sys
import time
import traceback
import unittest

# Set by conformance.py for the test's parent; inherited by the rank processes.
SUITE_BACKEND = os.environ.get("CONFORMANCE_BACKEND", "gloo")      # gloo | outrider
START_METHOD = os.environ.get("CONFORMANCE_START_METHOD", "spawn")  # spawn (upstream) | fork
# outrider only: agent sockets in node order; ranks per node (rank r is on node r // that).
AGENT_SOCKETS = [s for s in os.environ.get("CONFORMANCE_AGENT_SOCKETS", "").split(",") if s]
RANKS_PER_NODE = int(os.environ.get("CONFORMANCE_RANKS_PER_NODE", "1"))
# 1: the suite also checks that outrider's collectives show up in the profiler, as it does for
# gloo's (it checks that only for the backends on its lists, which name no plugin backend).
PROFILER_CHECKS = os.environ.get("CONFORMANCE_PROFILER_CHECKS") == "1"
# Tests whose expectation is the name of the backend under test rather than gloo's behaviour.
OWN_NAME_TESTS = {"test_get_backend"}

os.environ["BACKEND"] = "gloo"
# common_utils parses sys.argv when it is imported; our own argument means nothing to it.
_argv, sys.argv = sys.argv, sys.argv[:1]

import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402
import torch.distributed.distributed_c10d as c10d  # noqa: E402

torch.backends.cuda.matmul.allow_tf32 = False

from torch.testing._internal.common_distributed import get_timeout  # noqa: E402
from torch.testing._internal.distributed import distributed_test  # noqa: E402
from torch.testing._internal.distributed.distributed_test import DistributedTest, TestDistBackend  # noqa: E402

sys.argv = _argv
# Python stacks of every thread on SIGUSR1, for a runner that finds the test hanging; written from
# the signal handler, so a thread holding the GIL does not stop it. Forked ranks inherit it, and
# spawned ones import this module again.
faulthandler.register(signal.SIGUSR1, all_threads=True)
if SUITE_BACKEND == "outrider":
    import outrider_torch  # noqa: E402,F401  (registers the backend)


def _die_with_parent():
    """A rank process outlives a killed parent otherwise (the runner's timeout kills the whole
    process group, but a parent killed alone would leave its ranks waiting forever)."""
    try:
        import ctypes
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
        if os.getppid() == 1:
            os._exit(1)
    except (OSError, AttributeError):
        pass


def _prepare_outrider_rank(rank, test_name):
    """Environment of rank `rank` as a launcher would give it on its node, and gloo -> outrider."""
    node = rank // RANKS_PER_NODE
    os.environ.update({
        "RANK": str(rank),
        "LOCAL_RANK": str(rank % RANKS_PER_NODE),
        "LOCAL_WORLD_SIZE": str(RANKS_PER_NODE),
        "GROUP_RANK": str(node),
        "OUTRIDER_SOCKET": AGENT_SOCKETS[node],
    })
    helper = c10d._new_process_group_helper

    def new_process_group_helper(group_size, group_rank, global_ranks_in_group, backend, store, *args, **kwargs):
        if dist.Backend(backend) == dist.Backend.GLOO:
            backend = "outrider"
        return helper(group_size, group_rank, global_ranks_in_group, backend, store, *args, **kwargs)

    c10d._new_process_group_helper = new_process_group_helper
    if PROFILER_CHECKS:
        for name in ("PROFILING_SUPPORTED_BACKENDS", "SEND_RECV_PROFILING_SUPPORTED_BACKENDS"):
            getattr(distributed_test, name).append("outrider")
    if test_name in OWN_NAME_TESTS:
        distributed_test.BACKEND = "outrider"


def _keep_ddp_default_mode():
    """The suite's harness switches DDP to its experimental ReplicatedTensor mode, which imports
    torch.distributed._shard.sharded_tensor; with torch 1.13 on Python 3.11 that import fails
    (a dataclass field with a mutable default), so every DDP test would fail for every backend.
    When it fails here, DDP stays in its default mode, the one training code runs."""
    try:
        import torch.distributed._shard.sharded_tensor  # noqa: F401
    except ValueError:
        from torch.nn.parallel import _replicated_tensor_ddp_utils
        _replicated_tensor_ddp_utils._set_ddp_with_replicated_tensor = lambda value: None


class TestDistBackendWithSpawn(TestDistBackend, DistributedTest._DistTestBase):
    def setUp(self):
        super().setUp()
        self._start_processes(torch.multiprocessing.get_context(START_METHOD).Process)
        torch.backends.cudnn.flags(enabled=True, allow_tf32=False).__enter__()

    @classmethod
    def _run(cls, rank, test_name, file_name, pipe, *args, **kwargs):  # 2.x passes more (fake_pg=...)
        _die_with_parent()
        _keep_ddp_default_mode()
        if SUITE_BACKEND == "outrider":
            _prepare_outrider_rank(rank, test_name)
        super()._run(rank, test_name, file_name, pipe, *args, **kwargs)


FRAME = re.compile(r'^  File "(?P<file>[^"]+)", line (?P<line>\d+), in (?P<func>\S+)$')


def first_exception_line(tb):
    """One line for a formatted traceback: the last exception's first line (and, for an assertion,
    its next line: what differed), then where the suite raised it: [distributed_test.py:LINE code]."""
    lines = tb.rstrip().splitlines()
    frames = [i for i, l in enumerate(lines) if FRAME.match(l)]
    start = frames[-1] + 2 if frames else 0
    body = [l for l in lines[start:] if l.strip() and not l.startswith(" ")]
    if not body:
        return lines[-1].strip() if lines else ""
    out = body[0].strip()
    if out.startswith("AssertionError") and len(body) > 1:
        out += " " + body[1].strip()
    suite_frames = [i for i in frames if "/distributed_test.py" in lines[i]]
    if suite_frames:
        i = suite_frames[-1]
        code = lines[i + 1].strip() if i + 1 < len(lines) else ""
        out += f" [distributed_test.py:{FRAME.match(lines[i]).group('line')} {code[:80]}]"
    return out


RANK_ERROR = re.compile(r"Process (\d+) exited with error code \d+ and exception:\n")
TIMED_OUT = re.compile(r"Process (\d+) terminated or timed out after ([\d.]+) seconds")
EXIT_MISMATCH = re.compile(r"Expect process (\d+) exit code to match Process 0 exit code of (-?\d+), but got (-?\d+)")
NONZERO_EXIT = re.compile(r"Expected zero exit code but got (-?\d+)")


def classify(text, timeout_s):
    """(status, reason) of a test whose parent raised: `text` is its formatted traceback."""
    starts = list(RANK_ERROR.finditer(text))
    if starts:
        # The exceptions the rank processes raised; the first rank's decides, the others are named.
        blocks = [(m.group(1), text[m.end():starts[i + 1].start() if i + 1 < len(starts) else len(text)])
                  for i, m in enumerate(starts)]
        rank, block = blocks[0]
        line = first_exception_line(block)
        status = "fail" if line.startswith("AssertionError") else "error"
        ranks = ",".join(r for r, _ in blocks)
        return status, f"rank {ranks}: {line}"
    m = TIMED_OUT.search(text)
    if m:
        if float(m.group(2)) >= timeout_s - 1:
            return "timeout", f"rank {m.group(1)} still running after {float(m.group(2)):.0f} s"
        return "error", f"rank {m.group(1)} did not exit cleanly"
    m = EXIT_MISMATCH.search(text)
    if m:
        return "error", f"rank {m.group(1)} exited with {_exit_name(int(m.group(3)))}, rank 0 with {_exit_name(int(m.group(2)))}"
    m = NONZERO_EXIT.search(text)
    if m:
        return "error", f"every rank exited with {_exit_name(int(m.group(1)))}"
    line = first_exception_line(text)
    return ("fail" if line.startswith("AssertionError") else "error"), line


def _exit_name(code):
    if code < 0:
        try:
            return f"signal {signal.Signals(-code).name}"
        except ValueError:
            return f"signal {-code}"
    return f"code {code}"


def list_tests():
    """Every test of the suite and, for those the suite skips before starting any process (its
    decorators, evaluated for gloo at this world size), the reason: {name: reason or null}."""
    tests = {}
    for name in sorted(n for n in dir(TestDistBackendWithSpawn) if n.startswith("test_")):
        method = getattr(TestDistBackendWithSpawn, name)
        tests[name] = getattr(method, "__unittest_skip_why__", None) if getattr(method, "__unittest_skip__", False) else None
    return tests


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: dist_suite.py TEST_NAME|--list (run by tools/conformance/conformance.py)")
    name = sys.argv[1]
    if name == "--list":
        json.dump({"suite": distributed_test.__file__, "torch": torch.__version__, "tests": list_tests()}, sys.stdout)
        return
    out = os.environ["CONFORMANCE_RESULT"]
    result = {"status": "error", "reason": "", "detail": ""}
    try:
        if not hasattr(TestDistBackendWithSpawn, name):
            raise ValueError(f"no test {name} in {distributed_test.__file__}")
        res = unittest.TestResult()
        started = time.monotonic()
        TestDistBackendWithSpawn(name).run(res)
        result["duration_s"] = round(time.monotonic() - started, 2)
        if res.skipped:
            result.update(status="skip", reason=res.skipped[0][1].strip().splitlines()[0])
        elif res.errors or res.failures:
            text = (res.errors + res.failures)[0][1]
            status, reason = classify(text, get_timeout(name))
            result.update(status=status, reason=reason, detail=text)
        elif res.testsRun == 1:
            result.update(status="pass")
    except Exception:  # the runner itself failed: still leave a result
        text = traceback.format_exc()
        result.update(status="error", reason="runner: " + first_exception_line(text), detail=text)
    with open(out + ".tmp", "w") as f:
        json.dump(result, f)
    os.replace(out + ".tmp", out)


if __name__ == "__main__":
    main()
