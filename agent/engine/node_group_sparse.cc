// Sparse collectives across nodes: every node announces its contribution (or why its local part
// failed) with the fingerprint; once all agree, every node runs the same exchange (the cost
// model picks it from the same announcements), whose messages travel in chunks and are
// reassembled here; the node's result then goes to its local clients.
#include <algorithm>
#include <cstring>

#include "agent/engine/node_group_state.h"
#include "agent/engine/sparse/cost_model.h"
#include "agent/engine/sparse/local.h"
#include "agent/log.h"
#include "agent/observability.h"
#include "ipc/event_fd.h"

namespace outrider::agent {

namespace {
// Largest sparse message a peer may announce (the per-op limit of client buffers).
constexpr uint64_t kMaxSparseMessage = kMaxOpBytes;

// Messages of one batch go out in ring order: the next node first, this node's predecessor last.
void RingOrder(std::vector<sparse::Outgoing>* out, int me, int nodes) {
  std::stable_sort(out->begin(), out->end(), [&](const sparse::Outgoing& a, const sparse::Outgoing& b) {
    return (a.node - me + nodes) % nodes < (b.node - me + nodes) % nodes;
  });
}

}  // namespace

void NodeGroup::StartSparse(Instance& inst) {
  if (!inst.sparse) inst.sparse = std::make_unique<SparseState>();
  SparseState& s = *inst.sparse;
  s.started = true;
  const ValidatedOp& o = *inst.ops[0];
  s.ctx = sparse::MakeContext(o, num_nodes_, node_rank_, local_size_, options_.sparse_block_rows);
  SparseAnnounce a{};
  a.rows = o.rows;
  a.block_rows = options_.sparse_block_rows;
  auto hist = sparse_history_.find(inst.key);
  a.union_ratio = hist == sparse_history_.end() ? -1 : hist->second.union_ratio;
  a.block_union_ratio = hist == sparse_history_.end() ? -1 : hist->second.block_union_ratio;
  a.link_bytes_per_s = link_estimate_;
  Result<sparse::Rows> mine = sparse::CombineLocal(inst.ops, s.ctx);
  if (mine.ok() && o.kind == ipc::OpKind::kSparseAllreduce) {
    Result<std::vector<uint64_t>> demand = sparse::CombineDemand(inst.ops, s.ctx);
    if (demand.ok()) {
      s.demand = std::move(*demand);
    } else {
      mine = demand.status();
    }
  }
  if (mine.ok()) {
    s.mine = std::move(*mine);
    a.nnz = s.mine.size();
    a.blocks = sparse::CountBlocks(s.mine, 0, s.mine.size(), options_.sparse_block_rows);
  } else {
    a.code = static_cast<int32_t>(mine.status().code());
    ipc::CopyText(a.message, sizeof(a.message), mine.status().message());
  }
  s.local_done_ns = ipc::MonotonicNs();
  a.demand_n = s.demand.size();
  auto& own = inst.data[static_cast<size_t>(node_rank_)];
  own.resize(sizeof(a) + 8 * s.demand.size());
  std::memcpy(own.data(), &a, sizeof(a));
  if (!s.demand.empty()) std::memcpy(own.data() + sizeof(a), s.demand.data(), 8 * s.demand.size());
  for (int n = 0; n < num_nodes_ && !inst.done; ++n) {
    if (n != node_rank_) SendTo(n, inst, PeerMsg::kContrib, 0, 0, own.data(), own.size());
  }
  if (!inst.done) MaybeAgree(inst);
}

void NodeGroup::AgreeSparse(Instance& inst) {
  SparseState& s = *inst.sparse;
  const ValidatedOp& o = *inst.ops[0];
  std::vector<SparseAnnounce> an(static_cast<size_t>(num_nodes_));
  std::vector<uint64_t> demand;  // every node's demanded ids
  for (int n = 0; n < num_nodes_; ++n) {
    const auto& d = inst.data[static_cast<size_t>(n)];
    SparseAnnounce& a = an[static_cast<size_t>(n)];
    if (d.size() < sizeof(SparseAnnounce)) return Complete(inst, ProtocolError("peer sent a malformed sparse announcement"));
    std::memcpy(&a, d.data(), sizeof(SparseAnnounce));
    if (a.demand_n > o.rows || d.size() != sizeof(SparseAnnounce) + 8 * a.demand_n) {
      return Complete(inst, ProtocolError("peer sent a malformed sparse announcement (demand)"));
    }
    size_t at = demand.size();
    demand.resize(at + a.demand_n);
    if (a.demand_n > 0) std::memcpy(demand.data() + at, d.data() + sizeof(SparseAnnounce), 8 * a.demand_n);
  }
  std::string what = std::string(ipc::OpKindName(o.kind)) + " " + InstanceName(inst.key, inst.seq) + " in job '" + job_id_ + "'";
  // A node whose local part failed (a bad id, say) fails the op everywhere, with its reason.
  for (int n = 0; n < num_nodes_; ++n) {
    SparseAnnounce& a = an[static_cast<size_t>(n)];
    if (a.code == 0) continue;
    a.message[sizeof(a.message) - 1] = '\0';
    Code code = a.code > 0 && a.code <= kMaxCode ? static_cast<Code>(a.code) : Code::kInternal;
    return Complete(inst, Status(code, what + " failed on " + DescribeNode(n) + ": " + a.message));
  }
  for (int n = 1; n < num_nodes_; ++n) {
    if (an[static_cast<size_t>(n)].rows != an[0].rows) {
      return Complete(inst, Mismatch(what + ": ranks disagree on rows: " + DescribeNode(0) + " has " +
                                     std::to_string(an[0].rows) + ", " + DescribeNode(n) + " has " +
                                     std::to_string(an[static_cast<size_t>(n)].rows)));
    }
    if (an[static_cast<size_t>(n)].block_rows != an[0].block_rows) {
      return Complete(inst, Mismatch(what + ": agents disagree on sparse_block_rows (" + DescribeNode(0) + ": " +
                                     std::to_string(an[0].block_rows) + ", " + DescribeNode(n) + ": " +
                                     std::to_string(an[static_cast<size_t>(n)].block_rows) + ")"));
    }
  }
  uint64_t announce_bytes = static_cast<uint64_t>(num_nodes_ - 1) * (sizeof(PeerHeader) + sizeof(SparseAnnounce));
  for (const SparseAnnounce& a : an) {
    s.sum_nnz += a.nnz;
    s.sum_blocks += a.blocks;
  }
  if (o.kind == ipc::OpKind::kSparseAllreduce) {
    sparse::CostInputs in;
    in.ctx = s.ctx;
    for (const SparseAnnounce& a : an) in.nodes.push_back({a.nnz, a.blocks});
    in.union_ratio = an[0].union_ratio;  // node 0's view: every node must decide alike
    in.block_union_ratio = an[0].block_union_ratio;
    double bw = 0;
    for (const SparseAnnounce& a : an) {
      if (a.link_bytes_per_s > 0 && (bw == 0 || a.link_bytes_per_s < bw)) bw = a.link_bytes_per_s;
    }
    in.link_bytes_per_s = bw > 0 ? bw : options_.link_bytes_per_s;
    in.chunk_bytes = options_.chunk_bytes;
    in.chunk_overhead = sizeof(PeerHeader);
    auto requested = static_cast<ipc::SparseAlgo>(o.algo);
    sparse::Prediction p = requested == ipc::SparseAlgo::kAuto ? sparse::Choose(in) : sparse::Predict(requested, in);
    s.algo = p.algo;
    s.predicted_bytes = p.sent[static_cast<size_t>(node_rank_)] + announce_bytes;
    s.exchange = sparse::MakeReplicated(s.algo, s.ctx);
  } else if (o.kind == ipc::OpKind::kSparseShard) {
    s.exchange = sparse::MakeShard(s.ctx, static_cast<ipc::ShardScheme>(o.algo));
  } else {
    std::vector<const ValidatedOp*> ops = inst.ops;
    sparse::Context c = s.ctx;
    s.exchange = sparse::MakeLookup(s.ctx, [ops, c](uint64_t id, float* dst) { sparse::ReadShardRow(ops, c, id, dst); });
  }
  std::vector<sparse::Outgoing> out;
  std::sort(demand.begin(), demand.end());
  demand.erase(std::unique(demand.begin(), demand.end()), demand.end());
  if (!demand.empty() && demand.back() >= o.rows) return Complete(inst, ProtocolError("peer demanded a row outside the table"));
  s.demand = std::move(demand);
  if (!s.demand.empty()) {
    // The demanded rows run first, as their own exchange (dense would send the whole table
    // again: they go balanced instead). Rows are summed alike either way.
    sparse::Rows first, rest;
    sparse::SplitByDemand(std::move(s.mine), s.demand, s.ctx.table.dim, &first, &rest);
    s.mine = std::move(rest);
    s.first = sparse::MakeReplicated(s.algo == ipc::SparseAlgo::kDense ? ipc::SparseAlgo::kBalanced : s.algo, s.ctx);
    s.first->Start(std::move(first), &out);
    for (auto& m : out) m.phase += kDemandPhase;
  }
  s.exchange->Start(std::move(s.mine), &out);
  if (o.kind != ipc::OpKind::kSparseAllreduce) {
    // Shard and lookup send their first phase now; that is this node's prediction.
    s.predicted_bytes = announce_bytes;
    for (const auto& m : out) s.predicted_bytes += sparse::WireBytes(m.bytes->size(), options_.chunk_bytes, sizeof(PeerHeader));
  }
  RingOrder(&out, node_rank_, num_nodes_);
  for (auto& m : out) SendSparse(inst, m.node, m.phase, m.bytes);
  PumpSparse(inst);
  auto ready = std::move(s.ready);
  for (auto& [from, phase, bytes] : ready) {
    if (inst.done) return;
    DeliverSparse(inst, from, phase, bytes);
  }
  MaybeFinishSparse(inst);
}

void NodeGroup::SendSparse(Instance& inst, int node, uint32_t phase, std::shared_ptr<const std::vector<uint8_t>> bytes) {
  SparseState& s = *inst.sparse;
  s.outbox.push_back(std::move(bytes));
  const std::vector<uint8_t>* m = s.outbox.back().get();
  uint64_t chunk = options_.chunk_bytes;
  uint64_t off = 0;
  do {  // an empty message still travels (as one empty chunk)
    uint64_t len = std::min<uint64_t>(chunk, m->size() - off);
    (phase >= kDemandPhase ? s.urgent : s.queue).push_back({node, phase, off, len, m});
    off += len;
  } while (off < m->size());
}

void NodeGroup::PumpSparse(Instance& inst) {
  SparseState& s = *inst.sparse;
  if (s.pumping) return;  // a send that completed inside Send
  s.pumping = true;
  constexpr int kWindowChunks = 2;
  // A node may have its own result while its messages to others are still queued: those still
  // go out (success is reported once they have). A failed instance sends nothing more.
  bool failed = inst.done && !inst.result.ok();
  while (!failed && (!s.urgent.empty() || !s.queue.empty()) && s.chunks_in_flight < kWindowChunks) {
    std::deque<SparseState::Chunk>& q = s.urgent.empty() ? s.queue : s.urgent;
    SparseState::Chunk c = q.front();
    q.pop_front();
    ++s.chunks_in_flight;
    SendTo(c.node, inst, PeerMsg::kSparse, c.phase, c.offset, c.msg->data() + c.offset, c.len, c.msg->size());
  }
  s.pumping = false;
}

void NodeGroup::OnSparsePiece(Instance& inst, const PeerHeader& h, const uint8_t* data, size_t len) {
  if (!inst.sparse) inst.sparse = std::make_unique<SparseState>();
  SparseState& s = *inst.sparse;
  uint64_t total = h.fp.count;
  if (total > kMaxSparseMessage || h.offset > total || len > total - h.offset || h.step > kDemandPhase + 1) {
    return Complete(inst, ProtocolError("peer sent a sparse chunk outside its message"));
  }
  auto& a = s.assembling[{h.from_node, h.step}];
  if (a.bytes.size() != total) {
    if (a.got != 0) return Complete(inst, ProtocolError("peer changed a sparse message's length"));
    a.bytes.resize(total);
  }
  if (len > 0) std::memcpy(a.bytes.data() + h.offset, data, len);
  a.got += len;
  if (a.got > total) return Complete(inst, ProtocolError("peer sent more sparse bytes than announced"));
  if (a.got < total) return;
  std::vector<uint8_t> whole = std::move(a.bytes);
  s.assembling.erase({h.from_node, h.step});
  if (!s.exchange) {
    s.ready.emplace_back(h.from_node, h.step, std::move(whole));
    return;
  }
  DeliverSparse(inst, h.from_node, h.step, whole);
  MaybeFinishSparse(inst);
}

void NodeGroup::DeliverSparse(Instance& inst, int from, uint32_t phase, const std::vector<uint8_t>& msg) {
  SparseState& s = *inst.sparse;
  std::vector<sparse::Outgoing> out;
  bool demanded = phase >= kDemandPhase;
  if (demanded && !s.first) return Complete(inst, ProtocolError("peer sent demanded rows of an op without demand"));
  sparse::Exchange& ex = demanded ? *s.first : *s.exchange;
  Status st = ex.OnMessage(from, demanded ? phase - kDemandPhase : phase, msg.data(), msg.size(), &out);
  if (!st.ok()) return Complete(inst, st.Annotate("from " + DescribeNode(from)));
  if (demanded) {
    for (auto& m : out) m.phase += kDemandPhase;
  }
  RingOrder(&out, node_rank_, num_nodes_);
  for (auto& m : out) SendSparse(inst, m.node, m.phase, m.bytes);
  PumpSparse(inst);
}

void NodeGroup::MaybeFinishSparse(Instance& inst) {
  SparseState& s = *inst.sparse;
  if (inst.done || !s.exchange) return;
  if (s.first && s.first->done() && !s.first_delivered) {
    // The demanded rows are complete: they go to the clients now, ahead of the rest.
    s.first_delivered = true;
    const sparse::Rows& first = s.first->result();
    s.first_rows = first.size();
    s.first_reports = sparse::Deliver(first, inst.ops, s.ctx);
    for (OpReport& r : s.first_reports) r.demand_rows = s.first_rows;
    if (partial_) partial_(inst.key, inst.seq, s.first_reports);
    if (inst.done) return;
  }
  if (!s.exchange->done() || (s.first && !s.first->done())) return;
  const sparse::Rows& result = s.exchange->result();
  uint64_t exchanged_ns = ipc::MonotonicNs();
  s.reports = sparse::Deliver(result, inst.ops, s.ctx, s.first_rows);
  for (size_t l = 0; l < s.reports.size(); ++l) {
    OpReport& r = s.reports[l];
    if (l < s.first_reports.size() && !s.first_reports[l].status.ok()) r.status = s.first_reports[l].status;
    r.demand_rows = s.first_rows;
  }
  Logger("engine")->debug("job '{}' {} seq {}: {} rows, {} -> {} bytes; local part {} us, agreement {} us, exchange {} us, "
                          "delivery {} us", job_id_, ipc::SparseAlgoName(s.algo), inst.seq, s.first_rows + result.size(), inst.wire_sent,
                          inst.wire_recv, (s.local_done_ns - inst.started_ns) / 1000, (inst.agreed_ns - s.local_done_ns) / 1000,
                          (exchanged_ns - inst.agreed_ns) / 1000, (ipc::MonotonicNs() - exchanged_ns) / 1000);
  if (inst.ops[0]->kind == ipc::OpKind::kSparseAllreduce) {
    SparseHistory& h = sparse_history_[inst.key];
    if (s.sum_nnz > 0) h.union_ratio = static_cast<double>(s.first_rows + result.size()) / static_cast<double>(s.sum_nnz);
    if (s.sum_blocks > 0) {
      uint64_t blocks = sparse::CountBlocks(result, 0, result.size(), s.ctx.block_rows);
      if (s.first) blocks += sparse::CountBlocks(s.first->result(), 0, s.first_rows, s.ctx.block_rows);
      h.block_union_ratio = static_cast<double>(blocks) / static_cast<double>(s.sum_blocks);
    }
  }
  AgentMetrics& m = Metrics();
  if (m.enabled() && inst.ops[0]->kind == ipc::OpKind::kSparseAllreduce) {
    if (sparse_density_ == nullptr) {
      std::string label = m.JobLabel(job_id_);
      sparse_density_ = m.SparseDensity(label);
      wire_efficiency_ = m.WireEfficiency(label);
    }
    sparse_density_->Set(static_cast<double>(s.first_rows + result.size()) / static_cast<double>(s.ctx.table.rows));
    if (inst.wire_sent > 0) wire_efficiency_->Set(static_cast<double>(s.predicted_bytes) / static_cast<double>(inst.wire_sent));
  }
  uint64_t elapsed = ipc::MonotonicNs() - inst.agreed_ns;
  if (inst.wire_sent >= (8u << 20) && elapsed > 0) {
    link_estimate_ = static_cast<double>(inst.wire_sent) * 1e9 / static_cast<double>(elapsed);
  }
  Complete(inst, Status::Ok());
}

std::vector<OpReport> NodeGroup::SparseReports(Instance& inst) {
  SparseState& s = *inst.sparse;
  std::vector<OpReport> r = s.reports;
  r.resize(static_cast<size_t>(local_size_));
  for (OpReport& x : r) {
    x.algo = static_cast<uint32_t>(s.algo);
    x.predicted_bytes = s.predicted_bytes;
  }
  return r;
}

}  // namespace outrider::agent
