"""Loopback agents for the conformance run: one outrider-agent per emulated node, all on 127.0.0.1
with their own socket and rendezvous port (as `tools/cluster/run.sh --loopback` starts them), so
a job of 2 nodes x P ranks crosses the agents' network path. Readiness comes through --ready-fd.

Thread-safety: one thread at a time (the runner holds a lock around every call).
"""
import ctypes
import os
import select
import shutil
import signal
import socket
import subprocess
import time

READY_TIMEOUT_S = 10


_port_cursor = [os.getpid() * 7919]


def quiet_ports(n=1):
    """n consecutive TCP ports that nothing on 127.0.0.1 holds now, outside the kernel's ephemeral
    range, so that no socket bound to port 0 or connecting out (other agents' UCX interfaces) takes
    one before an agent binds it; below tools/cluster/run.sh's loopback ports (29500-30749). A
    cursor starting at a PID-derived offset walks the candidates, so successive calls (and
    concurrent runs) differ."""
    with open("/proc/sys/net/ipv4/ip_local_port_range") as f:
        lo, hi = (int(x) for x in f.read().split())
    candidates = [p for p in range(20000, 29500 - n + 1) if p + n - 1 < lo or p > hi]
    for _ in range(len(candidates)):
        base = candidates[_port_cursor[0] % len(candidates)]
        _port_cursor[0] += n
        if all(_free(p) for p in range(base, base + n)):
            return list(range(base, base + n))
    # An ephemeral range that covers 20000-29499: ports of the kernel's choosing, consecutive if
    # they happen to be.
    for _ in range(100):
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
            s.bind(("127.0.0.1", 0))
            base = s.getsockname()[1]
        if base + n - 1 <= 65535 and all(_free(p) for p in range(base + 1, base + n)):
            return list(range(base, base + n))
    raise RuntimeError(f"no {n} free consecutive ports on 127.0.0.1")


def _free(port):
    """Whether nothing on 127.0.0.1 holds `port`, in any state: bound without SO_REUSEADDR, so
    that a port in TIME_WAIT counts as taken."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        try:
            s.bind(("127.0.0.1", port))
            return True
        except OSError:
            return False


def die_with_parent():
    """preexec_fn: the child gets SIGTERM when the runner dies, whatever kills it."""
    ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


def dump_stacks(pgid, out, gdb_timeout_s=30):
    """Appends to the open file `out` the stacks of every process in process group `pgid`: Python
    stacks (SIGUSR1, for which the suite's processes register faulthandler: it needs no GIL) and,
    where gdb is installed, every thread's native stack. For a test about to time out."""
    pids = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                if os.getpgid(int(entry)) == pgid:
                    pids.append(int(entry))
            except (ProcessLookupError, PermissionError):
                pass
    out.write(f"\n===== conformance: stacks of the test's processes {sorted(pids)} =====\n")
    out.flush()
    for pid in sorted(pids):
        try:
            os.kill(pid, signal.SIGUSR1)
        except ProcessLookupError:
            pass
    time.sleep(0.5)  # faulthandler writes from a signal handler: nothing to wait on but time
    gdb = shutil.which("gdb")
    for pid in sorted(pids):
        if gdb is None:
            break
        out.write(f"\n----- native stacks of pid {pid} -----\n")
        out.flush()
        try:
            subprocess.run([gdb, "-p", str(pid), "-batch", "-nx", "-ex", "thread apply all bt 30"], stdout=out,
                           stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL, timeout=gdb_timeout_s)
        except subprocess.TimeoutExpired:
            out.write("(gdb timed out)\n")
    out.write("===== conformance: end of stacks =====\n")
    out.flush()


def stop_group(proc, grace_s=5):
    """SIGTERM to the process group led by `proc` (started with start_new_session), SIGKILL after
    `grace_s`; then SIGKILL to whatever of the group is left (children that outlived it)."""
    if proc.poll() is None:
        try:
            os.killpg(proc.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        try:
            proc.wait(grace_s)
        except subprocess.TimeoutExpired:
            pass
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    proc.wait()


class LoopbackAgents:
    def __init__(self, binary, nodes, run_dir, log_dir, extra_args=()):
        self.binary = binary
        self.nodes = nodes
        self.run_dir = run_dir  # sockets
        self.log_dir = log_dir
        self.extra_args = list(extra_args)
        self.procs = []
        self.sockets = []
        self.ports = []
        self.starts = 0  # how many times the set was started (restarts = starts - 1)

    @property
    def root_addr(self):
        return f"127.0.0.1:{self.ports[0]}"

    def log_path(self, node):
        return os.path.join(self.log_dir, f"agent-node{node}.{self.starts}.log")

    def start(self):
        self.stop()
        self.starts += 1
        self.sockets, self.ports = [], []
        env = dict(os.environ, UCX_TLS="tcp", UCX_NET_DEVICES="lo", UCX_TCP_CM_REUSEADDR="y")
        for node in range(self.nodes):
            node_dir = os.path.join(self.run_dir, f"node{node}")
            os.makedirs(node_dir, exist_ok=True)
            os.makedirs(self.log_dir, exist_ok=True)
            sock = os.path.join(node_dir, "agent.sock")
            port = quiet_ports()[0]
            ready_r, ready_w = os.pipe()
            cmd = [self.binary, "--socket", sock, "--port", str(port), "--listen-address", "127.0.0.1",
                   "--log-level", "info", "--http-port", "0", *self.extra_args, "--ready-fd", str(ready_w)]
            with open(self.log_path(node), "w") as log:
                proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, env=env,
                                        pass_fds=(ready_w,), start_new_session=True, preexec_fn=die_with_parent)
            os.close(ready_w)
            self.procs.append(proc)
            try:
                ready, _, _ = select.select([ready_r], [], [], READY_TIMEOUT_S)
                ok = bool(ready) and os.read(ready_r, 1) != b""
            finally:
                os.close(ready_r)
            if not ok:
                time.sleep(0.2)
                why = f"exited with code {proc.poll()}" if proc.poll() is not None else f"was not ready within {READY_TIMEOUT_S} s"
                with open(self.log_path(node)) as f:
                    tail = "".join(f.readlines()[-20:])
                self.stop()
                raise RuntimeError(f"agent of node {node} {why}; last lines of {self.log_path(node)}:\n{tail}")
            self.sockets.append(sock)
            self.ports.append(port)

    def dead(self):
        """[(node, exit code)] of agents that are no longer running."""
        return [(node, p.returncode) for node, p in enumerate(self.procs) if p.poll() is not None]

    def stop(self):
        for proc in self.procs:
            stop_group(proc)
        self.procs = []
