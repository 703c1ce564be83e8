#!/usr/bin/python3
"""tools/outrider compare: Outrider against the baselines on the same emulated cluster, in one run.

Each round runs, one after the other (interleaved, so drift of a shared machine hits every system
alike, and each round starting with the next system, so the first run's cost does too): outrider-bench through the agents, outrider-gloo-bench (Gloo C++) and torch_bench.py
(torch.distributed, gloo backend) without agents, on the same topology. Per system and size the
median over rounds is reported, with the ratios Outrider / baseline (below 1.0: Outrider faster).
`compare train3d` runs the 3D-parallel example (compare_train3d.py). `compare train` runs the DDP example tools/examples/train_lm.py instead, the same script for every
system but for the backend (plain DistributedDataParallel): by default outrider with sparse
embedding gradients against gloo DDP with sparse and with dense ones (--runs picks the pairs). `compare local` runs
outrider-bench local (one node, private agent, no launcher). `compare interfere` runs two jobs on
the same agents (outrider-bench interfere, two processes per node): job A's small allreduces alone
and beside job B's bulk ones, with A high and with both normal, and two equal bulk jobs; the
phases of each round are interleaved inside one launch, and the targets are checked against
figures of the same run.

--against BUILD_DIR adds the system 'outrider@base': the same bench with that build's
outrider-bench and outrider-agent (and its lib/ first on LD_LIBRARY_PATH), each run with its own
agents, interleaved with the others; the ratios outrider / outrider@base are printed (new / base).
"""
import argparse
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

import compare_train3d
from compare_summary import BASE, print_dense_summary, print_p2p_summary, print_sparse_summary

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OPS = {"allreduce": "allreduce", "broadcast": "broadcast", "allgather": "allgather", "alltoall": "alltoall",
       "sparse": "sparse", "train": "train", "train3d": "train3d", "local": "local", "interfere": "interfere",
       "p2p": "p2p"}
TRAIN_RUNS = (("outrider", "sparse"), ("torch-gloo", "sparse"), ("torch-gloo", "dense"))
SPARSE_ALGOS = ("allgather", "balanced", "block", "dense", "auto")


def sparse_args(args):
    return ["--rows", str(args.rows), "--dim", str(args.dim), "--density", str(args.density), "--zipf", str(args.zipf),
            "--seed", str(args.seed), "--iters", str(args.iters)]


def sweep_rate(nodes):
    """The link rate of a sparse sweep at `nodes` emulated nodes. The host's cores move every node's
    traffic through the bridge and its shapers, and run every node's agent: halving the rate as the
    nodes double keeps what all links carry at once at 4 Gbit/s (4 x 1 = 8 x 0.5 = 16 x 0.25), where
    the host's two cores were 52-75 % busy during the ops; at 8 Gbit/s they were 87-100 % busy, the
    emulation's CPU rather than its links the limit (docs/benchmarks.md, "Sparse scaling")."""
    return "1gbit" if nodes <= 4 else "500mbit" if nodes <= 8 else "250mbit"


def outrider_env(build):
    """Environment that makes a run use this build's agent and library."""
    lib = os.path.join(build, "lib")
    agent = os.path.join(build, "bin", "outrider-agent")
    ld = os.environ.get("LD_LIBRARY_PATH")
    return {"OUTRIDER_AGENT": agent, "OUTRIDER_AGENT_BINARY": agent, "LD_LIBRARY_PATH": lib + (":" + ld if ld else "")}


def link_args(args):
    """tools/outrider run's flags for the emulated links: rate, and the shaper's queue and bucket."""
    shaped = (["--rate", args.rate] + (["--queue", args.queue] if args.queue else []) +
              (["--burst", args.burst] if args.burst else [])) if args.rate else []
    return shaped + (["--mtu", str(args.mtu)] if args.mtu else [])


def run_system(system, args, build, out_json):
    is_outrider = system in ("outrider", BASE)
    if system == BASE:
        build = args.against
    extra_env = outrider_env(build) if is_outrider else {}
    if args.op == "local":
        cmd = [os.path.join(build, "bin", "outrider-bench"), "local", "--clients", str(args.clients),
               "--min-bytes", args.min_bytes, "--max-bytes", args.max_bytes, "--json", out_json]
        return run_cmd(system, cmd, args, out_json, extra_env)
    launcher = [os.path.join(ROOT, "tools", "cluster", "run.sh"), "--nodes", str(args.nodes),
                "--procs-per-node", str(args.procs_per_node), "--timeout", str(args.timeout)]
    launcher += link_args(args)
    if args.op == "train3d":
        return run_cmd(f"{system[0]} ({system[1]})", compare_train3d.command(system, args, launcher, ROOT, out_json),
                       args, out_json)
    if args.op == "train":
        backend, algo = system
        cmd = launcher + ([] if backend == "outrider" else ["--no-agent"]) + [
            "--", "/usr/bin/python3", os.path.join(ROOT, "tools", "examples", "train_lm.py"),
            "--backend", "outrider" if backend == "outrider" else "gloo", "--sparse", "off" if algo == "dense" else "on",
            "--steps", str(args.steps), "--batch", str(args.batch), "--vocab", str(args.vocab), "--dim", str(args.dim),
            "--json", out_json] + (["--demand"] if args.demand and backend == "outrider" else []) + \
            (["--overlap"] if algo == "overlap" else []) + (["--ddp", args.ddp] if backend == "outrider" else [])
        return run_cmd(f"{backend} ({algo})", cmd, args, out_json)
    if args.op == "sparse":
        if is_outrider:
            cmd = launcher + ["--", os.path.join(build, "bin", "outrider-bench"), "sparse", "--algos", args.algos] + \
                sparse_args(args) + ["--json", out_json] + (["--trace"] if args.trace else []) + \
                (["--turn-ms", str(args.turn_ms)] if args.turn_ms > 0 else [])
        else:
            cmd = launcher + ["--no-agent", "--", "/usr/bin/python3", os.path.join(ROOT, "tools", "baselines",
                              "torch_sparse_bench.py"), "--algos", "sparse,dense"] + sparse_args(args) + ["--json", out_json]
        return run_cmd(system, cmd, args, out_json, extra_env)
    sizes = ["--min-bytes", args.min_bytes, "--max-bytes", args.max_bytes]
    lat = ["--latency-iters", str(args.latency_iters)] if args.latency_iters and args.op == "allreduce" else []
    if is_outrider:
        cmd = launcher + ["--", os.path.join(build, "bin", "outrider-bench"), args.op] + sizes + lat + ["--json", out_json] + \
            (["--trace"] if args.trace else [])
    elif system == "gloo":
        cmd = launcher + ["--no-agent", "--", os.path.join(build, "bin", "outrider-gloo-bench"), args.op] + sizes + lat + ["--json", out_json]
    else:
        cmd = launcher + ["--no-agent", "--", "/usr/bin/python3", os.path.join(ROOT, "tools", "baselines", "torch_bench.py"),
                          args.op] + sizes + lat + ["--json", out_json]
    return run_cmd(system, cmd, args, out_json, extra_env)


def run_cmd(system, cmd, args, out_json, extra_env=None):
    t0 = time.time()
    env = dict(os.environ, **(extra_env or {}))
    env["PYTHONPATH"] = os.path.join(args.build, "python") + (":" + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    # In its own process group, so that a run past the limit (the launcher enforces --timeout
    # itself; local runs have no launcher) or an interrupted one is stopped with all it started.
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env,
                            start_new_session=True)
    try:
        output, _ = proc.communicate(timeout=args.timeout + 60)
    except (subprocess.TimeoutExpired, KeyboardInterrupt) as e:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            output, _ = proc.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            output, _ = proc.communicate()
        sys.stderr.write(output[-4000:])
        raise SystemExit(f"compare: {system} run " + ("interrupted" if isinstance(e, KeyboardInterrupt) else
                                                     f"exceeded {args.timeout} s"))
    if proc.returncode != 0 or not os.path.exists(out_json):
        sys.stderr.write(output[-4000:])
        raise SystemExit(f"compare: {system} run failed (exit {proc.returncode})")
    if args.verbose:
        sys.stdout.write(output)
    with open(out_json) as f:
        doc = json.load(f)
    return doc, time.time() - t0


def write_json(args, rows, env):
    if not args.json:
        return
    doc = {"rows": rows, "env": env or {}}
    if args.against:
        doc["against"] = args.against  # the build whose rows are system outrider@base
    with open(args.json, "w") as fh:
        json.dump(doc, fh, indent=2)
        fh.write("\n")


def run_rounds(args, systems, key_of):
    """Runs every system once per round, interleaved; returns {(system, key_of(row)): [rows]} and
    the first run's env."""
    tmp = tempfile.mkdtemp(prefix="outrider-compare-")
    results = {}
    env = None
    try:
        for rnd in range(args.rounds):
            # Each round starts with another system: whatever runs first after another run pays
            # for it (caches, page faults, the other run's stragglers on two cores), and with a
            # fixed order that cost lands on one system in every round. Even --rounds of two
            # systems give each the first place equally often.
            shift = rnd % len(systems)
            for system in systems[shift:] + systems[:shift]:
                out = os.path.join(tmp, f"{'-'.join(system) if isinstance(system, tuple) else system}-{rnd}.json")
                doc, secs = run_system(system, args, args.build, out)
                env = env or doc.get("env")
                print(f"# round {rnd + 1}/{args.rounds}: {system} done in {secs:.1f} s", flush=True)
                for row in doc["rows"]:
                    results.setdefault((system, key_of(row)), []).append(row)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return results, env


def main():
    p = argparse.ArgumentParser(prog="tools/outrider compare", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("op", choices=sorted(OPS),
                   help="collective to compare, train (the DDP example) or local (outrider-bench local, one node)")
    p.add_argument("--build", default=os.path.join(ROOT, "build"), help=argparse.SUPPRESS)
    p.add_argument("--nodes", default="4",
                   help="emulated nodes (default 4); sparse: a comma-separated list compares at each count in turn "
                        "(e.g. 4,8,16)")
    p.add_argument("--procs-per-node", type=int, help="ranks per node (default 1; train3d: 2)")
    p.add_argument("--rate",
                   help="link rate, tc syntax (default 2gbit; 'none' for unshaped); sparse: one rate for all node "
                        "counts or one per count, comma-separated (default: 1gbit up to 4 nodes, 500mbit up to 8, "
                        "250mbit above: what all links carry at once stays at 4 Gbit/s, where the host's CPU is not "
                        "the limit)")
    p.add_argument("--queue",
                   help="bytes each shaped link queues before it drops (tools/outrider run --queue; default: 5 ms at "
                        "the rate; sparse: 4mb: in an all-to-all every node sends to every other at once, and 5 ms "
                        "at 500 Mbit/s drops what no switch port of such a fabric would, docs/benchmarks.md; train3d: 1mb)")
    p.add_argument("--burst",
                   help="each shaped link's token bucket: bytes an idle link sends at once (tools/outrider run "
                        "--burst; default 512kb; train3d: 64kb, the least that keeps the rate: its 128 KiB pipeline "
                        "messages would cross an idle link faster than at its rate)")
    p.add_argument("--mtu", type=int,
                   help="node links' MTU (default 1500; sparse: 9000, the jumbo frames training clusters run: at 1500 "
                        "TCP/IP headers take 4.6 %% of the link)")
    p.add_argument("--min-bytes", help="smallest size (default 64M; local: 8)")
    p.add_argument("--max-bytes", help="largest size (default 64M; local: 256M)")
    p.add_argument("--sweep", action="store_true",
                   help="dense ops: every size from 4K to 1G (unless --min-bytes/--max-bytes say otherwise); sparse: "
                        "densities 0.001,0.01,0.1,0.5 (unless --densities); ends with a summary per size or density "
                        "against the best baseline and the link-time bound")
    p.add_argument("--latency-iters", type=int, default=0, help="allreduce: also time this many 8-byte ops per system")
    p.add_argument("--rounds", type=int, default=3, help="interleaved rounds; medians are reported (default 3)")
    p.add_argument("--systems", default="outrider,gloo,torch-gloo", help="comma-separated subset (local: outrider only)")
    p.add_argument("--against", metavar="BUILD_DIR",
                   help="also run Outrider from another build (e.g. the previous commit's) as system 'outrider@base', "
                        "interleaved with the others")
    p.add_argument("--timeout", type=int, default=900, help="per-run limit in seconds (default 900)")
    p.add_argument("--json", help="write {\"rows\": [...], \"env\": {...}} here")
    p.add_argument("--verbose", action="store_true", help="show every run's own output")
    p.add_argument("--trace", action="store_true",
                   help="Outrider runs also record where node 0's agent spent each size's time (outrider-bench --trace); "
                        "the medians go into --json rows as 'trace' and are shown with --verbose")
    g = p.add_argument_group("local (compare local: outrider-bench local)")
    g.add_argument("--clients", type=int, default=2, help="client processes on the node (default 2)")
    g = p.add_argument_group("sparse (compare sparse)")
    g.add_argument("--rows", type=int, default=1000000, help="embedding table rows (default 1000000)")
    g.add_argument("--dim", type=int, default=128, help="values per row, f32 (default 128)")
    g.add_argument("--density", type=float, default=0.01, help="distinct rows per rank / rows (default 0.01)")
    g.add_argument("--densities", help="comma-separated densities, each compared in turn (overrides --density)")
    g.add_argument("--zipf", type=float, default=1.05, help="Zipf exponent of row popularity (default 1.05)")
    g.add_argument("--seed", type=int, default=1, help="id stream seed (default 1)")
    g.add_argument("--iters", type=int, default=3, help="timed ops per algorithm and round (default 3)")
    g.add_argument("--algos", default=",".join(SPARSE_ALGOS), help="Outrider algorithms (default: all and auto)")
    g.add_argument("--turn-ms", type=float, default=250,
                   help="each Outrider algorithm's turn runs as many ops as fit this many ms (its warm-up op's time; "
                        "up to 64), so fast algorithms are timed over more ops (default 250; 0: one op per turn; "
                        "--against a build whose outrider-bench lacks --turn-ms needs 0)")
    g = p.add_argument_group("interference (compare interfere: outrider-bench interfere)")
    g.add_argument("--a-sizes", default="4K,16K,64K,256K,1M", help="job A's allreduce sizes (default 4K,16K,64K,256K,1M)")
    g.add_argument("--bulk-bytes", default="256M", help="job B's allreduce size (default 256M)")
    g.add_argument("--phase-s", type=float, default=8, help="seconds each phase with both jobs lasts, at least (default 8)")
    g.add_argument("--min-samples", type=int, default=100, help="job A's ops per size and phase, at least (default 100)")
    g.add_argument("--agent-arg", action="append", default=[], help="extra argument for every agent (repeatable)")
    g = p.add_argument_group("training (compare train: tools/examples/train_lm.py)")
    g.add_argument("--steps", type=int, help="training steps per run (default 100; train3d: 20)")
    g.add_argument("--batch", type=int, default=256, help="examples per rank and step (default 256)")
    g.add_argument("--vocab", type=int, default=100000, help="embedding rows (default 100000)")
    g.add_argument("--demand", action="store_true", help="outrider run announces each next batch's rows")
    g.add_argument("--runs", dest="train_runs", default=",".join(f"{s}:{a}" for s, a in TRAIN_RUNS),
                   help="SYSTEM:GRADIENTS pairs to run, SYSTEM outrider or torch-gloo, GRADIENTS sparse or dense "
                        "(default: %(default)s)")
    g.add_argument("--ddp", choices=("plain", "shared"), default="plain",
                   help="outrider runs: plain DistributedDataParallel (default, the same code as gloo's) or "
                        "outrider_torch.shared_ddp")
    g.add_argument("--micro", type=int, default=4, help="train3d: micro-batches per step (default 4)")
    g.add_argument("--runs3d", help="train3d: SYSTEM:MODE runs, comma-separated, of outrider:3d, torch-gloo:3d, "
                                    "outrider:one-priority, outrider:no-dp-sync, torch-gloo:no-dp-sync (default: all)")
    g.add_argument("--overlap", action="store_true",
                   help="also run outrider with the embedding synchronized outside DDP, overlapped with the next step")
    args = p.parse_args()
    try:
        node_counts = [int(n) for n in args.nodes.split(",") if n]
    except ValueError:
        p.error(f"--nodes: not a list of whole numbers: {args.nodes}")
    if not node_counts or len(node_counts) > 1 and args.op != "sparse":
        p.error("--nodes: one count (a list only for compare sparse)")
    rates = args.rate.split(",") if args.rate else [sweep_rate(n) if args.op == "sparse" else "2gbit"
                                                     for n in node_counts]
    if len(rates) == 1:
        rates *= len(node_counts)
    if len(rates) != len(node_counts):
        p.error(f"--rate: {len(rates)} rates for {len(node_counts)} node counts")
    args.nodes, args.rate = node_counts[0], rates[0]
    args.procs_per_node = args.procs_per_node or (2 if args.op == "train3d" else 1)
    args.steps = args.steps or (20 if args.op == "train3d" else 100)
    if args.against:
        if args.op in ("train", "train3d"):
            p.error("--against is not supported for train")
        args.against = os.path.abspath(args.against)
        for f in ("bin/outrider-bench", "bin/outrider-agent"):
            if not os.access(os.path.join(args.against, f), os.X_OK):
                p.error(f"--against: {os.path.join(args.against, f)} is not an executable")
    if args.op == "local":
        args.min_bytes = args.min_bytes or "8"
        args.max_bytes = args.max_bytes or "256M"
        if args.systems == "outrider,gloo,torch-gloo":
            args.systems = "outrider"
    if args.sweep and args.op not in ("sparse", "train", "local"):
        args.min_bytes = args.min_bytes or "4K"
        args.max_bytes = args.max_bytes or "1G"
    if args.op == "p2p":
        args.min_bytes = args.min_bytes or "8"
        if args.systems == "outrider,gloo,torch-gloo":
            args.systems = "outrider,gloo"
    args.min_bytes = args.min_bytes or "64M"
    args.max_bytes = args.max_bytes or "64M"
    if args.op == "train":
        if args.rounds < 1 or args.steps < 5:
            p.error("--rounds must be positive and --steps at least 5")
        runs = []
        for item in args.train_runs.split(","):
            system, _, algo = item.partition(":")
            if system not in ("outrider", "torch-gloo") or algo not in ("sparse", "dense"):
                p.error(f"--runs: '{item}' is not SYSTEM:GRADIENTS (outrider|torch-gloo : sparse|dense)")
            runs.append((system, algo))
        args.train_runs = runs
        if args.rate == "none":
            args.rate = ""
        return compare_train(args)
    if args.op == "train3d":
        # A link's own rate for every message, and no tail drops: 5 ms at 100 Mbit/s is less than
        # one 64 KB segment, and a message's lost last packet waits for TCP's 200 ms timer.
        args.burst = args.burst or "64kb"
        args.queue = args.queue or "1mb"
        if args.rounds < 1 or args.steps < 5:
            p.error("--rounds must be positive and --steps at least 5")
        if args.rate == "none":
            args.rate = ""
        return compare_train3d.compare(args, run_rounds, write_json)
    if args.op == "interfere":
        if args.rate == "none":
            args.rate = ""
        if args.rounds < 1 or args.nodes < 2 or args.phase_s <= 0 or args.min_samples < 1:
            p.error("interfere needs --rounds >= 1, --nodes >= 2, --phase-s > 0 and --min-samples >= 1")
        return compare_interfere(args)
    if args.op == "sparse" and args.systems == "outrider,gloo,torch-gloo":
        args.systems = "outrider,torch-gloo"
    if args.op == "sparse":
        args.queue = args.queue or "4mb"
        args.mtu = args.mtu or 9000
    if args.rate == "none":
        args.rate = ""
    systems = [s for s in args.systems.split(",") if s]
    for s in systems:
        if s not in ("outrider", "gloo", "torch-gloo") or (args.op == "sparse" and s == "gloo") or \
                (args.op == "local" and s != "outrider"):
            p.error(f"unknown system '{s}' for {args.op}")
    if args.against:
        systems.insert(systems.index("outrider") + 1 if "outrider" in systems else 0, BASE)
    if args.op == "sparse":
        for a in args.algos.split(","):
            if a not in SPARSE_ALGOS:
                p.error(f"unknown sparse algorithm '{a}'")
        densities = args.densities or ("0.001,0.01,0.1,0.5" if args.sweep else str(args.density))
        try:
            densities = [float(d) for d in densities.split(",") if d]
        except ValueError:
            p.error(f"--densities: not a list of numbers: {densities}")
        if not densities or any(not 0 < d <= 1 for d in densities):
            p.error("densities must lie in (0, 1]")
        if any(n < 2 for n in node_counts):
            p.error("compare sparse needs at least 2 nodes")
        rows, env = [], None
        points = []
        for nodes, rate in zip(node_counts, rates):
            args.nodes, args.rate = nodes, "" if rate == "none" else rate
            for d in densities:
                args.density = d
                more, env = compare_sparse(args, systems)
                rows += more
                points.append((nodes, args.rate, d))
        if len(points) > 1:
            print_sparse_summary(args, rows, points)
        return write_json(args, rows, env)
    if args.rounds < 1 or args.nodes < 1 or args.procs_per_node < 1 or args.clients < 1:
        p.error("--rounds, --nodes, --procs-per-node and --clients must be positive")

    results, env = run_rounds(args, systems, lambda row: (row.get("metric", "size"), row["bytes"]))

    rows = []
    keys = sorted({k for (_, k) in results}, key=lambda k: (k[0] != "size", k[1]))
    if args.op == "local":
        print(f"\n# local allreduce: 1 node x {args.clients} clients, medians of {args.rounds} interleaved rounds")
    else:
        print(f"\n# {args.op}: {args.nodes} nodes x {args.procs_per_node} ranks, links {args.rate or 'unshaped'}, "
              f"medians of {args.rounds} interleaved rounds")
    for key in keys:
        metric, size = key
        med = {}
        for system in systems:
            rs = results.get((system, key))
            if not rs:
                continue
            t = statistics.median(r["time_us"] for r in rs)
            med[system] = t
            row = {"system": system, "op": args.op, "algo": rs[0].get("algo"), "bytes": size,
                   "time_us": t, "nodes": args.nodes, "ranks": args.nodes * args.procs_per_node,
                   "rate_gbit": rs[0].get("rate_gbit"), "rounds": len(rs), "round_times_us": [r["time_us"] for r in rs]}
            if "trace" in rs[-1]:
                row["trace"] = rs[-1]["trace"]  # the last round's medians
            if args.op == "local":
                row.update(op=rs[0]["op"], nodes=1, ranks=args.clients)
            if metric != "size":
                row["metric"] = metric
                row["p50_us"] = t
                row["p99_us"] = statistics.median(r.get("p99_us", r.get("rtt_p99_us", 0)) for r in rs)
            if "busbw_gbps" in rs[0]:
                row["busbw_gbps"] = statistics.median(r["busbw_gbps"] for r in rs)
            rows.append(row)
        label = f"8-byte latency p50" if metric != "size" else f"{size} bytes"
        if metric == "rtt":
            label = "8-byte round trip p50"
        if args.op == "p2p":
            label = f"{size} bytes, {metric} (one way per message)"
        print(f"\n  {label}")
        print(f"  {'system':<14} {'time(us)':>12} {'busbw(GB/s)':>12}")
        for r in rows:
            if r["bytes"] == size and r.get("metric", "size") == metric:
                bw = f"{r['busbw_gbps']:.3f}" if "busbw_gbps" in r else "-"
                print(f"  {r['system']:<14} {r['time_us']:>12.1f} {bw:>12}")
        if "outrider" in med:
            for base in ("gloo", "torch-gloo", BASE):
                if base in med and med[base] > 0:
                    ratio = med["outrider"] / med[base]
                    print(f"  ratio outrider / {base}: {ratio:.3f}" + (" (new / base)" if base == BASE else ""))
                    for r in rows:
                        if r["system"] == "outrider" and r["bytes"] == size and r.get("metric", "size") == metric:
                            r["ratio_vs_base" if base == BASE else f"ratio_vs_{base.replace('-', '_')}"] = ratio
            if args.rate and metric in ("size", "bandwidth") and size >= (1 << 20):
                for r in rows:
                    if r["system"] == "outrider" and r["bytes"] == size and "busbw_gbps" in r:
                        rate_gbps = r["rate_gbit"] / 8 if r.get("rate_gbit") else None
                        if rate_gbps:
                            frac = r["busbw_gbps"] / rate_gbps
                            r["busbw_over_link"] = frac
                            print(f"  outrider busbw / link rate: {frac:.3f}")
    if args.op == "p2p":
        print_p2p_summary(args, rows)
    else:
        print_dense_summary(args, rows, systems)
    write_json(args, rows, env)


def compare_interfere(args):
    """Two jobs on the same agents in one launch; prints the bench's table and the targets."""
    launcher = [os.path.join(ROOT, "tools", "cluster", "run.sh"), "--nodes", str(args.nodes), "--procs-per-node", "2",
                "--timeout", str(args.timeout)] + link_args(args)
    # Job A declares high: the agents' default ceiling (normal) would refuse it.
    for a in ["--job-class-ceiling=high"] + args.agent_arg:
        launcher += ["--agent-arg", a]
    tmp = tempfile.mkdtemp(prefix="outrider-compare-")
    try:
        out = os.path.join(tmp, "interfere.json")
        cmd = launcher + ["--", os.path.join(args.build, "bin", "outrider-bench"), "interfere",
                          "--sizes", args.a_sizes, "--bulk-bytes", args.bulk_bytes, "--rounds", str(args.rounds),
                          "--phase-s", str(args.phase_s), "--min-samples", str(args.min_samples), "--json", out] + \
            (["--trace"] if args.trace else [])
        args.verbose = True  # the bench prints the table
        doc, secs = run_cmd("outrider", cmd, args, out, outrider_env(args.build))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    rows = doc["rows"]
    print(f"\n# interfere: {args.nodes} nodes, links {args.rate or 'unshaped'}, {args.rounds} rounds in {secs:.0f} s")
    ok = True
    for r in rows:
        if r["what"] == "a_latency":
            met = r["p99_high_over_alone"] <= 2.0
            ok &= met
            print(f"  A {r['bytes']:>8} B: p99 beside B with A high / alone = {r['p99_high_over_alone']:.2f} "
                  f"(target <= 2: {'met' if met else 'NOT met'})")
        elif r["what"] == "b_throughput" and r["phase"] == "a_high":
            met = r["b_over_left"] >= 0.9
            ok &= met
            print(f"  B beside A high: {r['b_over_left']:.2f} of the bandwidth A leaves "
                  f"(target >= 0.90: {'met' if met else 'NOT met'})")
        elif r["what"] == "equal_share":
            met = abs(r["a_share"] - 0.5) <= 0.05 and abs(r["b_share"] - 0.5) <= 0.05
            ok &= met
            print(f"  two equal jobs: {100 * r['a_share']:.1f} % / {100 * r['b_share']:.1f} % "
                  f"(target within 10 % of half each: {'met' if met else 'NOT met'})")
    print(f"  all targets {'met' if ok else 'NOT met'}")
    write_json(args, rows, doc.get("env"))


def compare_sparse(args, systems):
    """Interleaved rounds of outrider-bench sparse (every algorithm) and torch_sparse_bench.py
    (sparse and dense all_reduce); medians per (system, algo), ratios, bounds and the check of
    the simulator against the measured bytes."""
    results, env = run_rounds(args, systems, lambda row: row["algo"])
    med = lambda rs, k: statistics.median(r[k] for r in rs if r.get(k) is not None) if any(r.get(k) is not None for r in rs) else None
    rows = []
    print(f"\n# sparse allreduce: {args.nodes} nodes x {args.procs_per_node} ranks, links {args.rate or 'unshaped'}"
          f"{f' (queue {args.queue})' if args.rate and args.queue else ''}{f', mtu {args.mtu}' if args.mtu else ''}, "
          f"table {args.rows} x {args.dim} f32, density {args.density} per rank, Zipf {args.zipf}; medians of {args.rounds} rounds "
          f"(Outrider: of every timed op of them)")
    print(f"  {'system':<13} {'algo':<10} {'ran':<10} {'time(us)':>12} {'wire_sent(B)':>14} {'bound(B)':>14} "
          f"{'w/bound':>8} {'sim_err':>8} {'t/link':>7} {'model(us)':>12} {'model/t':>8} {'cpu':>5}")
    for (system, algo), rs in sorted(results.items(), key=lambda kv: (systems.index(kv[0][0]), kv[0][1])):
        # Outrider's rows list every timed op: the median of all of them (rounds pooled) rests on
        # as many ops as the rounds ran, not on three medians.
        pooled = [t for r in rs for t in r.get("op_times_us", [])]
        time_us = statistics.median(pooled) if pooled and all("op_times_us" in r for r in rs) else med(rs, "time_us")
        row = {"system": system, "op": "sparse_allreduce", "algo": algo, "bytes": rs[0]["bytes"],
               "time_us": time_us, "ops": len(pooled) or None, "nodes": args.nodes, "ranks": args.nodes * args.procs_per_node,
               "rate_gbit": rs[0].get("rate_gbit"), "rounds": len(rs), "rows": args.rows, "dim": args.dim,
               "density": args.density, "zipf": args.zipf, "round_times_us": [r["time_us"] for r in rs]}
        if "trace" in rs[-1]:
            row["trace"] = rs[-1]["trace"]  # the last round's medians
        for k in ("wire_bytes_sent", "wire_bytes_recv", "bound_bytes", "sim_wire_bytes_sent", "sim_error",
                  "predicted_bytes", "union_rows", "link_time_us", "time_over_link", "wire_over_bound",
                  "model_time_us", "model_round_us", "host_cpu_busy"):
            v = med(rs, k)
            if v is not None:
                row[k] = v
        if row.get("link_time_us"):
            row["time_over_link"] = time_us / row["link_time_us"]
        if row.get("model_time_us"):
            row["model_over_time"] = row["model_time_us"] / time_us
        if "algo_ran" in rs[0]:
            row["algo_ran"] = rs[-1]["algo_ran"]
        if system in ("outrider", BASE):
            row["check"] = all(r.get("check", True) for r in rs)
        rows.append(row)
        f = lambda k, fmt: format(row[k], fmt) if k in row else "-"
        print(f"  {system:<13} {algo:<10} {row.get('algo_ran', '-'):<10} {row['time_us']:>12.1f} "
              f"{f('wire_bytes_sent', '14.0f'):>14} {f('bound_bytes', '14.0f'):>14} {f('wire_over_bound', '8.3f'):>8} "
              f"{f('sim_error', '8.4f'):>8} {f('time_over_link', '7.3f'):>7} {f('model_time_us', '12.1f'):>12} "
              f"{f('model_over_time', '8.3f'):>8} {f('host_cpu_busy', '5.2f'):>5}")
    ours = {r["algo"]: r for r in rows if r["system"] == "outrider"}
    theirs = {r["algo"]: r for r in rows if r["system"] == "torch-gloo"}
    base = {r["algo"]: r for r in rows if r["system"] == BASE}
    if base:
        print(f"\n  time outrider / {BASE} per algorithm (new / base):")
        for a, r in ours.items():
            if a in base and base[a]["time_us"] > 0:
                r["ratio_vs_base"] = r["time_us"] / base[a]["time_us"]
                print(f"    {a:<10} {r['ratio_vs_base']:.3f}")
    fixed = {a: r for a, r in ours.items() if a != "auto"}
    if fixed:
        best_algo = min(fixed, key=lambda a: fixed[a]["time_us"])
        best = fixed[best_algo]["time_us"]
        print(f"\n  fastest Outrider algorithm: {best_algo} ({best:.1f} us)")
        for a in ("sparse", "dense"):
            if a in theirs:
                ratio = theirs[a]["time_us"] / best
                print(f"  speed-up over torch-gloo {a} all_reduce: {ratio:.2f}x")
                for r in rows:
                    if r["system"] == "outrider" and r["algo"] == best_algo:
                        r[f"speedup_vs_torch_gloo_{a}"] = ratio
        if "auto" in ours:
            ratio = ours["auto"]["time_us"] / best
            print(f"  auto ({ours['auto'].get('algo_ran', '?')}) / fastest: {ratio:.3f}")
            ours["auto"]["auto_over_fastest"] = ratio
    return rows, env


def compare_train(args):
    """Interleaved rounds of the training example: outrider (sparse embedding gradients), gloo DDP
    with sparse and with dense embedding gradients. Median step time per run, its local compute and
    exposed communication, the loss curves side by side, and the speed-ups."""
    runs = list(args.train_runs) + ([("outrider", "overlap")] if args.overlap else [])
    results, env = run_rounds(args, runs, lambda row: row["algo"])
    print(f"\n# train_lm: {args.nodes} nodes x {args.procs_per_node} ranks, links {args.rate or 'unshaped'}, "
          f"table {args.vocab} x {args.dim}, batch {args.batch}, {args.steps} steps; medians of {args.rounds} rounds")
    print(f"  {'system':<11} {'algo':<7} {'step(ms)':>9} {'compute(ms)':>12} {'comm(ms)':>9} {'fwd(ms)':>8} {'bwd+sync(ms)':>13} "
          f"{'opt(ms)':>8} {'final loss':>11} {'params equal':>13}")
    rows, curves = [], {}
    for (system, algo) in runs:
        rs = results.get(((system, algo), algo))
        if not rs:
            continue
        med = lambda k: statistics.median(r[k] for r in rs)
        row = {"system": system, "algo": algo, "op": "train_step", "time_us": med("time_us"), "compute_us": med("compute_us"),
               "comm_us": med("comm_us"), "forward_us": med("forward_us"), "backward_us": med("backward_us"),
               "optimizer_us": med("optimizer_us"), "round_times_us": [r["time_us"] for r in rs],
               "copies_per_step": rs[-1].get("copies_per_step"), "final_loss": rs[-1]["losses"][-1], "params_identical": all(r["params_identical"] for r in rs),
               "nodes": args.nodes, "ranks": args.nodes * args.procs_per_node, "rounds": len(rs), "steps": args.steps,
               "batch": args.batch, "vocab": args.vocab, "dim": args.dim, "corpus": rs[0].get("corpus"),
               "losses": rs[-1]["losses"]}
        if "sparse_algo_ran" in rs[-1]:
            row["sparse_algo_ran"] = rs[-1]["sparse_algo_ran"]
        rows.append(row)
        curves[(system, algo)] = rs[-1]["losses"]
        print(f"  {system:<11} {algo:<7} {row['time_us'] / 1e3:>9.1f} {row['compute_us'] / 1e3:>12.1f} {row['comm_us'] / 1e3:>9.1f} "
              f"{row['forward_us'] / 1e3:>8.1f} {row['backward_us'] / 1e3:>13.1f} {row['optimizer_us'] / 1e3:>8.1f} "
              f"{row['final_loss']:>11.4f} {str(row['params_identical']):>13}")
    for mine in (r for r in rows if r["system"] == "outrider"):
        for r in rows:
            if r["system"] == "torch-gloo":
                ratio = r["time_us"] / mine["time_us"]
                mine[f"speedup_vs_torch_gloo_{r['algo']}"] = ratio
                print(f"  outrider ({mine['algo']}) step speed-up over gloo DDP ({r['algo']} embedding gradients): {ratio:.2f}x "
                      f"(step ratio {1 / ratio:.3f})")
    if curves:
        keys = list(curves)
        print(f"\n  loss curves (last round): step " + " ".join(f"{k[0]}/{k[1]:>6}" for k in keys))
        n = min(len(c) for c in curves.values())
        for i in list(range(0, n, max(1, n // 10))) + [n - 1]:
            print(f"    {i:>4} " + " ".join(f"{curves[k][i]:>17.5f}" for k in keys))
        for mine in (r for r in rows if r["system"] == "outrider"):
            kind = "dense" if mine["algo"] == "dense" else "sparse"  # overlap: sparse gradients too
            base = curves.get(("torch-gloo", kind))
            if base:
                diff = max(abs(a - b) for a, b in zip(curves[("outrider", mine["algo"])], base))
                mine[f"max_loss_diff_vs_gloo_{kind}"] = diff
                print(f"  largest |loss difference| outrider ({mine['algo']}) vs gloo ({kind}) over {n} steps: {diff:.2e}")
    write_json(args, rows, env)


if __name__ == "__main__":
    main()
