// `outrider-bench interfere`: two jobs on the same agents. Launched with two processes per node:
// local rank 0 is job A's rank on that node, local rank 1 job B's. Each round runs, in a rotating
// order:
//  - a_alone:     A's small allreduces (latency by size), B idle;
//  - b_alone:     B's back-to-back bulk allreduces (throughput), A idle;
//  - a_high:      both at once, A of class high, B normal;
//  - a_normal:    both at once, both normal;
//  - equal:       both bulk, both normal: each job's share of the links.
// Each phase connects both jobs anew (a job's class is fixed when it connects). The jobs meet at
// phase boundaries through marker files in a directory both reach. Node 0 of job A prints the
// table and writes the JSON rows.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tools/bench/bench_common.h"

namespace outrider::bench {

struct InterfereOptions {
  std::vector<uint64_t> sizes = {4 << 10, 16 << 10, 64 << 10, 256 << 10, 1 << 20};
  uint64_t bulk_bytes = uint64_t{256} << 20;
  int rounds = 3;
  int min_samples = 100;   // A's ops per size and phase, at least
  double phase_s = 8;      // phases with both jobs last at least this long
  int bulk_alone_ops = 3;  // timed bulk ops of b_alone (after one untimed)
  std::string sync_dir;    // "": /tmp/outrider-interfere-$OUTRIDER_JOB_ID
};

int RunInterfere(const CommonOptions& common, const InterfereOptions& options);

}  // namespace outrider::bench
