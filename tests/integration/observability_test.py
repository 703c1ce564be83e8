#!/usr/bin/env python3
"""Observability checks with the real tools: two agents on loopback under a multi-node workload
(two training jobs of dense buckets + sparse embedding gradients through tools/cluster/run.sh);
their /metrics pass `promtool check metrics`; /healthz, /readyz and /status answer; outriderctl
reads them; a real Prometheus server with the shipped scrape configuration scrapes both agents,
stores each job's series under its own training_job (the scrape job keeps `job`), evaluates
every expression of the Grafana dashboard (each one the workload feeds returns series) and the
shipped alerting rules (loaded, evaluated, every series they read exported; promtool test rules
says when each fires); the shipped
scrape config and manifests pass their checkers (the package test, tests/package/, installs and
verifies the systemd unit). Every wait is bounded; nothing sleeps longer than a poll."""
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.environ.get("OUTRIDER_BUILD_DIR", os.path.join(ROOT, "build"))
sys.path.insert(0, os.path.join(ROOT, "tools", "conformance"))
from agents import quiet_ports  # noqa: E402  (ports no ephemeral socket can take first)
FAILED = []


def check(what, ok, detail=""):
    print(("ok   - " if ok else "FAIL - ") + what + ("" if ok or not detail else f": {detail}"), flush=True)
    if not ok:
        FAILED.append(what)


def get(url, timeout=5):
    with urllib.request.urlopen(url, timeout=timeout) as r:
        return r.status, r.read().decode()


def wait_for(what, fn, timeout_s, gone=lambda: None):
    """Polls fn() (every 0.2 s, bounded) until it returns a true value; gives up at once when
    gone() names a reason (a process it needs has exited)."""
    deadline = time.monotonic() + timeout_s
    last = None
    while time.monotonic() < deadline:
        reason = gone()
        if reason:
            check(what, False, f"{reason} (last: {last})")
            return None
        try:
            last = fn()
            if last:
                return last
        except Exception as e:  # not up yet
            last = e
        time.sleep(0.2)
    check(what, False, f"not within {timeout_s} s (last: {last})")
    return None


def main():
    promtool, prometheus = shutil.which("promtool"), shutil.which("prometheus")
    if not promtool or not prometheus:
        print("SKIP: prometheus/promtool not installed (tools/outrider installs Debian's prometheus)")
        return 0
    tmp = tempfile.mkdtemp(prefix="outrider-obs-")
    base, _, prom_port = quiet_ports(3)
    http = [base, base + 1]
    work_log = os.path.join(tmp, "work.log")
    # Two training jobs at once on the same two agents, each rank of each job its own process.
    bench = " ".join([os.path.join(BUILD, "bin", "outrider-bench"), "step", "--rows", "20000", "--dim", "16",
                      "--steps", "100000", "--modes", "auto,allgather", "--buckets", "256K,64K"])
    two_jobs = f"OUTRIDER_JOB_ID=obs-alpha {bench} & OUTRIDER_JOB_ID=obs-beta {bench} & wait"
    work = subprocess.Popen(
        [os.path.join(ROOT, "tools", "cluster", "run.sh"), "--nodes", "2", "--loopback", "--http-base-port", str(base),
         "--timeout", "120", "--", "bash", "-c", two_jobs],
        stdout=open(work_log, "w"), stderr=subprocess.STDOUT, start_new_session=True)
    prom = None
    try:
        urls = [f"http://127.0.0.1:{p}" for p in http]
        ops_re = re.compile(r'^outrider_ops_total\{[^}]*\} ([0-9.e+]+)$', re.M)

        def work_exited():
            return None if work.poll() is None else f"the launcher exited with code {work.returncode}"

        # Each series below appears with the first op of its kind (the sparse gauges with the first
        # sparse op, which may end later on one agent than on the other): wait for all of them.
        series = ("outrider_ops_total", "outrider_bytes_total", "outrider_op_duration_seconds_bucket", "outrider_peers",
                  "outrider_clients", "outrider_sparse_density_ratio", "process_cpu_seconds_total", "outrider_build_info")

        def exports_all(u):
            text = get(u + "/metrics")[1]
            return ops_re.search(text) and all(re.search("^" + n + r"[{ ]", text, re.M) for n in series)

        if not wait_for("agents serve ops in /metrics", lambda: all(exports_all(u) for u in urls), 60, work_exited):
            with open(work_log, errors="replace") as f:
                print("last lines of the launcher's output:\n" + "".join(f.readlines()[-40:]), flush=True)
            return 1
        for i, u in enumerate(urls):
            _, text = get(u + "/metrics")
            r = subprocess.run([promtool, "check", "metrics"], input=text, capture_output=True, text=True)
            check(f"promtool check metrics on agent {i} under load", r.returncode == 0, r.stdout + r.stderr)
            for name in series:
                check(f"agent {i} exports {name}", re.search("^" + name + r"[{ ]", text, re.M) is not None)
            check(f"agent {i} /healthz", get(u + "/healthz")[0] == 200)
            check(f"agent {i} /readyz", get(u + "/readyz")[0] == 200)
            st = json.loads(get(u + "/status")[1])
            jobs = st.get("jobs", [])
            check(f"agent {i} /status lists both jobs with their recent ops",
                  sorted(j["id"] for j in jobs) == ["obs-alpha", "obs-beta"]
                  and all(j["nodes"] == 2 and len(j["recent_ops"]) > 0 for j in jobs), json.dumps(st)[:300])
            check(f"agent {i} /status lists its peer", len(st.get("peers", [])) == 1)
        ctl = os.path.join(BUILD, "bin", "outriderctl")
        for args in (["status"], ["jobs"], ["peers"], ["metrics", "outrider_ops"]):
            r = subprocess.run([ctl, "--url", urls[0]] + args, capture_output=True, text=True, timeout=20)
            check(f"outriderctl {' '.join(args)}", r.returncode == 0 and r.stdout.strip() != "", r.stderr)
        job = json.loads(get(urls[0] + "/status")[1])["jobs"][0]["id"]
        r = subprocess.run([ctl, "--url", urls[0], "ops", "--job", job], capture_output=True, text=True, timeout=20)
        check("outriderctl ops --job shows the flight recorder", r.returncode == 0 and "allreduce" in r.stdout, r.stderr)
        r = subprocess.run([ctl, "--url", "http://127.0.0.1:1", "status"], capture_output=True, text=True, timeout=20)
        check("outriderctl without an agent says so", r.returncode != 0 and "cannot reach" in r.stderr, r.stderr)

        # A real Prometheus server scraping both agents with the shipped configuration (its targets
        # those of this test).
        cfg = os.path.join(tmp, "prometheus.yml")
        with open(os.path.join(ROOT, "deploy", "prometheus", "prometheus.yml")) as f:
            shipped = f.read()
        targets = '["127.0.0.1:9750"]'
        check("the shipped prometheus.yml lists a target to replace", targets in shipped)
        with open(cfg, "w") as f:
            # Rules evaluated every 5 s here, so that the test sees them evaluated within seconds.
            f.write(shipped.replace(targets, f'["127.0.0.1:{http[0]}", "127.0.0.1:{http[1]}"]')
                    .replace("evaluation_interval: 15s", "evaluation_interval: 5s"))
        shutil.copy(os.path.join(ROOT, "deploy", "prometheus", "outrider-alerts.yml"), tmp)
        prom = subprocess.Popen([prometheus, f"--config.file={cfg}", f"--storage.tsdb.path={tmp}/data",
                                 f"--web.listen-address=127.0.0.1:{prom_port}"],
                                stdout=open(os.path.join(tmp, "prom.log"), "w"), stderr=subprocess.STDOUT)
        api = f"http://127.0.0.1:{prom_port}/api/v1"

        def targets_up():
            t = json.loads(get(api + "/targets")[1])["data"]["activeTargets"]
            return len(t) == 2 and all(x["health"] == "up" for x in t)

        def query(expr):
            return json.loads(get(api + "/query?" + urllib.parse.urlencode({"query": expr}))[1])

        check("Prometheus scrapes both agents", wait_for("targets up", targets_up, 60) is not None)
        total = wait_for("outrider_ops_total > 0 in Prometheus",
                         lambda: (lambda r: r["data"]["result"] and float(r["data"]["result"][0]["value"][1]) > 0 and r)(
                             query("sum(outrider_ops_total)")), 30)
        check("Prometheus sees outrider_ops_total > 0", bool(total))
        # Per-job series carry each training job's own name; `job` is the scrape job's.
        by_job = wait_for("both jobs in Prometheus",
                          lambda: (lambda r: len(r["data"]["result"]) == 2 and r)(
                              query("sum by (training_job, job) (outrider_ops_total)")), 30)
        names = sorted((x["metric"].get("training_job"), x["metric"].get("job"))
                       for x in (by_job or {"data": {"result": []}})["data"]["result"])
        check("per-job series carry each training job's name, and job is the scrape job's",
              names == [("obs-alpha", "outrider"), ("obs-beta", "outrider")], str(names))
        check("no series was stored as exported_job",
              not query("count(outrider_ops_total{exported_job!=\"\"})")["data"]["result"])
        # Rates need two samples: wait for a few scrapes of data (the shipped interval is 5 s).
        window = "20s"
        wait_for("rate data", lambda: query(f"sum(rate(outrider_ops_total[{window}]))")["data"]["result"], 40)
        with open(os.path.join(ROOT, "deploy", "grafana", "outrider-dashboard.json")) as f:
            dash = json.load(f)
        exprs = [(t["expr"], t.get("legendFormat", "")) for p in dash["panels"] for t in p["targets"]]
        exprs.append((dash["templating"]["list"][1]["definition"].replace("label_values(outrider_build_info, instance)",
                                                                         "count by (instance) (outrider_build_info)"), ""))
        # Every expression evaluates; those of the series this workload feeds (all but the GPU and
        # NCCL panels) return series, and the per-job ones one per training job.
        gpu_only = ("outrider_nccl_", "outrider_gpu_", "outrider_job_gpu_mode")
        for e, legend in exprs:
            q = e.replace("$__rate_interval", window).replace("$instance", ".*")
            r = query(q)
            check(f"dashboard expression evaluates: {e[:70]}", r.get("status") == "success", json.dumps(r)[:200])
            if any(g in e for g in gpu_only):
                continue
            result = r.get("data", {}).get("result", [])
            check(f"dashboard expression returns series: {e[:70]}", bool(result), json.dumps(r)[:200])
            if "training_job" in e or "training_job" in legend:
                jobs_seen = sorted({x["metric"].get("training_job") for x in result})
                check(f"dashboard expression names each job: {e[:70]}", jobs_seen == ["obs-alpha", "obs-beta"],
                      str(jobs_seen))
        # The shipped alerting rules: loaded, evaluated without error against the live agents'
        # series, and every series each one reads exists (a renamed metric would leave an alert
        # that never fires). When they fire is promtool test rules' part, below.
        def rules_evaluated():
            groups = json.loads(get(api + "/rules")[1])["data"]["groups"]
            rules = [r for g in groups for r in g["rules"]]
            return rules if rules and all(r.get("lastEvaluation", "").startswith("20") and
                                          not r["lastEvaluation"].startswith("0001") for r in rules) else None
        rules = wait_for("the alerting rules evaluated", rules_evaluated, 40) or []
        check("Prometheus loaded the shipped alerting rules", len(rules) >= 4, str([r.get("name") for r in rules]))
        for rule in rules:
            check(f"alert {rule['name']} evaluates without error", rule.get("health") == "ok", rule.get("lastError", ""))
            for name in sorted(set(re.findall(r"\b((?:outrider|process)_[a-z_]+|up)\b", rule["query"]))):
                present = query(f'count({name}{{job="outrider"}})')["data"]["result"]
                check(f"alert {rule['name']} reads {name}, which the agents export", bool(present))
    finally:
        if prom:
            prom.terminate()
            try:
                prom.wait(timeout=20)
            except subprocess.TimeoutExpired:
                prom.kill()
        try:
            os.killpg(work.pid, signal.SIGTERM)
            work.wait(timeout=30)
        except ProcessLookupError:  # the launcher's group has already gone
            pass
        except subprocess.TimeoutExpired:
            os.killpg(work.pid, signal.SIGKILL)

    # The shipped files pass their checkers.
    r = subprocess.run([promtool, "check", "config", os.path.join(ROOT, "deploy", "prometheus", "prometheus.yml")],
                       capture_output=True, text=True)
    check("promtool check config deploy/prometheus/prometheus.yml", r.returncode == 0, r.stdout + r.stderr)
    r = subprocess.run([promtool, "test", "rules", "outrider-alerts.test.yml"],
                       cwd=os.path.join(ROOT, "deploy", "prometheus"), capture_output=True, text=True)
    check("promtool test rules: each alert fires when it should", r.returncode == 0, r.stdout + r.stderr)
    try:
        import yaml
        for name in ("daemonset.yaml", "training-pod.yaml"):
            with open(os.path.join(ROOT, "deploy", "kubernetes", name)) as f:
                docs = [d for d in yaml.safe_load_all(f) if d]
            check(f"deploy/kubernetes/{name} parses", all("kind" in d and "apiVersion" in d for d in docs))
    except ImportError:
        print("SKIP: python3-yaml not installed; manifests not parsed")
    shutil.rmtree(tmp, ignore_errors=True)
    print(f"{'FAILED: ' + ', '.join(FAILED) if FAILED else 'all checks passed'}")
    return 1 if FAILED else 0


if __name__ == "__main__":
    sys.exit(main())
