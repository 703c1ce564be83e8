// Fuzz target: submission entries against a client's regions. Two sealed memfd regions (sizes and
// bytes from the input; the bytes hold what entries point at: alltoallv counts, sparse ids) sit
// in a RegionTable; every entry is checked by ValidateEntry for a rank of a job whose size the
// input picks. An accepted op must name only memory inside the client's live regions, with the
// sizes its kind implies. In a one-rank job it then runs as the agent runs it (a single-node Job,
// reading ids and counts from the regions, which the input may rewrite in between), and must
// complete exactly once.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "agent/control/entry_validator.h"
#include "agent/engine/job.h"
#include "agent/log.h"
#include "agent/memory/region_table.h"
#include "base/check.h"
#include "fuzz/fuzz_input.h"
#include "ipc/memfd.h"

namespace outrider::fuzz {
namespace {

using agent::BufferSpan;
using agent::ValidatedOp;

// The client: counts its completions.
class Client : public agent::Member {
 public:
  explicit Client(int rank, int world) {
    id_.job_id = "fuzz";
    id_.rank = rank;
    id_.world_size = world;
    id_.local_rank = 0;
    id_.local_world_size = 1;
  }
  const agent::ClientIdentity& identity() const override { return id_; }
  void Complete(uint64_t op_id, const Status&, uint64_t, uint64_t,
                const agent::OpReport*) override {
    ++completions;
    last_op = op_id;
  }
  void Partial(uint64_t, uint64_t, uint64_t, const agent::OpReport&) override {}
  int completions = 0;
  uint64_t last_op = 0;

 private:
  agent::ClientIdentity id_;
};

struct ClientRegion {
  uint32_t id = 0;
  ipc::Mapping mapping;  // the client's view
  uint64_t bytes = 0;
  bool live = false;
};

// True if `s` (non-empty) lies inside one live region, as the agent maps it.
bool InsideARegion(const BufferSpan& s, const agent::RegionTable& table,
                   const std::vector<ClientRegion>& regions) {
  if (s.empty()) return true;
  if (!s.host()) return false;
  for (const ClientRegion& r : regions) {
    const agent::Region* region = r.live ? table.Find(r.id) : nullptr;
    if (region == nullptr) continue;
    uint64_t lo = region->span.address, hi = lo + region->span.length;
    if (s.address >= lo && s.address <= hi && s.length <= hi - s.address) return true;
  }
  return false;
}

void CheckAccepted(const ValidatedOp& op, int rank, int world, const agent::RegionTable& table,
                   const std::vector<ClientRegion>& regions) {
  for (const BufferSpan* s : {&op.send, &op.recv, &op.ids, &op.out_ids, &op.demand}) {
    OUTRIDER_CHECK(InsideARegion(*s, table, regions));
  }
  uint64_t elem = ipc::DTypeSize(op.dtype);
  auto n = static_cast<uint64_t>(world);
  switch (op.kind) {
    case ipc::OpKind::kBarrier:
      OUTRIDER_CHECK(op.send.empty() && op.recv.empty());
      break;
    case ipc::OpKind::kAllreduce:
    case ipc::OpKind::kBroadcast:
      OUTRIDER_CHECK(op.send.length == op.count * elem && op.recv.length == op.count * elem);
      break;
    case ipc::OpKind::kAllgather:
      OUTRIDER_CHECK(op.send.length == op.count * elem && op.recv.length == op.count * elem * n);
      break;
    case ipc::OpKind::kReduceScatter:
      OUTRIDER_CHECK(op.recv.length == op.count * elem && op.send.length == op.count * elem * n);
      break;
    case ipc::OpKind::kAlltoallv: {
      OUTRIDER_CHECK(op.send_counts.size() == n && op.recv_counts.size() == n);
      uint64_t send = 0, recv = 0;
      for (uint64_t r = 0; r < n; ++r) {
        OUTRIDER_CHECK(op.send_counts[r] >= 0 && op.recv_counts[r] >= 0);
        send += static_cast<uint64_t>(op.send_counts[r]);
        recv += static_cast<uint64_t>(op.recv_counts[r]);
      }
      OUTRIDER_CHECK(op.send.length == send * elem && op.recv.length == recv * elem);
      OUTRIDER_CHECK(op.send.Disjoint(op.recv));
      break;
    }
    case ipc::OpKind::kSend:
    case ipc::OpKind::kRecv: {
      bool sends = op.kind == ipc::OpKind::kSend;
      OUTRIDER_CHECK((op.root >= 0 && op.root < world && op.root != rank) ||
                     (!sends && op.root == ipc::kAnySource));
      OUTRIDER_CHECK((sends ? op.send : op.recv).length == op.count * elem);
      OUTRIDER_CHECK((sends ? op.recv : op.send).empty());
      break;
    }
    default: {  // sparse
      uint64_t id_size = ipc::DTypeSize(op.id_dtype), row_bytes = op.count * elem;
      OUTRIDER_CHECK(row_bytes > 0 && id_size > 0);
      OUTRIDER_CHECK(op.ids.length == op.nnz * id_size &&
                     op.demand.length == op.demand_n * id_size);
      OUTRIDER_CHECK(op.recv.length == op.capacity * row_bytes);
      if (op.kind != ipc::OpKind::kSparseLookup) {
        OUTRIDER_CHECK(op.send.length == op.nnz * row_bytes &&
                       op.out_ids.length == op.capacity * id_size);
      }
      for (const BufferSpan* out : {&op.recv, &op.out_ids}) {
        OUTRIDER_CHECK(out->Disjoint(op.send) && out->Disjoint(op.ids));
      }
      break;
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
  uint8_t shape = in.Read<uint8_t>();
  int world = 1 + shape % 4;
  int rank = (shape >> 2) % world;
  agent::RegionTable table(4, 1 << 20);
  std::vector<ClientRegion> regions(2);
  for (ClientRegion& r : regions) {
    r.bytes = 1 + in.Read<uint16_t>();
    Result<UniqueFd> fd = ipc::CreateSealedMemfd("outrider-fuzz-region", r.bytes);
    OUTRIDER_CHECK(fd.ok());
    Result<ipc::Mapping> mapping = ipc::MapShared(fd->get(), r.bytes);
    OUTRIDER_CHECK(mapping.ok());
    r.mapping = std::move(*mapping);
    std::vector<uint8_t> contents = in.Bytes(r.bytes);
    if (!contents.empty()) std::memcpy(r.mapping.data(), contents.data(), contents.size());
    std::vector<UniqueFd> fds;
    fds.push_back(std::move(*fd));
    Result<uint32_t> id = table.ImportHost(std::move(fds), r.bytes);
    OUTRIDER_CHECK(id.ok());
    r.id = *id;
    r.live = true;
  }
  if (in.Read<uint8_t>() & 1) {
    OUTRIDER_CHECK(table.Release(regions[1].id).ok());
    regions[1].live = false;
  }
  agent::RegionLookup lookup = [&table](uint32_t id) { return table.Find(id); };

  std::unique_ptr<agent::Job> job;
  std::unique_ptr<Client> client;
  if (world == 1) {
    job = std::make_unique<agent::Job>("fuzz", 1, 1, nullptr);
    client = std::make_unique<Client>(0, 1);
    OUTRIDER_CHECK(job->AddMember(client.get()).ok());
  }
  uint64_t op_id = 0;
  while (!in.empty()) {
    ipc::SubmitEntry e;
    in.Copy(&e, sizeof(e));
    e.op_id = ++op_id;  // the session refuses ids that do not increase before validating
    Result<ValidatedOp> op = agent::ValidateEntry(e, rank, world, lookup);
    uint8_t rewrite = in.Read<uint8_t>();
    if (!op.ok()) {
      OUTRIDER_CHECK(!op.status().message().empty());
      continue;
    }
    CheckAccepted(*op, rank, world, table, regions);
    if (job == nullptr) continue;
    if (rewrite & 1) {
      // The client rewrites its memory after submitting: ids and counts are read again only by
      // code that copes with it.
      ClientRegion& r = regions[0];
      uint64_t at = in.Read<uint16_t>() % r.bytes;
      std::vector<uint8_t> bytes = in.Bytes(r.bytes - at);
      if (!bytes.empty()) std::memcpy(r.mapping.data() + at, bytes.data(), bytes.size());
    }
    int before = client->completions;
    job->Submit(client.get(), *op);
    OUTRIDER_CHECK(client->completions == before + 1 && client->last_op == op->op_id);
  }
  return 0;
}
