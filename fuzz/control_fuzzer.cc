// Fuzz target: what a client sends on its socket. The input's first string is the hello
// (ParseHello, as the control server checks it); if it is accepted, a Session for that client
// takes the rest over a socketpair: control messages (register with memfds or other fds, release,
// goodbye, anything else) and, in between, submission-ring entries it drains. The session must
// answer or close, never abort; its region count must match the replies it gave.
#include <fcntl.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "agent/control/hello.h"
#include "agent/control/session.h"
#include "agent/log.h"
#include "base/check.h"
#include "fuzz/fuzz_input.h"
#include "ipc/event_fd.h"
#include "ipc/memfd.h"
#include "ipc/ring.h"

namespace outrider::fuzz {
namespace {

using agent::Session;

constexpr uint32_t kRingEntries = 8;

// Sends `bytes` with `fds` attached as one datagram (any fd count, unlike UnixChannel::Send).
void SendRaw(int sock, const std::vector<uint8_t>& bytes, const std::vector<int>& fds) {
  iovec iov{const_cast<uint8_t*>(bytes.data()), bytes.size()};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  std::vector<uint8_t> control(CMSG_SPACE(sizeof(int) * fds.size()) + 8, 0);
  if (!fds.empty()) {
    msg.msg_control = control.data();
    msg.msg_controllen = CMSG_SPACE(sizeof(int) * fds.size());
    cmsghdr* c = CMSG_FIRSTHDR(&msg);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int) * fds.size());
    std::memcpy(CMSG_DATA(c), fds.data(), sizeof(int) * fds.size());
  }
  (void)::sendmsg(sock, &msg, MSG_NOSIGNAL | MSG_DONTWAIT);
}

// An fd of the kind the input asks for: a sealed memfd, an unsealed one, or no memfd at all.
UniqueFd MakeFd(uint8_t kind, uint32_t bytes) {
  bytes = bytes % (64 * 1024) + 1;
  switch (kind % 3) {
    case 0: {
      Result<UniqueFd> fd = ipc::CreateSealedMemfd("outrider-fuzz-region", bytes);
      return fd.ok() ? std::move(*fd) : UniqueFd();
    }
    case 1: {
      UniqueFd fd(::memfd_create("outrider-fuzz-unsealed", MFD_CLOEXEC | MFD_ALLOW_SEALING));
      if (fd.valid() && ::ftruncate(fd.get(), bytes) != 0) fd.reset();
      return fd;
    }
    default:
      return UniqueFd(::eventfd(0, EFD_CLOEXEC));
  }
}

// The client's end of the session: the socket, and the submission ring in the control segment.
struct Client {
  UniqueFd sock;
  ipc::Mapping control;
  ipc::RingIndices* sq_indices = nullptr;
  ipc::SubmitEntry* sq_slots = nullptr;
  uint64_t tail = 0;
  size_t regions = 0;    // registered, as the replies told
  uint16_t version = 0;  // its protocol version: the session answers in it
};

std::unique_ptr<Session> Open(const agent::Hello& hello, const agent::SessionLimits& limits,
                              Client* client) {
  int sv[2];
  OUTRIDER_CHECK(::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) == 0);
  UniqueFd agent_end(sv[0]);
  client->sock = UniqueFd(sv[1]);
  OUTRIDER_CHECK(::fcntl(agent_end.get(), F_SETFL, O_NONBLOCK) == 0);
  OUTRIDER_CHECK(::fcntl(client->sock.get(), F_SETFL, O_NONBLOCK) == 0);
  ipc::ControlLayout layout = ipc::ComputeControlLayout(kRingEntries, kRingEntries);
  Result<UniqueFd> control_fd = ipc::CreateSealedMemfd("outrider-fuzz-control", layout.total_bytes);
  OUTRIDER_CHECK(control_fd.ok());
  Result<ipc::Mapping> agent_view = ipc::MapShared(control_fd->get(), layout.total_bytes);
  Result<ipc::Mapping> client_view = ipc::MapShared(control_fd->get(), layout.total_bytes);
  OUTRIDER_CHECK(agent_view.ok() && client_view.ok());
  ipc::InitControlHeader(reinterpret_cast<ipc::ControlHeader*>(agent_view->data()), kRingEntries,
                         kRingEntries, layout, hello.version);
  client->version = hello.version;
  client->control = std::move(*client_view);
  client->sq_indices =
      reinterpret_cast<ipc::RingIndices*>(client->control.data() + layout.sq_indices_offset);
  client->sq_slots =
      reinterpret_cast<ipc::SubmitEntry*>(client->control.data() + layout.sq_slots_offset);
  Result<UniqueFd> sq_efd = ipc::CreateEventFd();
  Result<UniqueFd> cq_efd = ipc::CreateEventFd();
  OUTRIDER_CHECK(sq_efd.ok() && cq_efd.ok());
  agent::ClientIdentity id = hello.identity;
  id.client_id = 1;
  return std::make_unique<Session>(id, ipc::UnixChannel(std::move(agent_end)),
                                   std::move(*control_fd), std::move(*agent_view),
                                   std::move(*sq_efd), std::move(*cq_efd), limits);
}

// Reads every reply the session sent; each must be a region reply or a goodbye.
void ReadReplies(Client* client) {
  for (;;) {
    alignas(8) uint8_t buf[ipc::kMaxMessageBytes];
    ssize_t n = ::recv(client->sock.get(), buf, sizeof(buf), MSG_DONTWAIT);
    if (n <= 0) return;
    OUTRIDER_CHECK(static_cast<size_t>(n) >= sizeof(ipc::MsgHeader));
    ipc::MsgHeader h;
    std::memcpy(&h, buf, sizeof(h));
    OUTRIDER_CHECK(h.magic == ipc::kMagic && h.version == client->version);
    auto type = static_cast<ipc::MsgType>(h.type);
    if (type == ipc::MsgType::kGoodbye) {
      OUTRIDER_CHECK(static_cast<size_t>(n) == sizeof(ipc::Goodbye));
      continue;
    }
    OUTRIDER_CHECK(static_cast<size_t>(n) == sizeof(ipc::RegionReply));
    ipc::RegionReply reply;
    std::memcpy(&reply, buf, sizeof(reply));
    OUTRIDER_CHECK(reply.message[sizeof(reply.message) - 1] == '\0');
    if (reply.code != 0) continue;
    if (type == ipc::MsgType::kRegisterRegionReply) {
      ++client->regions;
    } else {
      OUTRIDER_CHECK(type == ipc::MsgType::kReleaseRegionReply);
      OUTRIDER_CHECK(client->regions > 0);
      --client->regions;
    }
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
  agent::ControlServerOptions options;
  options.max_world_size = 1024;
  std::vector<uint8_t> hello_bytes = in.Bytes(ipc::kMaxMessageBytes);
  Result<agent::Hello> hello = agent::ParseHello(hello_bytes.data(), hello_bytes.size(), options);
  if (!hello.ok()) return 0;
  const agent::ClientIdentity& id = hello->identity;
  OUTRIDER_CHECK(!id.job_id.empty() && id.job_id.size() < ipc::kJobIdBytes);
  OUTRIDER_CHECK(id.world_size >= 1 &&
                 static_cast<uint32_t>(id.world_size) <= options.max_world_size);
  OUTRIDER_CHECK(id.rank >= 0 && id.rank < id.world_size);
  OUTRIDER_CHECK(id.local_rank >= 0 && id.local_rank < id.local_world_size &&
                 id.local_world_size <= 64);
  OUTRIDER_CHECK(hello->sq_entries >= 8 && hello->sq_entries <= 65536);
  OUTRIDER_CHECK((hello->sq_entries & (hello->sq_entries - 1)) == 0);

  agent::SessionLimits limits;
  limits.max_regions = 1 + in.Read<uint8_t>() % 4;
  limits.max_region_bytes = 1 + in.Read<uint16_t>();
  Client client;
  std::unique_ptr<agent::Session> session = Open(*hello, limits, &client);
  uint64_t completed = 0;
  agent::Session::OpSink sink = [&completed](agent::Member* s, const agent::ValidatedOp& op) {
    ++completed;
    s->Complete(op.op_id, Status::Ok(), 0, 0);
  };
  while (!in.empty() && !session->closed()) {
    uint8_t action = in.Read<uint8_t>();
    if (action % 4 == 3) {
      // A submission: the entry's bytes, then (sometimes) a tail the client scribbled.
      ipc::SubmitEntry e;
      in.Copy(&e, sizeof(e));
      std::memcpy(&client.sq_slots[client.tail % kRingEntries], &e, sizeof(e));
      ++client.tail;
      uint64_t tail = action & 0x80 ? in.Read<uint64_t>() : client.tail;
      ipc::AtomicU64(client.sq_indices->tail).store(tail, std::memory_order_release);
      session->DrainSubmissions(sink);
      continue;
    }
    // A control message with 0..5 fds of the kinds the input names.
    std::vector<UniqueFd> owned;
    std::vector<int> fds;
    for (int k = 0; k < (action >> 2) % 6; ++k) {
      owned.push_back(MakeFd(in.Read<uint8_t>(), in.Read<uint32_t>()));
      if (owned.back().valid()) fds.push_back(owned.back().get());
    }
    std::vector<uint8_t> msg = in.Bytes(ipc::kMaxMessageBytes + 64);
    SendRaw(client.sock.get(), msg, fds);
    owned.clear();
    session->OnSocketReadable();
    ReadReplies(&client);
    if (!session->closed()) {
      OUTRIDER_CHECK(session->region_count() == client.regions);
      OUTRIDER_CHECK(session->region_count() <= limits.max_regions);
    }
  }
  if (!session->closed()) {
    client.sock.reset();
    session->OnSocketReadable();
    OUTRIDER_CHECK(session->closed());
  }
  return 0;
}
