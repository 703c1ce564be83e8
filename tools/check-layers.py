#!/usr/bin/env python3
"""Checks that every include inside agent/ points down its layers (docs/design.md, "Layers").

The static libraries catch an upward call at link time; this catches an upward include that links
only by accident (a header's inline code, a type used by name). Exit status 1 names each include
that points the wrong way.
"""
import os
import re
import sys

# Each folder of agent/ and the folders it may include ("base": log, event_loop, observability).
BELOW = {
    "base": set(),
    "memory": {"base"},
    "transport": {"base"},
    "sched": {"base", "transport"},
    "bootstrap": {"base"},
    "membership": {"base", "bootstrap"},
    "net": {"base", "bootstrap", "sched", "transport"},
    "engine": {"base", "bootstrap", "membership", "memory", "net", "sched", "transport"},
    "control": {"base", "bootstrap", "membership", "memory", "net", "sched", "transport", "engine"},
    # engine/gpu/: the GPU path, above the engine core (which sees it as engine/device_path.h).
    "gpu": {"base", "bootstrap", "membership", "memory", "net", "sched", "transport", "engine"},
    "http": {"base"},
}
BASE_FILES = {"log", "event_loop", "observability"}


def layer(path):
    parts = path.split("/")
    if len(parts) == 2:
        stem = os.path.splitext(parts[1])[0]
        return "base" if stem in BASE_FILES else None  # None: the top (agent, config, main)
    if parts[1] == "engine" and len(parts) > 3 and parts[2] == "gpu":
        return "gpu"
    return parts[1]


def main():
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    os.chdir(root)
    wrong = []
    for folder, _, files in os.walk("agent"):
        for name in sorted(files):
            if not name.endswith((".h", ".cc", ".cu")):
                continue
            path = os.path.join(folder, name)
            here = layer(path)
            if here is None:
                continue
            with open(path, encoding="utf-8") as f:
                for number, line in enumerate(f, 1):
                    m = re.match(r'\s*#include "(agent/[^"]+)"', line)
                    if not m:
                        continue
                    there = layer(m.group(1))
                    if there == here:
                        continue
                    if there is None or there not in BELOW.get(here, set()):
                        wrong.append(f"{path}:{number}: {here}/ includes {m.group(1)} "
                                     f"({there or 'the top'} is not below {here}/)")
    for w in wrong:
        print(w)
    if wrong:
        print(f"{len(wrong)} include(s) point up the agent's layers (docs/design.md, Layers)")
        return 1
    print("every include in agent/ points down its layers")
    return 0


if __name__ == "__main__":
    sys.exit(main())
