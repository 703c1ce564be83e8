// Per-op timeline of the engine.
#include "agent/engine/op_trace.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstdio>

namespace outrider::agent {

const char* OpTrace::KindName(Kind k) {
  switch (k) {
    case kLocalReduce:
      return "local_reduce";
    case kReduce:
      return "reduce";
    case kCopy:
      return "copy";
    case kWriteBack:
      return "write_back";
    case kQueued:
      return "credit_wait";
    case kWire:
      return "wire";
    case kCount:
      break;
  }
  return "?";
}

void OpTrace::Start(uint64_t now_ns) {
  start_ns_ = now_ns;
  faults_at_start_ = ThreadFaults();
  peak_private_bytes_ = PrivateBytes();
  sampled_ns_ = now_ns;
}

void OpTrace::Begin(Kind k, uint64_t now_ns) {
  if (k == kWire && first_send_ns_ == 0) first_send_ns_ = now_ns;
  if (open_[k]++ == 0) since_ns_[k] = now_ns;
}

void OpTrace::End(Kind k, uint64_t now_ns) {
  if (open_[k] == 0) return;
  if (--open_[k] == 0) busy_ns_[k] += now_ns - since_ns_[k];
  if (k == kWire) last_send_ns_ = now_ns;
  if (k != kQueued && k != kWire) SampleMemory(now_ns);
}

void OpTrace::Received(uint64_t now_ns) {
  if (first_recv_ns_ == 0) first_recv_ns_ = now_ns;
  last_recv_ns_ = now_ns;
  ++chunks_recv_;
  SampleMemory(now_ns);
}

void OpTrace::SampleMemory(uint64_t now_ns) {
  if (start_ns_ == 0 || now_ns - sampled_ns_ < 1'000'000) return;
  sampled_ns_ = now_ns;
  uint64_t b = PrivateBytes();
  if (b > peak_private_bytes_) peak_private_bytes_ = b;
}

void OpTrace::Finish(uint64_t now_ns) {
  if (end_ns_ != 0) return;
  for (size_t k = 0; k < kCount; ++k) {
    if (open_[k] > 0) busy_ns_[k] += now_ns - since_ns_[k];
    open_[k] = 0;
  }
  sampled_ns_ = 0;
  SampleMemory(now_ns);
  end_ns_ = now_ns;
  if (start_ns_ != 0) faults_ = ThreadFaults() - faults_at_start_;
}

nlohmann::json OpTrace::Json() const {
  auto ms = [this](uint64_t t) {
    return t > start_ns_ ? static_cast<double>(t - start_ns_) / 1e6 : 0.0;
  };
  nlohmann::json busy = nlohmann::json::object();
  for (size_t k = 0; k < kCount; ++k)
    busy[KindName(static_cast<Kind>(k))] = static_cast<double>(busy_ns_[k]) / 1e6;
  nlohmann::json j = {{"duration_ms", ms(end_ns_)},
                      {"busy_ms", busy},
                      {"chunks_recv", chunks_recv_},
                      {"page_faults", faults_},
                      {"private_peak_bytes", peak_private_bytes_}};
  if (agreed_ns_) j["agreed_ms"] = ms(agreed_ns_);
  if (first_send_ns_) j["first_send_ms"] = ms(first_send_ns_);
  if (last_send_ns_) j["last_send_ms"] = ms(last_send_ns_);
  if (first_recv_ns_) {
    j["first_recv_ms"] = ms(first_recv_ns_);
    j["last_recv_ms"] = ms(last_recv_ns_);
  }
  return j;
}

uint64_t OpTrace::ThreadFaults() {
  struct rusage u {};
  if (::getrusage(RUSAGE_THREAD, &u) != 0) return 0;
  return static_cast<uint64_t>(u.ru_minflt + u.ru_majflt);
}

uint64_t OpTrace::PrivateBytes() {
  // statm: size resident shared ... (pages); resident - shared is the anonymous part (RssAnon).
  static const int fd = ::open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
  static const long page = ::sysconf(_SC_PAGESIZE);
  if (fd < 0 || page <= 0) return 0;
  char buf[128];
  ssize_t n = ::pread(fd, buf, sizeof(buf) - 1, 0);
  if (n <= 0) return 0;
  buf[n] = '\0';
  unsigned long long size = 0, resident = 0, shared = 0;
  if (std::sscanf(buf, "%llu %llu %llu", &size, &resident, &shared) != 3 || resident < shared)
    return 0;
  return (resident - shared) * static_cast<uint64_t>(page);
}

}  // namespace outrider::agent
