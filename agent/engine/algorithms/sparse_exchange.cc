// Sparse exchange: announcement, agreement on the algorithm, chunked messages, delivery.
#include "agent/engine/algorithms/sparse_exchange.h"

#include <algorithm>
#include <cstring>

#include "agent/engine/sparse/cost_model.h"
#include "agent/engine/sparse/local.h"
#include "agent/log.h"
#include "agent/observability.h"
#include "ipc/defaults.h"
#include "ipc/event_fd.h"

namespace outrider::agent {
namespace {

// Messages of one batch go out in ring order: the next node first, this node's predecessor last.
void RingOrder(std::vector<sparse::Outgoing>* out, int me, int nodes) {
  std::stable_sort(out->begin(), out->end(),
                   [&](const sparse::Outgoing& a, const sparse::Outgoing& b) {
                     return (a.node - me + nodes) % nodes < (b.node - me + nodes) % nodes;
                   });
}

}  // namespace

std::string_view SparseExchange::label() const {
  return op().kind == ipc::OpKind::kSparseAllreduce ? ipc::SparseAlgoName(algo_) : "direct";
}

void SparseExchange::Prepare(std::function<void()> ready) {
  const ValidatedOp& o = op();
  ctx_ = sparse::MakeContext(o, topo_.ranks, topo_.me, options_.sparse_block_rows);
  SparseAnnounce a{};
  a.rows = o.rows;
  a.block_rows = options_.sparse_block_rows;
  auto hist = shared_.history.find(c_.key);
  a.union_ratio = hist == shared_.history.end() ? -1 : hist->second.union_ratio;
  a.block_union_ratio = hist == shared_.history.end() ? -1 : hist->second.block_union_ratio;
  a.link_bytes_per_s = shared_.link_estimate;
  c_.trace.Begin(OpTrace::kLocalReduce, ipc::MonotonicNs());
  Result<sparse::Rows> mine = sparse::CombineLocal(c_.ops, ctx_);
  if (mine.ok() && o.kind == ipc::OpKind::kSparseAllreduce) {
    Result<std::vector<uint64_t>> demand = sparse::CombineDemand(c_.ops, ctx_);
    if (demand.ok()) {
      demand_ = std::move(*demand);
    } else {
      mine = demand.status();
    }
  }
  if (mine.ok()) {
    mine_ = std::move(*mine);
    a.nnz = mine_.size();
    a.blocks = sparse::CountBlocks(mine_, 0, mine_.size(), options_.sparse_block_rows);
  } else {
    a.code = static_cast<int32_t>(mine.status().code());
    ipc::CopyText(a.message, sizeof(a.message), mine.status().message());
  }
  local_done_ns_ = ipc::MonotonicNs();
  c_.trace.End(OpTrace::kLocalReduce, local_done_ns_);
  // Where this node would cut its rows into allgather's ranges; every node merges everyone's.
  std::vector<uint64_t> quantiles;
  if (o.kind == ipc::OpKind::kSparseAllreduce)
    quantiles = sparse::IdQuantiles(mine_.ids, sparse::kAllgatherRanges);
  a.demand_n = demand_.size();
  a.quantile_n = static_cast<uint32_t>(quantiles.size());
  auto& own = c_.data[static_cast<size_t>(topo_.me)];
  own.resize(sizeof(a) + 8 * (demand_.size() + quantiles.size()));
  std::memcpy(own.data(), &a, sizeof(a));
  if (!demand_.empty()) std::memcpy(own.data() + sizeof(a), demand_.data(), 8 * demand_.size());
  if (!quantiles.empty())
    std::memcpy(own.data() + sizeof(a) + 8 * demand_.size(), quantiles.data(),
                8 * quantiles.size());
  ready();
}

BufferSpan SparseExchange::Contribution(int) const {
  const auto& own = c_.data[static_cast<size_t>(topo_.me)];
  return BufferSpan::Host(own.data(), own.size());
}

Status SparseExchange::Choose(std::vector<uint64_t>* demand) {
  const ValidatedOp& o = op();
  size_t N = static_cast<size_t>(topo_.nodes);
  std::vector<SparseAnnounce> an(N);
  std::vector<std::vector<uint64_t>> quantiles(N);
  for (size_t n = 0; n < N; ++n) {
    const auto& d = c_.data[n];
    SparseAnnounce& a = an[n];
    if (d.size() < sizeof(SparseAnnounce))
      return ProtocolError("peer sent a malformed sparse announcement");
    std::memcpy(&a, d.data(), sizeof(SparseAnnounce));
    if (a.demand_n > o.rows || a.quantile_n >= sparse::kAllgatherRanges ||
        d.size() != sizeof(SparseAnnounce) + 8 * (a.demand_n + a.quantile_n)) {
      return ProtocolError("peer sent a malformed sparse announcement (demand or quantiles)");
    }
    size_t at = demand->size();
    demand->resize(at + a.demand_n);
    if (a.demand_n > 0)
      std::memcpy(demand->data() + at, d.data() + sizeof(SparseAnnounce), 8 * a.demand_n);
    quantiles[n].resize(a.quantile_n);
    if (a.quantile_n > 0)
      std::memcpy(quantiles[n].data(), d.data() + sizeof(SparseAnnounce) + 8 * a.demand_n,
                  8 * a.quantile_n);
    for (size_t i = 0; i < quantiles[n].size(); ++i) {
      if (quantiles[n][i] == 0 || quantiles[n][i] >= o.rows ||
          (i > 0 && quantiles[n][i] <= quantiles[n][i - 1])) {
        return ProtocolError("peer sent a malformed sparse announcement (quantiles)");
      }
    }
  }
  ctx_.range_starts = sparse::MergeQuantiles(quantiles);
  std::string what =
      std::string(ipc::OpKindName(o.kind)) + " " + c_.Name() + " in job '" + topo_.job_id + "'";
  // A node whose local part failed (a bad id, say) fails the op everywhere, with its reason.
  for (size_t n = 0; n < N; ++n) {
    SparseAnnounce& a = an[n];
    if (a.code == 0) continue;
    a.message[sizeof(a.message) - 1] = '\0';
    Code code = a.code > 0 && a.code <= kMaxCode ? static_cast<Code>(a.code) : Code::kInternal;
    return Status(
        code, what + " failed on " + topo_.DescribeNode(static_cast<int>(n)) + ": " + a.message);
  }
  for (size_t n = 1; n < N; ++n) {
    if (an[n].block_rows != an[0].block_rows) {
      return Mismatch(what + ": agents disagree on sparse_block_rows (" + topo_.DescribeNode(0) +
                      ": " + std::to_string(an[0].block_rows) + ", " +
                      topo_.DescribeNode(static_cast<int>(n)) + ": " +
                      std::to_string(an[n].block_rows) + ")");
    }
  }
  // This node's announcement (with its demand ids and quantiles) went to every other node.
  uint64_t announce_bytes =
      (N - 1) * (sizeof(PeerHeader) + c_.data[static_cast<size_t>(topo_.me)].size());
  for (const SparseAnnounce& a : an) {
    sum_nnz_ += a.nnz;
    sum_blocks_ += a.blocks;
  }
  if (o.kind == ipc::OpKind::kSparseAllreduce) {
    sparse::CostInputs in;
    in.ctx = ctx_;
    for (const SparseAnnounce& a : an) in.nodes.push_back({a.nnz, a.blocks});
    in.union_ratio = an[0].union_ratio;  // node 0's view: every node must decide alike
    in.block_union_ratio = an[0].block_union_ratio;
    double bw = 0;
    for (const SparseAnnounce& a : an) {
      if (a.link_bytes_per_s > 0 && (bw == 0 || a.link_bytes_per_s < bw)) bw = a.link_bytes_per_s;
    }
    in.time.link_bytes_per_s = bw > 0 ? bw : options_.link_bytes_per_s;
    in.chunk_bytes = options_.chunk_bytes;
    in.chunk_overhead = sizeof(PeerHeader);
    auto requested = static_cast<ipc::SparseAlgo>(o.algo);
    if (requested == ipc::SparseAlgo::kDense &&
        !sparse::DenseFits(ctx_.table.rows, ctx_.table.dim)) {
      return ResourceExhausted(what + ": the dense algorithm holds the whole " +
                               std::to_string(ctx_.table.rows) + " x " +
                               std::to_string(ctx_.table.dim) +
                               " table at every agent, more than its limit of " +
                               std::to_string(sparse::kMaxDenseTableBytes >> 30) +
                               " GiB of f32 sums; use auto or another algorithm");
    }
    sparse::Prediction p =
        requested == ipc::SparseAlgo::kAuto ? sparse::Choose(in) : sparse::Predict(requested, in);
    algo_ = p.algo;
    predicted_bytes_ = p.sent[static_cast<size_t>(topo_.me)] + announce_bytes;
    exchange_ = sparse::MakeReplicated(algo_, ctx_);
  } else if (o.kind == ipc::OpKind::kSparseShard) {
    exchange_ = sparse::MakeShard(ctx_, static_cast<ipc::ShardScheme>(o.algo));
    predicted_bytes_ = announce_bytes;  // plus the first phase, once started
  } else {
    std::vector<const ValidatedOp*> ops = c_.ops;
    sparse::Context ctx = ctx_;
    exchange_ = sparse::MakeLookup(
        ctx_, [ops, ctx](uint64_t id, float* dst) { sparse::ReadShardRow(ops, ctx, id, dst); });
    predicted_bytes_ = announce_bytes;
  }
  return Status::Ok();
}

void SparseExchange::Agreed() {
  std::vector<uint64_t> demand;  // every node's demanded ids
  Status st = Choose(&demand);
  if (!st.ok()) return Complete(st);
  std::sort(demand.begin(), demand.end());
  demand.erase(std::unique(demand.begin(), demand.end()), demand.end());
  if (!demand.empty() && demand.back() >= op().rows)
    return Complete(ProtocolError("peer demanded a row outside the table"));
  demand_ = std::move(demand);
  if (!demand_.empty()) {
    // The demanded rows run first, as their own exchange (dense would send the whole table
    // again: they go balanced instead). Rows are summed alike either way.
    sparse::Rows first, rest;
    sparse::SplitByDemand(std::move(mine_), demand_, ctx_.table.dim, &first, &rest);
    mine_ = std::move(rest);
    // A few rows: allgather sends them as one range.
    sparse::Context few = ctx_;
    few.range_starts.clear();
    first_ = sparse::MakeReplicated(
        algo_ == ipc::SparseAlgo::kDense ? ipc::SparseAlgo::kBalanced : algo_, few);
    std::vector<sparse::Outgoing> out;
    first_->Start(std::move(first), &out);
    Queue(std::move(out), true);
  }
  std::vector<sparse::Outgoing> out;
  c_.trace.Begin(OpTrace::kCopy, ipc::MonotonicNs());  // this node's messages are encoded
  exchange_->Start(std::move(mine_), &out);
  c_.trace.End(OpTrace::kCopy, ipc::MonotonicNs());
  if (op().kind != ipc::OpKind::kSparseAllreduce) {
    // Shard and lookup send their first phase now; that is this node's prediction.
    for (const auto& m : out)
      predicted_bytes_ +=
          sparse::WireBytes(m.bytes->size(), options_.chunk_bytes, sizeof(PeerHeader));
  }
  Queue(std::move(out), false);
  PumpSends();
  MaybeFinish();
}

void SparseExchange::Queue(std::vector<sparse::Outgoing> out, bool demanded) {
  RingOrder(&out, topo_.me, topo_.nodes);
  std::vector<Chunk> batch;
  for (auto& m : out) {
    uint32_t phase = m.phase + (demanded ? kDemandPhase : 0);
    uint64_t index = queued_messages_[{m.node, phase}]++;
    uint64_t off = 0, size = m.bytes->size();
    do {  // an empty message still travels (as one empty chunk)
      uint64_t len = std::min<uint64_t>(options_.chunk_bytes, size - off);
      batch.push_back({m.node, phase, index, off, len, m.bytes});
      off += len;
    } while (off < size);
  }
  // The messages' chunks take turns (see queue_).
  std::stable_sort(batch.begin(), batch.end(),
                   [](const Chunk& a, const Chunk& b) { return a.offset < b.offset; });
  for (Chunk& ch : batch)
    (demanded ? urgent_ : Owners() && ch.phase == 1 ? returns_ : queue_).push_back(std::move(ch));
}

void SparseExchange::PumpSends() {
  if (pumping_) return;  // a send that completed inside Send
  pumping_ = true;
  // Chunks in flight. allgather's (and dense's) messages of one range go to every node alike, in
  // ring order: the nodes stay in step and each receiver hears from about two senders at a time.
  // The owner algorithms' messages differ in size from owner to owner, the nodes drift apart, and
  // with two chunks each some receivers would idle while others queue: four keep every receiver
  // fed (8 nodes at 500 Mbit/s on 4 MB queues, 1 % of 1M x 128, two runs each: block 1.26-1.29 ->
  // 1.10-1.14x its link time; allgather kept at two: 1.08-1.10 against 1.13-1.28 with four).
  const size_t window = Owners() ? 4 : 2;
  // A node may have its own result while its messages to others are still queued: those still
  // go out (success is reported once they have). A failed instance sends nothing more.
  while (!failed() && static_cast<size_t>(chunks_in_flight_) < window) {
    // Exchanges hold their messages back (ranges, blocks) and make them as the window opens; the
    // demanded rows' first. (Made before the queue ran dry instead, allgather at 0.1 % took 1.5 %
    // longer.)
    for (auto [ex, demanded] : {std::pair{first_.get(), true}, std::pair{exchange_.get(), false}}) {
      if (!urgent_.empty() || (!demanded && !queue_.empty()) || ex == nullptr) continue;
      std::vector<sparse::Outgoing> more;
      ex->Pull(&more);
      if (!more.empty()) Queue(std::move(more), demanded);
    }
    if (urgent_.empty() && queue_.empty() && returns_.empty()) break;
    std::deque<Chunk>& q = !urgent_.empty() ? urgent_ : !queue_.empty() ? queue_ : returns_;
    Chunk ch = std::move(q.front());
    q.pop_front();
    ++chunks_in_flight_;
    const std::vector<uint8_t>& msg = *ch.msg;
    Send(ch.node,
         {.type = PeerMsg::kSparse,
          .step = ch.phase,
          .offset = ch.offset,
          .message_bytes = msg.size(),
          .message_index = ch.index,
          .urgent = ch.phase >= kDemandPhase,
          .keep = std::move(ch.msg)},
         BufferSpan::Host(msg.data() + ch.offset, ch.len));
  }
  pumping_ = false;
}

void SparseExchange::OnSent(const PeerHeader& h, bool ok) {
  if (h.type != static_cast<uint16_t>(PeerMsg::kSparse)) return;
  --chunks_in_flight_;
  if (ok) PumpSends();
}

void SparseExchange::OnChunk(const PeerHeader& h, const uint8_t* data, size_t len) {
  uint64_t total = h.message_bytes;
  if (h.type != static_cast<uint16_t>(PeerMsg::kSparse) || total > ipc::kMaxOpBytes ||
      h.offset > total || len > total - h.offset || h.step > kDemandPhase + 1) {
    return Complete(ProtocolError("peer sent a sparse chunk outside its message"));
  }
  // No encoding of this table is larger (every row with an 8-byte id and f32 values, a bitmap,
  // headers): a peer cannot make this node reserve more than the op could need.
  uint64_t most = ctx_.table.rows * (8 + 4 * std::max<uint64_t>(ctx_.table.dim, 1)) +
                  ctx_.table.rows / 8 + 4096;
  if (total > most)
    return Complete(
        ProtocolError("peer announced a sparse message larger than this op can produce"));
  auto key = std::make_tuple(h.from_node, h.step, h.sent_before);
  auto [it, fresh] = assembling_.try_emplace(key);
  Assembly& a = it->second;
  if (fresh) a.total = total;
  if (a.total != total) return Complete(ProtocolError("peer changed a sparse message's length"));
  a.got += len;
  if (a.got > total) return Complete(ProtocolError("peer sent more sparse bytes than announced"));
  if (a.got == total &&
      a.offsets.empty()) {  // the whole message in one chunk: delivered where it lies
    assembling_.erase(it);
    Deliver(h.from_node, h.step, data, len);
    return MaybeFinish();
  }
  if (len > 0 && !a.offsets.insert(h.offset).second)
    return Complete(ProtocolError("peer sent a sparse chunk twice"));
  // Each chunk goes straight to its place in the message (chunks may come in any order). The
  // message's buffer is taken with its first chunk: a header announcing a large message costs
  // nothing until bytes come, and the sender's credit window bounds how many come ahead.
  c_.trace.Begin(OpTrace::kCopy, ipc::MonotonicNs());
  if (!a.whole) a.whole.reset(new uint8_t[total]);  // uninitialized: every byte is written once
  if (len > 0) std::memcpy(a.whole.get() + h.offset, data, len);
  c_.trace.End(OpTrace::kCopy, ipc::MonotonicNs());
  if (a.got < total) return;
  std::unique_ptr<uint8_t[]> whole = std::move(a.whole);
  assembling_.erase(it);
  Deliver(h.from_node, h.step, whole.get(), total);
  MaybeFinish();
}

void SparseExchange::Deliver(int from, uint32_t phase, const uint8_t* msg, size_t len) {
  bool demanded = phase >= kDemandPhase;
  if (demanded && !first_)
    return Complete(ProtocolError("peer sent demanded rows of an op without demand"));
  sparse::Exchange& ex = demanded ? *first_ : *exchange_;
  std::vector<sparse::Outgoing> out;
  c_.trace.Begin(OpTrace::kReduce,
                 ipc::MonotonicNs());  // decoding, summing and encoding what follows
  Status st = ex.OnMessage(from, demanded ? phase - kDemandPhase : phase, msg, len, &out);
  c_.trace.End(OpTrace::kReduce, ipc::MonotonicNs());
  if (!st.ok()) return Complete(st.Annotate("from " + topo_.DescribeNode(from)));
  if (!demanded) DeliverReady();
  Queue(std::move(out), demanded);
  PumpSends();
}

bool SparseExchange::Streams() const {
  return exchange_ && !first_ && op().kind == ipc::OpKind::kSparseAllreduce;
}

void SparseExchange::DeliverReady() {
  if (!Streams()) return;
  size_t ready = exchange_->ready_rows();
  if (ready <= delivered_) return;
  c_.trace.Begin(OpTrace::kWriteBack, ipc::MonotonicNs());
  if (written_.empty()) written_.assign(c_.ops.size(), Status::Ok());
  for (size_t l = 0; l < c_.ops.size(); ++l) {
    if (written_[l].ok()) {
      written_[l] = sparse::WriteOutput(exchange_->result(), delivered_, ready, ctx_.table,
                                        *c_.ops[l], delivered_);
    }
  }
  delivered_ = ready;
  c_.trace.End(OpTrace::kWriteBack, ipc::MonotonicNs());
}

void SparseExchange::MaybeFinish() {
  if (c_.done || !exchange_) return;
  if (first_ && first_->done() && !first_delivered_) {
    // The demanded rows are complete: they go to the clients now, ahead of the rest.
    first_delivered_ = true;
    const sparse::Rows& first = first_->result();
    first_rows_ = first.size();
    first_reports_ = sparse::Deliver(first, c_.ops, ctx_);
    for (OpReport& r : first_reports_) r.demand_rows = first_rows_;
    if (shared_.partial) shared_.partial(c_.key, c_.seq, first_reports_);
    if (c_.done) return;
  }
  if (!exchange_->done() || (first_ && !first_->done())) return;
  const sparse::Rows& result = exchange_->result();
  uint64_t exchanged_ns = ipc::MonotonicNs();
  if (Streams()) {
    DeliverReady();  // the last rows
    reports_.assign(c_.ops.size(), OpReport{});
    for (size_t l = 0; l < reports_.size(); ++l) {
      reports_[l].result_rows = result.size();
      // A rank whose output was too small for some rows is too small for all: writes nothing, says
      // how many.
      reports_[l].status =
          written_[l].ok() ? Status::Ok()
                           : sparse::WriteOutput(result, 0, result.size(), ctx_.table, *c_.ops[l]);
    }
  } else {
    c_.trace.Begin(OpTrace::kWriteBack, exchanged_ns);
    reports_ = sparse::Deliver(result, c_.ops, ctx_, first_rows_);
    c_.trace.End(OpTrace::kWriteBack, ipc::MonotonicNs());
  }
  for (size_t l = 0; l < reports_.size(); ++l) {
    OpReport& r = reports_[l];
    if (l < first_reports_.size() && !first_reports_[l].status.ok())
      r.status = first_reports_[l].status;
    r.demand_rows = first_rows_;
  }
  Logger("engine")->debug(
      "job '{}' {} seq {}: {} rows, {} -> {} bytes; local part {} us, agreement {} us, exchange {} "
      "us, "
      "delivery {} us",
      topo_.job_id, ipc::SparseAlgoName(algo_), c_.seq, first_rows_ + result.size(), c_.wire_sent,
      c_.wire_recv, (local_done_ns_ - c_.started_ns) / 1000, (c_.agreed_ns - local_done_ns_) / 1000,
      (exchanged_ns - c_.agreed_ns) / 1000, (ipc::MonotonicNs() - exchanged_ns) / 1000);
  Learn(result);
  Complete(Status::Ok());
}

void SparseExchange::Learn(const sparse::Rows& result) {
  uint64_t elapsed = ipc::MonotonicNs() - c_.agreed_ns;
  if (c_.wire_sent >= (8u << 20) && elapsed > 0) {
    shared_.link_estimate = static_cast<double>(c_.wire_sent) * 1e9 / static_cast<double>(elapsed);
  }
  if (op().kind != ipc::OpKind::kSparseAllreduce) return;
  SparseShared::History& h = shared_.history[c_.key];
  if (sum_nnz_ > 0)
    h.union_ratio =
        static_cast<double>(first_rows_ + result.size()) / static_cast<double>(sum_nnz_);
  if (sum_blocks_ > 0) {
    uint64_t blocks = sparse::CountBlocks(result, 0, result.size(), ctx_.block_rows);
    if (first_) blocks += sparse::CountBlocks(first_->result(), 0, first_rows_, ctx_.block_rows);
    h.block_union_ratio = static_cast<double>(blocks) / static_cast<double>(sum_blocks_);
  }
  if (AgentMetrics* m = shared_.metrics) {
    if (shared_.density == nullptr) {
      std::string label = m->JobLabel(topo_.metrics_job());
      shared_.density = m->SparseDensity(label);
      shared_.efficiency = m->WireEfficiency(label);
    }
    shared_.density->Set(static_cast<double>(first_rows_ + result.size()) /
                         static_cast<double>(ctx_.table.rows));
    if (c_.wire_sent > 0)
      shared_.efficiency->Set(static_cast<double>(predicted_bytes_) /
                              static_cast<double>(c_.wire_sent));
  }
}

std::vector<OpReport> SparseExchange::Reports() const {
  std::vector<OpReport> r = reports_;
  r.resize(static_cast<size_t>(topo_.local_size()));
  for (OpReport& x : r) {
    x.algo = static_cast<uint32_t>(algo_);
    x.predicted_bytes = predicted_bytes_;
  }
  return r;
}

}  // namespace outrider::agent
