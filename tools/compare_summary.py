"""Summaries of tools/compare.py: one line per size (dense) or per density (sparse), Outrider against
the best baseline of the same run, the link-time bound and, for sparse, auto against the fastest
algorithm."""

BASE = "outrider@base"  # Outrider from the --against build


def link_bound_us(op, size, nodes, rate_gbit):
    """Time the op's bytes take on one link at the nominal rate (the ring's per-node bytes), or None."""
    if not rate_gbit or nodes < 2:
        return None
    factor = {"allreduce": 2.0 * (nodes - 1) / nodes, "allgather": nodes - 1.0, "alltoall": (nodes - 1.0) / nodes,
              "broadcast": 1.0}.get(op)
    return factor * size * 8 / (rate_gbit * 1e3) if factor else None


def rate_of(text):
    """'2gbit' -> 2.0, '500mbit' -> 0.5 (tc syntax), else None."""
    t = (text or "").strip().lower()
    for unit, scale in (("gbit", 1.0), ("mbit", 1e-3), ("kbit", 1e-6)):
        if t.endswith(unit):
            try:
                return float(t[:-len(unit)]) * scale
            except ValueError:
                return None
    return None


def print_dense_summary(args, rows, systems):
    """One line per size: Outrider against the best baseline of the same run and the link-time bound."""
    sizes = sorted({r["bytes"] for r in rows if r.get("metric", "size") == "size"})
    baselines = [s for s in systems if s not in ("outrider", BASE)]
    if len(sizes) < 2 or "outrider" not in systems:
        return
    rate = rate_of(args.rate)
    print(f"\n# summary: {args.op}, medians of {args.rounds} rounds; best = the faster baseline at that size; "
          f"bound = the op's bytes per link at {args.rate or 'no rate'}")
    print(f"  {'size':>12} {'outrider(us)':>13} {'best(us)':>11} {'best':>11} {'out/best':>9} {'bound(us)':>11} {'out/bound':>10}")
    worst = None
    for size in sizes:
        by = {r["system"]: r for r in rows if r["bytes"] == size and r.get("metric", "size") == "size"}
        if "outrider" not in by:
            continue
        mine = by["outrider"]
        best = min((by[b] for b in baselines if b in by), key=lambda r: r["time_us"], default=None)
        bound = link_bound_us(args.op, size, args.nodes, rate)
        ratio = mine["time_us"] / best["time_us"] if best else None
        over = mine["time_us"] / bound if bound else None
        if ratio is not None:
            mine["ratio_vs_best"] = ratio
            mine["best_baseline"] = best["system"]
            worst = max(worst or ratio, ratio)
        if bound:
            mine["link_bound_us"] = bound
            mine["time_over_bound"] = over
        fmt = lambda v, f: format(v, f) if v is not None else "-"
        print(f"  {size:>12} {mine['time_us']:>13.1f} {fmt(best and best['time_us'], '11.1f'):>11} "
              f"{(best or {}).get('system', '-'):>11} {fmt(ratio, '9.3f'):>9} {fmt(bound, '11.1f'):>11} {fmt(over, '10.3f'):>10}")
    if worst is not None:
        print(f"  largest outrider / best baseline over the sweep: {worst:.3f}")


def print_p2p_summary(args, rows):
    """One line per size of compare p2p: Outrider's one-way time per message against Gloo's, and
    from 1 MiB its bandwidth against the link rate."""
    rate = rate_of(args.rate)
    print(f"\n# summary: p2p between two ranks, medians of {args.rounds} rounds; link {args.rate or 'unshaped'}")
    print(f"  {'size':>12} {'metric':>10} {'outrider(us)':>13} {'gloo(us)':>11} {'out/gloo':>9} {'out bw/link':>12}")
    worst_latency = None
    for size in sorted({r["bytes"] for r in rows}):
        by = {r["system"]: r for r in rows if r["bytes"] == size}
        mine, gloo = by.get("outrider"), by.get("gloo")
        if not mine:
            continue
        ratio = mine["time_us"] / gloo["time_us"] if gloo else None
        link = (size / (mine["time_us"] * 1e-6)) / (rate * 1e9 / 8) if rate and size >= (1 << 20) else None
        if link is not None:
            mine["bw_over_link"] = link
        if ratio is not None and mine.get("metric") == "latency":
            worst_latency = max(worst_latency or ratio, ratio)
        fmt = lambda v, f: format(v, f) if v is not None else "-"  # noqa: E731
        print(f"  {size:>12} {mine.get('metric', '-'):>10} {mine['time_us']:>13.2f} "
              f"{fmt(gloo and gloo['time_us'], '11.2f'):>11} {fmt(ratio, '9.3f'):>9} {fmt(link, '12.3f'):>12}")
    if worst_latency is not None:
        print(f"  largest outrider / gloo latency (8 B to 64 KiB): {worst_latency:.3f}")


def print_sparse_summary(args, rows, points):
    """One line per (nodes, link rate, density) compared: the fastest algorithm, auto against it, and
    both against the link time and torch-gloo's sparse all_reduce; the worst time ÷ link time and the
    time model's farthest prediction over Outrider's algorithms, and the host's busy CPU share."""
    print(f"\n# summary: sparse allreduce, {args.rows} x {args.dim} f32, Zipf {args.zipf}; t/link = time / (this "
          f"node's measured wire bytes at the link rate)")
    print(f"  {'nodes':>5} {'rate':>8} {'density':>8} {'fastest':>10} {'time(us)':>11} {'t/link':>7} {'auto ran':>10} "
          f"{'auto(us)':>11} {'auto/fast':>10} {'auto t/link':>11} {'torch sparse/auto':>18} {'worst t/link':>12} "
          f"{'model/t':>13} {'cpu':>9}")
    for nodes, rate, d in points:
        here = [r for r in rows if r["nodes"] == nodes and r["density"] == d]
        ours = {r["algo"]: r for r in here if r["system"] == "outrider"}
        theirs = {r["algo"]: r for r in here if r["system"] == "torch-gloo"}
        fixed = {a: r for a, r in ours.items() if a != "auto"}
        if not fixed:
            continue
        fa = min(fixed, key=lambda a: fixed[a]["time_us"])
        f, au = fixed[fa], ours.get("auto")
        fmt = lambda v, spec: format(v, spec) if v is not None else "-"
        torch_ratio = theirs["sparse"]["time_us"] / au["time_us"] if au and "sparse" in theirs else None
        print(f"  {nodes:>5} {rate or 'none':>8} {d:>8g} {fa:>10} {f['time_us']:>11.1f} "
              f"{fmt(f.get('time_over_link'), '7.3f'):>7} {(au or {}).get('algo_ran', '-'):>10} "
              f"{fmt(au and au['time_us'], '11.1f'):>11} {fmt(au and au['time_us'] / f['time_us'], '10.3f'):>10} "
              f"{fmt((au or {}).get('time_over_link'), '11.3f'):>11} {fmt(torch_ratio, '18.2f'):>18} "
              f"{worst(fixed, 'time_over_link'):>12} {span(fixed, 'model_over_time'):>13} {span(fixed, 'host_cpu_busy'):>9}")


def worst(rows, key):
    """The largest `key` over rows and its algorithm, e.g. '1.084 block'; '-' if none has it."""
    have = {a: r[key] for a, r in rows.items() if r.get(key) is not None}
    if not have:
        return "-"
    a = max(have, key=have.get)
    return f"{have[a]:.3f} {a[:5]}"


def span(rows, key):
    """The smallest and largest `key` over rows, e.g. '0.93-1.04'; '-' if none has it."""
    have = [r[key] for r in rows.values() if r.get(key) is not None]
    return f"{min(have):.2f}-{max(have):.2f}" if have else "-"
