"""A trainer that exits while a receive from any source still waits for its sender.

Rank 0 posts a receive from any source that nobody sends to, with a Python callback on its
future, and exits. The backend's exit hook must fail that receive (after its grace for ops in
flight) while the interpreter still runs: afterwards the callback could not take the GIL, and the
exit would hang or abort. Checked: every rank exits 0, and the callback ran, with the shutdown as
the receive's error, before the interpreter went down.

With --destroy-group, the callback also destroys a second group (its last reference) while the
exit hook is still stopping the connection: the exit must not deadlock.
"""
import atexit
import os
import sys

errors = []


def check():  # registered first, so it runs after the backend's own exit hook
    if os.environ.get("RANK") != "0":
        return
    if not errors:
        print("rank 0: the receive's callback never ran", file=sys.stderr, flush=True)
        os._exit(1)
    if "destroyed while" not in errors[0]:
        print(f"rank 0: the receive failed with {errors[0]!r}, not the shutdown", file=sys.stderr, flush=True)
        os._exit(1)
    if "--destroy-group" in sys.argv and not destroyed:
        print("rank 0: the callback did not destroy the second group", file=sys.stderr, flush=True)
        os._exit(1)
    print(f"rank 0: the receive failed before exit: {errors[0]}", flush=True)


atexit.register(check)

import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402

import outrider_torch  # noqa: E402,F401


extra, destroyed = [], []


def record(f):
    try:
        f.value()
        errors.append("the receive completed")
    except Exception as e:  # noqa: BLE001  (the error is what is checked)
        errors.append(str(e))
    for g in extra:
        dist.destroy_process_group(g)
        destroyed.append(True)  # not g: the callback drops the last reference
    extra.clear()


dist.init_process_group("outrider")
if "--destroy-group" in sys.argv:
    extra.append(dist.new_group([0, 1]))
if dist.get_rank() == 0:
    dist.irecv(torch.zeros(4)).get_future().then(record)  # any source; nobody sends
dist.barrier()
