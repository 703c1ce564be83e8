// Test helpers: processes, pipes, shared memory, leak probes, raw protocol client.
#include "tests/support/test_support.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include "ipc/event_fd.h"

namespace outrider::testing {

std::unique_ptr<harness::AgentProcess> StartAgent(std::vector<std::string> extra_args) {
  harness::AgentProcessOptions o;
  o.extra_args = std::move(extra_args);
  o.extra_args.push_back("--log-level");
  o.extra_args.push_back("debug");
  auto a = harness::AgentProcess::Start(o);
  EXPECT_TRUE(a.ok()) << a.status().ToString();
  if (!a.ok()) return nullptr;
  return std::move(*a);
}

pid_t Spawn(const std::function<int()>& fn) {
  std::fflush(stdout);
  std::fflush(stderr);
  pid_t pid = ::fork();
  if (pid == 0) {
    int rc = fn();
    std::fflush(stdout);
    std::fflush(stderr);
    _exit(rc);
  }
  return pid;
}

int Reap(pid_t pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return -1;
}

Pipe::Pipe() {
  if (::pipe2(fds_, O_CLOEXEC) != 0) std::abort();
}
Pipe::~Pipe() {
  ::close(fds_[0]);
  ::close(fds_[1]);
}
void Pipe::Send(char c) { (void)!::write(fds_[1], &c, 1); }
bool Pipe::Receive(char* c, int timeout_ms) {
  pollfd p{fds_[0], POLLIN, 0};
  if (::poll(&p, 1, timeout_ms) <= 0) return false;
  return ::read(fds_[0], c, 1) == 1;
}

void* MapSharedAnon(size_t bytes) {
  void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) std::abort();
  return p;
}
void UnmapShared(void* p, size_t bytes) { ::munmap(p, bytes); }

outrider_client_t* ConnectOrExit(const std::string& socket, const std::string& job, int rank,
                                 int size) {
  outrider_connect_options_t o;
  outrider_connect_options_init(&o);
  o.socket_path = socket.c_str();
  o.job_id = job.c_str();
  o.rank = rank;
  o.world_size = size;
  o.local_rank = rank;
  o.local_world_size = size;
  outrider_client_t* c = nullptr;
  if (outrider_connect(&o, &c) != OUTRIDER_OK) {
    std::fprintf(stderr, "connect failed: %s\n", outrider_last_error(nullptr));
    _exit(90);
  }
  return c;
}

outrider_client_t* ConnectOrExitWith(const outrider_connect_options_t* options) {
  outrider_client_t* c = nullptr;
  if (outrider_connect(options, &c) != OUTRIDER_OK) {
    std::fprintf(stderr, "connect failed: %s\n", outrider_last_error(nullptr));
    _exit(90);
  }
  return c;
}

void CopyText(char* dst, size_t cap, const char* src) {
  std::strncpy(dst, src, cap - 1);
  dst[cap - 1] = '\0';
}

namespace {

// Whether nothing on 127.0.0.1 holds `port`, in any state: bound without SO_REUSEADDR, so that a
// port in TIME_WAIT counts as taken. 0 binds to a port of the kernel's choosing and returns it.
uint16_t TryBind(uint16_t port) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return 0;
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  sa.sin_port = htons(port);
  socklen_t len = sizeof(sa);
  bool ok = ::bind(fd, reinterpret_cast<sockaddr*>(&sa), sizeof(sa)) == 0 &&
            ::getsockname(fd, reinterpret_cast<sockaddr*>(&sa), &len) == 0;
  ::close(fd);
  return ok ? ntohs(sa.sin_port) : 0;
}

}  // namespace

uint16_t FreePort() {
  // Outside the kernel's ephemeral range, so that no socket bound to port 0 or connecting out (an
  // agent's UCX interfaces, a client) takes the port before the caller's agent binds it; below
  // tools/cluster/run.sh's loopback ports (29500-30749). A cursor starting at a PID-derived offset
  // walks the candidates, so that successive calls (and concurrent test processes) differ.
  int lo = 32768, hi = 60999;
  if (std::FILE* f = std::fopen("/proc/sys/net/ipv4/ip_local_port_range", "r")) {
    if (std::fscanf(f, "%d %d", &lo, &hi) != 2) lo = 32768, hi = 60999;
    std::fclose(f);
  }
  std::vector<uint16_t> candidates;
  for (int p = 20000; p < 29500; ++p) {
    if (p < lo || p > hi) candidates.push_back(static_cast<uint16_t>(p));
  }
  static std::atomic<uint64_t> cursor{static_cast<uint64_t>(::getpid()) * 7919};
  for (size_t i = 0; i < candidates.size(); ++i) {
    uint16_t p = candidates[cursor.fetch_add(1) % candidates.size()];
    if (TryBind(p) == p) return p;
  }
  return TryBind(0);  // an ephemeral range that covers 20000-29499: the kernel's pick
}

UniqueFd ConnectLoopback(uint16_t port) {
  UniqueFd fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_port = htons(port);
  sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (fd.valid() && ::connect(fd.get(), reinterpret_cast<sockaddr*>(&sa), sizeof(sa)) != 0) {
    int err = errno;
    fd.reset();
    errno = err;
  }
  return fd;
}

int CountOpenFds(pid_t pid) {
  int n = 0;
  std::error_code ec;
  for (auto it = std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/fd", ec);
       !ec && it != std::filesystem::directory_iterator(); it.increment(ec)) {
    ++n;
  }
  return n;
}

double CpuSeconds(pid_t pid) {
  std::ifstream f("/proc/" + std::to_string(pid) + "/stat");
  std::string stat((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  // Fields after the command's closing parenthesis: state is field 3, utime 14, stime 15.
  size_t at = stat.rfind(')');
  if (at == std::string::npos) return 0;
  std::istringstream rest(stat.substr(at + 2));
  std::string field;
  uint64_t ticks = 0;
  for (int i = 3; i <= 15 && rest >> field; ++i) {
    if (i >= 14) ticks += std::stoull(field);
  }
  return static_cast<double>(ticks) / static_cast<double>(::sysconf(_SC_CLK_TCK));
}

std::set<std::string> DevShmEntries() {
  std::set<std::string> out;
  std::error_code ec;
  for (auto it = std::filesystem::directory_iterator("/dev/shm", ec);
       !ec && it != std::filesystem::directory_iterator(); it.increment(ec)) {
    out.insert(it->path().filename().string());
  }
  return out;
}

bool WaitUntil(const std::function<bool()>& cond, int timeout_ms) {
  uint64_t deadline = ipc::MonotonicNs() + uint64_t(timeout_ms) * 1000000;
  while (!cond()) {
    if (ipc::MonotonicNs() > deadline) return false;
    ::sched_yield();
  }
  return true;
}

HttpReply HttpFetch(uint16_t port, const std::string& path, const std::string& method,
                    const std::string& host) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_port = htons(port);
  std::string out;
  if (::inet_pton(AF_INET, host.c_str(), &sa.sin_addr) == 1 &&
      ::connect(fd, reinterpret_cast<sockaddr*>(&sa), sizeof(sa)) == 0) {
    std::string req = method + " " + path + " HTTP/1.1\r\nHost: " + host +
                      "\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";
    if (::write(fd, req.data(), req.size()) == static_cast<ssize_t>(req.size())) {
      char buf[4096];
      for (ssize_t n; (n = ::read(fd, buf, sizeof(buf))) > 0;)
        out.append(buf, static_cast<size_t>(n));
    }
  }
  ::close(fd);
  HttpReply reply;
  size_t body = out.find("\r\n\r\n");
  if (body == std::string::npos || out.rfind("HTTP/1.", 0) != 0 || out.size() < 12) return reply;
  reply.status = std::atoi(out.c_str() + 9);
  reply.body = out.substr(body + 4);
  return reply;
}

Result<std::unique_ptr<RawClient>> RawClient::Connect(const std::string& path) {
  auto c = std::make_unique<RawClient>();
  OUTRIDER_ASSIGN_OR_RETURN(c->channel_, ipc::UnixChannel::Connect(path));
  return c;
}

ipc::HelloRequest RawClient::MakeHello(const std::string& job, int rank, int size,
                                       uint16_t version) const {
  ipc::HelloRequest h{};
  ipc::InitMsgHeader(&h.header, ipc::MsgType::kHello, ipc::HelloBytes(version) - sizeof(h.header),
                     1, version);
  CopyText(h.job_id, sizeof(h.job_id), job.c_str());
  h.rank = rank;
  h.world_size = size;
  h.local_rank = rank;
  h.local_world_size = size;
  h.pid = ::getpid();
  return h;
}

Result<ipc::HelloReply> RawClient::Hello(const ipc::HelloRequest& hello, int fd) {
  version_ = hello.header.version;
  OUTRIDER_RETURN_IF_ERROR(
      channel_.Send(&hello, ipc::HelloBytes(version_), fd >= 0 ? &fd : nullptr, fd >= 0 ? 1 : 0));
  ipc::HelloReply reply{};
  std::vector<UniqueFd> fds;
  OUTRIDER_ASSIGN_OR_RETURN(size_t n, channel_.Recv(&reply, sizeof(reply), &fds, 5000));
  if (n != sizeof(reply))
    return Unavailable("no hello reply (got " + std::to_string(n) + " bytes)");
  if (reply.code != 0 || fds.size() != 3) return reply;
  OUTRIDER_ASSIGN_OR_RETURN(control_, ipc::MapShared(fds[0].get(), reply.control_bytes));
  control_fd_ = std::move(fds[0]);
  auto* h = reinterpret_cast<ipc::ControlHeader*>(control_.data());
  sq_idx_ = reinterpret_cast<ipc::RingIndices*>(control_.data() + h->sq_indices_offset);
  sq_ = ipc::RingProducer<ipc::SubmitEntry>(
      sq_idx_, reinterpret_cast<ipc::SubmitEntry*>(control_.data() + h->sq_slots_offset),
      h->sq_entries);
  cq_ = ipc::RingConsumer<ipc::CompletionEntry>(
      reinterpret_cast<ipc::RingIndices*>(control_.data() + h->cq_indices_offset),
      reinterpret_cast<ipc::CompletionEntry*>(control_.data() + h->cq_slots_offset), h->cq_entries);
  sq_efd_ = std::move(fds[1]);
  cq_efd_ = std::move(fds[2]);
  return reply;
}

Result<uint32_t> RawClient::RegisterRegion(size_t bytes) {
  OUTRIDER_ASSIGN_OR_RETURN(UniqueFd fd, ipc::CreateSealedMemfd("raw-region", bytes));
  OUTRIDER_ASSIGN_OR_RETURN(ipc::Mapping m, ipc::MapShared(fd.get(), bytes));
  ipc::RegisterRegion msg{};
  ipc::InitMsgHeader(&msg.header, ipc::MsgType::kRegisterRegion, sizeof(msg) - sizeof(msg.header),
                     next_request_++, version_);
  msg.bytes = bytes;
  int f = fd.get();
  OUTRIDER_RETURN_IF_ERROR(channel_.Send(&msg, sizeof(msg), &f, 1));
  ipc::RegionReply reply{};
  OUTRIDER_ASSIGN_OR_RETURN(size_t n, channel_.Recv(&reply, sizeof(reply), nullptr, 5000));
  if (n != sizeof(reply)) return Unavailable("no region reply");
  if (reply.code != 0) return Status(static_cast<Code>(reply.code), reply.message);
  regions_.emplace(reply.region_id, std::move(m));
  region_fds_.push_back(std::move(fd));
  return reply.region_id;
}

Status RawClient::ReleaseRegion(uint32_t id) {
  ipc::ReleaseRegion msg{};
  ipc::InitMsgHeader(&msg.header, ipc::MsgType::kReleaseRegion, sizeof(msg) - sizeof(msg.header),
                     next_request_++, version_);
  msg.region_id = id;
  OUTRIDER_RETURN_IF_ERROR(channel_.Send(&msg, sizeof(msg), nullptr, 0));
  ipc::RegionReply reply{};
  OUTRIDER_ASSIGN_OR_RETURN(size_t n, channel_.Recv(&reply, sizeof(reply), nullptr, 5000));
  if (n != sizeof(reply)) return Unavailable("no region reply");
  regions_.erase(id);
  if (reply.code != 0) return Status(static_cast<Code>(reply.code), reply.message);
  return Status::Ok();
}

void RawClient::Push(const ipc::SubmitEntry& e) {
  sq_.Push(e);
  Kick();
}

void RawClient::Kick() { ipc::SignalEventFd(sq_efd_.get()); }

Result<ipc::CompletionEntry> RawClient::NextCompletion(int timeout_ms) {
  uint64_t deadline = ipc::MonotonicNs() + uint64_t(timeout_ms) * 1000000;
  for (;;) {
    ipc::CompletionEntry c;
    if (cq_.Pop(&c) == ipc::RingResult::kOk) return c;
    uint64_t now = ipc::MonotonicNs();
    if (now >= deadline) return DeadlineExceeded("no completion");
    if (!cq_.PrepareSleep()) continue;
    int r = ipc::WaitReadable(cq_efd_.get(), channel_.fd(),
                              static_cast<int>((deadline - now) / 1000000 + 1));
    cq_.FinishSleep();
    if (r == 1) ipc::DrainEventFd(cq_efd_.get());
    if (r == 2 && cq_.Empty()) return Unavailable("agent hung up");
  }
}

Result<std::string> RawClient::AwaitGoodbye(int timeout_ms) {
  ipc::Goodbye bye{};
  OUTRIDER_ASSIGN_OR_RETURN(size_t n, channel_.Recv(&bye, sizeof(bye), nullptr, timeout_ms));
  if (n == 0) return std::string("(closed without goodbye)");
  if (n != sizeof(bye) || bye.header.type != static_cast<uint16_t>(ipc::MsgType::kGoodbye)) {
    return Internal("expected a goodbye, got " + std::to_string(n) + " bytes");
  }
  return std::string(bye.message);
}

Result<std::unique_ptr<RawClient>> JoinRawJob(const std::string& socket, const std::string& job,
                                              int rank, int size, uint32_t* region) {
  OUTRIDER_ASSIGN_OR_RETURN(std::unique_ptr<RawClient> raw, RawClient::Connect(socket));
  OUTRIDER_ASSIGN_OR_RETURN(ipc::HelloReply reply, raw->Hello(raw->MakeHello(job, rank, size)));
  if (reply.code != 0) return Status(static_cast<Code>(reply.code), reply.message);
  OUTRIDER_ASSIGN_OR_RETURN(*region, raw->RegisterRegion(4096));
  return raw;
}

ipc::SubmitEntry AllreduceEntry(uint64_t op_id, uint32_t region, uint64_t offset, uint64_t count) {
  ipc::SubmitEntry e{};
  e.op_id = op_id;
  e.key = 42;
  e.kind = static_cast<uint32_t>(ipc::OpKind::kAllreduce);
  e.dtype = static_cast<uint32_t>(ipc::DType::kF32);
  e.reduce_op = static_cast<uint32_t>(ipc::ReduceOp::kSum);
  e.count = count;
  e.send = ipc::BufferRef{region, 0, offset, count * 4};
  e.recv = e.send;
  return e;
}

}  // namespace outrider::testing
