// `outrider-bench p2p`: point-to-point messages between ranks 0 and 1 of a launched job (one rank
// per process, torchrun environment), through their nodes' agents. Up to 64 KiB a size is timed
// as ping-pong (one way: half the round trip); above, as a stream of messages one way (the time
// per message with a window of them posted at once). Rank 0 prints the table and writes the rows.
#pragma once

#include "tools/bench/bench_common.h"
#include "tools/bench/collective_bench.h"

namespace outrider::bench {

// Sizes up to this are timed as ping-pong, larger ones as a stream.
inline constexpr uint64_t kPingPongMaxBytes = 64 << 10;

int RunPointToPoint(const CommonOptions& common, const CollectiveOptions& options);

}  // namespace outrider::bench
