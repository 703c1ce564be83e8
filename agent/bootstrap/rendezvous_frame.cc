// Rendezvous frames: encoding, and decoding that checks every length before it reads.
#include "agent/bootstrap/rendezvous_frame.h"

#include <cstring>

namespace outrider::agent::rendezvous {
namespace {

void Put(std::string* out, const void* p, size_t n) { out->append(static_cast<const char*>(p), n); }
void PutBlob(std::string* out, const std::string& s) {
  uint32_t n = static_cast<uint32_t>(s.size());
  Put(out, &n, 4);
  out->append(s);
}

}  // namespace

std::string Encode(FrameType type, const JobShape& shape, int32_t node_rank,
                   const std::vector<std::string>& blobs) {
  FrameHeader h{};
  h.magic = kMagic;
  h.version = kVersion;
  h.type = type;
  std::strncpy(h.job_id, shape.job_id.c_str(), sizeof(h.job_id) - 1);
  std::strncpy(h.token, shape.token.c_str(), sizeof(h.token) - 1);
  h.node_rank = node_rank;
  h.num_nodes = shape.num_nodes;
  h.local_size = shape.local_size;
  h.layout = shape.layout;
  std::string body;
  Put(&body, &h, sizeof(h));
  for (const auto& b : blobs) PutBlob(&body, b);
  std::string frame;
  uint32_t len = static_cast<uint32_t>(body.size());
  Put(&frame, &len, 4);
  frame += body;
  return frame;
}

Result<Frame> Decode(std::string_view body) {
  if (body.size() < sizeof(FrameHeader) || body.size() > kMaxFrame)
    return ProtocolError("bad rendezvous frame length");
  Frame f;
  FrameHeader& h = f.header;
  std::memcpy(&h, body.data(), sizeof(h));
  if (h.magic != kMagic || h.version != kVersion) {
    return ProtocolError("rendezvous frame with bad magic or version (not an outrider agent?)");
  }
  h.job_id[sizeof(h.job_id) - 1] = '\0';
  h.token[sizeof(h.token) - 1] = '\0';
  size_t off = sizeof(h);
  while (off + 4 <= body.size()) {
    uint32_t n;
    std::memcpy(&n, body.data() + off, 4);
    off += 4;
    if (n > body.size() - off) return ProtocolError("truncated rendezvous blob");
    f.blobs.emplace_back(body.data() + off, n);
    off += n;
  }
  return f;
}

}  // namespace outrider::agent::rendezvous
