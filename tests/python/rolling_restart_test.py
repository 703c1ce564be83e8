"""Two PyTorch DDP jobs across four agents train through a rolling restart of every agent.

Four agents stand for four nodes (one rank of each job per node): on loopback, or with --rate in
four network namespaces on a bridge whose links are shaped to RATE in both directions with tc tbf
(as tools/outrider run makes them; root only), the agents talking over those links. Two jobs run
tools/examples/train_lm.py unchanged (no retry, no elastic calls): one with sparse embedding
gradients, one dense. They train once with the agents left alone and once while every agent in
turn is stopped with SIGTERM, as systemd's restart and a DaemonSet's rolling update stop it, and
started again on its socket and port (with OUTRIDER_NEXT_AGENT: that build, the next release's,
one protocol version higher), --rounds times. Each stop waits until both jobs have trained past
the previous restart.
Checked: every trainer exits 0 in both runs (no op failed), each stopped agent says it handed both
jobs across nodes over, and each job's final parameters are bitwise equal to its uninterrupted
run's. Printed: the longest step of each job beside its median step in both runs.

Usage: python rolling_restart_test.py [--rounds R] [--steps S] [--rate RATE]
       (OUTRIDER_AGENT: the agent binary; OUTRIDER_NEXT_AGENT: the restarted one, default the same)
"""
import argparse
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TRAIN = os.path.join(ROOT, "tools", "examples", "train_lm.py")
NODES = 4
# Per job: its arguments, and its steps as a multiple of --steps. The dense job starts up to a
# second sooner (it reads less) and steps faster: three times the steps keep it training through
# every restart, which begin once the sparse one is under way.
JOBS = {"sparse": (["--sparse", "on", "--vocab", "20000", "--dim", "32"], 1),
        "dense": (["--sparse", "off", "--vocab", "5000", "--dim", "16"], 3)}


def parse_args():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--rounds", type=int, default=1, help="restarts of all four agents (default 1)")
    p.add_argument("--steps", type=int, default=300, help="training steps of the sparse job; the dense one runs three times as many (default 300)")
    p.add_argument("--rate", help="emulated nodes: namespaces whose links are shaped to RATE (e.g. 2gbit); default: loopback")
    return p.parse_args()


class Nodes:
    """Where the agents run: loopback, or (rate set) one network namespace per node, each node's
    eth0 a veth on one bridge, shaped to `rate` in both directions (egress in the namespace,
    ingress on the host side), node i at 10.78.<pid mod 256>.<i+1>."""

    BURST = "512kb"  # tools/outrider run's default

    def __init__(self, rate):
        self.rate = rate
        self.tag = f"orr{os.getpid()}"
        self.made = []  # what to delete, in reverse

    def __enter__(self):
        if self.rate is None:
            return self
        try:
            sh = lambda *cmd: subprocess.run(cmd, check=True, capture_output=True, text=True)
            bridge = f"{self.tag}b"
            sh("ip", "link", "add", "name", bridge, "type", "bridge")
            self.made.append(("link", bridge))
            sh("ip", "link", "set", "dev", bridge, "up")
            for n in range(NODES):
                ns, veth = f"{self.tag}n{n}", f"{self.tag}h{n}"
                sh("ip", "netns", "add", ns)
                self.made.append(("netns", ns))
                sh("ip", "link", "add", "name", veth, "type", "veth", "peer", "name", "eth0", "netns", ns)
                self.made.append(("link", veth))
                sh("ip", "netns", "exec", ns, "ip", "addr", "add", f"{self.address(n)}/24", "dev", "eth0")
                sh("ip", "netns", "exec", ns, "ip", "link", "set", "dev", "eth0", "up")
                sh("ip", "netns", "exec", ns, "ip", "link", "set", "dev", "lo", "up")
                sh("ip", "link", "set", "dev", veth, "master", bridge)
                sh("ip", "link", "set", "dev", veth, "up")
                shape = ["tbf", "rate", self.rate, "burst", self.BURST, "latency", "5ms"]
                sh("ip", "netns", "exec", ns, "tc", "qdisc", "add", "dev", "eth0", "root", *shape)
                sh("tc", "qdisc", "add", "dev", veth, "root", *shape)
        except (OSError, subprocess.CalledProcessError) as e:
            self.__exit__(None, None, None)
            detail = getattr(e, "stderr", "") or str(e)
            raise SystemExit(f"cannot make the emulated nodes ({' '.join(getattr(e, 'cmd', []) or [])}): {detail.strip()}")
        return self

    def __exit__(self, *exc):
        for kind, name in reversed(self.made):
            cmd = ["ip", "netns", "del", name] if kind == "netns" else ["ip", "link", "del", name]
            subprocess.run(cmd, capture_output=True)
        self.made = []

    def address(self, node):
        return "127.0.0.1" if self.rate is None else f"10.78.{os.getpid() % 256}.{node + 1}"

    def command(self, node, argv):
        """`argv` run on node `node`."""
        return argv if self.rate is None else ["ip", "netns", "exec", f"{self.tag}n{node}"] + argv

    def ucx_env(self):
        return {"UCX_TLS": "tcp", "UCX_TCP_CM_REUSEADDR": "y"} | ({} if self.rate is None else {"UCX_NET_DEVICES": "eth0"})


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Agent:
    """One node's agent: started, stopped and started again on the same socket and port."""

    def __init__(self, tmp, node, nodes):
        self.node = node
        self.nodes = nodes
        self.sock = os.path.join(tmp, f"node{node}", "agent.sock")
        os.makedirs(os.path.dirname(self.sock), exist_ok=True)
        self.address = nodes.address(node)
        self.port = free_port() if nodes.rate is None else 29750
        self.log_path = os.path.join(tmp, f"node{node}", "agent.log")
        self.proc = None

    def start(self, binary):
        r, w = os.pipe()
        with open(self.log_path, "ab") as log:
            self.proc = subprocess.Popen(
                self.nodes.command(self.node, [
                    binary, "--socket", self.sock, "--port", str(self.port), "--listen-address", self.address,
                    "--http-port", "0", "--heartbeat-ms", "200", "--peer-timeout-ms", "3000",
                    "--ready-fd", str(w)]),
                pass_fds=[w], stdout=log, stderr=log, env=dict(os.environ, **self.nodes.ucx_env()))
        os.close(w)
        with os.fdopen(r, "rb") as ready:
            if ready.read(1) != b"R":
                raise SystemExit(f"agent {self.node} did not start (exit {self.proc.wait()}); see {self.log_path}")

    def stop(self):
        """SIGTERM (the hand-over); returns the part of its log this agent wrote."""
        start = os.path.getsize(self.log_path)
        self.proc.send_signal(signal.SIGTERM)
        rc = self.proc.wait(timeout=30)
        with open(self.log_path, errors="replace") as f:
            f.seek(start)
            tail = f.read()
        if rc != 0:
            raise SystemExit(f"agent {self.node} exited {rc} when stopped; see {self.log_path}")
        return tail

    def kill(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


def run(args, restart, tmp, nodes):
    binary = os.environ["OUTRIDER_AGENT"]
    next_binary = os.environ.get("OUTRIDER_NEXT_AGENT") or binary
    tag = "restart" if restart else "plain"
    agents = [Agent(os.path.join(tmp, tag), n, nodes) for n in range(NODES)]
    procs = {}
    try:
        for a in agents:
            a.start(binary)
        for job, (extra, times) in JOBS.items():
            port = free_port()
            for rank in range(NODES):
                env = dict(os.environ, RANK=str(rank), WORLD_SIZE=str(NODES), LOCAL_RANK="0", LOCAL_WORLD_SIZE="1",
                           MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port), OUTRIDER_SOCKET=agents[rank].sock,
                           OUTRIDER_ROOT_ADDR=f"{agents[0].address}:{agents[0].port}", OUTRIDER_JOB_TOKEN="rolling",
                           OUTRIDER_JOB_ID=f"{job}-{tag}-{os.getpid()}", OMP_NUM_THREADS="1")
                out = os.path.join(tmp, f"{job}-{tag}.json")
                cmd = [sys.executable, TRAIN, "--backend", "outrider", "--steps", str(args.steps * times), "--batch", "32",
                       "--hidden", "32", "--classes", "200", "--max-words", "200000", "--json", out] + extra
                procs[(job, rank)] = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                                      text=True)
        # Rank 0 of each job prints every tenth step: restarts go while both train.
        seen = {job: -1 for job in JOBS}

        def wait_past(step):
            for job in JOBS:
                p = procs[(job, 0)]
                while seen[job] < step:
                    line = p.stdout.readline()
                    if not line:
                        raise SystemExit(f"job {job} ended before step {step}")
                    if line.strip().startswith("step "):
                        seen[job] = int(line.split()[1])

        if restart:
            wait_past(10)
            for rnd in range(args.rounds):
                for a in agents:
                    mark = max(seen.values())
                    t0 = time.monotonic()
                    said = a.stop()
                    a.start(next_binary)
                    took = time.monotonic() - t0
                    if "2 jobs across nodes handed over" not in said:
                        raise SystemExit(f"agent {a.node} did not hand both jobs over; see {a.log_path}")
                    print(f"round {rnd}: agent {a.node} stopped and started again in {took:.3f} s", flush=True)
                    wait_past(mark + 10)
        codes = {}
        for key, p in procs.items():
            p.stdout.read()
            codes[key] = p.wait(timeout=600)
        for a in agents:
            a.stop()
    except BaseException:
        for p in procs.values():
            if p.poll() is None:
                p.kill()
        for a in agents:
            a.kill()
            if os.path.exists(a.log_path):
                with open(a.log_path, errors="replace") as f:
                    print(f"agent {a.node} log (tail):\n" + "".join(f.readlines()[-20:]), flush=True)
        raise
    bad = {k: c for k, c in codes.items() if c != 0}
    if bad:
        raise SystemExit(f"{tag}: trainers exited {bad}; agent logs under {tmp}")
    results = {}
    for job in JOBS:
        with open(os.path.join(tmp, f"{job}-{tag}.json")) as f:
            row = json.load(f)["rows"][0]
        results[job] = row
        steps = row["step_times_us"]
        print(f"{tag}: job {job}: median step {statistics.median(steps) / 1e3:.1f} ms, longest "
              f"{max(steps) / 1e3:.1f} ms", flush=True)
    return results


def main():
    args = parse_args()
    with tempfile.TemporaryDirectory(prefix="outrider-rolling-") as tmp, Nodes(args.rate) as nodes:
        print(f"nodes: {'loopback' if args.rate is None else 'namespaces, links shaped to ' + args.rate}", flush=True)
        plain = run(args, False, tmp, nodes)
        restarted = run(args, True, tmp, nodes)
    ok = True
    for job in JOBS:
        if plain[job]["params_sha256"] != restarted[job]["params_sha256"]:
            print(f"job {job}: parameters differ from the uninterrupted run", flush=True)
            ok = False
        if plain[job]["losses"] != restarted[job]["losses"]:
            print(f"job {job}: losses differ from the uninterrupted run", flush=True)
            ok = False
    if not ok:
        return 1
    print("both jobs: parameters and losses bitwise equal to the uninterrupted run", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
