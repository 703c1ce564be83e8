// The process's connection to its agent and its worker thread (see connection.h).
#include "shim/python/outrider_torch/csrc/connection.h"

#include <c10/core/Event.h>
#include <c10/core/StreamGuard.h>
#include <c10/core/impl/VirtualGuardImpl.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>
#include <thread>
#include <utility>

#include "shim/python/outrider_torch/csrc/cuda_ops.h"
#include "shim/python/outrider_torch/csrc/gil.h"
#include "shim/python/outrider_torch/csrc/shared_memory.h"

namespace outrider::torch_backend {
namespace {

constexpr size_t kArenaMaxBytes = 16 << 20;  // larger buffers come from pooled regions
constexpr size_t kRegionAlign = 1 << 20;
// After the process group is destroyed, ops still in flight get this long to finish.
constexpr std::chrono::milliseconds kShutdownGrace{10000};

}  // namespace

namespace {

// The devices a future of an op on `stream` holds tensors of (none for host ops).
std::vector<c10::Device> FutureDevices(const std::optional<c10::Stream>& stream) {
  if (!stream) return {};
  return {stream->device()};
}

}  // namespace

OutriderWork::OutriderWork(int rank, c10d::OpType type, std::vector<at::Tensor> outputs,
                           std::optional<c10::Stream> stream)
    : Work(rank, type),
      outputs_(std::move(outputs)),
      stream_(stream),
      future_(c10::make_intrusive<c10::ivalue::Future>(
          c10::ListType::create(c10::TensorType::get()), FutureDevices(stream))) {}

void OutriderWork::Finish(std::exception_ptr error) {
  if (finished_.exchange(true)) return;  // once: a later call (a racing failure path) is dropped
  if (!error) {
    try {
      if (stream_) {
        // The future records where its value is ready on the current streams: the op's stream,
        // after the result's copy back.
        c10::StreamGuard on_op_stream(*stream_);
        future_->markCompleted(c10::IValue(outputs_));
      } else {
        future_->markCompleted(c10::IValue(outputs_));
      }
    } catch (...) {
      error = std::current_exception();
    }
  }
  if (error && !future_->completed()) future_->setError(error);
  finish(error);
  OnFinished();
}

bool OutriderWork::wait(std::chrono::milliseconds timeout) {
  bool done = c10d::Work::wait(timeout);
  if (done && stream_) {
    c10::impl::VirtualGuardImpl impl(stream_->device_type());
    c10::Stream current = impl.getStream(stream_->device());
    if (current != *stream_) {
      c10::Event ready(stream_->device_type());
      ready.record(*stream_);
      ready.block(current);
    }
  }
  return done;
}

namespace {
std::mutex g_connection_mu;
std::weak_ptr<Connection> g_connection;  // guarded by g_connection_mu

// GPU memory the caching allocator gave back, for the worker to release from the agent.
std::atomic<int> g_open_connections{0};
std::mutex g_freed_mu;
std::vector<std::pair<uintptr_t, size_t>> g_freed;  // guarded by g_freed_mu

std::vector<std::pair<uintptr_t, size_t>> TakeDeviceFrees() {
  std::lock_guard<std::mutex> l(g_freed_mu);
  return std::exchange(g_freed, {});
}
}  // namespace

void NoteDeviceFree(uintptr_t addr, size_t bytes) {
  if (g_open_connections.load() == 0) return;  // no client holds imports
  std::lock_guard<std::mutex> l(g_freed_mu);
  g_freed.emplace_back(addr, bytes);
}

Connection::Connection(int rank, int size) : rank_(rank), size_(size) {
  outrider_connect_options_t o;
  outrider_connect_options_init(&o);
  o.rank = rank;
  o.world_size = size;
  ConnectAndRun(o);
}

Connection::Connection(Joiner) : rank_(-1), size_(0) {
  outrider_connect_options_t o;
  outrider_connect_options_init(&o);
  o.flags = OUTRIDER_CONNECT_JOINER;
  ConnectAndRun(o);
}

void Connection::ConnectAndRun(const outrider_connect_options_t& o) {
  int rc = outrider_connect(&o, &client_);
  if (rc != OUTRIDER_OK) {
    ThrowBackendError(std::string("outrider: cannot reach this node's agent: ") +
                      outrider_last_error(nullptr));
  }
  wake_fd_ = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (wake_fd_ < 0) {
    outrider_disconnect(client_);
    ThrowBackendError(std::string("outrider: eventfd: ") + std::strerror(errno));
  }
  g_open_connections++;
  worker_ = std::thread([this] { Loop(); });
}

std::shared_ptr<Connection> Connection::OpenJoiner() {
  auto conn = std::make_shared<Connection>(Joiner{});
  std::lock_guard<std::mutex> l(g_connection_mu);
  g_connection = conn;
  return conn;
}

Connection::~Connection() {
  Stop();
  outrider_disconnect(client_);
  g_open_connections--;
  ::close(wake_fd_);
}

void Connection::Stop() {
  {
    std::lock_guard<std::mutex> l(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  Wake();
  if (worker_.joinable() && !OnWorker()) {
    GilReleased unlocked;
    worker_.join();
  }
}

std::shared_ptr<Connection> Connection::Current() {
  std::lock_guard<std::mutex> l(g_connection_mu);
  return g_connection.lock();
}

std::shared_ptr<Connection> Connection::Open(int rank, int size) {
  if (std::shared_ptr<Connection> open = Current();
      open && open->rank_ == rank && open->size_ == size)
    return open;
  auto conn = std::make_shared<Connection>(rank, size);
  std::lock_guard<std::mutex> l(g_connection_mu);
  g_connection = conn;
  return conn;
}

void Connection::Call(std::function<void()> f) {
  if (std::this_thread::get_id() ==
      worker_.get_id()) {  // a completion's callback: waiting would deadlock
    f();
    return;
  }
  auto work =
      c10::make_intrusive<OutriderWork>(rank_, c10d::OpType::UNKNOWN, std::vector<at::Tensor>{});
  Enqueue(work, OUTRIDER_COMM_WORLD, std::chrono::milliseconds(0), [f](Request&) { f(); });
  GilReleased unlocked;
  work->wait();
}

void Connection::DropComm(outrider_comm_t comm) {
  {
    std::lock_guard<std::mutex> l(mu_);
    if (stop_) return;  // the connection closes, and every communicator with it
    drops_.push_back(comm);
  }
  cv_.notify_one();
  Wake();
}

void Connection::DropIdleComms(const std::deque<Request>& inflight) {
  std::vector<outrider_comm_t> drops;
  {
    std::lock_guard<std::mutex> l(mu_);
    drops.swap(drops_);
  }
  std::vector<outrider_comm_t> busy;
  for (outrider_comm_t c : drops) {
    bool used = std::any_of(inflight.begin(), inflight.end(),
                            [c](const Request& r) { return r.comm == c; });
    if (used) {
      busy.push_back(c);
    } else {
      (void)outrider_comm_destroy(client_, c);  // a failed destroy leaves it to the disconnect
    }
  }
  if (!busy.empty()) {
    std::lock_guard<std::mutex> l(mu_);
    drops_.insert(drops_.end(), busy.begin(), busy.end());
  }
}

void Connection::Check(int rc, const char* what) {
  if (rc != OUTRIDER_OK) {
    ThrowBackendError(std::string("outrider: ") + what + " failed (" + outrider_error_string(rc) +
                      "): " + outrider_last_error(client_));
  }
}

Buffer Connection::Acquire(size_t bytes) {
  bytes = std::max<size_t>(bytes, 64);
  if (bytes <= kArenaMaxBytes) {
    if (void* p = outrider_alloc(client_, bytes)) return Buffer{p, bytes, false};
  }
  auto it = free_regions_.lower_bound(bytes);
  if (it != free_regions_.end() && it->first <= 2 * bytes) {
    Buffer b{it->second, it->first, true};
    free_regions_.erase(it);
    return b;
  }
  size_t size = (bytes + kRegionAlign - 1) / kRegionAlign * kRegionAlign;
  void* base = nullptr;
  int rc = outrider_region_create(client_, size, &base);
  if (rc != OUTRIDER_OK && !free_regions_.empty()) {
    // Out of region space: give back the pooled ones and try once more.
    for (auto& [n, p] : free_regions_) outrider_region_release(client_, p);
    free_regions_.clear();
    rc = outrider_region_create(client_, size, &base);
  }
  Check(rc, "allocating shared memory");
  return Buffer{base, size, true};
}

uint8_t* Connection::HeapSegment(const SharedHeap::Segment& seg) {
  auto it = heap_segments_.find(seg.id);
  if (it != heap_segments_.end()) return it->second;
  void* base = nullptr;
  int rc = outrider_region_register_fd(client_, seg.fd, seg.bytes, &base);
  if (rc != OUTRIDER_OK) {
    std::fprintf(stderr,
                 "outrider: the agent refused %zu bytes of the process's shared memory (%s): ops "
                 "on tensors there copy them through staging buffers\n",
                 seg.bytes, outrider_last_error(client_));
    base = nullptr;
  }
  auto* view = static_cast<uint8_t*>(base);
  heap_segments_.emplace(seg.id, view);
  return view;
}

void Connection::Release(const Buffer& b) {
  if (b.ptr == nullptr) return;
  if (b.region) {
    free_regions_.emplace(b.bytes, b.ptr);
  } else {
    outrider_free(client_, b.ptr);
  }
}

void Connection::Enqueue(c10::intrusive_ptr<OutriderWork> work, outrider_comm_t comm,
                         std::chrono::milliseconds timeout, std::function<void(Request&)> prepare) {
  {
    std::lock_guard<std::mutex> l(mu_);
    if (stop_) ThrowBackendError("outrider: the process group is shutting down");
    Request r;
    r.work = std::move(work);
    r.comm = comm;
    r.timeout = timeout;
    incoming_.emplace_back(std::move(r), std::move(prepare));
  }
  cv_.notify_one();
  Wake();
}

void Connection::EnqueueOrdered(c10::intrusive_ptr<OutriderWork> work, outrider_comm_t comm,
                                std::chrono::milliseconds timeout,
                                std::function<void(Request&)> prepare) {
  auto submitted = std::make_shared<std::promise<void>>();
  std::future<void> ready = submitted->get_future();
  if (OnWorker()) {
    Request r;
    r.work = std::move(work);
    r.comm = comm;
    r.timeout = timeout;
    r.submitted = submitted;
    if (Start(r, prepare)) started_inline_.push_back(std::move(r));
    ready.get();
    return;
  }
  Enqueue(std::move(work), comm, timeout, [prepare = std::move(prepare), submitted](Request& r) {
    r.submitted = submitted;
    prepare(r);
  });
  GilReleased unlocked;
  ready.get();
}

bool Connection::Start(Request& r, const std::function<void(Request&)>& prepare) {
  std::exception_ptr error;
  try {
    prepare(r);
    if (r.submit) r.op = r.submit();
  } catch (...) {
    error = std::current_exception();
  }
  if (error) {
    for (const Buffer& b : r.buffers) Release(b);
    if (r.submitted) r.submitted->set_exception(error);
    r.work->Finish(error);
    return false;
  }
  if (r.submitted) r.submitted->set_value();
  if (!r.submit) {  // nothing to submit: done once prepared
    r.work->Finish(nullptr);
    return false;
  }
  r.deadline = r.timeout.count() > 0 ? std::chrono::steady_clock::now() + r.timeout
                                     : std::chrono::steady_clock::time_point::max();
  return true;
}

void Connection::Loop() {
  std::deque<Request> inflight;
  std::optional<std::chrono::steady_clock::time_point> shutdown_at;
  for (;;) {
    std::deque<std::pair<Request, std::function<void(Request&)>>> incoming;
    bool stopping = false;
    {
      std::unique_lock<std::mutex> l(mu_);
      for (Request& r : started_inline_) inflight.push_back(std::move(r));
      started_inline_.clear();
      if (inflight.empty())
        cv_.wait(l, [&] { return stop_ || !incoming_.empty() || !drops_.empty(); });
      if (stop_ && incoming_.empty() && inflight.empty()) return;
      incoming.swap(incoming_);
      stopping = stop_;
    }
    DropIdleComms(inflight);
    // Before new ops: a freed segment's address may come back in one as new memory.
    for (auto [addr, bytes] : TakeDeviceFrees()) {
      (void)outrider_release_device_memory(client_, reinterpret_cast<const void*>(addr),
                                           bytes);  // the shim re-checks on use
    }
    if (stopping) {
      if (!shutdown_at) shutdown_at = std::chrono::steady_clock::now() + kShutdownGrace;
      for (Request& r : inflight) r.deadline = std::min(r.deadline, *shutdown_at);
    }
    // Submit everything new at once: the agent then has the whole backlog to order.
    for (auto& [r, prepare] : incoming) {
      if (Start(r, prepare)) inflight.push_back(std::move(r));
    }
    if (inflight.empty()) continue;
    // Every op in flight makes progress: finished ones complete now, in whatever order the agent
    // finishes them, and demanded rows are handed over as soon as they are in.
    bool progressed = false;
    for (auto it = inflight.begin(); it != inflight.end();) {
      outrider_op_result_t res{};
      res.size = sizeof(res);
      if (it->on_demand) {
        int rc = outrider_wait_demand(client_, it->op, 0, &res);
        if (rc == OUTRIDER_OK) {
          progressed = true;
          auto deliver = std::move(it->on_demand);
          it->on_demand = nullptr;
          try {
            deliver(res);
          } catch (...) {  // the op's own completion reports it
          }
        } else if (rc != OUTRIDER_ERR_DEADLINE_EXCEEDED) {
          it->on_demand = nullptr;  // failed: outrider_test_result below reports it
        }
      }
      int done = 0;
      int rc = outrider_test_result(client_, it->op, &done, &res);
      if (done) {
        progressed = true;
        Finish(*it, rc, res);
        it = inflight.erase(it);
      } else if (rc != OUTRIDER_OK || std::chrono::steady_clock::now() > it->deadline) {
        // A timeout (the agent may still read the buffers: they are never reused) or a handle
        // the shim no longer knows.
        progressed = true;
        for (void* p : it->in_place) AbandonShared(p);  // nor is their memory
        std::string why =
            rc != OUTRIDER_OK
                ? std::string("outrider: collective failed: ") + outrider_last_error(client_)
            : stopping
                ? std::string("outrider: the process group was destroyed while the collective ran")
                : "outrider: Timed out after " + std::to_string(it->timeout.count()) +
                      " ms waiting for the collective (the process group's timeout)";
        it->work->Finish(BackendError(why));
        it = inflight.erase(it);
      } else {
        ++it;
      }
    }
    if (!progressed && !inflight.empty()) {
      // Nothing moved: sleep until a completion comes in, an op is queued (Wake), or the first
      // op's deadline. A failed wait (the agent is gone) shows in the ops' results next round.
      auto first = std::min_element(
                       inflight.begin(), inflight.end(),
                       [](const Request& a, const Request& b) { return a.deadline < b.deadline; })
                       ->deadline;
      int64_t wait_ms = -1;
      if (first != std::chrono::steady_clock::time_point::max()) {
        auto left =
            std::chrono::ceil<std::chrono::milliseconds>(first - std::chrono::steady_clock::now());
        wait_ms = std::max<int64_t>(0, left.count());
      }
      (void)outrider_wait_event(client_, wake_fd_, wait_ms);
      uint64_t drained;
      while (::read(wake_fd_, &drained, sizeof(drained)) > 0) {
      }
    }
  }
}

void Connection::Wake() {
  uint64_t one = 1;
  (void)!::write(wake_fd_, &one, sizeof(one));  // a full counter still wakes the worker
}

void Connection::Finish(Request& r, int rc, const outrider_op_result_t& res) {
  std::exception_ptr error;
  if (rc != OUTRIDER_OK) {
    error = BackendError(std::string("outrider: collective failed (") + outrider_error_string(rc) +
                         "): " + outrider_last_error(client_));
  } else {
    try {
      if (r.on_demand) r.on_demand(res);  // finished before its demanded rows were noticed
      if (r.complete) r.complete(res);
    } catch (...) {
      error = std::current_exception();
    }
  }
  for (const Buffer& b : r.buffers) Release(b);
  r.work->Finish(error);
}

// ---- The process's connection and its job's generations (docs/elastic.md): asking the agent where
// it stands, and moving into the next generation.

namespace {

Connection::Membership MembershipOf(const outrider_membership_t& m) {
  Connection::Membership out;
  out.generation = m.generation;
  out.rank = m.rank;
  out.size = m.world_size;
  out.local_rank = m.local_rank;
  out.local_size = m.local_world_size;
  out.joiners_waiting = m.joiners_waiting;
  out.root_addr = m.root_addr;
  return out;
}

}  // namespace

Connection::Membership Connection::GetMembership() {
  Membership out;
  Call([&] {
    outrider_membership_t m{};
    int rc = outrider_membership(client_, &m);
    out = MembershipOf(m);
    if (rc != OUTRIDER_OK) out.error = outrider_last_error(client_);
  });
  return out;
}

Connection::Membership Connection::Reconfigure(std::chrono::milliseconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    int rc = OUTRIDER_OK;
    std::string error;
    outrider_membership_t m{};
    Call([&] {
      rc = outrider_reconfigure(client_, static_cast<int32_t>(timeout.count()), &m);
      if (rc != OUTRIDER_OK) error = outrider_last_error(client_);
    });
    // Ops of the old generation still finishing (they fail at once after a loss): the worker
    // takes their completions between two tries.
    if (rc == OUTRIDER_ERR_FAILED_PRECONDITION &&
        error.find("not waited for") != std::string::npos &&
        std::chrono::steady_clock::now() < deadline) {
      GilReleased unlocked;
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
      continue;
    }
    if (rc != OUTRIDER_OK) {
      ThrowBackendError(std::string("outrider: re-forming the job failed (") +
                        outrider_error_string(rc) + "): " + error);
    }
    Membership out = MembershipOf(m);
    rank_ = out.rank;
    size_ = out.size;
    generation_++;
    return out;
  }
}

}  // namespace outrider::torch_backend
