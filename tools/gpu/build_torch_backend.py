"""Builds the outrider_torch package against the PyTorch of the Python that runs this script.

    python3 tools/gpu/build_torch_backend.py --lib BUILD/lib --out DIR [--jobs N]

DIR/outrider_torch/ then holds the package (put DIR on PYTHONPATH). The extension links
BUILD/lib/liboutrider.so (the shim), found at run time through its RUNPATH. A PyTorch with CUDA
gets the CUDA parts (streams, and the allocator trace hook where its headers have it) and needs
the CUDA headers: $CUDA_HOME, else PyTorch's idea of it, else /usr/local/cuda.

Used by tools/gpu/accept.sh on a GPU machine, whose PyTorch is its own (pip, conda), not the one
the CMake build knows. Nothing else of the machine is touched: the build goes to DIR.
"""
import argparse
import glob
import os
import shutil
import sys
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
PKG = os.path.join(ROOT, "shim", "python", "outrider_torch")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--lib", required=True, help="the directory holding liboutrider.so")
    p.add_argument("--out", required=True, help="where outrider_torch/ goes")
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 2, help="parallel compile jobs")
    a = p.parse_args()
    lib = os.path.abspath(a.lib)
    if not os.path.exists(os.path.join(lib, "liboutrider.so")):
        sys.exit(f"build_torch_backend: no liboutrider.so in {lib}")
    try:
        import torch
        from torch.utils import cpp_extension
    except ImportError as e:
        sys.exit(f"build_torch_backend: {sys.executable} has no PyTorch ({e})")
    os.environ.setdefault("MAX_JOBS", str(a.jobs))
    cuda = torch.version.cuda is not None
    names = ["process_group.cc", "process_group_cuda.cc", "process_group_sparse.cc", "connection.cc",
             "any_source.cc", "shared_memory.cc", "module.cc"]
    cflags = ["-std=c++20", "-O2"]
    includes = [ROOT, os.path.join(ROOT, "shim", "include")]
    ldflags = [f"-L{lib}", "-loutrider", f"-Wl,-rpath,{lib}"]
    if cuda:
        home = os.environ.get("CUDA_HOME") or cpp_extension.CUDA_HOME or "/usr/local/cuda"
        if not os.path.exists(os.path.join(home, "include", "cuda.h")):
            sys.exit(f"build_torch_backend: PyTorch {torch.__version__} has CUDA, but there are no CUDA headers "
                     f"in {home}/include (set CUDA_HOME)")
        includes.append(os.path.join(home, "include"))
        names.append("torch_cuda.cc")
        cflags.append("-DOUTRIDER_TORCH_CUDA=1")
        ldflags.append("-lc10_cuda")
        allocator = os.path.join(os.path.dirname(torch.__file__), "include", "c10", "cuda", "CUDACachingAllocator.h")
        if os.path.exists(allocator) and "attachAllocatorTraceTracker" in open(allocator).read():
            cflags.append("-DOUTRIDER_TORCH_TRACE_HOOK=1")
    build = os.path.join(os.path.abspath(a.out), ".build")
    os.makedirs(build, exist_ok=True)
    t0 = time.time()
    cpp_extension.load(name="_C", sources=[os.path.join(PKG, "csrc", n) for n in names],
                       extra_include_paths=includes, extra_cflags=cflags, extra_ldflags=ldflags,
                       build_directory=build, verbose=False)
    out = os.path.join(os.path.abspath(a.out), "outrider_torch")
    os.makedirs(out, exist_ok=True)
    for f in glob.glob(os.path.join(PKG, "*.py")):
        shutil.copy(f, out)
    built = [f for f in glob.glob(os.path.join(build, "_C*.so"))]
    shutil.copy(built[0], os.path.join(out, "_C.so"))
    print(f"outrider_torch built against PyTorch {torch.__version__} (CUDA {torch.version.cuda or 'none'}) "
          f"in {time.time() - t0:.0f} s: {out}")


if __name__ == "__main__":
    main()
