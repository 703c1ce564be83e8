// The "outrider" torch.distributed backend (see process_group.h): a group's construction and
// teardown, its factories, and what every op shares (options, queueing, priorities). The ops live
// in process_group_collectives.cc, process_group_alltoall.cc, process_group_p2p.cc,
// process_group_sparse.cc and process_group_cuda.cc.
#include "shim/python/outrider_torch/csrc/process_group.h"

#include <string>

#include "ipc/defaults.h"
#include "shim/python/outrider_torch/csrc/op_args.h"
#include "shim/python/outrider_torch/csrc/shared_memory.h"

namespace outrider::torch_backend {

ProcessGroupOutrider::ProcessGroupOutrider(std::shared_ptr<Connection> conn, outrider_comm_t comm,
                                           c10::intrusive_ptr<c10d::Store> store, int rank,
                                           int size, std::chrono::milliseconds timeout)
    : BackendBase(rank, size),
      conn_(std::move(conn)),
      comm_(comm),
      timeout_(timeout),
      any_source_(AnySource::Create(std::move(store), rank, size, timeout)) {
  generation_ = conn_->generation();
  InitBackend();
  // From now on the buffers collectives work on (DDP's buckets, gradients) are born in memory
  // the agent can use in place.
  EnableSharedAllocationFromEnv();
}

ProcessGroupOutrider::~ProcessGroupOutrider() {
  // Fails any-source receives still looking for a sender, and waits for the threads that complete
  // this group's works: the exit hook may still hold the AnySource after this group is gone.
  any_source_->Stop();
  any_source_.reset();
  // The pair map is the worker's: read it there.
  std::vector<outrider_comm_t> comms;
  try {
    conn_->Call([&] {
      for (const auto& [peer, c] : pairs_) comms.push_back(c);
    });
  } catch (...) {  // the connection is closing: it drops every communicator anyway
  }
  if (comm_ != OUTRIDER_COMM_WORLD) comms.push_back(comm_);
  for (outrider_comm_t c : comms) conn_->DropComm(c);
}

c10::intrusive_ptr<ProcessGroupOutrider> ProcessGroupOutrider::Create(
    const c10::intrusive_ptr<c10d::Store>& store, int rank, int size,
    const std::chrono::duration<float>& timeout) {
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(timeout);
  return c10::make_intrusive<ProcessGroupOutrider>(Connection::Open(rank, size),
                                                   OUTRIDER_COMM_WORLD, store, rank, size, ms);
}

c10::intrusive_ptr<ProcessGroupOutrider> ProcessGroupOutrider::CreateGroup(
    const c10::intrusive_ptr<c10d::Store>& store, const std::vector<int>& ranks, int job_rank,
    int job_size, int rank, int size, const std::chrono::duration<float>& timeout) {
  if (static_cast<int>(ranks.size()) != size || rank < 0 || rank >= size ||
      ranks[static_cast<size_t>(rank)] != job_rank) {
    Throw("new group: rank " + std::to_string(rank) + " of " + std::to_string(size) +
          " does not match its member list");
  }
  std::shared_ptr<Connection> conn = Connection::Current();
  if (!conn || conn->rank() != job_rank) conn = Connection::Open(job_rank, job_size);
  outrider_comm_t comm = OUTRIDER_COMM_NULL;
  conn->Call([&] {
    conn->Check(
        outrider_comm_create(conn->client(), OUTRIDER_COMM_WORLD, ranks.data(), size, &comm),
        "creating the group");
  });
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(timeout);
  return c10::make_intrusive<ProcessGroupOutrider>(conn, comm, store, rank, size, ms);
}

void ProcessGroupOutrider::CheckGeneration() const {
  if (conn_->generation() != generation_) {
    Throw(
        "this process group belongs to an earlier generation of the job, which re-formed "
        "since (outrider_torch.reconfigure): use the new default group");
  }
}

outrider_op_options_t ProcessGroupOutrider::Options(int32_t priority, uint64_t key) const {
  outrider_op_options_t o;
  outrider_op_options_init(&o);
  o.comm = comm_;
  o.priority = priority;
  o.key = key;
  return o;
}

c10::intrusive_ptr<c10d::Work> ProcessGroupOutrider::Enqueue(
    c10d::OpType type, std::vector<at::Tensor> outputs, std::function<void(Request&)> prepare) {
  auto work = c10::make_intrusive<OutriderWork>(getRank(), type, std::move(outputs));
  if (type != c10d::OpType::SEND) seq_++;  // collectives only (receives do not come here)
  EnqueueWork(work, std::move(prepare));
  return work;
}

int32_t ProcessGroupOutrider::NextPriority(const std::string& signature) {
  std::lock_guard<std::mutex> l(mu_);
  if (!iteration_.insert(signature).second) {  // seen in this iteration: a new one starts
    iteration_.clear();
    iteration_.insert(signature);
  }
  int32_t i = static_cast<int32_t>(iteration_.size()) - 1;
  return ipc::DefaultPriority(i);
}

}  // namespace outrider::torch_backend
