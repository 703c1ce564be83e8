"""A package whose extension does not load here (as after a PyTorch upgrade): importing it raises
ImportError with a reinstall command for the Python in use, and `python -m outrider_torch` says
so and exits 1 instead of printing a traceback. Works on a copy of the installed package whose
extension is replaced by a file that is not one."""
import glob
import os
import shutil
import subprocess
import sys
import tempfile

import outrider_torch


def main():
    installed = os.path.dirname(outrider_torch.__file__)
    tmp = tempfile.mkdtemp(prefix="outrider-load-")
    copy = os.path.join(tmp, "outrider_torch")
    shutil.copytree(installed, copy)
    extensions = glob.glob(os.path.join(copy, "_C*.so"))
    assert extensions, f"no extension in {installed}"
    for so in extensions:
        with open(so, "w") as f:
            f.write("not a shared object\n")
    env = dict(os.environ, PYTHONPATH=tmp)
    failed = []
    r = subprocess.run([sys.executable, "-c", "import outrider_torch"], env=env, capture_output=True, text=True,
                       cwd=tmp)
    hint = f"reinstall it against this PyTorch: {sys.executable} -m pip install --no-build-isolation --force-reinstall"
    if r.returncode == 0 or "ImportError" not in r.stderr or hint not in r.stderr:
        failed.append("import: " + r.stderr[-600:])
    r = subprocess.run([sys.executable, "-m", "outrider_torch"], env=env, capture_output=True, text=True, cwd=tmp)
    if r.returncode != 1 or "Traceback" in r.stderr or "does not load" not in r.stderr or hint not in r.stderr:
        failed.append(f"python -m outrider_torch (exit {r.returncode}): " + r.stderr[-600:])
    shutil.rmtree(tmp, ignore_errors=True)
    for f in failed:
        print("FAIL - " + f, flush=True)
    print("all checks passed" if not failed else "FAILED", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
