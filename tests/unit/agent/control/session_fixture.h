// Fixture for Session tests: a control segment, rings, eventfds and a socket pair built the way
// the control server builds them for a new client, with the client's side of each in the test.
#pragma once

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "agent/control/session.h"
#include "agent/engine/dataplane/host_data_plane.h"
#include "ipc/event_fd.h"
#include "ipc/memfd.h"
#include "ipc/protocol.h"
#include "ipc/ring.h"
#include "ipc/unix_channel.h"

namespace outrider::agent::session_testing {

inline constexpr uint32_t kRingEntries = 8;
inline constexpr size_t kRegionBytes = 64 * 1024;
inline constexpr uint64_t kCount = 16;  // f32 elements
inline constexpr uint64_t kBytes = kCount * 4;
inline constexpr uint64_t kSendOffset = 0;
inline constexpr uint64_t kRecvOffset = 4096;
// Generous: every message awaited below has been sent already; this only bounds a broken channel.
inline constexpr int kNoHangMs = 30'000;

// Runs `op` as a one-rank allreduce does: the result is the input. The only place these tests
// touch the memory a ValidatedOp names.
inline void RunOneRankAllreduce(const ValidatedOp& op) {
  HostDataPlane().Copy(op.recv, op.send, nullptr);
}

// An unsealed memfd that still allows sealing: what a careless or hostile client might pass.
inline UniqueFd UnsealedMemfd(size_t bytes) {
  UniqueFd fd(::memfd_create("outrider-test-unsealed", MFD_CLOEXEC | MFD_ALLOW_SEALING));
  if (fd.valid() && ::ftruncate(fd.get(), static_cast<off_t>(bytes)) != 0) fd.reset();
  return fd;
}

inline UniqueFd Dup(int fd) { return UniqueFd(::fcntl(fd, F_DUPFD_CLOEXEC, 0)); }

inline ipc::SubmitEntry Allreduce(uint64_t op_id, uint32_t region_id) {
  ipc::SubmitEntry e{};
  e.op_id = op_id;
  e.key = 0x5eed0000 + op_id;
  e.kind = static_cast<uint32_t>(ipc::OpKind::kAllreduce);
  e.dtype = static_cast<uint32_t>(ipc::DType::kF32);
  e.reduce_op = static_cast<uint32_t>(ipc::ReduceOp::kSum);
  e.count = kCount;
  e.send = ipc::BufferRef{region_id, 0, kSendOffset, kBytes};
  e.recv = ipc::BufferRef{region_id, 0, kRecvOffset, kBytes};
  return e;
}

template <typename Msg>
Msg Message(ipc::MsgType type, uint32_t request_id) {
  Msg m{};
  ipc::InitMsgHeader(&m.header, type, sizeof(m) - sizeof(m.header), request_id);
  return m;
}

class SessionTest : public ::testing::Test {
 protected:
  void SetUp() override { Open(SessionLimits{}); }

  // Builds the control segment, rings and eventfds the way the control server does for a new
  // client, and a Session for rank 0 of a one-rank job over them.
  void Open(SessionLimits limits) {
    session_.reset();
    int sv[2];
    ASSERT_EQ(::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv), 0)
        << std::strerror(errno);
    UniqueFd agent_end(sv[0]);
    client_ = ipc::UnixChannel(UniqueFd(sv[1]));
    // The agent's accepted sockets are non-blocking: a wakeup with nothing queued must not block.
    ASSERT_EQ(::fcntl(agent_end.get(), F_SETFL, O_NONBLOCK), 0) << std::strerror(errno);

    layout_ = ipc::ComputeControlLayout(kRingEntries, kRingEntries);
    auto control_fd = ipc::CreateSealedMemfd("outrider-test-control", layout_.total_bytes);
    ASSERT_TRUE(control_fd.ok()) << control_fd.status().ToString();
    auto agent_view = ipc::MapShared(control_fd->get(), layout_.total_bytes);
    ASSERT_TRUE(agent_view.ok()) << agent_view.status().ToString();
    auto client_view = ipc::MapShared(control_fd->get(), layout_.total_bytes);
    ASSERT_TRUE(client_view.ok()) << client_view.status().ToString();
    ipc::InitControlHeader(reinterpret_cast<ipc::ControlHeader*>(agent_view->data()), kRingEntries,
                           kRingEntries, layout_);
    control_ = std::move(*client_view);
    sq_ = ipc::RingProducer<ipc::SubmitEntry>(
        SqIndices(), reinterpret_cast<ipc::SubmitEntry*>(control_.data() + layout_.sq_slots_offset),
        kRingEntries);
    cq_ = ipc::RingConsumer<ipc::CompletionEntry>(
        reinterpret_cast<ipc::RingIndices*>(control_.data() + layout_.cq_indices_offset),
        reinterpret_cast<ipc::CompletionEntry*>(control_.data() + layout_.cq_slots_offset),
        kRingEntries);

    auto sq_efd = ipc::CreateEventFd();
    ASSERT_TRUE(sq_efd.ok()) << sq_efd.status().ToString();
    auto cq_efd = ipc::CreateEventFd();
    ASSERT_TRUE(cq_efd.ok()) << cq_efd.status().ToString();
    cq_efd_ = Dup(cq_efd->get());
    ASSERT_TRUE(cq_efd_.valid()) << std::strerror(errno);

    ClientIdentity id;
    id.client_id = 1;
    id.job_id = "session-test";
    id.world_size = id.local_world_size = world_;
    session_ = std::make_unique<Session>(id, ipc::UnixChannel(std::move(agent_end)),
                                         std::move(*control_fd), std::move(*agent_view),
                                         std::move(*sq_efd), std::move(*cq_efd), limits);
  }

  ipc::RingIndices* SqIndices() {
    return reinterpret_cast<ipc::RingIndices*>(control_.data() + layout_.sq_indices_offset);
  }

  // Sends `msg` (with `fds`) as the client and lets the session handle it.
  template <typename Msg>
  void Deliver(const Msg& msg, const int* fds = nullptr, size_t num_fds = 0) {
    Status sent = client_.Send(&msg, sizeof(msg), fds, num_fds);
    ASSERT_TRUE(sent.ok()) << sent.ToString();
    session_->OnSocketReadable();
  }

  // The session's next message to the client, which must be a `Msg` of `type`.
  template <typename Msg>
  std::optional<Msg> Receive(ipc::MsgType type) {
    alignas(8) uint8_t buf[ipc::kMaxMessageBytes];
    auto n = client_.Recv(buf, sizeof(buf), nullptr, kNoHangMs);
    if (!n.ok()) {
      ADD_FAILURE() << "no message from the session: " << n.status().ToString();
      return std::nullopt;
    }
    Msg msg{};
    if (*n != sizeof(msg)) {
      ADD_FAILURE() << "message of " << *n << " bytes, expected " << sizeof(msg);
      return std::nullopt;
    }
    std::memcpy(&msg, buf, sizeof(msg));
    EXPECT_EQ(msg.header.magic, ipc::kMagic);
    EXPECT_EQ(msg.header.type, static_cast<uint16_t>(type));
    return msg;
  }

  // True if the session has sent nothing the client has not read yet.
  bool NothingMoreSent() {
    uint8_t buf[ipc::kMaxMessageBytes];
    auto n = client_.Recv(buf, sizeof(buf), nullptr, 0);
    return !n.ok() && n.status().code() == Code::kDeadlineExceeded;
  }

  // Registers `fds` as a region of `bytes` and returns the session's reply.
  std::optional<ipc::RegionReply> Register(uint64_t bytes, const int* fds, size_t num_fds) {
    auto msg = Message<ipc::RegisterRegion>(ipc::MsgType::kRegisterRegion, ++request_id_);
    msg.bytes = bytes;
    Deliver(msg, fds, num_fds);
    auto reply = Receive<ipc::RegionReply>(ipc::MsgType::kRegisterRegionReply);
    if (reply) {
      EXPECT_EQ(reply->header.request_id, request_id_);
    }
    return reply;
  }

  // Creates a sealed region, maps it for the client (region_) and registers it; returns its id.
  uint32_t RegisterRegion() {
    auto fd = ipc::CreateSealedMemfd("outrider-test-region", kRegionBytes);
    if (!fd.ok()) {
      ADD_FAILURE() << fd.status().ToString();
      return 0;
    }
    auto mapping = ipc::MapShared(fd->get(), kRegionBytes);
    if (!mapping.ok()) {
      ADD_FAILURE() << mapping.status().ToString();
      return 0;
    }
    region_ = std::move(*mapping);
    int f = fd->get();
    auto reply = Register(kRegionBytes, &f, 1);
    if (!reply || reply->code != 0) {
      ADD_FAILURE() << "registration refused: " << (reply ? reply->message : "no reply");
      return 0;
    }
    return reply->region_id;
  }

  std::optional<ipc::RegionReply> Release(uint32_t region_id) {
    auto msg = Message<ipc::ReleaseRegion>(ipc::MsgType::kReleaseRegion, ++request_id_);
    msg.region_id = region_id;
    Deliver(msg);
    return Receive<ipc::RegionReply>(ipc::MsgType::kReleaseRegionReply);
  }

  void Submit(const ipc::SubmitEntry& e) { ASSERT_EQ(sq_.Push(e), ipc::RingResult::kOk); }

  // Drains the session's submissions, keeping what reaches the sink.
  std::vector<ValidatedOp> Drain() {
    std::vector<ValidatedOp> ops;
    session_->DrainSubmissions([&](Member*, const ValidatedOp& op) { ops.push_back(op); });
    return ops;
  }

  std::vector<ipc::CompletionEntry> PopCompletions() {
    std::vector<ipc::CompletionEntry> out;
    ipc::CompletionEntry c;
    for (;;) {
      ipc::RingResult r = cq_.Pop(&c);
      if (r != ipc::RingResult::kOk) {
        EXPECT_EQ(r, ipc::RingResult::kEmpty);
        return out;
      }
      out.push_back(c);
    }
  }

  bool ClientWoken() { return ipc::WaitReadable(cq_efd_.get(), -1, 0) == 1; }

  void CompleteOk(uint64_t op_id) { session_->Complete(op_id, Status::Ok(), op_id, 0); }
  // The client's view of fence slot `i`.
  ipc::FenceSlot& Fence(uint32_t i) {
    return reinterpret_cast<ipc::FenceSlot*>(control_.data() + layout_.fences_offset)[i];
  }

  int world_ = 1;  // ranks of the session's job, all on this node
  ipc::ControlLayout layout_{};
  ipc::Mapping control_;  // the client's view of the control segment
  ipc::RingProducer<ipc::SubmitEntry> sq_;
  ipc::RingConsumer<ipc::CompletionEntry> cq_;
  UniqueFd cq_efd_;
  ipc::UnixChannel client_;
  ipc::Mapping region_;  // the client's view of its last registered region
  uint32_t request_id_ = 0;
  std::unique_ptr<Session> session_;
};

}  // namespace outrider::agent::session_testing
