"""The conformance run's report: the side-by-side table, totals per backend, and the regressions vs
gloo (a test that passed with gloo and not with outrider at the same world size, in the same run),
split into known gaps (--expect-fail) and the rest."""
import sys

STATUSES = ("pass", "fail", "error", "timeout", "skip", "excluded", "interrupted")


def _expected(expect_fail, test, ws):
    return any(w is None or w == ws for w, _ in expect_fail.get(test, ()))


def summarize(results, world_sizes, backends, expect_fail):
    by_key = {(r["world_size"], r["test"], r["backend"]): r for r in results}
    totals, regressions, unexpected, fixed = {}, {}, [], []
    for ws in world_sizes:
        totals[str(ws)] = {b: {s: 0 for s in STATUSES} for b in backends}
        for r in results:
            if r["world_size"] == ws:
                totals[str(ws)][r["backend"]][r["status"]] += 1
        regs = []
        if "gloo" in backends and "outrider" in backends:
            for test in sorted({t for w, t, _ in by_key if w == ws}):
                g, o = by_key.get((ws, test, "gloo")), by_key.get((ws, test, "outrider"))
                if not g or not o or "interrupted" in (g["status"], o["status"]):
                    continue
                expected = _expected(expect_fail, test, ws)
                if g["status"] == "pass" and o["status"] != "pass":
                    regs.append({"test": test, "outrider": o["status"], "reason": o["reason"], "expected": expected})
                    if not expected:
                        unexpected.append(f"{test}@{ws}")
                elif expected and o["status"] == "pass":
                    fixed.append(f"{test}@{ws}")
        regressions[str(ws)] = regs
    return {"world_sizes": world_sizes, "backends": backends, "totals": totals, "regressions": regressions,
            "unexpected_regressions": unexpected, "expected_failures_now_passing": fixed}


def print_report(s, table=True, out=sys.stdout):
    results = s["results"]
    cols = [(ws, b) for ws in s["world_sizes"] for b in s["backends"]]
    by_key = {(r["world_size"], r["test"], r["backend"]): r for r in results}
    tests = sorted({r["test"] for r in results})
    if table and tests:
        width = max(len(t) for t in tests)
        heads = [f"{b}@{ws}" for ws, b in cols]
        cw = max(9, *(len(h) + 1 for h in heads))
        print(f"{'test':<{width}}  " + "".join(f"{h:<{cw}}" for h in heads), file=out)
        for t in tests:
            cells = []
            for ws, b in cols:
                r = by_key.get((ws, t, b))
                cells.append(r["status"] if r else "-")
            regs = [x for ws in s["world_sizes"] for x in s["regressions"][str(ws)] if x["test"] == t]
            mark = ""
            if regs:
                mark = "  <- regression" if any(not x["expected"] for x in regs) else "  <- known gap"
            print(f"{t:<{width}}  " + "".join(f"{c:<{cw}}" for c in cells) + mark, file=out)
        print(file=out)
    for ws in s["world_sizes"]:
        for b in s["backends"]:
            tot = s["totals"][str(ws)][b]
            parts = ", ".join(f"{tot[k]} {k}" for k in STATUSES if tot[k] or k in ("pass", "fail", "error", "timeout", "skip"))
            print(f"totals ws{ws} {b:<8}: {parts}", file=out)
    for ws in s["world_sizes"]:
        regs = s["regressions"].get(str(ws), [])
        if not regs:
            continue
        print(f"\npass with gloo, not with outrider at world size {ws} ({len(regs)}; "
              f"{sum(r['expected'] for r in regs)} of them known gaps from --expect-fail):", file=out)
        for r in regs:
            tag = "known gap" if r["expected"] else r["outrider"]
            print(f"  {r['test']}: {tag}: {r['reason']}", file=out)
    if s["expected_failures_now_passing"]:
        print(f"\nlisted in --expect-fail but passing with outrider now (remove them from the list): "
              f"{', '.join(s['expected_failures_now_passing'])}", file=out)
    if s.get("agent_restarts"):
        print(f"\nagents died and were restarted {len(s['agent_restarts'])} time(s): {s['agent_restarts']}", file=out)
    if s.get("interrupted"):
        print("\nthe run was interrupted: the results above are partial", file=out)
    unexpected = s["unexpected_regressions"]
    known = sum(r["expected"] for regs in s["regressions"].values() for r in regs)
    if "gloo" not in s["backends"] or "outrider" not in s["backends"]:
        print("\nregressions vs gloo: not compared (run both backends)", file=out)
    elif unexpected:
        print(f"\nregressions vs gloo: {len(unexpected)}" + (f" (+{known} known gaps)" if known else "")
              + f": {', '.join(unexpected)}", file=out)
    else:
        print("\nregressions vs gloo: none" + (f" (+{known} known gaps)" if known else ""), file=out)
