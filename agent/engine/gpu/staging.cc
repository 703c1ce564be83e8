// Ops on GPU regions through the agent's pinned buffers (see device_ops.h).
#include "agent/engine/gpu/staging.h"

#include <cstring>
#include <string>

#include "agent/engine/sparse/cost_model.h"
#include "agent/log.h"

namespace outrider::agent {

namespace {

// Sparse ops whose rows can be coalesced on the GPU: one f32 row per id (or ids alone), both in
// GPU memory that no output of the op shares.
bool Coalescible(const ValidatedOp& op) {
  if (op.kind != ipc::OpKind::kSparseAllreduce && op.kind != ipc::OpKind::kSparseShard)
    return false;
  if (op.dtype != ipc::DType::kF32 || op.nnz == 0 || !op.ids.on_device()) return false;
  if (op.count > 0 && (!op.send.on_device() || op.send.device != op.ids.device)) return false;
  for (const BufferSpan* out : {&op.recv, &op.out_ids, &op.demand}) {
    if (!out->Disjoint(op.ids) || !out->Disjoint(op.send)) return false;
  }
  return true;
}

int IdBytes(const ValidatedOp& op) { return op.id_dtype == ipc::DType::kI32 ? 4 : 8; }

// Whether `n` ids of `bytes` each at `p` strictly increase (as signed numbers).
bool StrictlyIncreasing(const uint8_t* p, uint64_t n, int bytes) {
  int64_t prev = 0;
  for (uint64_t i = 0; i < n; ++i) {
    int64_t v;
    if (bytes == 4) {
      int32_t v32;
      std::memcpy(&v32, p + 4 * i, 4);
      v = v32;
    } else {
      std::memcpy(&v, p + 8 * i, 8);
    }
    if (i > 0 && v <= prev) return false;
    prev = v;
  }
  return true;
}

}  // namespace

Staging::~Staging() {
  if (!ops_.empty() && cuda_ != nullptr) cuda_->Drain();  // before ops_ gives their buffers back
  for (auto& [id, s] : ops_) FreeCoalesced(&s);
}

std::shared_ptr<const void> Staging::HoldPinned(CudaMemory::Pinned p) {
  CudaMemory* cuda = cuda_;
  return std::shared_ptr<const void>(p.data, [cuda, p](const void*) { cuda->GivePinned(p); });
}

Staging::Shadow* Staging::NewShadow(Staged* s, const BufferSpan& device, uint64_t bytes,
                                    Status* st) {
  auto pinned = cuda_->TakePinned(bytes);
  if (!pinned.ok()) {
    *st = pinned.status();
    return nullptr;
  }
  s->shadows.push_back(Shadow{device, *pinned, HoldPinned(*pinned), false, false});
  // The engine's op holds it too: an op still running when the client goes keeps it.
  s->host_op.Hold(s->shadows.back().hold);
  return &s->shadows.back();
}

bool Staging::StartCoalesce(const ValidatedOp& op, Staged* s) {
  if (coalesce_off_) return false;
  auto lib = gpu_sparse::Library::Load();
  if (!lib.ok()) return false;
  sparse::CoalesceInputs in;
  in.nnz = op.nnz;
  in.dim = op.count;
  in.id_bytes = static_cast<uint64_t>(IdBytes(op));
  if (auto seen = seen_.find(op.key); seen != seen_.end()) {
    in.seen = true;
    in.strictly_increasing = seen->second.strictly_increasing;
    in.unique_ratio = seen->second.unique_ratio;
  }
  if (!sparse::ChooseCoalesce(in).on_gpu) return false;
  Coalesce c;
  c.lib = *lib;
  c.nnz = op.nnz;
  c.dim = op.count;
  c.id_bytes = IdBytes(op);
  auto counts = cuda_->TakePinned(2 * sizeof(uint64_t));
  auto stream = counts.ok() ? cuda_->UseStream(op.ids.device) : Result<void*>(counts.status());
  Status st = stream.ok() ? Status::Ok() : stream.status();
  if (st.ok()) {
    c.counts = *counts;
    c.stream = *stream;
    st = c.lib->Check(
        c.lib->coalesce(reinterpret_cast<const void*>(op.ids.address), c.id_bytes,
                        reinterpret_cast<const float*>(op.send.address), c.nnz, c.dim, c.stream,
                        reinterpret_cast<uint64_t*>(c.counts.data), &c.handle),
        "coalescing sparse rows on the GPU");
  }
  if (!st.ok()) {
    if (counts.ok()) cuda_->GivePinned(*counts);
    coalesce_off_ = true;
    Logger("control")->warn("sparse rows on GPU {} are copied as they are from now on: {}",
                            op.ids.device, st.message());
    return false;
  }
  c.counts_hold = HoldPinned(c.counts);
  if (!said_coalescing_) {
    said_coalescing_ = true;
    Logger("control")->info(
        "sparse rows on GPU {} are coalesced there before they are copied (op {}: {} rows; {})",
        op.ids.device, op.op_id, op.nnz, c.lib->library);
  }
  s->coalesce = std::move(c);
  return true;
}

Status Staging::CopyCoalesced(Staged* s) {
  Coalesce& c = *s->coalesce;
  uint64_t counts[2];
  std::memcpy(counts, c.counts.data, sizeof(counts));
  uint64_t unique = counts[0], moved = counts[1];
  if (unique == 0 || unique > c.nnz) {
    return Internal("op " + std::to_string(s->device_op.op_id) + ": the GPU coalesced " +
                    std::to_string(c.nnz) + " rows into " + std::to_string(unique));
  }
  seen_[s->device_op.key] =
      Seen{moved == 0 && unique == c.nnz, static_cast<double>(unique) / static_cast<double>(c.nnz)};
  if (AgentMetrics* m = Counting(metrics_)) {
    m->gpu_sparse_coalesced_in->Inc(static_cast<double>(c.nnz));
    m->gpu_sparse_coalesced_out->Inc(static_cast<double>(unique));
  }
  uint64_t id_bytes = unique * static_cast<uint64_t>(c.id_bytes),
           value_bytes = unique * c.dim * sizeof(float);
  BufferSpan ids{MemoryKind::kCudaFd, s->device, c.lib->coalesce_ids(c.handle), id_bytes};
  BufferSpan values{MemoryKind::kCudaFd, s->device, c.lib->coalesce_values(c.handle), value_bytes};
  Status st;
  std::vector<CudaMemory::Copy> copies;
  Shadow* id_shadow = NewShadow(s, ids, id_bytes, &st);
  if (id_shadow == nullptr) return st;
  copies.push_back(CudaMemory::Copy{true, ids, id_shadow->host.data});
  s->host_op.ids = BufferSpan::Host(id_shadow->host.data, id_bytes);
  if (c.dim > 0) {
    Shadow* value_shadow = NewShadow(s, values, value_bytes, &st);
    if (value_shadow == nullptr) return st;
    copies.push_back(CudaMemory::Copy{true, values, value_shadow->host.data});
    s->host_op.send = BufferSpan::Host(value_shadow->host.data, value_bytes);
  }
  s->host_op.nnz = unique;
  OUTRIDER_ASSIGN_OR_RETURN(s->ticket, cuda_->Enqueue(s->device, copies));
  (void)cuda_->WakeWhenDone(s->device);  // else the loop's next timed look sees it
  return Status::Ok();
}

void Staging::FreeCoalesced(Staged* s) {
  if (!s->coalesce || s->coalesce->handle == nullptr) return;
  s->coalesce->lib->coalesce_free(s->coalesce->handle, s->coalesce->stream);
  s->coalesce->handle = nullptr;
}

void Staging::NoteStaged(const Staged& s) {
  const ValidatedOp& op = s.device_op;
  if (!Coalescible(op) || s.coalesce) return;
  if (seen_.size() >= 4096 && seen_.find(op.key) == seen_.end())
    seen_.clear();  // keys are a model's tables: few
  if (AgentMetrics* m = Counting(metrics_)) m->gpu_sparse_as_is->Inc(static_cast<double>(op.nnz));
  const auto* ids = reinterpret_cast<const uint8_t*>(s.host_op.ids.address);
  Seen& seen = seen_[op.key];
  seen.strictly_increasing = StrictlyIncreasing(ids, op.nnz, IdBytes(op));
  if (seen.strictly_increasing) seen.unique_ratio = 1;  // else: what the GPU counted last, or 1
}

Status Staging::Begin(const ValidatedOp& op) {
  if (cuda_ == nullptr) {
    OUTRIDER_ASSIGN_OR_RETURN(cuda_, memory_->Get());
  }
  Staged s;
  s.device_op = op;
  s.host_op = op;
  bool sparse = ipc::IsSparse(op.kind);
  bool coalesce = Coalescible(op) && StartCoalesce(op, &s);
  // Each GPU span of the op, whether it is read (in) and written (out). A sparse op's output is
  // read too: it writes only the rows of its result, and the rest must come back unchanged.
  // Coalesced ids and rows are copied once the GPU counted them (CopyCoalesced).
  struct Use {
    BufferSpan ValidatedOp::*span;
    bool in, out;
  };
  const Use uses[] = {{&ValidatedOp::send, !coalesce, false},
                      {&ValidatedOp::recv, sparse, true},
                      {&ValidatedOp::ids, !coalesce, false},
                      {&ValidatedOp::out_ids, sparse, true},
                      {&ValidatedOp::demand, true, false}};
  std::vector<CudaMemory::Copy> copies;
  Status st;
  for (const Use& u : uses) {
    const BufferSpan& span = op.*u.span;
    if (!span.on_device()) continue;
    if (s.device >= 0 && span.device != s.device) {
      st = InvalidArgument("op " + std::to_string(op.op_id) + " names memory on two GPUs");
      break;
    }
    s.device = span.device;
    if (!u.in && !u.out) continue;
    // The same memory named twice (an in-place op) shares one host copy.
    Shadow* shadow = nullptr;
    for (Shadow& have : s.shadows) {
      if (have.device == span) shadow = &have;
    }
    if (shadow == nullptr) {
      shadow = NewShadow(&s, span, span.length, &st);
      if (shadow == nullptr) break;
    }
    shadow->in |= u.in;
    shadow->out |= u.out;
    s.host_op.*u.span = BufferSpan::Host(shadow->host.data, span.length);
  }
  if (st.ok()) {
    for (const Shadow& sh : s.shadows) {
      if (sh.in) copies.push_back(CudaMemory::Copy{true, sh.device, sh.host.data});
    }
    auto ticket = cuda_->Enqueue(s.device, copies);
    if (ticket.ok()) s.ticket = *ticket;
    st = ticket.status();
  }
  if (!st.ok()) {
    if (!copies.empty() || coalesce) cuda_->Drain();  // queued work must not land in reused buffers
    FreeCoalesced(&s);
    return st;
  }
  if (coalesce) {
    s.phase = Phase::kCoalesce;
    (void)cuda_->WakeWhenDone(s.device);
  }
  ops_.emplace(op.op_id, std::move(s));
  return Status::Ok();
}

Result<const ValidatedOp*> Staging::Ready(uint64_t op_id) {
  auto it = ops_.find(op_id);
  if (it == ops_.end()) return nullptr;
  Staged& s = it->second;
  auto forget = [&](Status why) -> Result<const ValidatedOp*> {
    cuda_->Drain();
    FreeCoalesced(&s);
    ops_.erase(it);
    return why;
  };
  if (s.phase == Phase::kCoalesce || s.phase == Phase::kCopyIn) {
    if (!cuda_->Done(s.device, s.ticket)) {
      Status failed = cuda_->Failed(s.device);
      if (failed.ok()) return nullptr;
      return forget(failed);
    }
    if (s.phase == Phase::kCoalesce) {
      if (Status st = CopyCoalesced(&s); !st.ok()) return forget(st);
      s.phase = Phase::kCopyIn;
      return nullptr;
    }
    FreeCoalesced(&s);
    NoteStaged(s);
    s.phase = Phase::kRunning;
  }
  return &s.host_op;
}

bool Staging::Finish(uint64_t op_id, const Status& status, uint64_t seq, uint64_t agent_ns,
                     const OpReport* report) {
  auto it = ops_.find(op_id);
  if (it == ops_.end()) return false;
  Staged& s = it->second;
  s.completion = Completion{op_id, status, seq, agent_ns,
                            report != nullptr ? std::optional<OpReport>(*report) : std::nullopt};
  if (s.phase == Phase::kCoalesce || s.phase == Phase::kCopyIn) {
    // Failed before it started (the session is closing): the copies in may still run.
    cuda_->Drain();
    FreeCoalesced(&s);
  }
  std::vector<CudaMemory::Copy> copies;
  if (status.ok()) {
    for (const Shadow& sh : s.shadows) {
      if (sh.out) copies.push_back(CudaMemory::Copy{false, sh.device, sh.host.data});
    }
  }
  auto ticket = cuda_->Enqueue(s.device, copies);
  if (!ticket.ok()) {
    s.completion.status =
        Status(ticket.status().code(),
               "op " + std::to_string(op_id) +
                   ": copying its result back to the GPU: " + ticket.status().message());
    cuda_->Drain();
    s.ticket = 0;
  } else {
    s.ticket = *ticket;
  }
  s.phase = Phase::kCopyOut;
  return true;
}

std::vector<Staging::Completion> Staging::TakeFinished() {
  std::vector<Completion> out;
  for (auto it = ops_.begin(); it != ops_.end();) {
    Staged& s = it->second;
    if (s.phase != Phase::kCopyOut) {
      ++it;
      continue;
    }
    if (!cuda_->Done(s.device, s.ticket)) {
      Status failed = cuda_->Failed(s.device);
      if (failed.ok()) {
        ++it;
        continue;
      }
      s.completion.status = failed;  // its result never reaches the GPU
    }
    out.push_back(std::move(s.completion));
    it = ops_.erase(it);
  }
  return out;
}

}  // namespace outrider::agent
