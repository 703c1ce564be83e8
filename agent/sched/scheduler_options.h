// How the send scheduler orders bulk chunks on each peer link (see send_scheduler.h).
#pragma once

#include <cstdint>
#include <string>

#include "base/status.h"

namespace outrider::agent {

struct SchedulerOptions {
  bool priority = true;  // false: FIFO
  // Bytes in flight per peer: sent, not yet credited by the receiver.
  uint64_t window_bytes = 2u << 20;
  // A waiting chunk gains one priority level per this; 0 = no aging.
  uint64_t aging_ns = 100'000'000;
  // The window of a link whose queued and in-flight chunks all have one priority: nothing on it
  // can be overtaken, so a deeper window only keeps the link busy while the receiving agent waits
  // for a core. Below window_bytes it is window_bytes.
  uint64_t solo_window_bytes = 4u << 20;
  // A chunk of a lower job class waits on a link where a higher class is active (a job of it runs
  // ops that may send there, or a chunk of it is queued, in flight, or was sent or its last op
  // ended within class_hold_ns) until fewer than this many bytes are in
  // flight: what a higher-class chunk can find ahead of it on the wire. A larger chunk still goes
  // alone.
  uint64_t yield_window_bytes = 256u << 10;
  uint64_t class_hold_ns = 20'000'000;
  // A waiting chunk rises one job class per this, so a lower class is never starved; 0 = never.
  uint64_t class_aging_ns = 1'000'000'000;
  // Messages that bypass the queue (fingerprints with small ops' data, aborts, goodbyes, credits,
  // heartbeats) go on each peer's express lane, so they do not wait behind bulk bytes already
  // handed to the connection that carries the chunks. False: everything goes on the bulk lane.
  bool express_lane = true;
  // While an op of a job runs on this node, the job's chunks of a lower priority keep to
  // yield_window_bytes on every link (ring chunks queued before go in pieces of half of it), as a
  // lower class does beside a higher one: the op's messages then find little of its own job's
  // bulk data ahead of them on the wire and at the receiving nodes. False: priorities only order
  // the queue.
  bool op_yield = true;

  // The first bad field, named by its agent parameter (window_bytes is credit_window_bytes):
  // "credit_window_bytes must be at least 4096, got 1".
  Status Validate() const {
    if (window_bytes < 4096) {
      return InvalidArgument("credit_window_bytes must be at least 4096, got " +
                             std::to_string(window_bytes));
    }
    if (solo_window_bytes < 4096) {
      return InvalidArgument("solo_window_bytes must be at least 4096, got " +
                             std::to_string(solo_window_bytes));
    }
    if (yield_window_bytes < 4096) {
      return InvalidArgument("yield_window_bytes must be at least 4096, got " +
                             std::to_string(yield_window_bytes));
    }
    return Status::Ok();
  }
};

}  // namespace outrider::agent
