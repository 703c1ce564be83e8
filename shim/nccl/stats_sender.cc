// Sending NCCL telemetry to the agent (see stats_sender.h).
#include "shim/nccl/stats_sender.h"

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "ipc/defaults.h"
#include "ipc/event_fd.h"
#include "shim/connect_config.h"

namespace outrider::shim {

namespace {
constexpr uint64_t kFlushNs = 1'000'000'000;
constexpr uint64_t kReconnectNs = 1'000'000'000;

std::string EnvOr(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? std::string(v) : fallback;
}
}  // namespace

struct NcclStatsSender::Comm {
  uint64_t id = 0;
  int rank = 0;
  int nranks = 0;
  ipc::NcclStatsRecord ops[ipc::kNumNcclOps] = {};
  bool dirty = false;
  uint64_t sent_ns = 0;
};

uint64_t HashBytes(const void* p, size_t n, uint64_t seed) {
  const auto* b = static_cast<const uint8_t*>(p);
  uint64_t h = seed;
  for (size_t i = 0; i < n; ++i) {
    h ^= b[i];
    h *= 0x100000001b3ull;
  }
  return h;
}

NcclStatsSender::NcclStatsSender(ipc::NcclSource source) : source_(source) {
  path_ = ipc::NcclTelemetryPath(EnvOr("OUTRIDER_SOCKET", DefaultSocketPath()));
  std::string from;
  job_ = DefaultJobId(&from);
  if (job_.size() > 63) job_.resize(63);
}

NcclStatsSender::~NcclStatsSender() { FlushAll(); }

NcclStatsSender::Comm* NcclStatsSender::Track(uint64_t comm_id, int rank, int nranks) {
  MutexLock l(&mu_);
  Comm& c = comms_.emplace_back();
  c.id = comm_id;
  c.rank = rank;
  c.nranks = nranks;
  for (int i = 0; i < ipc::kNumNcclOps; ++i) c.ops[i].op = static_cast<uint32_t>(i);
  c.sent_ns = ipc::MonotonicNs();
  return &c;
}

uint64_t NcclStatsSender::Id(const Comm* c) { return c->id; }

void NcclStatsSender::Forget(Comm* c) {
  MutexLock l(&mu_);
  SendLocked(c);
  comms_.remove_if([c](const Comm& have) { return &have == c; });
}

void NcclStatsSender::Count(Comm* c, ipc::NcclOp op, uint64_t bytes) {
  MutexLock l(&mu_);
  ipc::NcclStatsRecord& r = c->ops[static_cast<uint32_t>(op)];
  r.calls++;
  r.bytes += bytes;
  c->dirty = true;
}

void NcclStatsSender::Time(Comm* c, ipc::NcclOp op, uint64_t gpu_ns) {
  MutexLock l(&mu_);
  ipc::NcclStatsRecord& r = c->ops[static_cast<uint32_t>(op)];
  r.timed_calls++;
  r.gpu_ns += gpu_ns;
  c->dirty = true;
}

void NcclStatsSender::MaybeFlush() {
  uint64_t now = ipc::MonotonicNs();
  MutexLock l(&mu_);
  for (Comm& c : comms_) {
    if (c.dirty && now - c.sent_ns >= kFlushNs) SendLocked(&c);
  }
}

void NcclStatsSender::FlushAll() {
  MutexLock l(&mu_);
  for (Comm& c : comms_) SendLocked(&c);
}

void NcclStatsSender::SendLocked(Comm* c) {
  if (!c->dirty) return;
  c->sent_ns = ipc::MonotonicNs();
  alignas(8) uint8_t buf[ipc::kMaxNcclTelemetryBytes];
  ipc::NcclStatsHeader h{};
  h.magic = ipc::kNcclTelemetryMagic;
  h.version = ipc::kNcclTelemetryVersion;
  h.source = static_cast<uint8_t>(source_);
  h.pid = static_cast<uint32_t>(::getpid());
  h.rank = c->rank;
  h.nranks = static_cast<uint32_t>(c->nranks);
  h.comm_id = c->id;
  h.dropped = dropped_;
  std::memcpy(h.job, job_.data(), job_.size());
  size_t n = 0;
  for (const ipc::NcclStatsRecord& r : c->ops) {
    if (r.calls == 0 && r.timed_calls == 0) continue;
    std::memcpy(buf + sizeof(h) + n * sizeof(r), &r, sizeof(r));
    ++n;
  }
  h.records = static_cast<uint8_t>(n);
  std::memcpy(buf, &h, sizeof(h));
  if (fd_.get() < 0 && c->sent_ns >= next_connect_ns_) {
    next_connect_ns_ = c->sent_ns + kReconnectNs;
    int fd = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    if (fd >= 0 && path_.size() < sizeof(addr.sun_path)) {
      std::memcpy(addr.sun_path, path_.data(), path_.size());
      if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0) {
        fd_ = UniqueFd(fd);
        fd = -1;
      }
    }
    if (fd >= 0) ::close(fd);
  }
  bool sent = false;
  if (fd_.get() >= 0) {
    ssize_t w = ::send(fd_.get(), buf, sizeof(h) + n * sizeof(ipc::NcclStatsRecord),
                       MSG_DONTWAIT | MSG_NOSIGNAL);
    sent = w > 0;
    if (!sent && errno != EAGAIN) fd_.reset();  // the agent went: connect again later
  }
  if (!sent) {
    ++dropped_;
    return;  // the counts stay and go with the next datagram
  }
  for (ipc::NcclStatsRecord& r : c->ops) {
    r.calls = r.bytes = r.timed_calls = r.gpu_ns = 0;
  }
  c->dirty = false;
}

}  // namespace outrider::shim
