"""A trainer that exits while an allreduce is in flight, its future carrying a Python callback.

The backend's worker must finish the op before the interpreter finalizes: afterwards it could
not take the GIL for the callback, and the process would abort. Checked: every rank exits 0 and
the callback ran before the interpreter went down.
"""
import atexit
import os
import sys

ran = []


def check():  # registered first, so it runs after the backend's own exit hook
    if not ran:
        print(f"rank {os.environ.get('RANK')}: the op's callback never ran", file=sys.stderr, flush=True)
        os._exit(1)
    print(f"rank {os.environ.get('RANK')}: the op's callback ran before exit", flush=True)


atexit.register(check)

import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402

import outrider_torch  # noqa: E402,F401

dist.init_process_group("outrider")
t = torch.ones(1 << 22)
dist.all_reduce(t, async_op=True).get_future().then(lambda f: ran.append(float(f.value()[0][0])))
