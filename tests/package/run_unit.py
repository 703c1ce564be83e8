#!/usr/bin/env python3
"""Inside the clean Debian 12 root once the package is installed (tests/package/install_test.sh),
in a network namespace of its own: starts the installed unit's ExecStart the way systemd starts
it, from the unit file itself: as its User and Group (root when unset, as systemd), with its
Environment and EnvironmentFile, its RuntimeDirectory (owner and mode), its LimitNOFILE and
LimitMEMLOCK, NoNewPrivileges, a NOTIFY_SOCKET for Type=notify and WATCHDOG_USEC from WatchdogSec.
A key this does not carry out fails the test, unless it only confines the service (the sandboxing
keys, which systemd-analyze verify checked). Then:
  - the agent says READY=1 on the notify socket;
  - a user of group `outrider` (added as agent.toml says) runs a 2-rank job over the unit's socket,
    found by the shim's default with a login session's XDG_RUNTIME_DIR set, and its results check;
  - a user outside the group is refused, and the error names the group setting;
  - README's commands after the install (outriderctl status) read the agent;
  - the unit's KillSignal stops the agent within TimeoutStopSec, with exit status 0.
Every wait is bounded and waits for its event."""
import ctypes
import grp
import os
import pwd
import resource
import select
import shlex
import signal
import socket
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
UNIT = "/usr/lib/systemd/system/outrider-agent.service"
BENCH = os.path.join(HERE, "outrider-bench")
FAILED = []
# Keys that only confine the service; systemd-analyze verify has checked their syntax.
CONFINING = {"NoNewPrivileges", "ProtectSystem", "ProtectHome", "PrivateTmp"}
# Keys whose effect is carried out below, or that matter only to systemd's own bookkeeping.
CARRIED = {"Type", "NotifyAccess", "ExecStart", "Environment", "EnvironmentFile", "RuntimeDirectory",
           "RuntimeDirectoryMode", "WatchdogSec", "Restart", "RestartSec", "TimeoutStopSec", "KillSignal",
           "LimitNOFILE", "LimitMEMLOCK", "User", "Group"}


def check(what, ok, detail=""):
    print(("ok   - " if ok else "FAIL - ") + what + ("" if ok or not detail else f": {detail}"), flush=True)
    if not ok:
        FAILED.append(what)
    return ok


def parse_unit(path):
    """[Service] keys to the list of their values (keys may repeat), from systemd's syntax."""
    keys, section = {}, None
    with open(path) as f:
        for raw in f:
            line = raw.strip()
            if not line or line[0] in "#;":
                continue
            if line.startswith("["):
                section = line.strip("[]")
                continue
            if section == "Service" and "=" in line:
                k, v = line.split("=", 1)
                keys.setdefault(k.strip(), []).append(v.strip())
    return keys


def seconds(value):
    """systemd time spans as this unit writes them: '30', '30s', '2min'."""
    for suffix, scale in (("min", 60), ("ms", 0.001), ("s", 1)):
        if value.endswith(suffix):
            return float(value[:-len(suffix)]) * scale
    return float(value)


def service_environment(svc, user):
    env = {"PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "LANG": "C.UTF-8",
           "HOME": user.pw_dir, "USER": user.pw_name, "LOGNAME": user.pw_name}
    for value in svc.get("Environment", []):
        for assignment in shlex.split(value):
            k, v = assignment.split("=", 1)
            env[k] = v
    for value in svc.get("EnvironmentFile", []):
        optional, path = value.startswith("-"), value.lstrip("-")
        if not os.path.exists(path):
            if not optional:
                raise RuntimeError(f"EnvironmentFile {path} is missing")
            continue
        with open(path) as f:
            for line in f:
                line = line.strip()
                if line and not line.startswith("#") and "=" in line:
                    k, v = line.split("=", 1)
                    env[k.strip()] = v.strip().strip('"')
    return env


def rlimit(value):
    return resource.RLIM_INFINITY if value == "infinity" else int(value)


def start_service(svc, notify_path, log):
    user = pwd.getpwnam(svc.get("User", ["root"])[-1])
    group = grp.getgrnam(svc["Group"][-1]) if "Group" in svc else grp.getgrgid(user.pw_gid)
    env = service_environment(svc, user)
    for name in svc.get("RuntimeDirectory", []):
        path = os.path.join("/run", name)
        os.makedirs(path, exist_ok=True)
        os.chown(path, user.pw_uid, group.gr_gid)
        os.chmod(path, int(svc.get("RuntimeDirectoryMode", ["0755"])[-1], 8))
        env["RUNTIME_DIRECTORY"] = path
    env["NOTIFY_SOCKET"] = notify_path
    if "WatchdogSec" in svc:
        env["WATCHDOG_USEC"] = str(int(seconds(svc["WatchdogSec"][-1]) * 1e6))
    argv = shlex.split(svc["ExecStart"][-1])
    if argv[0][0] in "-@+!:":
        raise RuntimeError(f"ExecStart prefix {argv[0][0]} is not carried out here")
    # The unit's limits, as far as this machine lets a process raise them: without CAP_SYS_RESOURCE
    # (a container) the hard limit caps them, which is said.
    limits = []
    for key, which in (("LimitNOFILE", resource.RLIMIT_NOFILE), ("LimitMEMLOCK", resource.RLIMIT_MEMLOCK)):
        if key not in svc:
            continue
        want, hard = rlimit(svc[key][-1]), resource.getrlimit(which)[1]
        try:
            resource.prlimit(0, which, (want, want))  # probes; this process's own limits are not needed
            got = want
        except (ValueError, PermissionError):
            got = hard
            print(f"# {key}={svc[key][-1]}: this machine's hard limit is {hard}, and the agent runs with it")
        limits.append((which, got))
    no_new_privs = svc.get("NoNewPrivileges", ["no"])[-1] == "yes"

    def become_service():
        os.setsid()
        os.umask(0o022)
        for which, value in limits:
            resource.setrlimit(which, (value, value))
        if user.pw_uid == 0:
            os.setgroups([])
        else:
            os.initgroups(user.pw_name, group.gr_gid)
        os.setgid(group.gr_gid)
        os.setuid(user.pw_uid)
        if no_new_privs:
            ctypes.CDLL(None, use_errno=True).prctl(38, 1, 0, 0, 0)  # PR_SET_NO_NEW_PRIVS

    proc = subprocess.Popen(argv, env=env, cwd="/", stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                            preexec_fn=become_service)
    return proc, user, group


def wait_notify(sock, proc, want, timeout_s):
    """Reads sd_notify datagrams until one carries `want` (e.g. READY=1); None if the agent exits first."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            return None
        r, _, _ = select.select([sock], [], [], min(0.5, max(0.0, deadline - time.monotonic())))
        if r and want in sock.recv(4096).decode(errors="replace").split("\n"):
            return True
    return False


def add_user(name, groups):
    cmd = ["useradd", "--create-home", name]
    subprocess.run(cmd, check=True)
    for g in groups:
        subprocess.run(["usermod", "-aG", g, name], check=True)
    return pwd.getpwnam(name)


def as_user(user):
    def become():
        os.initgroups(user.pw_name, user.pw_gid)
        os.setgid(user.pw_gid)
        os.setuid(user.pw_uid)
    return become


def trainer_env(user, rank, world):
    runtime = f"/run/user/{user.pw_uid}"  # what a login session's pam_systemd sets, without an agent there
    os.makedirs(runtime, exist_ok=True)
    os.chown(runtime, user.pw_uid, user.pw_gid)
    os.chmod(runtime, 0o700)
    return {"PATH": "/usr/bin:/bin", "HOME": user.pw_dir, "XDG_RUNTIME_DIR": runtime, "RANK": str(rank),
            "WORLD_SIZE": str(world), "LOCAL_RANK": str(rank), "LOCAL_WORLD_SIZE": str(world),
            "OUTRIDER_JOB_ID": f"package-{user.pw_name}"}


def main():
    svc = parse_unit(UNIT)
    unknown = sorted(set(svc) - CARRIED - CONFINING)
    check("every key of the unit's [Service] is carried out or only confines", not unknown, ", ".join(unknown))
    notify_path = "/run/outrider-test-notify"
    notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    if os.path.exists(notify_path):
        os.unlink(notify_path)
    notify.bind(notify_path)
    log_path = os.path.join(HERE, "agent.log")
    with open(log_path, "w") as log:
        proc, user, group = start_service(svc, notify_path, log)
    try:
        print(f"# ExecStart as {user.pw_name}:{group.gr_name} (pid {proc.pid}): {svc['ExecStart'][-1]}", flush=True)
        ready = wait_notify(notify, proc, "READY=1", 30)
        if not check("the agent says READY=1 (Type=notify) within 30 s", ready is True,
                     "it exited" if ready is None else "no READY=1"):
            return
        sock_path = "/run/outrider/agent.sock"
        st = os.stat(sock_path) if os.path.exists(sock_path) else None
        check("the unit's socket is /run/outrider/agent.sock, group outrider, 0660",
              st is not None and grp.getgrgid(st.st_gid).gr_name == "outrider" and (st.st_mode & 0o777) == 0o660,
              f"{oct(st.st_mode) if st else 'missing'}")

        trainer = add_user("trainer", ["outrider"])
        ranks = []
        for r in range(2):
            out = open(os.path.join(HERE, f"rank{r}.log"), "w")
            ranks.append((subprocess.Popen([BENCH, "allreduce", "-b", "1K", "-e", "4M", "-f", "64", "--iters", "5"],
                                           env=trainer_env(trainer, r, 2), cwd=trainer.pw_dir, stdout=out,
                                           stderr=subprocess.STDOUT, preexec_fn=as_user(trainer)), out))
        codes = []
        for p, out in ranks:
            try:
                codes.append(p.wait(timeout=120))
            except subprocess.TimeoutExpired:
                p.kill()
                codes.append("timeout")
            out.close()
        text = open(os.path.join(HERE, "rank0.log")).read()
        rows = [l for l in text.splitlines() if l.strip() and not l.startswith("#")]
        check("a 2-rank job of a user in group outrider runs over the unit's socket (the shim's default "
              "with XDG_RUNTIME_DIR set) and its results check",
              codes == [0, 0] and len(rows) >= 3 and all(l.split()[-1] == "ok" for l in rows), f"exit {codes}: {text}")

        stranger = add_user("stranger", [])
        r = subprocess.run([BENCH, "allreduce", "-b", "8", "-e", "8", "--iters", "1"], env=trainer_env(stranger, 0, 1),
                           cwd=stranger.pw_dir, capture_output=True, text=True, timeout=60,
                           preexec_fn=as_user(stranger))
        check("a user outside group outrider is refused, and told about the socket group",
              r.returncode != 0 and "socket-group" in (r.stdout + r.stderr), f"exit {r.returncode}: {r.stdout}{r.stderr}")

        after = open(os.path.join(HERE, "quickstart-after.sh")).read()
        r = subprocess.run(["sh", "-e", "-c", after], cwd=HERE, capture_output=True, text=True, timeout=60)
        check(f"README's next commands ({'; '.join(l.split('#')[0].strip() for l in after.splitlines() if l.strip())}) "
              "read the agent", r.returncode == 0 and "agent" in r.stdout.lower(), f"exit {r.returncode}: {r.stdout}{r.stderr}")
    finally:
        kill = getattr(signal, svc.get("KillSignal", ["SIGTERM"])[-1])
        if proc.poll() is None:
            proc.send_signal(kill)
        stop_s = seconds(svc.get("TimeoutStopSec", ["90"])[-1])
        try:
            code = proc.wait(timeout=stop_s)
        except subprocess.TimeoutExpired:
            proc.kill()
            code = "still running"
        check(f"KillSignal stops the agent within TimeoutStopSec ({stop_s:.0f} s), exit status 0", code == 0,
              f"exit {code}")
        if FAILED:
            print("--- agent log (last 40 lines)")
            print("".join(open(log_path).readlines()[-40:]))
    print("FAILED: " + ", ".join(FAILED) if FAILED else "all checks passed")


if __name__ == "__main__":
    main()
    sys.exit(1 if FAILED else 0)
