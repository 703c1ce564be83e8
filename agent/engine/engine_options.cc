// EngineOptions::Validate: the limits the engine's algorithms rely on.
#include "agent/engine/engine_options.h"

#include <charconv>
#include <cmath>
#include <string>

namespace outrider::agent {

Status EngineOptions::Validate() const {
  if (chunk_bytes < 4096) {
    return InvalidArgument("ring_chunk_bytes must be at least 4096, got " +
                           std::to_string(chunk_bytes));
  }
  if (nccl_chunk_bytes < 4096) {
    return InvalidArgument("nccl_chunk_bytes must be at least 4096, got " +
                           std::to_string(nccl_chunk_bytes));
  }
  if (sparse_block_rows < 1 || sparse_block_rows > 4096) {
    return InvalidArgument("sparse_block_rows must be in [1, 4096], got " +
                           std::to_string(sparse_block_rows));
  }
  // NaN fails the comparison; an infinite link would make every sparse algorithm look free.
  if (!(link_bytes_per_s > 0) || std::isinf(link_bytes_per_s)) {
    char text[32];  // the shortest round-trip form of any double fits in 24 characters
    auto [end, ec] = std::to_chars(text, text + sizeof(text), link_bytes_per_s);
    return InvalidArgument("link_bytes_per_s must be a positive finite number, got " +
                           std::string(text, ec == std::errc() ? end : text));
  }
  return Status::Ok();
}

}  // namespace outrider::agent
