"""Two PyTorch DDP jobs across four agents train through a rolling restart of every agent.

Four agents on loopback stand for four nodes (one rank of each job per node). Two jobs run
tools/examples/train_lm.py unchanged (no retry, no elastic calls): one with sparse embedding
gradients, one dense. They train once with the agents left alone and once while every agent in
turn is stopped with SIGTERM, as systemd's restart and a DaemonSet's rolling update stop it, and
started again on its socket and port (with OUTRIDER_NEXT_AGENT: that build, the next release's,
one protocol version higher), --rounds times. Each stop waits until both jobs have trained past
the previous restart.
Checked: every trainer exits 0 in both runs (no op failed), each stopped agent says it handed both
jobs across nodes over, and each job's final parameters are bitwise equal to its uninterrupted
run's. Printed: the longest step of each job beside its median step in both runs.

Usage: python rolling_restart_test.py [--rounds R] [--steps S]
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
    return p.parse_args()


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Agent:
    """One node's agent: started, stopped and started again on the same socket and port."""

    def __init__(self, tmp, node):
        self.node = node
        self.sock = os.path.join(tmp, f"node{node}", "agent.sock")
        os.makedirs(os.path.dirname(self.sock), exist_ok=True)
        self.port = free_port()
        self.log_path = os.path.join(tmp, f"node{node}", "agent.log")
        self.proc = None

    def start(self, binary):
        r, w = os.pipe()
        with open(self.log_path, "ab") as log:
            self.proc = subprocess.Popen(
                [binary, "--socket", self.sock, "--port", str(self.port), "--listen-address", "127.0.0.1",
                 "--http-port", "0", "--heartbeat-ms", "200", "--peer-timeout-ms", "3000",
                 "--ready-fd", str(w)],
                pass_fds=[w], stdout=log, stderr=log,
                env=dict(os.environ, UCX_TLS="tcp", UCX_TCP_CM_REUSEADDR="y"))
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


def run(args, restart, tmp):
    binary = os.environ["OUTRIDER_AGENT"]
    next_binary = os.environ.get("OUTRIDER_NEXT_AGENT") or binary
    tag = "restart" if restart else "plain"
    agents = [Agent(os.path.join(tmp, tag), n) for n in range(NODES)]
    procs = {}
    try:
        for a in agents:
            a.start(binary)
        for job, (extra, times) in JOBS.items():
            port = free_port()
            for rank in range(NODES):
                env = dict(os.environ, RANK=str(rank), WORLD_SIZE=str(NODES), LOCAL_RANK="0", LOCAL_WORLD_SIZE="1",
                           MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port), OUTRIDER_SOCKET=agents[rank].sock,
                           OUTRIDER_ROOT_ADDR=f"127.0.0.1:{agents[0].port}", OUTRIDER_JOB_TOKEN="rolling",
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
    with tempfile.TemporaryDirectory(prefix="outrider-rolling-") as tmp:
        plain = run(args, False, tmp)
        restarted = run(args, True, tmp)
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
