"""The outrider_torch package: the torch.distributed backend, built against the PyTorch of the
environment it is installed into.

    pip install --no-build-isolation .            # from the repository root

--no-build-isolation lets the build see the environment's PyTorch (pip would otherwise build in an
empty one). Nothing else is needed beyond a C++20 compiler: Boost's headers come vendored
(third_party/boost), CUDA and NCCL only as headers, and only where this PyTorch has CUDA.

The package carries what trainers load at run time, next to the extension in outrider_torch/lib/:
liboutrider.so.0 (the client library; the extension finds it through its RUNPATH), and, with a CUDA
PyTorch and NCCL's headers, liboutrider_nccl.so (LD_PRELOAD interposer) and
libnccl-profiler-outrider.so (NCCL_PROFILER_PLUGIN). `python -m outrider_torch` prints where they
are. The sources come from shim/sources.txt, the list the CMake build reads too.

Environment: CUDA_HOME (the CUDA headers: cuda.h, cudaTypedefs.h), NCCL_HOME (nccl.h), MAX_JOBS
(parallel compiles), OUTRIDER_TORCH_NO_CUDA=1 (leave the CUDA path out), OUTRIDER_PIP_BUILD_DIR (the
build's scratch space, default build-pip/ in the repository: give concurrent installs each their own).
"""
import os
import shlex
import subprocess
import sys
import sysconfig
from concurrent.futures import ThreadPoolExecutor

from setuptools import setup

ROOT = os.path.dirname(os.path.abspath(__file__))
VERSION = "0.1.0"


def sources(section):
    """The paths of one [section] of shim/sources.txt."""
    out, current = [], None
    with open(os.path.join(ROOT, "shim", "sources.txt")) as f:
        for line in f:
            line = line.strip()
            if line.startswith("[") and line.endswith("]"):
                current = line[1:-1]
            elif line and not line.startswith("#") and current == section:
                out.append(os.path.join(ROOT, line))
    if not out:
        raise RuntimeError(f"shim/sources.txt has no section [{section}]")
    return out


def say(what):
    print(f"outrider_torch: {what}", file=sys.stderr, flush=True)


try:
    import torch
    from torch.utils import cpp_extension
except ImportError:
    sys.exit("outrider_torch: PyTorch must be installed in this environment first, and pip must see it: "
             "pip install --no-build-isolation .")


def cuda_include():
    """The directory with cuda.h and cudaTypedefs.h for this PyTorch's CUDA, or None (and why)."""
    if torch.version.cuda is None:
        return None, f"PyTorch {torch.__version__} has no CUDA"
    if os.environ.get("OUTRIDER_TORCH_NO_CUDA") == "1":
        return None, "OUTRIDER_TORCH_NO_CUDA=1"
    candidates = [os.environ.get("CUDA_HOME"), cpp_extension.CUDA_HOME, "/usr/local/cuda"]
    site = sysconfig.get_paths()["purelib"]
    candidates += [os.path.join(site, "nvidia", "cuda_runtime"), os.path.join(site, "nvidia", "cu13"),
                   os.path.join(site, "nvidia", "cuda_nvcc")]
    for c in candidates:
        if c and os.path.exists(os.path.join(c, "include", "cuda.h")) and \
                os.path.exists(os.path.join(c, "include", "cudaTypedefs.h")):
            return os.path.join(c, "include"), ""
    return None, ("no CUDA headers (cuda.h and cudaTypedefs.h) in $CUDA_HOME, PyTorch's CUDA_HOME, "
                  "/usr/local/cuda or the nvidia wheels: set CUDA_HOME to a CUDA toolkit")


def nccl_include(cuda_inc):
    """The directory with an nccl.h of 2.19 or later, or None."""
    site = sysconfig.get_paths()["purelib"]
    for c in [os.environ.get("NCCL_HOME") and os.path.join(os.environ["NCCL_HOME"], "include"), cuda_inc,
              os.path.join(site, "nvidia", "nccl", "include"), "/usr/include"]:
        h = c and os.path.join(c, "nccl.h")
        if h and os.path.exists(h):
            text = open(h).read()
            for line in text.splitlines():
                if line.startswith("#define NCCL_VERSION_CODE"):
                    if int(line.split()[2]) >= 21900:
                        return c
    return None


class Native:
    """Compiles the shared libraries the package carries, with the same flags the CMake build uses
    for them (C++20, hidden visibility, -O3)."""

    def __init__(self, build_dir, cuda_inc, nccl_inc):
        self.build_dir = build_dir
        self.cxx = os.environ.get("CXX", "c++")
        self.jobs = int(os.environ.get("MAX_JOBS", os.cpu_count() or 2))
        self.flags = ["-std=c++20", "-O3", "-fPIC", "-fvisibility=hidden", "-fvisibility-inlines-hidden",
                      "-Wall", "-Wextra", "-Wno-unused-parameter",
                      f"-DOUTRIDER_HAVE_CUDA={int(cuda_inc is not None)}",
                      f"-DOUTRIDER_HAVE_NCCL={int(nccl_inc is not None)}",
                      f"-I{ROOT}", f"-I{os.path.join(ROOT, 'shim', 'include')}",
                      "-isystem", os.path.join(ROOT, "third_party", "boost", "include")]
        for inc in {cuda_inc, nccl_inc} - {None}:
            self.flags += ["-isystem", inc]

    def objects(self, srcs):
        os.makedirs(self.build_dir, exist_ok=True)

        def one(src):  # always compiled: an object older than a header it includes would be stale
            rel = os.path.relpath(src, ROOT).replace(os.sep, "_")
            obj = os.path.join(self.build_dir, rel + ".o")
            self.run([self.cxx, *self.flags, "-c", src, "-o", obj])
            return obj

        with ThreadPoolExecutor(self.jobs) as pool:
            return list(pool.map(one, srcs))

    def run(self, cmd):
        r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if r.returncode != 0:
            sys.exit(f"outrider_torch: this failed:\n  {shlex.join(cmd)}\n{r.stdout}")

    def shared(self, out, srcs, soname=None, extra=()):
        objs = self.objects(srcs)
        cmd = [self.cxx, "-shared", "-o", out, *objs, "-Wl,--no-undefined", *extra, "-ldl", "-lpthread"]
        if soname:
            cmd.insert(2, f"-Wl,-soname,{soname}")
        self.run(cmd)


cuda_inc, no_cuda_why = cuda_include()
nccl_inc = nccl_include(cuda_inc) if cuda_inc else None


class BuildExt(cpp_extension.BuildExtension):
    """Builds the native libraries into outrider_torch/lib/ first, then the extension against them."""

    def run(self):
        pkg = os.path.join(os.path.abspath(self.build_lib), "outrider_torch")
        lib = os.path.join(pkg, "lib")
        os.makedirs(lib, exist_ok=True)
        common = sources("base") + sources("ipc") + sources("loaders")  # compiled into each library
        native = Native(os.path.join(os.path.abspath(self.build_temp), "native"), cuda_inc, nccl_inc)
        say(f"building liboutrider.so.0 ({native.jobs} jobs)")
        shim = os.path.join(lib, "liboutrider.so.0")
        native.shared(shim, common + sources("shim"), soname="liboutrider.so.0")
        built = {"liboutrider": "lib/liboutrider.so.0"}
        if nccl_inc:
            say("building liboutrider_nccl.so and libnccl-profiler-outrider.so")
            native.shared(os.path.join(lib, "liboutrider_nccl.so"), common + sources("nccl_interposer"),
                          extra=[shim, "-Wl,-rpath,$ORIGIN",
                                 f"-Wl,--version-script={os.path.join(ROOT, 'shim', 'nccl', 'exports.map')}"])
            native.shared(os.path.join(lib, "libnccl-profiler-outrider.so"), common + sources("nccl_profiler"),
                          extra=["-Wl,--exclude-libs,ALL"])
            built["nccl_interposer"] = "lib/liboutrider_nccl.so"
            built["nccl_profiler"] = "lib/libnccl-profiler-outrider.so"
        elif cuda_inc:
            say("no nccl.h of NCCL 2.19 or later ($NCCL_HOME, the CUDA headers, the nvidia-nccl wheel): "
                "the NCCL interposer and profiler plugin are left out")
        for ext in self.extensions:
            ext.extra_link_args += [shim, "-Wl,-rpath,$ORIGIN/lib"]
        with open(os.path.join(pkg, "_build.py"), "w") as f:
            f.write("# Written by setup.py when this package was built.\n")
            f.write(f"VERSION = {VERSION!r}\n")
            f.write(f"TORCH_VERSION = {torch.__version__!r}\n")
            f.write(f"CUDA = {torch.version.cuda if cuda_inc else None!r}\n")
            f.write(f"NO_CUDA_WHY = {no_cuda_why!r}\n")
            f.write(f"LIBRARIES = {built!r}\n")
            f.write(f"SOURCE = {ROOT!r}\n")
            f.write(f"PYTHON = {sys.executable!r}\n")
        super().run()


cflags = ["-std=c++20", "-O2", "-g0", f"-I{ROOT}", f"-I{os.path.join(ROOT, 'shim', 'include')}"]
# The extension uses the shim through its C API (liboutrider.so), and base/ and ipc/ (memfds for
# its shared heap) as sources of its own: the shim library keeps those symbols hidden.
torch_sources = sources("base") + sources("ipc") + sources("torch")
libs = []
if cuda_inc:
    torch_sources += sources("torch_cuda")
    cflags += ["-DOUTRIDER_TORCH_CUDA=1", "-isystem", cuda_inc]
    libs.append("c10_cuda")
    allocator = os.path.join(os.path.dirname(torch.__file__), "include", "c10", "cuda", "CUDACachingAllocator.h")
    if os.path.exists(allocator) and "attachAllocatorTraceTracker" in open(allocator).read():
        cflags.append("-DOUTRIDER_TORCH_TRACE_HOOK=1")
    say(f"building against PyTorch {torch.__version__} with CUDA {torch.version.cuda} (headers: {cuda_inc})")
else:
    say(f"building against PyTorch {torch.__version__} without the CUDA path: {no_cuda_why}")

BUILD_BASE = os.path.abspath(os.environ.get("OUTRIDER_PIP_BUILD_DIR") or os.path.join(ROOT, "build-pip"))
os.makedirs(BUILD_BASE, exist_ok=True)

setup(
    name="outrider_torch",
    version=VERSION,
    description="Outrider's torch.distributed backend: collectives and sparse embedding gradients through "
                "the node's outrider-agent",
    python_requires=">=3.9",
    packages=["outrider_torch"],
    package_dir={"outrider_torch": "shim/python/outrider_torch"},
    ext_modules=[cpp_extension.CppExtension("outrider_torch._C", [os.path.relpath(s, ROOT) for s in torch_sources],
                                            extra_compile_args=cflags, libraries=libs)],
    cmdclass={"build_ext": BuildExt},
    options={"build": {"build_base": BUILD_BASE}, "egg_info": {"egg_base": BUILD_BASE}},
    zip_safe=False,
)
