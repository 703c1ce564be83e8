// Fuzz target: the rendezvous handshake, the TCP frames agents exchange before they know each
// other. Each input frame (a length and a body) is what one connection sends to a root agent's
// rendezvous server (listening on loopback, with the job offered before or after the joins
// arrive); the server must refuse or accept every one, and what it answers (node tables,
// refusals) must be well-formed frames a joining node can decode. The same bytes go through the
// frame decoder directly, as the joining side reads the root's answer.
#include <sys/socket.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "agent/bootstrap/rendezvous.h"
#include "agent/bootstrap/rendezvous_frame.h"
#include "agent/event_loop.h"
#include "agent/log.h"
#include "base/check.h"
#include "fuzz/fuzz_input.h"
#include "fuzz/loopback.h"
#include "ipc/event_fd.h"

namespace outrider::fuzz {
namespace {

using agent::rendezvous::Frame;

constexpr uint32_t kTimeoutMs = 1000;

// Decodes a frame the way ReadFrame does: a u32 length, then that many bytes.
std::optional<Result<Frame>> DecodeWhole(const std::string& bytes) {
  if (bytes.size() < 4) return std::nullopt;
  uint32_t len;
  std::memcpy(&len, bytes.data(), 4);
  if (len > bytes.size() - 4) return std::nullopt;
  return agent::rendezvous::Decode(std::string_view(bytes).substr(4, len));
}

// Every frame the server wrote to a connection must decode, and be a table or a refusal.
void CheckAnswers(int fd) {
  std::string got;
  char buf[4096];
  for (;;) {
    ssize_t n = ::recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
    if (n <= 0) break;
    got.append(buf, static_cast<size_t>(n));
  }
  while (!got.empty()) {
    std::optional<Result<Frame>> frame = DecodeWhole(got);
    OUTRIDER_CHECK(frame.has_value() && frame->ok());
    const Frame& f = **frame;
    if (f.header.type == agent::rendezvous::kTable) {
      // Two addresses per node (transport, then agent). A table for the offered job starts with
      // the root's address; one relayed for a communicator whose node 0 joined as a client starts
      // with that node's.
      OUTRIDER_CHECK(static_cast<int32_t>(f.blobs.size()) == 2 * f.header.num_nodes &&
                     f.header.num_nodes >= 2);
      OUTRIDER_CHECK(f.header.num_nodes <= agent::RendezvousServer::kMaxNodes);
    } else {
      OUTRIDER_CHECK(f.header.type == agent::rendezvous::kRefuse &&
                     (f.blobs.size() == 1 || f.blobs.size() == 2));
    }
    uint32_t len;
    std::memcpy(&len, got.data(), 4);
    got.erase(0, 4 + len);
  }
}

}  // namespace
}  // namespace outrider::fuzz

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  (void)outrider::agent::InitLogging("off");
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace outrider;
  using namespace outrider::fuzz;
  FuzzInput in(data, size);
  uint8_t flags = in.Read<uint8_t>();
  agent::JobShape shape;
  shape.job_id = "fuzz-job";
  shape.token = "fuzz-token";
  shape.num_nodes = 2 + flags % 4;
  shape.local_size = 1 + (flags >> 2) % 4;
  const std::string own_address = "fake:0";

  Result<std::unique_ptr<agent::EventLoop>> loop = agent::EventLoop::Create(0);
  OUTRIDER_CHECK(loop.ok());
  auto server = std::make_unique<agent::RendezvousServer>(loop->get(), kTimeoutMs);
  OUTRIDER_CHECK(server->Listen("127.0.0.1", 0).ok());
  std::optional<Result<agent::NodeTable>> table;
  auto offer = [&] {
    server->Offer(shape, own_address, [&table](Result<agent::NodeTable> t) {
      OUTRIDER_CHECK(!table.has_value());  // the job's rendezvous ends once
      table = std::move(t);
    });
  };
  if (flags & 0x10) offer();

  std::vector<UniqueFd> conns;
  int count = 1 + in.Read<uint8_t>() % 6;
  for (int i = 0; i < count && !in.empty(); ++i) {
    // A frame's length, then its body. A length the server would wait for more bytes of (a valid
    // one past the body's end) is cut to the body: the server would only time out.
    uint32_t len = in.Read<uint32_t>();
    std::vector<uint8_t> body = in.Bytes(4096);
    if (len >= sizeof(agent::rendezvous::FrameHeader) && len <= agent::rendezvous::kMaxFrame &&
        len > body.size()) {
      len = static_cast<uint32_t>(body.size());
    }
    std::string bytes(reinterpret_cast<const char*>(&len), 4);
    bytes.append(body.begin(), body.end());
    if (std::optional<Result<Frame>> frame = DecodeWhole(bytes); frame && frame->ok()) {
      const Frame& f = **frame;
      OUTRIDER_CHECK(std::strlen(f.header.job_id) < sizeof(f.header.job_id));
      OUTRIDER_CHECK(std::strlen(f.header.token) < sizeof(f.header.token));
    }
    UniqueFd fd = ConnectLoopback(server->port());
    SendAll(fd.get(), bytes);
    conns.push_back(std::move(fd));
  }
  // One pass of the loop accepts every queued connection and reads each one's frame.
  int polls = 0;
  agent::EventLoop::Hooks hooks;
  hooks.poll = [&] {
    if (++polls == 2) (*loop)->Stop();
    return true;
  };
  hooks.prepare_sleep = [] { return true; };
  hooks.after_wake = [] {};
  hooks.timeout_ms = [] { return 0; };
  (*loop)->Run(hooks);
  if (!(flags & 0x10)) offer();
  if (flags & 0x20) server->Expire(ipc::MonotonicNs() + uint64_t{kTimeoutMs + 1} * 1'000'000);
  if (flags & 0x40) server->Withdraw(shape.job_id, Cancelled("job ended"));
  if (table && table->ok()) {
    const agent::NodeTable& t = **table;
    OUTRIDER_CHECK(static_cast<int32_t>(t.size()) == shape.num_nodes && t[0] == own_address);
  }
  for (const UniqueFd& fd : conns) CheckAnswers(fd.get());
  server.reset();
  return 0;
}
