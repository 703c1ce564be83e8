"""A plain DDP job on one node trains through a drain and an upgrade of its agent.

Two trainers (unchanged DDP training code: no retry, no elastic calls) train a small model with a
fixed seed, once with the agent left alone and once with the agent drained (`outriderctl drain`,
the hand-over SIGTERM also starts) during step --restart-step + 1 and another started on the same
socket, as an operator upgrading it does. In that step rank 1 is held back until the agent has
stopped, so rank 0's gradient allreduces wait in the agent when the drain comes: the agent gives
them back, and rank 0 submits them at the next one.
Checked: every trainer exits 0 in both runs (no op failed), the agent said it gave ops back, and
the final parameters are bitwise equal to the uninterrupted run's. Printed: the longest step of
each run beside the median step, i.e. the pause the restart cost. With OUTRIDER_NEXT_AGENT the
restarted agent is that binary, the next release's build (one protocol version higher), and the
trainers' shims, unchanged, are checked to be served by it in their own version: an upgrade.

Usage: python agent_restart_test.py   (OUTRIDER_AGENT: the agent binary; OUTRIDER_NEXT_AGENT: the
                                       restarted one, default the same)
"""
import argparse
import hashlib
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request


def parse_args():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--steps", type=int, default=40)
    p.add_argument("--restart-step", type=int, default=15)
    p.add_argument("--rank", type=int, default=-1, help=argparse.SUPPRESS)  # a trainer
    return p.parse_args()


def trainer(args):
    import torch
    import torch.distributed as dist
    from torch.nn.parallel import DistributedDataParallel as DDP

    import outrider_torch  # noqa: F401

    dist.init_process_group("outrider")
    rank, world = dist.get_rank(), dist.get_world_size()
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(64, 256), torch.nn.ReLU(), torch.nn.Linear(256, 8))
    ddp = DDP(model, bucket_cap_mb=0.05)  # several buckets: several allreduces in flight
    opt = torch.optim.SGD(ddp.parameters(), lr=0.05, momentum=0.9)
    steps = []
    for step in range(args.steps):
        if rank == 1 and step == args.restart_step + 1 and os.environ.get("OUTRIDER_TEST_GATE"):
            with open(os.environ["OUTRIDER_TEST_GATE"], "rb") as gate:  # until the agent stopped
                gate.read(1)
        g = torch.Generator().manual_seed(1000 * step + rank)
        x = torch.randn(32, 64, generator=g)
        y = torch.randint(0, 8, (32,), generator=g)
        t0 = time.monotonic()
        opt.zero_grad()
        torch.nn.functional.cross_entropy(ddp(x), y).backward()
        opt.step()
        steps.append(time.monotonic() - t0)
        print(f"step {step}", flush=True)
    digest = hashlib.sha256(b"".join(p.detach().numpy().tobytes() for p in model.parameters()))
    print("result " + json.dumps({"rank": rank, "digest": digest.hexdigest(), "steps": steps}), flush=True)
    dist.destroy_process_group()
    return 0


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_agent(binary, sock, log, http_port=0):
    r, w = os.pipe()
    proc = subprocess.Popen([binary, "--socket", sock, "--port", "0", "--http-port", str(http_port),
                             "--ready-fd", str(w)], pass_fds=[w], stdout=log, stderr=log)
    os.close(w)
    with os.fdopen(r, "rb") as ready:
        if ready.read(1) != b"R":
            raise SystemExit(f"the agent did not start (exit {proc.wait()}); see {log.name}")
    return proc


def pending(http_port):
    """Collectives the agent holds now (its /status, read on its loop)."""
    status = json.load(urllib.request.urlopen(f"http://127.0.0.1:{http_port}/status", timeout=5))
    return sum(job["pending"] for job in status["jobs"])


def run(args, restart, tmp):
    binary = os.environ["OUTRIDER_AGENT"]
    # The restarted agent: the next release's build where given (one protocol version higher).
    next_binary = os.environ.get("OUTRIDER_NEXT_AGENT") or binary
    sock = os.path.join(tmp, f"agent-{restart}.sock")
    log = open(os.path.join(tmp, f"agent-{restart}.log"), "ab")
    http_port = free_port()
    agent = start_agent(binary, sock, log, http_port)
    port = free_port()
    gate = os.path.join(tmp, f"gate-{restart}")
    os.mkfifo(gate)
    procs = []
    for rank in range(2):
        env = dict(os.environ, RANK=str(rank), WORLD_SIZE="2", LOCAL_RANK=str(rank), LOCAL_WORLD_SIZE="2",
                   MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port), OUTRIDER_SOCKET=sock,
                   OUTRIDER_JOB_ID=f"restart-{restart}-{os.getpid()}", OUTRIDER_TEST_GATE=gate if restart else "")
        procs.append(subprocess.Popen([sys.executable, __file__, "--rank", str(rank), "--steps", str(args.steps)],
                                      env=env, stdout=subprocess.PIPE, text=True))
    try:
        results = {}
        restarted_at = None
        for line in procs[0].stdout:  # rank 0 says where it is
            line = line.strip()
            if restart and line == f"step {args.restart_step}" and restarted_at is None:
                # Rank 0 is in the next step, its allreduces waiting for rank 1 (held at the gate).
                deadline = time.monotonic() + 30
                while pending(http_port) == 0:
                    if time.monotonic() > deadline:
                        raise SystemExit("rank 0's allreduces never reached the agent")
                    time.sleep(0.01)
                restarted_at = time.monotonic()
                # Drained as an operator does (outriderctl drain: the same hand-over as SIGTERM's),
                # which waits until the agent has exited.
                ctl = os.path.join(os.path.dirname(binary), "outriderctl")
                drained = subprocess.run([ctl, "--url", f"http://127.0.0.1:{http_port}", "drain"],
                                         capture_output=True, text=True, timeout=60)
                print("outriderctl drain: " + drained.stdout.strip().replace("\n", " / "), flush=True)
                if drained.returncode != 0 or "the agent has exited" not in drained.stdout:
                    raise SystemExit(f"outriderctl drain failed ({drained.returncode}): {drained.stderr}")
                rc = agent.wait(timeout=30)
                if rc != 0:
                    raise SystemExit(f"the drained agent exited {rc}; see {log.name}")
                with open(gate, "wb") as g:
                    g.write(b"g")
                agent = start_agent(next_binary, sock, log)
                print(f"agent restarted in {time.monotonic() - restarted_at:.3f} s", flush=True)
            if line.startswith("result "):
                r = json.loads(line[len("result "):])
                results[r["rank"]] = r
        out1, _ = procs[1].communicate(timeout=240)
        for line in out1.splitlines():
            if line.startswith("result "):
                r = json.loads(line[len("result "):])
                results[r["rank"]] = r
        codes = [p.wait(timeout=240) for p in procs]
        agent.send_signal(signal.SIGTERM)
        agent.wait(timeout=30)
        log.close()
    except BaseException:
        # Nothing left behind: the trainers and the agent go, and the agent's log says what it saw.
        for p in procs:
            if p.poll() is None:
                p.kill()
        if agent.poll() is None:
            agent.kill()
        log.close()
        with open(log.name, errors="replace") as f:
            print("agent log (tail):\n" + "".join(f.readlines()[-40:]), flush=True)
        raise
    if codes != [0, 0] or len(results) != 2:
        raise SystemExit(f"{'with' if restart else 'without'} a restart: trainers exited {codes}; "
                         f"agent log: {log.name}")
    if restart and restarted_at is None:
        raise SystemExit("rank 0 never reached the restart step")
    if restart:
        with open(log.name) as f:
            gave = [line for line in f if "ops that had not started back" in line]
        print("agent: " + (gave[0].strip() if gave else "(no hand-over logged)"), flush=True)
        if not gave or " gave 0 ops" in gave[0]:
            raise SystemExit("the stopped agent gave no op back: the hand-over was not exercised")
        if os.environ.get("OUTRIDER_NEXT_AGENT"):
            import outrider_torch
            spoken = f"protocol {outrider_torch._C.protocol_version})"
            with open(log.name) as f:
                rejoined = [line for line in f if "joined job 'restart-True" in line and spoken in line]
            # Two joins at the first agent, two at the next one, each in this shim's version.
            if len(rejoined) != 4:
                raise SystemExit(f"expected 4 joins in protocol {outrider_torch._C.protocol_version}, "
                                 f"saw {len(rejoined)}; see {log.name}")
            print(f"the next agent served this shim's protocol {outrider_torch._C.protocol_version}", flush=True)
    return results


def main():
    args = parse_args()
    if args.rank >= 0:
        return trainer(args)
    with tempfile.TemporaryDirectory(prefix="outrider-restart-") as tmp:
        plain = run(args, False, tmp)
        restarted = run(args, True, tmp)
    ok = True
    for rank in range(2):
        if plain[rank]["digest"] != restarted[rank]["digest"]:
            print(f"rank {rank}: parameters differ from the uninterrupted run", flush=True)
            ok = False
    if plain[0]["digest"] != plain[1]["digest"]:
        print("the ranks' parameters differ", flush=True)
        ok = False
    for name, r in (("uninterrupted", plain), ("restarted", restarted)):
        steps = r[0]["steps"]
        print(f"{name}: median step {statistics.median(steps) * 1e3:.1f} ms, longest "
              f"{max(steps) * 1e3:.1f} ms (step {steps.index(max(steps))})", flush=True)
    print("parameters bitwise equal to the uninterrupted run, no op failed" if ok else "FAILED", flush=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
