"""Two jobs launched with torchrun as docs/pytorch.md says, at once beside one agent, neither
naming a job id: both train (their ids come from their master ports), with the venv's Python for
the workers (python -m torch.distributed.run) and the stream options PyTorch 1.13 needs on
Python 3.11. Run by tools/cluster/run.sh --nodes 1 (the agent; OUTRIDER_SOCKET)."""
import os
import shutil
import socket
import subprocess
import sys
import tempfile

WORKER = """
import torch, torch.distributed as dist, outrider_torch
dist.init_process_group("outrider")
w = dist.get_world_size()
t = torch.full((1000,), float(dist.get_rank() + 1))
dist.all_reduce(t)
assert torch.equal(t, torch.full((1000,), w * (w + 1) / 2.0)), t[:4]
# Both jobs stay connected until all four ranks are: the two jobs are on the agent at once.
import os, time
d = os.environ["OUTRIDER_TORCHRUN_MEET"]
open(os.path.join(d, os.environ["MASTER_PORT"] + "-" + os.environ["RANK"]), "w").close()
deadline = time.time() + 60
while len(os.listdir(d)) < 4:
    assert time.time() < deadline, "the other job never connected: " + str(os.listdir(d))
    time.sleep(0.05)
print("rank", dist.get_rank(), "of", w, "ok", flush=True)
dist.destroy_process_group()
"""


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def torchrun_can_start():
    """torchrun's own store asks for libuv on PyTorch 2.4 and later, whatever USE_LIBUV says;
    builds without it (Debian's 2.6) cannot start torchrun at all."""
    import torch.distributed as dist
    try:
        store = dist.TCPStore("127.0.0.1", free_port(), 1, True, use_libuv=True)
        del store
    except TypeError:  # 1.13: no use_libuv, and no libuv asked for
        pass
    except RuntimeError as e:
        if "libuv" in str(e):
            return False
        raise
    return True


def main():
    if os.environ.get("RANK", "0") != "0":
        return 0
    if not torchrun_can_start():
        print("SKIP: this PyTorch was built without libuv, which its torchrun needs for its store", flush=True)
        return 77
    worker = os.path.join(os.environ.get("TMPDIR", "/tmp"), f"outrider-torchrun-{os.getpid()}.py")
    with open(worker, "w") as f:
        f.write(WORKER)
    env = {k: v for k, v in os.environ.items()
           if k not in ("OUTRIDER_JOB_ID", "RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE",
                        "MASTER_ADDR", "MASTER_PORT", "OUTRIDER_ROOT_ADDR", "TORCHELASTIC_RUN_ID")}
    meet = tempfile.mkdtemp(prefix="outrider-torchrun-")
    env["OUTRIDER_TORCHRUN_MEET"] = meet
    jobs = []
    for _ in range(2):
        cmd = [sys.executable, "-m", "torch.distributed.run", "--nnodes", "1", "--nproc_per_node", "2",
               "--master_addr", "127.0.0.1", "--master_port", str(free_port()),
               "--redirects", "9:1", "--tee", "9:1", worker]
        jobs.append(subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True))
    failed = 0
    for i, p in enumerate(jobs):
        out, _ = p.communicate(timeout=180)
        print(f"torchrun job {i}: exit {p.returncode}\n{out}", flush=True)
        failed += p.returncode != 0
    # Each rank of each job left its marker after its allreduce was right (the two workers of a
    # job print at once, so their lines may interleave).
    markers = sorted(os.listdir(meet))
    if len(markers) != 4:
        print(f"ranks that finished: {markers}", flush=True)
        failed += 1
    os.unlink(worker)
    shutil.rmtree(meet, ignore_errors=True)
    print("both jobs trained" if failed == 0 else f"{failed} job(s) failed", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
