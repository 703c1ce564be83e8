// The scripted agent of the shim's unit tests.
#include "tests/fakes/shim/fake_agent.h"

#include <poll.h>
#include <sys/socket.h>

#include <chrono>
#include <cstring>

#include "ipc/event_fd.h"
#include "ipc/unix_channel.h"

namespace outrider::shim {

std::unique_ptr<FakeAgent> FakeAgent::Start(const std::string& socket_path, Options options) {
  auto agent = std::unique_ptr<FakeAgent>(new FakeAgent(socket_path, options));
  Result<UniqueFd> listen = ipc::ListenUnix(socket_path, 4);
  Result<UniqueFd> stop = ipc::CreateEventFd();
  if (!listen.ok() || !stop.ok()) return nullptr;
  agent->listen_ = std::move(*listen);
  agent->stop_ = std::move(*stop);
  agent->thread_ = std::thread([a = agent.get()] { a->Serve(); });
  return agent;
}

FakeAgent::~FakeAgent() {
  ipc::SignalEventFd(stop_.get());
  thread_.join();
}

void FakeAgent::RefuseRequests(Status why) {
  std::lock_guard<std::mutex> lock(mu_);
  refuse_ = std::move(why);
}

void FakeAgent::PlaceOnReform(const ipc::ReformReply& place) {
  std::lock_guard<std::mutex> lock(mu_);
  place_ = place;
}

std::optional<ipc::HelloRequest> FakeAgent::hello() const {
  std::lock_guard<std::mutex> lock(mu_);
  return hello_;
}

std::vector<ipc::MsgType> FakeAgent::requests() const {
  std::lock_guard<std::mutex> lock(mu_);
  return requests_;
}

std::vector<ipc::CommCreate> FakeAgent::comm_requests() const {
  std::lock_guard<std::mutex> lock(mu_);
  return comm_requests_;
}

void FakeAgent::Serve() {
  // The first client: its hello, then its messages until it leaves or the test ends.
  pollfd accept_fds[2] = {{listen_.get(), POLLIN, 0}, {stop_.get(), POLLIN, 0}};
  if (::poll(accept_fds, 2, -1) <= 0 || (accept_fds[1].revents & POLLIN) != 0) return;
  Result<UniqueFd> accepted = ipc::AcceptUnix(listen_.get());
  if (!accepted.ok()) return;
  client_ = std::move(*accepted);
  client_fd_.store(client_.get());
  ipc::UnixChannel channel(UniqueFd(::dup(client_.get())));
  for (;;) {
    pollfd fds[2] = {{channel.fd(), POLLIN, 0}, {stop_.get(), POLLIN, 0}};
    if (::poll(fds, 2, -1) <= 0 || (fds[1].revents & POLLIN) != 0) return;
    alignas(8) uint8_t buf[512];
    std::vector<UniqueFd> received;
    Result<size_t> n = channel.Recv(buf, sizeof(buf), &received, 0);
    if (!n.ok() || *n == 0) return;
    if (!Handle(buf, *n, received)) return;
  }
}

bool FakeAgent::Handle(const uint8_t* msg, size_t n, std::vector<UniqueFd>& fds) {
  ipc::MsgHeader h;
  if (n < sizeof(h)) return false;
  std::memcpy(&h, msg, sizeof(h));
  auto type = static_cast<ipc::MsgType>(h.type);
  if (type == ipc::MsgType::kHello) {
    ipc::HelloRequest hello{};
    std::memcpy(&hello, msg, std::min(n, sizeof(hello)));
    {
      std::lock_guard<std::mutex> lock(mu_);
      hello_ = hello;
    }
    greeted_.store(true);  // before the reply: the client may look as soon as it has it
    return Hello(hello).ok();
  }
  if (type == ipc::MsgType::kGoodbye) {
    goodbye_.store(true);
    return false;
  }
  Status refuse;
  {
    std::lock_guard<std::mutex> lock(mu_);
    requests_.push_back(type);
    refuse = refuse_;
    if (type == ipc::MsgType::kCommCreate && n >= sizeof(ipc::CommCreate)) {
      ipc::CommCreate c;
      std::memcpy(&c, msg, sizeof(c));
      comm_requests_.push_back(c);
    }
  }
  fds.clear();  // the agent's imports are not what these tests look at
  switch (type) {
    case ipc::MsgType::kRegisterRegion:
      Reply(ipc::MsgType::kRegisterRegionReply, h.request_id, refuse, next_id_++);
      break;
    case ipc::MsgType::kReleaseRegion:
      Reply(ipc::MsgType::kReleaseRegionReply, h.request_id, refuse, 0);
      break;
    case ipc::MsgType::kCommCreate: {
      uint32_t id = comm_id_.load();
      Reply(ipc::MsgType::kCommCreateReply, h.request_id, refuse, id != 0 ? id : next_id_++);
      break;
    }
    case ipc::MsgType::kCommDestroy:
      Reply(ipc::MsgType::kCommDestroyReply, h.request_id, refuse, 0);
      break;
    case ipc::MsgType::kReform: {
      std::optional<ipc::ReformReply> place;
      {
        std::lock_guard<std::mutex> lock(mu_);
        place = place_;
      }
      if (!place) break;
      ipc::InitMsgHeader(&place->header, ipc::MsgType::kReformReply,
                         sizeof(*place) - sizeof(place->header), h.request_id);
      place->code = 0;
      (void)::send(client_.get(), &*place, sizeof(*place), MSG_NOSIGNAL);
      break;
    }
    default:
      break;  // unanswered: the client's wait for a reply times out
  }
  return true;
}

Status FakeAgent::Hello(const ipc::HelloRequest& hello) {
  ipc::HelloReply reply{};
  ipc::InitMsgHeader(&reply.header, ipc::MsgType::kHelloReply, sizeof(reply) - sizeof(reply.header),
                     hello.header.request_id);
  reply.header.version = options_.version;
  if (!options_.refuse_hello.ok()) {
    reply.code = static_cast<int32_t>(options_.refuse_hello.code());
    ipc::CopyText(reply.message, sizeof(reply.message), options_.refuse_hello.message());
    (void)::send(client_.get(), &reply, sizeof(reply), MSG_NOSIGNAL);
    return options_.refuse_hello;
  }
  uint32_t entries = options_.sq_entries;
  ipc::ControlLayout layout = ipc::ComputeControlLayout(entries, entries);
  OUTRIDER_ASSIGN_OR_RETURN(control_fd_,
                            ipc::CreateSealedMemfd("fake-agent-control", layout.total_bytes));
  OUTRIDER_ASSIGN_OR_RETURN(control_, ipc::MapShared(control_fd_.get(), layout.total_bytes));
  auto* header = reinterpret_cast<ipc::ControlHeader*>(control_.data());
  ipc::InitControlHeader(header, entries, entries, layout);
  header->version = options_.version;
  OUTRIDER_ASSIGN_OR_RETURN(sq_efd_, ipc::CreateEventFd());
  OUTRIDER_ASSIGN_OR_RETURN(cq_efd_, ipc::CreateEventFd());
  uint8_t* base = control_.data();
  sq_ = ipc::RingConsumer<ipc::SubmitEntry>(
      reinterpret_cast<ipc::RingIndices*>(base + layout.sq_indices_offset),
      reinterpret_cast<ipc::SubmitEntry*>(base + layout.sq_slots_offset), entries);
  cq_ = ipc::RingProducer<ipc::CompletionEntry>(
      reinterpret_cast<ipc::RingIndices*>(base + layout.cq_indices_offset),
      reinterpret_cast<ipc::CompletionEntry*>(base + layout.cq_slots_offset), entries);
  {
    std::lock_guard<std::mutex> lock(mu_);
    rings_ready_.store(true);
  }
  hello_said_.notify_all();
  reply.client_id = 1;
  reply.control_bytes = layout.total_bytes;
  ipc::UnixChannel channel(UniqueFd(::dup(client_.get())));
  int fds[3] = {control_fd_.get(), sq_efd_.get(), cq_efd_.get()};
  return channel.Send(&reply, sizeof(reply), fds, 3);
}

void FakeAgent::Reply(ipc::MsgType type, uint32_t request_id, const Status& st, uint32_t id) {
  ipc::RegionReply reply{};
  ipc::InitMsgHeader(&reply.header, type, sizeof(reply) - sizeof(reply.header), request_id);
  reply.code = static_cast<int32_t>(st.code());
  reply.region_id = st.ok() ? id : 0;
  ipc::CopyText(reply.message, sizeof(reply.message), st.message());
  (void)::send(client_.get(), &reply, sizeof(reply), MSG_NOSIGNAL);
}

std::optional<ipc::SubmitEntry> FakeAgent::NextSubmission(int timeout_ms) {
  uint64_t deadline = ipc::MonotonicNs() + uint64_t(timeout_ms) * 1'000'000;
  {
    std::unique_lock<std::mutex> lock(mu_);
    if (!hello_said_.wait_for(lock, std::chrono::milliseconds(timeout_ms),
                              [&] { return rings_ready_.load(); }))
      return std::nullopt;
  }
  ipc::SubmitEntry e{};
  for (;;) {
    if (sq_.Pop(&e) == ipc::RingResult::kOk) return e;
    uint64_t now = ipc::MonotonicNs();
    if (now >= deadline) return std::nullopt;
    // The client rings the doorbell only if the consumer says it sleeps.
    if (!sq_.PrepareSleep()) continue;
    pollfd p{sq_efd_.get(), POLLIN, 0};
    (void)::poll(&p, 1, static_cast<int>((deadline - now) / 1'000'000) + 1);
    sq_.FinishSleep();
    ipc::DrainEventFd(sq_efd_.get());
  }
}

void FakeAgent::Complete(uint64_t op_id, const Status& status) {
  ipc::CompletionEntry c{};
  c.op_id = op_id;
  c.code = static_cast<int32_t>(status.code());
  ipc::CopyText(c.message, sizeof(c.message), status.message());
  (void)cq_.Push(c);
  if (cq_.ConsumerNeedsWake()) ipc::SignalEventFd(cq_efd_.get());
}

void FakeAgent::Move(uint64_t op_id) {
  ipc::CompletionEntry c{};
  c.op_id = op_id;
  c.code = static_cast<int32_t>(Code::kUnavailable);
  c.flags = ipc::kCompletionMoved;
  (void)cq_.Push(c);
  if (cq_.ConsumerNeedsWake()) ipc::SignalEventFd(cq_efd_.get());
}

void FakeAgent::HangUp() {
  if (int fd = client_fd_.load(); fd >= 0) (void)::shutdown(fd, SHUT_RDWR);
}

void FakeAgent::Leave() {
  if (int fd = client_fd_.load(); fd >= 0) {
    ipc::Goodbye bye{};
    ipc::InitMsgHeader(&bye.header, ipc::MsgType::kGoodbye, sizeof(bye) - sizeof(bye.header), 0);
    bye.code = static_cast<int32_t>(Code::kUnavailable);
    ipc::CopyText(bye.message, sizeof(bye.message), "the agent is stopping");
    (void)::send(fd, &bye, sizeof(bye), MSG_NOSIGNAL);
  }
  HangUp();
}

}  // namespace outrider::shim
