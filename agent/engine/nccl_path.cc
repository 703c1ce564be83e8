// The agent's NCCL path for single-node jobs (see nccl_path.h).
#include "agent/engine/nccl_path.h"

#include <sys/stat.h>

#include <cstdlib>
#include <utility>

#include "agent/log.h"
#include "agent/memory/cuda_memory.h"
#include "ipc/cuda/driver.h"
#include "ipc/cuda/nccl.h"
#include "ipc/event_fd.h"

namespace outrider::agent {

const char* GpuNcclName(GpuNccl mode) {
  switch (mode) {
    case GpuNccl::kForce: return "force";
    case GpuNccl::kOff: return "off";
    default: return "auto";
  }
}

namespace {

bool MpsRunning() {
  const char* dir = std::getenv("CUDA_MPS_PIPE_DIRECTORY");
  std::string control = std::string(dir != nullptr && *dir != '\0' ? dir : "/tmp/nvidia-mps") + "/control";
  struct stat st{};
  return ::stat(control.c_str(), &st) == 0;
}

GpuNcclPolicy g_policy{GpuNccl::kOff, false, false, "GPU collectives run on the host engine (NCCL not set up)"};

}  // namespace

GpuNcclPolicy GpuNcclPolicy::Decide(GpuNccl mode) {
  GpuNcclPolicy p;
  p.mode = mode;
  p.mps = MpsRunning();
  const char* host = "GPU collectives of gpu_mode ipc clients run on the host engine through the agent's pinned buffers";
  if (mode == GpuNccl::kOff) {
    p.why = std::string(host) + " (gpu_nccl = off)";
    return p;
  }
  if (mode == GpuNccl::kAuto && !p.mps) {
    p.why = std::string(host) +
            ": MPS is not running, so the agent's NCCL kernels would be time-sliced with the trainers' kernels "
            "(start the MPS control daemon, or set gpu_nccl = force to run them anyway)";
    return p;
  }
  auto nccl = nccl::Load();
  if (!nccl.ok()) {
    p.why = std::string(host) + ": " + nccl.status().message();
    return p;
  }
  auto cuda = cuda::Load();
  if (!cuda.ok()) {
    p.why = std::string(host) + ": " + cuda.status().message();
    return p;
  }
  p.on = true;
#if OUTRIDER_HAVE_NCCL
  std::string version = nccl::VersionString((*nccl)->version);
#else
  std::string version = "?";  // unreachable: Load() fails without NCCL
#endif
  p.why = "dense GPU collectives of single-node gpu_mode ipc jobs run on the agent's NCCL " + version +
          " communicators (" +
          (mode == GpuNccl::kForce ? std::string("gpu_nccl = force") + (p.mps ? ", MPS running" : ", without MPS: their kernels are time-sliced with the trainers'")
                                   : std::string("MPS running")) +
          ")";
  return p;
}

const GpuNcclPolicy& GpuNcclPolicy::Current() { return g_policy; }
void GpuNcclPolicy::SetCurrent(GpuNcclPolicy p) { g_policy = std::move(p); }

void NcclPath::CountBusy() {
  if (busy() != counted_busy_) {
    counted_busy_ = busy();
    busy_paths_ += counted_busy_ ? 1 : -1;
  }
}

#if OUTRIDER_HAVE_NCCL

namespace {

bool DtypeOf(ipc::DType t, ncclDataType_t* out) {
  switch (t) {
    case ipc::DType::kF32: *out = ncclFloat32; return true;
    case ipc::DType::kF64: *out = ncclFloat64; return true;
    case ipc::DType::kF16: *out = ncclFloat16; return true;
    case ipc::DType::kBF16: *out = ncclBfloat16; return true;
    case ipc::DType::kI32: *out = ncclInt32; return true;
    case ipc::DType::kI64: *out = ncclInt64; return true;
    case ipc::DType::kU8: *out = ncclUint8; return true;
    case ipc::DType::kI8: *out = ncclInt8; return true;
    default: return false;  // int16, bool, complex: no NCCL type
  }
}

ncclRedOp_t RedOpOf(ipc::ReduceOp op) {
  switch (op) {
    case ipc::ReduceOp::kAvg: return ncclAvg;
    case ipc::ReduceOp::kMin: return ncclMin;
    case ipc::ReduceOp::kMax: return ncclMax;
    case ipc::ReduceOp::kProd: return ncclProd;
    default: return ncclSum;
  }
}

bool OnGpu(const BufferSpan& s) { return !s.empty() && !s.host(); }

ncclComm_t Comm(void* c) { return static_cast<ncclComm_t>(c); }

}  // namespace

bool NcclEligible(const ValidatedOp& op) {
  ncclDataType_t t;
  if (!DtypeOf(op.dtype, &t)) return false;
  switch (op.kind) {
    case ipc::OpKind::kAllreduce:
    case ipc::OpKind::kAllgather:
    case ipc::OpKind::kReduceScatter: return OnGpu(op.recv) && (op.send.empty() || OnGpu(op.send));
    case ipc::OpKind::kBroadcast: return OnGpu(op.recv) || OnGpu(op.send);
    default: return false;
  }
}

NcclPath::NcclPath(std::string job_id, uint64_t init_timeout_ns)
    : job_id_(std::move(job_id)), init_timeout_ns_(init_timeout_ns) {}

NcclPath::~NcclPath() {
  if (counted_busy_) --busy_paths_;
  auto n = nccl::Load();
  if (!n.ok()) return;
  for (void* c : comms_) {
    if (c != nullptr) (void)(*n)->ncclCommAbort(Comm(c));
  }
}

void NcclPath::Run(std::vector<const ValidatedOp*> ops, Done done) {
  if (state_ == State::kFailed) return done(failed_);
  queue_.push_back(Item{std::move(ops), std::move(done)});
  CountBusy();
}

Status NcclPath::StartInit(const std::vector<const ValidatedOp*>& ops) {
  OUTRIDER_ASSIGN_OR_RETURN(const nccl::Nccl* n, nccl::Load());
  OUTRIDER_ASSIGN_OR_RETURN(CudaMemory* cuda, CudaMemory::Get());
  devices_.clear();
  for (size_t r = 0; r < ops.size(); ++r) {
    const BufferSpan& s = OnGpu(ops[r]->recv) ? ops[r]->recv : ops[r]->send;
    for (size_t q = 0; q < r; ++q) {
      if (devices_[q] == s.device) {
        return FailedPrecondition("job '" + job_id_ + "': local ranks " + std::to_string(q) + " and " + std::to_string(r) +
                                  " use one GPU, and NCCL runs one rank per GPU: run this job with the agent's "
                                  "gpu_nccl = off (its GPU collectives then go through the host engine)");
      }
    }
    devices_.push_back(s.device);
  }
  ncclUniqueId id{};
  OUTRIDER_RETURN_IF_ERROR(nccl::Check(*n, n->ncclGetUniqueId(&id), "ncclGetUniqueId"));
  comms_.assign(ops.size(), nullptr);
  Status st;
  OUTRIDER_RETURN_IF_ERROR(nccl::Check(*n, n->ncclGroupStart(), "ncclGroupStart"));
  for (size_t r = 0; r < ops.size() && st.ok(); ++r) {
    auto stream = cuda->UseStream(devices_[r]);  // makes the GPU's context current
    if (!stream.ok()) {
      st = stream.status();
      break;
    }
    ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
    config.blocking = 0;
    ncclComm_t comm = nullptr;
    st = nccl::Check(*n, n->ncclCommInitRankConfig(&comm, static_cast<int>(ops.size()), id, static_cast<int>(r), &config),
                     "ncclCommInitRankConfig");
    comms_[r] = comm;
  }
  Status end = nccl::Check(*n, n->ncclGroupEnd(), "ncclGroupEnd");
  if (st.ok()) st = end;
  OUTRIDER_RETURN_IF_ERROR(st);
  state_ = State::kInit;
  init_deadline_ns_ = ipc::MonotonicNs() + init_timeout_ns_;
  return Status::Ok();
}

Status NcclPath::AsyncError(bool* in_progress) const {
  auto n = nccl::Load();
  if (!n.ok()) return n.status();
  if (in_progress != nullptr) *in_progress = false;
  for (size_t r = 0; r < comms_.size(); ++r) {
    ncclResult_t async = ncclSuccess;
    if (comms_[r] == nullptr) return Internal("no communicator for local rank " + std::to_string(r));
    Status st = nccl::Check(**n, (*n)->ncclCommGetAsyncError(Comm(comms_[r]), &async), "ncclCommGetAsyncError");
    if (in_progress != nullptr && async == ncclInProgress) *in_progress = true;
    if (st.ok() && async != ncclSuccess && async != ncclInProgress) {
      st = nccl::Check(**n, async, ("job '" + job_id_ + "': the NCCL communicator of local rank " + std::to_string(r)).c_str(),
                       Comm(comms_[r]));
    }
    if (!st.ok()) return st;
  }
  return Status::Ok();
}

Status NcclPath::Launch(const Item& item, InFlight* flight) {
  OUTRIDER_ASSIGN_OR_RETURN(const nccl::Nccl* n, nccl::Load());
  OUTRIDER_ASSIGN_OR_RETURN(CudaMemory* cuda, CudaMemory::Get());
  const ValidatedOp& first = *item.ops[0];
  ncclDataType_t dtype = ncclFloat32;
  DtypeOf(first.dtype, &dtype);
  uint64_t elt = ipc::DTypeSize(first.dtype);
  Status st;
  OUTRIDER_RETURN_IF_ERROR(nccl::Check(*n, n->ncclGroupStart(), "ncclGroupStart"));
  for (size_t r = 0; r < item.ops.size() && st.ok(); ++r) {
    const ValidatedOp& op = *item.ops[r];
    auto stream = cuda->UseStream(devices_[r]);
    if (!stream.ok()) {
      st = stream.status();
      break;
    }
    auto s = static_cast<cudaStream_t>(*stream);
    void* recv = reinterpret_cast<void*>(op.recv.address);
    const void* send = op.send.empty() ? recv : reinterpret_cast<const void*>(op.send.address);
    ncclComm_t comm = Comm(comms_[r]);
    switch (op.kind) {
      case ipc::OpKind::kAllreduce:
        st = nccl::Check(*n, n->ncclAllReduce(send, recv, op.count, dtype, RedOpOf(op.reduce_op), comm, s), "ncclAllReduce", comm);
        break;
      case ipc::OpKind::kBroadcast:
        if (op.recv.empty()) recv = const_cast<void*>(send);
        st = nccl::Check(*n, n->ncclBroadcast(send, recv, op.count, dtype, op.root, comm, s), "ncclBroadcast", comm);
        break;
      case ipc::OpKind::kAllgather:
        st = nccl::Check(*n, n->ncclAllGather(send, recv, op.count, dtype, comm, s), "ncclAllGather", comm);
        break;
      case ipc::OpKind::kReduceScatter:
        st = nccl::Check(*n, n->ncclReduceScatter(send, recv, op.recv.length / elt, dtype, RedOpOf(op.reduce_op), comm, s),
                         "ncclReduceScatter", comm);
        break;
      default: st = Internal("not an NCCL op"); break;
    }
  }
  Status end = nccl::Check(*n, n->ncclGroupEnd(), "ncclGroupEnd");
  if (st.ok()) st = end;
  OUTRIDER_RETURN_IF_ERROR(st);
  // Each GPU's stream writes a ticket once it passed the collective.
  for (int device : devices_) {
    OUTRIDER_ASSIGN_OR_RETURN(uint64_t ticket, cuda->Enqueue(device, {}));
    flight->tickets.emplace_back(device, ticket);
  }
  ++launched_;
  return Status::Ok();
}

void NcclPath::FailAll(const Status& why) {
  if (state_ != State::kFailed) {
    failed_ = why;
    state_ = State::kFailed;
    if (auto n = nccl::Load(); n.ok()) {
      for (void*& c : comms_) {
        if (c != nullptr) (void)(*n)->ncclCommAbort(Comm(c));
        c = nullptr;
      }
    }
    if (auto cuda = CudaMemory::Get(); cuda.ok()) (*cuda)->Drain();  // the aborted collectives returned
  }
  auto flight = std::move(flight_);
  auto queue = std::move(queue_);
  flight_.clear();
  queue_.clear();
  for (InFlight& f : flight) f.done(failed_);
  for (Item& i : queue) i.done(failed_);
}

bool NcclPath::Pump() {
  bool worked = PumpOnce();
  CountBusy();
  return worked;
}

bool NcclPath::PumpOnce() {
  if (state_ == State::kFailed) {
    if (!busy()) return false;
    FailAll(failed_);
    return true;
  }
  bool worked = false;
  if (state_ == State::kNone) {
    if (queue_.empty()) return false;
    Status st = StartInit(queue_.front().ops);
    if (!st.ok()) {
      FailAll(st);
      return true;
    }
    worked = true;
  }
  if (state_ == State::kInit) {
    bool starting = false;
    Status st = AsyncError(&starting);
    if (!st.ok()) {
      FailAll(st);
      return true;
    }
    if (starting) {
      if (ipc::MonotonicNs() < init_deadline_ns_) return worked;
      FailAll(DeadlineExceeded("job '" + job_id_ + "': its NCCL communicators did not start within " +
                               std::to_string(init_timeout_ns_ / 1'000'000) + " ms"));
      return true;
    }
    state_ = State::kReady;
    std::string gpus;
    for (int d : devices_) gpus += (gpus.empty() ? "" : ",") + std::to_string(d);
    Logger("engine")->info("job '{}': NCCL communicators ready, one rank per local rank on GPUs {}", job_id_, gpus);
    worked = true;
  }
  // Launches in the job's instance order, then completions in the same order.
  while (!queue_.empty()) {
    InFlight f;
    Status st = Launch(queue_.front(), &f);
    if (!st.ok()) {
      FailAll(st);
      return true;
    }
    f.done = std::move(queue_.front().done);
    queue_.pop_front();
    flight_.push_back(std::move(f));
    worked = true;
  }
  if (!flight_.empty()) {
    Status st = AsyncError();
    if (!st.ok()) {
      FailAll(st);
      return true;
    }
    auto cuda = CudaMemory::Get();
    while (!flight_.empty()) {
      bool done = true;
      for (auto [device, ticket] : flight_.front().tickets) done = done && (*cuda)->Done(device, ticket);
      if (!done) break;
      Done d = std::move(flight_.front().done);
      flight_.pop_front();
      ++completed_;
      d(Status::Ok());
      worked = true;
    }
  }
  return worked;
}

nlohmann::json NcclPath::StatusJson() const {
  const char* state = state_ == State::kNone ? "none" : state_ == State::kInit ? "starting" : state_ == State::kReady ? "ready" : "failed";
  nlohmann::json j = {{"state", state}, {"devices", devices_}, {"launched", launched_}, {"completed", completed_},
                      {"queued", queue_.size()}, {"in_flight", flight_.size()}};
  if (!failed_.ok()) j["error"] = failed_.ToString();
  return j;
}

#else

bool NcclEligible(const ValidatedOp&) { return false; }
NcclPath::NcclPath(std::string job_id, uint64_t init_timeout_ns) : job_id_(std::move(job_id)), init_timeout_ns_(init_timeout_ns) {}
NcclPath::~NcclPath() {
  if (counted_busy_) --busy_paths_;
}
void NcclPath::Run(std::vector<const ValidatedOp*>, Done done) {
  done(FailedPrecondition("this build of Outrider has no NCCL support"));
}
bool NcclPath::Pump() { return false; }
bool NcclPath::PumpOnce() { return false; }
nlohmann::json NcclPath::StatusJson() const { return {{"state", "unavailable"}}; }
Status NcclPath::StartInit(const std::vector<const ValidatedOp*>&) { return Status::Ok(); }
Status NcclPath::Launch(const Item&, InFlight*) { return Status::Ok(); }
void NcclPath::FailAll(const Status&) {}
Status NcclPath::AsyncError(bool*) const { return Status::Ok(); }

#endif

}  // namespace outrider::agent
