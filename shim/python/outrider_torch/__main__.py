"""python -m outrider_torch: what this install is and whether the node's agent answers.

Prints the package and protocol version, the PyTorch (and CUDA) it was built against and the one
in use, whether the GPU path is in, the native libraries it carries, the agent socket it would
use, and whether an agent answers there: it joins a one-rank job of its own for a moment
("outrider-diagnose-<pid>") and leaves. Exit status 0 if the package loads and an agent answers,
1 otherwise.
"""
import ctypes
import os
import stat
import sys


def agent_socket():
    """The socket the shim connects to: $OUTRIDER_SOCKET, else the user's session's agent where
    one listens there, else the node's (shim/connect_config.h, DefaultSocketPath)."""
    if os.environ.get("OUTRIDER_SOCKET"):
        return os.environ["OUTRIDER_SOCKET"], "$OUTRIDER_SOCKET"
    xdg = os.environ.get("XDG_RUNTIME_DIR", "")
    if xdg.startswith("/"):  # a relative one is invalid per the XDG spec, and ignored
        session = os.path.join(xdg, "outrider", "agent.sock")
        if os.path.exists(session) and stat.S_ISSOCK(os.stat(session).st_mode):
            return session, "default: this session's agent"
    return "/run/outrider/agent.sock", "default: the node's agent"


class ConnectOptions(ctypes.Structure):
    """outrider_connect_options_t (shim/include/outrider/outrider.h)."""
    _fields_ = [("size", ctypes.c_uint32), ("socket_path", ctypes.c_char_p), ("job_id", ctypes.c_char_p),
                ("rank", ctypes.c_int32), ("world_size", ctypes.c_int32),
                ("local_rank", ctypes.c_int32), ("local_world_size", ctypes.c_int32),
                ("arena_bytes", ctypes.c_uint64), ("timeout_ms", ctypes.c_int32), ("flags", ctypes.c_uint32),
                ("job_class", ctypes.c_int32), ("job_weight", ctypes.c_uint32)]


def probe_agent(lib_path, socket):
    """None if an agent accepted a one-rank job at `socket`, else why not."""
    lib = ctypes.CDLL(lib_path)
    opts = ConnectOptions()
    lib.outrider_connect_options_init(ctypes.byref(opts))
    if opts.size != ctypes.sizeof(ConnectOptions):
        return f"(cannot probe: this tool's outrider_connect_options_t is {ctypes.sizeof(ConnectOptions)} bytes, the library's {opts.size})"
    opts.socket_path = socket.encode()
    opts.job_id = f"outrider-diagnose-{os.getpid()}".encode()
    opts.rank, opts.world_size, opts.local_rank, opts.local_world_size = 0, 1, 0, 1
    opts.arena_bytes = 1 << 20
    opts.timeout_ms = 3000
    client = ctypes.c_void_p()
    lib.outrider_last_error.restype = ctypes.c_char_p
    rc = lib.outrider_connect(ctypes.byref(opts), ctypes.byref(client))
    if rc != 0:
        return lib.outrider_last_error(None).decode(errors="replace")
    lib.outrider_disconnect(client)
    return None


def main():
    ok = True
    try:
        import torch
    except ImportError as e:
        print(f"PyTorch: not importable ({e})")
        return 1
    print(f"PyTorch in use:     {torch.__version__} (CUDA {torch.version.cuda or 'none'}; "
          f"GPUs visible: {torch.cuda.device_count() if torch.version.cuda else 0})")
    try:
        import outrider_torch
        from outrider_torch import _C
    except ImportError as e:
        print(f"outrider_torch:     does not load: {e}")
        return 1
    build = outrider_torch._build
    print(f"outrider_torch:     {build.VERSION if build else '(a build tree, not an install)'} at "
          f"{os.path.dirname(outrider_torch.__file__)}")
    print(f"protocol version:   {_C.protocol_version}")
    print(f"built against:      PyTorch {_C.torch_version}" + (f", CUDA {build.CUDA}" if build and build.CUDA else ""))
    print(f"GPU path:           {'in' if _C.cuda else 'out'}"
          + ("" if _C.cuda or build is None else f" ({build.NO_CUDA_WHY})"))
    for name in ("liboutrider", "nccl_interposer", "nccl_profiler"):
        path = outrider_torch.library_path(name)
        print(f"{name + ':':<19} {path or 'not in this build'}")
    socket, where = agent_socket()
    print(f"agent socket:       {socket} ({where})")
    lib = outrider_torch.library_path("liboutrider")
    if lib is None:
        print("agent:              not probed (no packaged liboutrider here)")
        return 0
    why = probe_agent(lib, socket)
    if why is None:
        print(f"agent:              answers (protocol {_C.protocol_version}: a one-rank job joined and left)")
    else:
        ok = False
        print(f"agent:              does not answer: {why}")
        print("                    no agent on this machine? `tools/outrider agent` in the repository builds one and\n"
              "                    runs it for this user; on a Debian 12 node, `tools/outrider package` and\n"
              "                    `apt install ./build/outrider-agent_*.deb` run it as a service (README, Quick start)")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
