#!/usr/bin/python3
"""tools/outrider conformance: PyTorch's own backend test suite against gloo and against outrider.

Runs torch/testing/_internal/distributed/distributed_test.py (the suite upstream's
test_distributed_spawn.py drives) once per test, per world size and per backend, each test in its
own process group with a timeout, and prints per test gloo's result beside outrider's, totals, and
the tests that pass with gloo but not with outrider (regressions vs gloo). Always 2 emulated nodes
(ranks per node = world size / 2) with loopback agents. See dist_suite.py for how the suite is
configured (as for gloo, for both backends) and README.md "Conformance" for the options.

Exit status: 0, or 1 if a test passed with gloo and not with outrider in this run (tests listed
in --expect-fail excepted), 2 on bad input, 130 when interrupted.
"""
import argparse
import concurrent.futures
import datetime
import itertools
import json
import os
import re
import secrets
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
from agents import LoopbackAgents, die_with_parent, dump_stacks, stop_group  # noqa: E402
import report  # noqa: E402

SUITE = os.path.join(HERE, "dist_suite.py")
EXCLUDED_FILE = os.path.join(HERE, "excluded.txt")
NODES = 2
STACKS_BEFORE_S = 20  # a test still running this long before its timeout gets its stacks logged
STACKS_PRINTED = 250  # lines of them printed with a timed-out test's result
BACKENDS = ("gloo", "outrider")
# Variables of the caller's environment that would leak into the ranks' configuration.
SCRUBBED = re.compile(r"^(OUTRIDER_|RANK$|LOCAL_RANK$|WORLD_SIZE$|LOCAL_WORLD_SIZE$|GROUP_RANK$|MASTER_|"
                      r"TORCHELASTIC_|BACKEND$|INIT_METHOD$|TEMP_DIR$|CONFORMANCE_)")


class Interrupted(Exception):
    pass


def parse_args(argv):
    p = argparse.ArgumentParser(
        prog="tools/outrider conformance",
        description="PyTorch's distributed backend test suite against gloo and outrider, side by side.",
        epilog="Exit status 1 if a test passes with gloo and not with outrider (except tests in --expect-fail).")
    p.add_argument("--world-sizes", default="2,4", help="comma-separated even world sizes (default 2,4); "
                   "always 2 nodes, so world size W has W/2 ranks per node")
    p.add_argument("--backends", default="gloo,outrider", help="comma-separated, of gloo and outrider (default both)")
    p.add_argument("-k", dest="patterns", action="append", default=[], metavar="PATTERN",
                   help="only tests whose name matches this regular expression (re.search; repeatable: any)")
    p.add_argument("--subset", metavar="NAME", help="only the tests listed in tools/conformance/NAME_subset.txt "
                   "(or in the file NAME if it contains a '/')")
    p.add_argument("--expect-fail", metavar="FILE", help="known gaps: tests (TEST or TEST@WORLD_SIZE per line, "
                   "# comments) allowed to fail with outrider; reported apart, not counted for the exit status")
    p.add_argument("--jobs", "-j", type=int, default=max(1, min(os.cpu_count() or 1, 4)),
                   help="tests run at once (default: the number of cores, at most 4)")
    p.add_argument("--timeout", type=int, default=180, help="seconds per test before all its processes are killed "
                   "(default 180; the suite's own timeout is set 15 s shorter, so it can report where ranks hang)")
    p.add_argument("--start-method", choices=("fork", "spawn"), default="fork",
                   help="how the test starts its ranks: fork (default: they inherit the imported suite) or spawn "
                   "(upstream's way: every rank imports torch again, 1.5x the run time here)")
    p.add_argument("--profiler-checks", action="store_true",
                   help="also require outrider's collectives to show up in the profiler, as the suite requires of gloo's "
                   "(it checks that in every collective test, but only for the backends it lists: none is a plugin)")
    p.add_argument("--json", metavar="FILE", help="write every result, the totals and the regressions as JSON")
    p.add_argument("--logs", metavar="DIR", help="keep each test's output in DIR/ws<W>/<backend>/<test>.log "
                   "(default: a new directory under $TMPDIR, named when the run starts and ends)")
    p.add_argument("--build", default=os.environ.get("OUTRIDER_BUILD_DIR", os.path.join(ROOT, "build")),
                   help="build directory with bin/outrider-agent and python/outrider_torch (default build/)")
    p.add_argument("--python", metavar="CMD", default=sys.executable,
                   help="the command (split like a shell) that runs the suite's Python: another PyTorch, for example "
                   "\"tools/roots/enter.sh -- /usr/bin/python3\" for the trixie root's 2.6 (default: this interpreter)")
    p.add_argument("--python-build", metavar="DIR",
                   help="build directory with python/outrider_torch for that Python (default --build; "
                   "for another PyTorch's own build of the backend)")
    p.add_argument("--installed", action="store_true",
                   help="outrider_torch is installed in --python's environment (pip install): put no build "
                   "directory on PYTHONPATH, and test that installed copy")
    p.add_argument("--agent-arg", action="append", default=[], metavar="ARG",
                   help="extra argument for every agent (repeatable)")
    p.add_argument("--list", action="store_true", help="print the selected tests and exit")
    p.add_argument("--no-table", action="store_true", help="print only totals and regressions, not the per-test table")
    args = p.parse_args(argv)
    try:
        args.world_sizes = [int(w) for w in args.world_sizes.split(",") if w]
    except ValueError:
        p.error(f"--world-sizes: not a list of integers: {args.world_sizes!r}")
    for w in args.world_sizes:
        if w < 2 or w % NODES:
            p.error(f"--world-sizes: {w} is not a multiple of {NODES} nodes")
    args.python = shlex.split(args.python)
    if not args.python:
        p.error("--python: empty command")
    if "/" in args.python[0]:
        args.python[0] = os.path.abspath(args.python[0])  # tests run in their own directories
    args.build = os.path.abspath(args.build)
    args.python_build = os.path.abspath(args.python_build or args.build)
    args.backends = [b for b in args.backends.split(",") if b]
    if not args.backends or any(b not in BACKENDS for b in args.backends):
        p.error(f"--backends: choose from {', '.join(BACKENDS)}")
    args.backends = [b for b in BACKENDS if b in args.backends]  # gloo first, whatever the order given
    if args.jobs < 1 or args.timeout < 30:
        p.error("--jobs must be at least 1 and --timeout at least 30")
    try:
        args.patterns = [re.compile(k) for k in args.patterns]
    except re.error as e:
        p.error(f"-k: {e}")
    return args


def read_list(path):
    """Test names from a list file: {name: [(world size or None, comment)]}; '#' starts a comment."""
    entries = {}
    with open(path) as f:
        for line in f:
            body, _, comment = line.partition("#")
            body = body.strip()
            if not body:
                continue
            name, _, ws = body.partition("@")
            entries.setdefault(name.strip(), []).append((int(ws) if ws.strip() else None, comment.strip()))
    return entries


def subset_path(name):
    return name if "/" in name else os.path.join(HERE, f"{name}_subset.txt")


class Runner:
    """Runs tests, one process group each; owns the agents of the current world size.
    Thread-safety: run() from the worker threads, kill_all() from any thread; the rest from the
    main thread between world sizes. `lock` guards `running`, `agents` and `agent_events`."""

    def __init__(self, args, log_dir, run_dir):
        self.args = args
        self.log_dir = log_dir
        self.run_dir = run_dir
        self.seq = itertools.count(1)
        self.token = secrets.token_hex(16)
        self.lock = threading.Lock()
        self.running = set()  # Popen objects of tests still running
        self.stopping = threading.Event()
        self.agents = None
        self.agent_events = []  # agents that died, and when
        self.python_path = [] if args.installed else [os.path.join(args.python_build, "python")]
        if subprocess.run(args.python + ["-c", "import expecttest"], capture_output=True).returncode != 0:
            self.python_path.append(os.path.join(HERE, "compat"))

    def base_env(self, ws):
        env = {k: v for k, v in os.environ.items() if not SCRUBBED.match(k)}
        old = None if self.args.installed else os.environ.get("PYTHONPATH")
        env.update({
            "BACKEND": "gloo",
            "WORLD_SIZE": str(ws),
            # A file init method: the suite's test that re-creates the default group needs one
            # (run() gives every test its own file).
            "INIT_METHOD": "file://" + os.path.join(self.run_dir, "init_file"),
            "TEMP_DIR": self.run_dir,
            "DISTRIBUTED_TESTS_DEFAULT_TIMEOUT": str(self.args.timeout - 15),
            # Debian's PyTorch 2.x has a TCPStore without libuv, which 2.4+ asks for by default (1.13
            # ignores it).
            "USE_LIBUV": "0",
            "CONFORMANCE_START_METHOD": self.args.start_method,
            "CONFORMANCE_PROFILER_CHECKS": "1" if self.args.profiler_checks else "0",
            "PYTHONPATH": os.pathsep.join(self.python_path + ([old] if old else [])),
        })
        return env

    def list_tests(self, ws):
        out = subprocess.run(self.args.python + [SUITE, "--list"], env=self.base_env(ws), capture_output=True, text=True)
        if out.returncode != 0:
            raise RuntimeError(f"listing the suite's tests failed:\n{out.stderr[-3000:]}")
        return json.loads(out.stdout)

    def start_agents(self, ws):
        binary = os.path.join(self.args.build, "bin", "outrider-agent")
        self.agents = LoopbackAgents(binary, NODES, os.path.join(self.run_dir, f"agents-ws{ws}"),
                                     os.path.join(self.log_dir, f"ws{ws}"), self.args.agent_arg)
        self.agents.start()

    def stop_agents(self):
        if self.agents:
            self.agents.stop()
            self.agents = None

    def _agents_for(self, ws, test):
        """The agents' addresses for the next outrider test; restarts them if one has died."""
        with self.lock:
            dead = self.agents.dead()
            if dead:
                self.agent_events.append({"world_size": ws, "before_test": test, "dead": dead})
                print(f"conformance: agents of nodes {[n for n, _ in dead]} exited ({dead}); restarting them",
                      file=sys.stderr)
                self.agents.start()
            return list(self.agents.sockets), self.agents.root_addr

    def run(self, ws, test, backend):
        if self.stopping.is_set():
            return None
        seq = next(self.seq)
        test_dir = tempfile.mkdtemp(prefix=f"t{seq}-", dir=self.run_dir)
        result_file = os.path.join(test_dir, "result.json")
        log = os.path.join(self.log_dir, f"ws{ws}", backend, test + ".log")
        os.makedirs(os.path.dirname(log), exist_ok=True)
        env = self.base_env(ws)
        env.update({"TMPDIR": test_dir, "TEMP_DIR": test_dir, "CONFORMANCE_BACKEND": backend,
                    "CONFORMANCE_RESULT": result_file, "INIT_METHOD": "file://" + os.path.join(test_dir, "init_file")})
        if backend == "outrider":
            sockets, root = self._agents_for(ws, test)
            env.update({
                "CONFORMANCE_AGENT_SOCKETS": ",".join(sockets),
                "CONFORMANCE_RANKS_PER_NODE": str(ws // NODES),
                "OUTRIDER_ROOT_ADDR": root,
                # Every test creates its groups anew: each is its own job at the agents.
                "OUTRIDER_JOB_ID": f"conf{os.getpid()}-w{ws}-{seq}-{test[5:]}"[:63],
                "OUTRIDER_JOB_TOKEN": self.token,
            })
        started = time.monotonic()
        timed_out = False
        with open(log, "w") as out:
            with self.lock:  # kill_all() sees every test that starts before it sets `stopping`
                if self.stopping.is_set():
                    shutil.rmtree(test_dir, ignore_errors=True)
                    return None
                proc = subprocess.Popen(self.args.python + [SUITE, test], stdin=subprocess.DEVNULL, stdout=out,
                                        stderr=subprocess.STDOUT, env=env, cwd=test_dir, start_new_session=True,
                                        preexec_fn=die_with_parent)
                self.running.add(proc)
            try:
                # Before the suite's own timeout (15 s shorter) kills the ranks: their stacks, for
                # a test that hangs.
                proc.wait(self.args.timeout - STACKS_BEFORE_S)
            except subprocess.TimeoutExpired:
                dump_stacks(proc.pid, out)
                try:
                    proc.wait(STACKS_BEFORE_S)
                except subprocess.TimeoutExpired:
                    timed_out = True
            stop_group(proc)  # also whatever its ranks left behind
            with self.lock:
                self.running.discard(proc)
        elapsed = round(time.monotonic() - started, 2)
        result = {"test": test, "world_size": ws, "backend": backend, "duration_s": elapsed, "log": log}
        if os.path.exists(result_file):
            with open(result_file) as f:
                r = json.load(f)
            result.update(status=r["status"], reason=r["reason"])
            if r.get("detail"):
                with open(log, "a") as out:
                    out.write("\n===== conformance: the test's error =====\n" + r["detail"])
        elif self.stopping.is_set():
            result.update(status="interrupted", reason="the run was interrupted")
        elif timed_out:
            result.update(status="timeout", reason=f"killed after {self.args.timeout} s")
        else:
            result.update(status="error", reason=f"test process exited with code {proc.returncode} without a result: "
                          + last_line(log))
        if backend == "outrider":
            with self.lock:
                dead = self.agents.dead() if self.agents else []
            if dead:
                result["reason"] += f" (agents exited meanwhile: {dead})"
        shutil.rmtree(test_dir, ignore_errors=True)
        return result

    def kill_all(self):
        with self.lock:
            self.stopping.set()
            procs = list(self.running)
        for proc in procs:
            stop_group(proc, grace_s=2)


def stacks_excerpt(log):
    """The stacks a hung test left in its log (dump_stacks), trimmed for the console."""
    try:
        with open(log, errors="replace") as f:
            text = f.read()
    except OSError:
        return ""
    start = text.find("===== conformance: stacks")
    if start < 0:
        return f"(no stacks in {log})"
    lines = text[start:].splitlines()
    end = next((i for i, l in enumerate(lines) if l.startswith("===== conformance: end of stacks")), len(lines) - 1)
    lines = lines[: end + 1]
    if len(lines) > STACKS_PRINTED:
        lines = lines[:STACKS_PRINTED] + [f"... ({len(lines) - STACKS_PRINTED} more lines in {log})"]
    return "\n".join(lines)


def last_line(path):
    try:
        with open(path, errors="replace") as f:
            lines = [l.strip() for l in f if l.strip()]
        return lines[-1][:200] if lines else "(no output)"
    except OSError:
        return "(no log)"


def on_sigterm(signum, frame):
    raise Interrupted()


def main(argv):
    args = parse_args(argv)
    if "outrider" in args.backends:
        needed = [(args.build, "bin/outrider-agent")]
        if not args.installed:
            needed.append((args.python_build, "python/outrider_torch/__init__.py"))
        for build, path in needed:
            if not os.path.exists(os.path.join(build, path)):
                print(f"conformance: {os.path.join(build, path)} is missing (build with tools/outrider build, "
                      "or point --build / --python-build at a build directory)", file=sys.stderr)
                return 2
        if args.installed:
            env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
            found = subprocess.run(args.python + ["-c", "import outrider_torch; print(outrider_torch.__file__)"],
                                   env=env, capture_output=True, text=True)
            if found.returncode != 0:
                print(f"conformance: --installed, but {shlex.join(args.python)} cannot import outrider_torch:\n"
                      f"{found.stderr[-2000:]}", file=sys.stderr)
                return 2
            print(f"conformance: outrider_torch from {found.stdout.strip()}", flush=True)
    try:
        expect_fail = read_list(args.expect_fail) if args.expect_fail else {}
        wanted = read_list(subset_path(args.subset)) if args.subset else None
        excluded = read_list(EXCLUDED_FILE)
    except (OSError, ValueError) as e:
        print(f"conformance: cannot read a test list: {e}", file=sys.stderr)
        return 2
    run_dir = tempfile.mkdtemp(prefix="outrider-conformance.")  # sockets, agent logs, test temp files: removed
    log_dir = args.logs or (None if args.list else tempfile.mkdtemp(prefix="outrider-conformance-logs."))  # kept
    runner = Runner(args, log_dir, run_dir)
    signal.signal(signal.SIGTERM, on_sigterm)
    started_at = datetime.datetime.now().astimezone().isoformat(timespec="seconds")
    started = time.monotonic()
    results, meta, interrupted = [], {}, False
    try:
        for ws in args.world_sizes:
            listing = runner.list_tests(ws)
            meta = {"suite": listing["suite"], "torch": listing["torch"]}
            names = sorted(listing["tests"])
            if wanted is not None:
                unknown = sorted(set(wanted) - set(names))
                if unknown:
                    print(f"conformance: not in the suite: {', '.join(unknown)} (from {subset_path(args.subset)})",
                          file=sys.stderr)
                    return 2
                names = [n for n in names if n in wanted]
            if args.patterns:
                names = [n for n in names if any(k.search(n) for k in args.patterns)]
            if args.list:
                for n in names:
                    why = listing["tests"][n] or (excluded[n][0][1] if n in excluded else "")
                    print(f"ws{ws} {n}" + (f"  # not run: {why}" if why else ""))
                continue
            tasks = []
            for n in names:
                for b in args.backends:
                    static_skip = listing["tests"][n]
                    if static_skip is not None:
                        results.append({"test": n, "world_size": ws, "backend": b, "status": "skip",
                                        "reason": static_skip, "static": True, "duration_s": 0})
                    elif n in excluded:
                        results.append({"test": n, "world_size": ws, "backend": b, "status": "excluded",
                                        "reason": excluded[n][0][1], "duration_s": 0})
                    else:
                        tasks.append((n, b))
            print(f"conformance: world size {ws} ({NODES} nodes x {ws // NODES} rank{'s' if ws > NODES else ''}): {len(names)} tests, "
                  f"{len(tasks)} runs ({', '.join(args.backends)}), {args.jobs} at a time; logs in {log_dir}",
                  file=sys.stderr)
            if "outrider" in args.backends and tasks:
                runner.start_agents(ws)
            try:
                run_tasks(runner, ws, tasks, results)
            finally:
                runner.stop_agents()
    except (KeyboardInterrupt, Interrupted):
        interrupted = True
        print("\nconformance: interrupted; stopping every test and agent", file=sys.stderr)
        runner.kill_all()
        runner.stop_agents()
    except RuntimeError as e:
        runner.kill_all()
        runner.stop_agents()
        print(f"conformance: {e}", file=sys.stderr)
        return 1
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        shutil.rmtree(run_dir, ignore_errors=True)
    if args.list:
        return 0
    summary = report.summarize(results, args.world_sizes, args.backends, expect_fail)
    summary.update(meta)
    summary.update({"command": ["tools/outrider", "conformance", *argv], "started": started_at,
                    "duration_s": round(time.monotonic() - started, 1), "nodes": NODES,
                    "start_method": args.start_method, "profiler_checks": args.profiler_checks, "timeout_s": args.timeout, "jobs": args.jobs,
                    "agent_restarts": runner.agent_events, "interrupted": interrupted, "logs": log_dir,
                    "results": sorted(results, key=lambda r: (r["world_size"], r["test"], r["backend"]))})
    report.print_report(summary, table=not args.no_table)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(summary, f, indent=1)
        print(f"conformance: results in {args.json}", file=sys.stderr)
    print(f"conformance: logs in {log_dir}", file=sys.stderr)
    if interrupted:
        return 130
    return 1 if summary["unexpected_regressions"] else 0


def run_tasks(runner, ws, tasks, results):
    total = len(tasks)
    with concurrent.futures.ThreadPoolExecutor(max_workers=runner.args.jobs) as pool:
        futures = [pool.submit(runner.run, ws, n, b) for n, b in tasks]
        try:
            done = 0
            pending = set(futures)
            while pending:
                finished, pending = concurrent.futures.wait(pending, timeout=1,
                                                            return_when=concurrent.futures.FIRST_COMPLETED)
                for f in finished:
                    r = f.result()
                    if r is None:
                        continue
                    results.append(r)
                    done += 1
                    extra = f" - {r['reason']}" if r["status"] not in ("pass", "skip") and r["reason"] else ""
                    print(f"[{done}/{total}] ws{ws} {r['backend']:8} {r['test']}: {r['status']} "
                          f"({r['duration_s']:.1f} s){extra[:160]}", file=sys.stderr)
                    if r["status"] == "timeout":
                        print(stacks_excerpt(r["log"]), file=sys.stderr)
        except BaseException:
            for f in futures:
                f.cancel()
            runner.kill_all()
            raise


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
