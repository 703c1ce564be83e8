"""tools/outrider compare train3d: the 3D-parallel example (tools/examples/train_3d.py) through
outrider with its default priorities, through gloo, and through outrider with one priority for
every group, interleaved in rounds on the same emulated cluster. Per run the median step time and
where it goes (compute; waits for pipeline messages, and of those the time past both sides being
ready, the messages' own; tensor-parallel and data-parallel allreduces), the losses, and the
ratios."""
import os
import statistics

# outrider with its defaults, gloo, outrider with one priority for every group, and both without
# the data-parallel sync: the pipeline's messages alone, against which the waits beside the bulk
# traffic compare.
RUNS = (("outrider", "3d"), ("torch-gloo", "3d"), ("outrider", "one-priority"), ("outrider", "no-dp-sync"),
        ("torch-gloo", "no-dp-sync"))


def command(run, args, launcher, root, out_json):
    """The launch of one run of the example."""
    backend, algo = run
    return launcher + ([] if backend == "outrider" else ["--no-agent"]) + [
        "--", "/usr/bin/python3", os.path.join(root, "tools", "examples", "train_3d.py"),
        "--backend", "outrider" if backend == "outrider" else "gloo", "--steps", str(args.steps),
        "--micro", str(args.micro), "--json", out_json] + (["--one-priority"] if algo == "one-priority" else []) + \
        (["--no-dp-sync"] if algo == "no-dp-sync" else [])


def compare(args, run_rounds, write_json):
    wanted = set(args.runs3d.split(",")) if args.runs3d else None
    runs = [r for r in RUNS if wanted is None or f"{r[0]}:{r[1]}" in wanted]
    results, env = run_rounds(args, runs, lambda row: row["algo"])
    shaping = f" (burst {args.burst}, queue {args.queue})" if args.rate else ""
    print(f"\n# train_3d: {args.nodes} nodes x {args.procs_per_node} ranks, links {args.rate or 'unshaped'}{shaping}, "
          f"{args.steps} steps of {args.micro} micro-batches; medians of {args.rounds} rounds (each run: the mean "
          f"over ranks of their median step)")
    print(f"  {'system':<11} {'priorities':<13} {'step(ms)':>9} {'compute(ms)':>12} {'p2p(ms)':>8} {'transit(ms)':>12} "
          f"{'tp(ms)':>7} {'dp(ms)':>7} {'final loss':>11} {'replicas equal':>15}")
    rows = {}
    for run in runs:
        rs = results.get((run, run[1]))
        if not rs:
            continue
        med = lambda k: statistics.median(r[k] for r in rs)  # noqa: E731
        row = {"system": run[0], "algo": run[1], "op": "train3d_step", "time_us": med("time_us"),
               "compute_us": med("compute_us"), "p2p_us": med("p2p_us"), "transit_us": med("transit_us"),
               "tp_us": med("tp_us"), "dp_us": med("dp_us"),
               "round_times_us": [r["time_us"] for r in rs], "final_loss": rs[-1]["losses"][-1],
               "params_identical": all(r["params_identical"] for r in rs), "losses": rs[-1]["losses"],
               "nodes": args.nodes, "ranks": rs[0]["ranks"], "rounds": len(rs), "steps": args.steps,
               "micro": args.micro, "rate": args.rate or "unshaped"}
        rows[run] = row
        label = {"3d": "default", "one-priority": "one for all", "no-dp-sync": "no dp sync"}[run[1]]
        print(f"  {run[0]:<11} {label:<13} {row['time_us'] / 1e3:>9.1f} "
              f"{row['compute_us'] / 1e3:>12.1f} {row['p2p_us'] / 1e3:>8.1f} {row['transit_us'] / 1e3:>12.1f} "
              f"{row['tp_us'] / 1e3:>7.1f} "
              f"{row['dp_us'] / 1e3:>7.1f} {row['final_loss']:>11.4f} {str(row['params_identical']):>15}")
    mine, gloo, flat = rows.get(RUNS[0]), rows.get(RUNS[1]), rows.get(RUNS[2])
    if mine and gloo:
        mine["speedup_vs_torch_gloo"] = gloo["time_us"] / mine["time_us"]
        diff = max(abs(a - b) for a, b in zip(mine["losses"], gloo["losses"]))
        mine["max_loss_diff_vs_gloo"] = diff
        print(f"  outrider step speed-up over gloo: {mine['speedup_vs_torch_gloo']:.2f}x; largest |loss difference| "
              f"over {len(mine['losses'])} steps: {diff:.2e}")
    if mine and flat:
        mine["speedup_vs_one_priority"] = flat["time_us"] / mine["time_us"]
        print(f"  default priorities against one for all groups: step {mine['speedup_vs_one_priority']:.2f}x faster, "
              f"messages' own exposed time {mine['transit_us'] / max(flat['transit_us'], 1):.2f}x theirs")
    for system in ("outrider", "torch-gloo"):
        beside, alone = rows.get((system, "3d")), rows.get((system, "no-dp-sync"))
        if beside and alone:
            beside["p2p_over_alone"] = beside["p2p_us"] / max(alone["p2p_us"], 1)
            beside["transit_over_alone"] = beside["transit_us"] / max(alone["transit_us"], 1)
            print(f"  {system}: beside the data-parallel sync / without it: waits for pipeline messages "
                  f"{beside['p2p_over_alone']:.2f}, the messages' own exposed time {beside['transit_over_alone']:.2f}")
    write_json(args, list(rows.values()), env)
