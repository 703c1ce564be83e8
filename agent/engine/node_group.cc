// Inter-node collective instances: fingerprint agreement, direct exchanges, pipelined ring.
#include "agent/engine/node_group.h"

#include <cstring>

#include "agent/engine/local_collectives.h"
#include "agent/engine/node_group_state.h"
#include "agent/engine/reduce.h"
#include "agent/log.h"
#include "agent/observability.h"
#include "ipc/check.h"
#include "ipc/event_fd.h"

namespace outrider::agent {
namespace {

using ipc::DType;
using ipc::OpKind;
using ipc::ReduceOp;

// Local and partial reductions of an average are sums; the division happens once at the end.
ReduceOp PartialOp(ReduceOp op) { return op == ReduceOp::kAvg ? ReduceOp::kSum : op; }

void DivideInPlace(DType t, uint8_t* p, uint64_t count, int64_t n) {
  switch (t) {
    case DType::kF32: for (uint64_t i = 0; i < count; ++i) reinterpret_cast<float*>(p)[i] /= static_cast<float>(n); break;
    case DType::kF64: for (uint64_t i = 0; i < count; ++i) reinterpret_cast<double*>(p)[i] /= static_cast<double>(n); break;
    case DType::kI32: for (uint64_t i = 0; i < count; ++i) reinterpret_cast<int32_t*>(p)[i] /= static_cast<int32_t>(n); break;
    case DType::kI64: for (uint64_t i = 0; i < count; ++i) reinterpret_cast<int64_t*>(p)[i] /= n; break;
    case DType::kF16:
      for (uint64_t i = 0; i < count; ++i) {
        auto* h = reinterpret_cast<uint16_t*>(p) + i;
        *h = engine::FloatToHalf(engine::HalfToFloat(*h) / static_cast<float>(n));
      }
      break;
    case DType::kBF16:
      for (uint64_t i = 0; i < count; ++i) {
        auto* h = reinterpret_cast<uint16_t*>(p) + i;
        *h = engine::FloatToBFloat16(engine::BFloat16ToFloat(*h) / static_cast<float>(n));
      }
      break;
  }
}

}  // namespace

std::string InstanceName(uint64_t key, uint64_t seq) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "key 0x%016llx seq %llu", static_cast<unsigned long long>(key),
                static_cast<unsigned long long>(seq));
  return buf;
}

uint64_t HashBytes(const void* data, size_t len) { return ipc::Fnv1a(data, len); }


NodeGroup::NodeGroup(std::string job_id, uint64_t job_hash, uint64_t self_hash, int num_nodes,
                     int node_rank, int local_size, Transport* transport, Done done,
                     NodeGroupOptions options)
    : job_id_(std::move(job_id)),
      job_hash_(job_hash),
      self_hash_(self_hash),
      num_nodes_(num_nodes),
      node_rank_(node_rank),
      local_size_(local_size),
      transport_(transport),
      done_(std::move(done)),
      options_(options),
      sent_to_(static_cast<size_t>(num_nodes), 0),
      received_from_(static_cast<size_t>(num_nodes), 0),
      left_after_(static_cast<size_t>(num_nodes), -1),
      left_(static_cast<size_t>(num_nodes), false),
      left_cause_(static_cast<size_t>(num_nodes), -1) {}

NodeGroup::~NodeGroup() = default;

bool NodeGroup::busy() const {
  for (const auto& [id, inst] : instances_) {
    if (inst.sends_in_flight > 0) return true;
  }
  return false;
}

int NodeGroup::NodeOfPeer(PeerId peer) const {
  for (size_t n = 0; n < peers_.size(); ++n) {
    if (static_cast<int>(n) != node_rank_ && peers_[n] == peer) return static_cast<int>(n);
  }
  return -1;
}

std::string NodeGroup::DescribeNode(int node) const {
  int first = node * local_size_, last = first + local_size_ - 1;
  std::string ranks = first == last ? "rank " + std::to_string(first)
                                    : "ranks " + std::to_string(first) + "-" + std::to_string(last);
  return ranks + " (node " + std::to_string(node) + ")";
}

NodeGroup::Instance& NodeGroup::Get(uint64_t key, uint64_t seq) {
  Instance& inst = instances_[{key, seq}];
  if (inst.fps.empty()) {
    inst.key = key;
    inst.seq = seq;
    inst.fps.resize(static_cast<size_t>(num_nodes_));
    inst.data.resize(static_cast<size_t>(num_nodes_));
  }
  return inst;
}

void NodeGroup::SendTo(int node, Instance& inst, PeerMsg type, uint32_t step, uint64_t offset,
                       const void* data, size_t len, uint64_t message_len) {
  PeerHeader h{};
  h.magic = kPeerMagic;
  h.version = kPeerVersion;
  h.type = static_cast<uint16_t>(type);
  h.sender = self_hash_;
  h.job_hash = job_hash_;
  h.key = inst.key;
  h.seq = inst.seq;
  h.from_node = node_rank_;
  h.step = step;
  h.offset = offset;
  h.fp = inst.fp;
  if (type == PeerMsg::kSparse) h.fp.count = message_len;
  ++inst.sends_in_flight;
  inst.wire_sent += sizeof(h) + len;
  // Bulk chunks wait for the scheduler; fingerprints, aborts and goodbyes go at once.
  bool scheduled = scheduler_ != nullptr && (type == PeerMsg::kRing || type == PeerMsg::kSparse);
  auto issue = [this, node, h, data, len, scheduled, key = inst.key, seq = inst.seq] { Issue(node, h, data, len, scheduled, key, seq); };
  if (scheduled) {
    int32_t priority = type == PeerMsg::kSparse && step >= kDemandPhase ? DemandPriority(inst.priority) : inst.priority;
    scheduler_->Enqueue(peers_[static_cast<size_t>(node)], priority, job_hash_, sizeof(h) + len, std::move(issue));
  } else {
    issue();
  }
}

void NodeGroup::Issue(int node, const PeerHeader& h, const void* data, size_t len, bool scheduled, uint64_t key,
                      uint64_t seq) {
  PeerId peer = peers_[static_cast<size_t>(node)];
  uint64_t bytes = sizeof(h) + len;
  bool sparse_chunk = h.type == static_cast<uint16_t>(PeerMsg::kSparse);
  auto it = instances_.find({key, seq});  // alive: this send is counted in sends_in_flight
  Instance& inst = it->second;
  auto finished = [this, key, seq, sparse_chunk](Instance& i, const Status& s) {
    --i.sends_in_flight;
    if (sparse_chunk && i.sparse) {
      --i.sparse->chunks_in_flight;
      if (s.ok()) PumpSparse(i);
    }
    if (!s.ok() && !i.done) {
      Complete(i, s.Annotate("sending to a peer agent"));
    } else if (!s.ok() && !i.notified) {
      i.result = s.Annotate("sending to a peer agent");
    }
    if (i.done && i.sends_in_flight == 0) Notify(i);
    MaybeErase(key, seq);
  };
  if (inst.done && !inst.result.ok()) {  // failed while the chunk waited: nobody needs it
    if (scheduled) scheduler_->Done(peer, bytes);
    return finished(inst, Status::Ok());
  }
  ++sent_to_[static_cast<size_t>(node)];
  // The receiver returns the credit (kCredit) once the chunk arrived; a send that failed never
  // arrives, so its credit comes back here.
  Status st = transport_->Send(peer, &h, sizeof(h), data, len,
                               [this, key, seq, peer, bytes, scheduled, finished](const Status& s) {
                                 if (scheduled && !s.ok()) scheduler_->Done(peer, bytes);
                                 auto it2 = instances_.find({key, seq});
                                 if (it2 == instances_.end()) return;
                                 finished(it2->second, s);
                               });
  if (!st.ok()) {
    if (scheduled) scheduler_->Done(peer, bytes);
    --inst.sends_in_flight;
    if (sparse_chunk && inst.sparse) --inst.sparse->chunks_in_flight;
    Complete(inst, PeerLost(DescribeNode(node) + " is unreachable: " + st.message()));
    MaybeErase(key, seq);
  }
}

void NodeGroup::Start(uint64_t key, uint64_t seq, const std::vector<const ValidatedOp*>& ops, int32_t priority) {
  Instance& inst = Get(key, seq);
  inst.priority = priority;
  inst.started = true;
  inst.started_ns = ipc::MonotonicNs();
  inst.ops = ops;
  if (inst.done) {  // failed before this node's ranks arrived (a peer aborted it, or left)
    if (inst.sends_in_flight == 0) Notify(inst);
    return;
  }
  for (int n = 0; n < num_nodes_; ++n) {
    if (left_[static_cast<size_t>(n)] && !inst.fps[static_cast<size_t>(n)]) {
      return Complete(inst, PeerLost(DescribeNode(n) + " left job '" + job_id_ + "'"));
    }
  }
  const ValidatedOp& o = *ops[0];
  inst.fp = Fingerprint{static_cast<uint32_t>(o.kind), static_cast<uint32_t>(o.dtype),
                        static_cast<uint32_t>(o.reduce_op), o.root, o.count};
  if (ipc::IsSparse(o.kind)) {
    inst.fp.root = static_cast<int32_t>(o.algo);
    inst.fps[static_cast<size_t>(node_rank_)] = inst.fp;
    return StartSparse(inst);
  }
  inst.fps[static_cast<size_t>(node_rank_)] = inst.fp;
  size_t L = ops.size();
  size_t me = static_cast<size_t>(node_rank_);
  uint64_t elem = ipc::DTypeSize(o.dtype);
  std::vector<const void*> in(L);
  switch (o.kind) {
    case OpKind::kAllreduce: {
      inst.buf = ops[0]->recv;
      inst.bytes = o.recv_bytes;
      if (inst.bytes <= options_.direct_max_bytes) {
        for (size_t l = 0; l < L; ++l) in[l] = ops[l]->send;
        void* out = inst.buf;
        engine::ReduceInto(o.dtype, PartialOp(o.reduce_op), in.data(), static_cast<int>(L), &out, 1, o.count);
        inst.data[me].assign(inst.buf, inst.buf + inst.bytes);
      } else if (L == 1) {
        // A single local client needs no local reduction: the ring reads its input directly
        // (recv + input gives the same bits as recv + a copy of the input).
        inst.input = ops[0]->send;
      } else {
        // The ring reduces locally slice by slice, just before a slice is sent or combined, and
        // in the background meanwhile: the local reduction overlaps the network transfer.
        uint64_t slice = std::max<uint64_t>(elem, options_.chunk_bytes / elem * elem);
        inst.local_ready.assign((inst.bytes + slice - 1) / slice, 0);
        inst.local_left = inst.local_ready.size();
        inst.input = inst.buf;
      }
      break;
    }
    case OpKind::kAllgather: {
      // Gather the node's share into every local output first; that share is the payload.
      uint64_t block = o.send_bytes;
      for (size_t dst = 0; dst < L; ++dst) {
        for (size_t src = 0; src < L; ++src) {
          uint8_t* to = ops[dst]->recv + (me * L + src) * block;
          if (to != ops[src]->send) std::memmove(to, ops[src]->send, block);
        }
      }
      inst.buf = ops[0]->recv + me * L * block;
      inst.bytes = L * block;
      break;
    }
    case OpKind::kReduceScatter: {
      inst.temp.resize(o.send_bytes);
      for (size_t l = 0; l < L; ++l) in[l] = ops[l]->send;
      void* out = inst.temp.data();
      engine::ReduceInto(o.dtype, PartialOp(o.reduce_op), in.data(), static_cast<int>(L), &out, 1,
                         o.send_bytes / elem);
      inst.bytes = o.recv_bytes * L;  // the slice each node owns
      break;
    }
    case OpKind::kBroadcast:
      inst.buf = ops[0]->recv;
      inst.bytes = o.recv_bytes;
      if (o.root / local_size_ == node_rank_) {
        // The root node's clients hold the data; its other local clients get it now.
        const uint8_t* src = ops[static_cast<size_t>(o.root % local_size_)]->send;
        for (size_t l = 0; l < L; ++l) {
          if (ops[l]->recv != src) std::memcpy(ops[l]->recv, src, o.recv_bytes);
        }
      }
      break;
    case OpKind::kBarrier:
      break;
    default:  // sparse kinds start in StartSparse
      break;
    case OpKind::kAlltoallv: {
      // Blocks for node m, ordered by (local source, destination rank); this node's own
      // blocks go straight to the local outputs.
      // Each payload starts with the bytes this node expects back from its destination, so both
      // ends of a disagreeing pair detect it (the sender as well as the receiver fails).
      inst.outgoing.resize(static_cast<size_t>(num_nodes_));
      for (int m = 0; m < num_nodes_; ++m) {
        if (m == node_rank_) continue;
        uint64_t expect = 0;
        for (size_t i = 0; i < L; ++i) {
          for (size_t j = 0; j < L; ++j) {
            expect += static_cast<uint64_t>(ops[j]->recv_counts[static_cast<size_t>(m) * L + i]) * elem;
          }
        }
        auto* e = reinterpret_cast<const uint8_t*>(&expect);
        inst.outgoing[static_cast<size_t>(m)].assign(e, e + sizeof(expect));
      }
      for (int m = 0; m < num_nodes_; ++m) {
        for (size_t i = 0; i < L; ++i) {
          for (size_t j = 0; j < L; ++j) {
            size_t gj = static_cast<size_t>(m) * L + j;
            uint64_t len = static_cast<uint64_t>(ops[i]->send_counts[gj]) * elem;
            const uint8_t* src = ops[i]->send + BlockOffset(ops[i]->send_counts, gj, elem);
            if (m != node_rank_) {
              inst.outgoing[static_cast<size_t>(m)].insert(inst.outgoing[static_cast<size_t>(m)].end(), src, src + len);
              continue;
            }
            size_t gi = me * L + i;
            if (ops[j]->recv_counts[gi] != ops[i]->send_counts[gj]) {
              inst.local_error = Mismatch("alltoallv counts disagree: rank " + std::to_string(gi) + " sends " +
                                          std::to_string(ops[i]->send_counts[gj]) + " elements to rank " +
                                          std::to_string(gj) + ", which expects " + std::to_string(ops[j]->recv_counts[gi]));
              continue;
            }
            std::memcpy(ops[j]->recv + BlockOffset(ops[j]->recv_counts, gi, elem), src, len);
          }
        }
      }
      break;
    }
  }
  for (int n = 0; n < num_nodes_ && !inst.done; ++n) {
    if (n == node_rank_) continue;
    const void* payload = nullptr;
    size_t len = 0;
    switch (o.kind) {
      case OpKind::kAllreduce:
        if (!inst.data[me].empty()) {
          payload = inst.data[me].data();
          len = inst.bytes;
        }
        break;
      case OpKind::kAllgather:
        if (inst.bytes <= options_.direct_max_bytes) {  // large ones go around the ring
          payload = inst.buf;
          len = inst.bytes;
        }
        break;
      case OpKind::kReduceScatter:
        payload = inst.temp.data() + static_cast<size_t>(n) * inst.bytes;
        len = inst.bytes;
        break;
      case OpKind::kBroadcast:
        // Small broadcasts travel with the fingerprint; large ones along the chain afterwards.
        if (o.root / local_size_ == node_rank_ && inst.bytes <= options_.direct_max_bytes) {
          payload = inst.buf;
          len = inst.bytes;
        }
        break;
      case OpKind::kBarrier:
        break;
      case OpKind::kAlltoallv:
        payload = inst.outgoing[static_cast<size_t>(n)].data();
        len = inst.outgoing[static_cast<size_t>(n)].size();
        break;
      default:  // sparse kinds start in StartSparse
        break;
    }
    SendTo(n, inst, PeerMsg::kContrib, 0, 0, payload, len);
  }
  if (!inst.done) MaybeAgree(inst);
}

void NodeGroup::OnMessage(const PeerHeader& h, const uint8_t* data, size_t len) {
  if (h.from_node < 0 || h.from_node >= num_nodes_ || h.from_node == node_rank_) return;
  size_t from = static_cast<size_t>(h.from_node);
  auto type = static_cast<PeerMsg>(h.type);
  if (type == PeerMsg::kJobLeft) {
    left_after_[from] = static_cast<int64_t>(h.offset);
    int cause = static_cast<int>(h.step) - 1;
    left_cause_[from] = cause >= 0 && cause < num_nodes_ ? cause : -1;
    if (received_from_[from] >= h.offset) ApplyLeft(h.from_node);
    return;
  }
  ++received_from_[from];
  HandleMessage(h, data, len);
  if (left_after_[from] >= 0 && received_from_[from] >= static_cast<uint64_t>(left_after_[from]) && !left_[from]) {
    ApplyLeft(h.from_node);
  }
}

uint8_t* NodeGroup::RecvBuffer(const PeerHeader& h, size_t len) {
  if (static_cast<PeerMsg>(h.type) != PeerMsg::kRing) return nullptr;
  uint32_t n = static_cast<uint32_t>(num_nodes_);
  bool chain = h.fp.kind == static_cast<uint32_t>(OpKind::kBroadcast);
  bool gather = h.fp.kind == static_cast<uint32_t>(OpKind::kAllgather);
  if (!chain && !gather && (h.step < n - 1 || h.step >= 2 * (n - 1))) return nullptr;
  auto it = instances_.find({h.key, h.seq});
  if (it == instances_.end() || !it->second.agreed || it->second.done) return nullptr;
  Instance& inst = it->second;
  if (gather) {
    uint64_t total = inst.bytes * n, own = static_cast<uint64_t>(node_rank_) * inst.bytes;
    if (h.offset > total || len > total - h.offset || (h.offset < own + inst.bytes && h.offset + len > own)) return nullptr;
    return inst.ops[0]->recv + h.offset;
  }
  if (h.offset > inst.bytes || len > inst.bytes - h.offset) return nullptr;
  return inst.buf + h.offset;
}

void NodeGroup::ApplyLeft(int node) {
  left_[static_cast<size_t>(node)] = true;
  // Everything the node sent has arrived: instances still missing its contribution never will.
  int cause = left_cause_[static_cast<size_t>(node)];
  Status why = cause >= 0 ? PeerLost(DescribeNode(cause) + " of job '" + job_id_ + "' is lost (reported by " +
                                     DescribeNode(node) + ")")
                          : PeerLost(DescribeNode(node) + " left job '" + job_id_ + "'");
  std::vector<std::pair<uint64_t, uint64_t>> doomed;
  for (auto& [id, inst] : instances_) {
    if (!inst.done && !inst.fps[static_cast<size_t>(node)]) doomed.push_back(id);
  }
  for (auto& id : doomed) {
    auto it = instances_.find(id);
    if (it != instances_.end()) Complete(it->second, why);
  }
}

void NodeGroup::HandleMessage(const PeerHeader& h, const uint8_t* data, size_t len) {
  auto type = static_cast<PeerMsg>(h.type);
  Instance& inst = Get(h.key, h.seq);
  if (inst.done) return;
  inst.wire_recv += sizeof(h) + len;
  if (type == PeerMsg::kSparse) return OnSparsePiece(inst, h, data, len);
  if (type == PeerMsg::kContrib && h.fp.kind == kAbortKind) {
    std::string text = data != nullptr ? std::string(reinterpret_cast<const char*>(data), std::min<size_t>(len, 1024))
                                       : "ranks of " + DescribeNode(h.from_node) + " disagree";
    return Complete(inst, Mismatch(text));
  }
  if (type == PeerMsg::kContrib) {
    auto& slot = inst.fps[static_cast<size_t>(h.from_node)];
    if (slot) return;  // duplicate: ignore
    slot = h.fp;
    inst.data[static_cast<size_t>(h.from_node)].assign(data, data + len);
    if (inst.started) MaybeAgree(inst);
  } else if (type == PeerMsg::kRing) {
    if (!inst.agreed) {
      inst.early.push_back({h.step, h.offset, std::vector<uint8_t>(data, data + len)});
      return;
    }
    OnRingChunk(inst, h.step, h.offset, data, len);
  }
}

void NodeGroup::MaybeAgree(Instance& inst) {
  if (inst.agreed || inst.done) return;
  for (const auto& f : inst.fps) {
    if (!f) return;
  }
  // Compare every node with node 0; name both sides of the first difference.
  const Fingerprint& ref = *inst.fps[0];
  for (int n = 1; n < num_nodes_; ++n) {
    const Fingerprint& f = *inst.fps[static_cast<size_t>(n)];
    std::string field, a, b;
    if (f.kind != ref.kind) {
      field = "op kind";
      a = ipc::OpKindName(static_cast<OpKind>(ref.kind));
      b = ipc::OpKindName(static_cast<OpKind>(f.kind));
    } else if (f.dtype != ref.dtype) {
      field = "dtype";
      a = ipc::DTypeName(static_cast<DType>(ref.dtype));
      b = ipc::DTypeName(static_cast<DType>(f.dtype));
    } else if (f.count != ref.count) {
      field = ipc::IsSparse(static_cast<OpKind>(ref.kind)) ? "dim" : "count";
      a = std::to_string(ref.count);
      b = std::to_string(f.count);
    } else if (f.reduce_op != ref.reduce_op) {
      field = "reduce op";
      a = ipc::ReduceOpName(static_cast<ReduceOp>(ref.reduce_op));
      b = ipc::ReduceOpName(static_cast<ReduceOp>(f.reduce_op));
    } else if (f.root != ref.root && ref.kind == static_cast<uint32_t>(OpKind::kSparseAllreduce)) {
      field = "algorithm";
      a = ipc::SparseAlgoName(static_cast<ipc::SparseAlgo>(ref.root));
      b = ipc::SparseAlgoName(static_cast<ipc::SparseAlgo>(f.root));
    } else if (f.root != ref.root && ipc::IsSparse(static_cast<OpKind>(ref.kind))) {
      field = "shard scheme";
      a = ref.root == 0 ? "range" : "hash";
      b = f.root == 0 ? "range" : "hash";
    } else if (f.root != ref.root) {
      field = "root";
      a = std::to_string(ref.root);
      b = std::to_string(f.root);
    }
    if (!field.empty()) {
      Complete(inst, Mismatch(std::string(ipc::OpKindName(static_cast<OpKind>(inst.fp.kind))) + " " +
                              InstanceName(inst.key, inst.seq) + " in job '" + job_id_ +
                              "': ranks disagree on " + field + ": " + DescribeNode(0) + " has " + a +
                              ", " + DescribeNode(n) + " has " + b));
      return;
    }
  }
  inst.agreed = true;
  inst.agreed_ns = ipc::MonotonicNs();
  auto kind = static_cast<OpKind>(inst.fp.kind);
  if (ipc::IsSparse(kind)) return AgreeSparse(inst);
  if (kind == OpKind::kAllreduce && inst.data[static_cast<size_t>(node_rank_)].empty()) {
    StartRing(inst);
  } else if (kind == OpKind::kBroadcast && inst.bytes > options_.direct_max_bytes) {
    StartChain(inst);
  } else if (kind == OpKind::kAllgather && inst.bytes > options_.direct_max_bytes) {
    StartGatherRing(inst);
  } else {
    FinishDirect(inst);
  }
}

// Large broadcasts are pipelined along the ring starting at the root's node: each node forwards
// every chunk as soon as it has it, so every link carries the buffer once.
void NodeGroup::StartChain(Instance& inst) {
  const ValidatedOp& o = *inst.ops[0];
  uint64_t elem = ipc::DTypeSize(o.dtype);
  uint64_t chunk = std::max<uint64_t>(elem, options_.chunk_bytes / elem * elem);
  int root_node = o.root / local_size_;
  int next = (node_rank_ + 1) % num_nodes_;
  if (node_rank_ == root_node) {
    for (uint64_t off = 0; off < inst.bytes && !inst.done; off += chunk) {
      SendTo(next, inst, PeerMsg::kRing, 0, off, inst.buf + off, std::min(chunk, inst.bytes - off));
    }
    if (!inst.done) Complete(inst, Status::Ok());  // reported once the sends are done
    return;
  }
  inst.ring_chunks_left = (inst.bytes + chunk - 1) / chunk;
  std::vector<Instance::Early> early = std::move(inst.early);
  for (auto& e : early) {
    if (inst.done) break;
    OnRingChunk(inst, e.step, e.offset, e.bytes.data(), e.bytes.size());
  }
}

// Large allgathers go around the ring: at step s a node forwards the share of node r - s, chunk
// by chunk, so every link carries each other node's share once. Offsets are within local rank
// 0's whole output buffer.
void NodeGroup::StartGatherRing(Instance& inst) {
  const ValidatedOp& o = *inst.ops[0];
  uint64_t elem = ipc::DTypeSize(o.dtype);
  uint64_t chunk = std::max<uint64_t>(elem, options_.chunk_bytes / elem * elem);
  uint64_t share = inst.bytes;
  inst.ring_chunks_left = static_cast<uint64_t>(num_nodes_ - 1) * ((share + chunk - 1) / chunk);
  int next = (node_rank_ + 1) % num_nodes_;
  uint64_t base = static_cast<uint64_t>(node_rank_) * share;
  for (uint64_t off = 0; off < share && !inst.done; off += chunk) {
    SendTo(next, inst, PeerMsg::kRing, 0, base + off, o.recv + base + off, std::min(chunk, share - off));
  }
  std::vector<Instance::Early> early = std::move(inst.early);
  for (auto& e : early) {
    if (inst.done) break;
    OnRingChunk(inst, e.step, e.offset, e.bytes.data(), e.bytes.size());
  }
}

void NodeGroup::OnGatherChunk(Instance& inst, uint32_t step, uint64_t offset, const uint8_t* data, size_t len) {
  uint8_t* out = inst.ops[0]->recv;
  uint64_t total = inst.bytes * static_cast<uint64_t>(num_nodes_);
  uint64_t own = static_cast<uint64_t>(node_rank_) * inst.bytes;
  if (offset > total || len > total - offset || (offset < own + inst.bytes && offset + len > own)) {
    return Complete(inst, ProtocolError("peer sent an allgather chunk outside the buffer"));
  }
  if (data != out + offset) std::memcpy(out + offset, data, len);
  if (step + 2 < static_cast<uint32_t>(num_nodes_)) {
    SendTo((node_rank_ + 1) % num_nodes_, inst, PeerMsg::kRing, step + 1, offset, out + offset, len);
  }
  if (inst.done) return;
  if (inst.ring_chunks_left == 0) return Complete(inst, ProtocolError("peer sent more allgather chunks than expected"));
  if (--inst.ring_chunks_left == 0) {
    for (size_t l = 1; l < inst.ops.size(); ++l) {
      for (int n = 0; n < num_nodes_; ++n) {
        if (n == node_rank_) continue;
        uint64_t off = static_cast<uint64_t>(n) * inst.bytes;
        std::memcpy(inst.ops[l]->recv + off, out + off, inst.bytes);
      }
    }
    Complete(inst, Status::Ok());
  }
}

void NodeGroup::OnChainChunk(Instance& inst, uint64_t offset, const uint8_t* data, size_t len) {
  const ValidatedOp& o = *inst.ops[0];
  int root_node = o.root / local_size_;
  int next = (node_rank_ + 1) % num_nodes_;
  uint8_t* dst = inst.buf + offset;
  if (data != dst) std::memcpy(dst, data, len);
  if (next != root_node) SendTo(next, inst, PeerMsg::kRing, 0, offset, dst, len);
  if (inst.done) return;
  if (inst.ring_chunks_left == 0) return Complete(inst, ProtocolError("peer sent more broadcast chunks than the buffer holds"));
  if (--inst.ring_chunks_left == 0) {
    for (size_t l = 1; l < inst.ops.size(); ++l) std::memcpy(inst.ops[l]->recv, inst.buf, inst.bytes);
    Complete(inst, Status::Ok());
  }
}

void NodeGroup::FinishDirect(Instance& inst) {
  const ValidatedOp& o = *inst.ops[0];
  size_t N = static_cast<size_t>(num_nodes_), L = inst.ops.size(), me = static_cast<size_t>(node_rank_);
  uint64_t elem = ipc::DTypeSize(o.dtype);
  int64_t world = static_cast<int64_t>(N * L);
  switch (o.kind) {
    case OpKind::kAllreduce: {
      std::vector<const void*> in(N);
      for (size_t n = 0; n < N; ++n) {
        if (inst.data[n].size() != inst.bytes) return Complete(inst, ProtocolError("peer sent a payload of the wrong size"));
        in[n] = inst.data[n].data();
      }
      void* out = inst.buf;
      engine::ReduceInto(o.dtype, PartialOp(o.reduce_op), in.data(), static_cast<int>(N), &out, 1, o.count);
      if (o.reduce_op == ReduceOp::kAvg) DivideInPlace(o.dtype, inst.buf, o.count, world);
      for (size_t l = 1; l < L; ++l) std::memcpy(inst.ops[l]->recv, inst.buf, inst.bytes);
      break;
    }
    case OpKind::kAllgather:
      for (size_t n = 0; n < N; ++n) {
        if (n == me) continue;
        if (inst.data[n].size() != inst.bytes) return Complete(inst, ProtocolError("peer sent a payload of the wrong size"));
        for (size_t l = 0; l < L; ++l) std::memcpy(inst.ops[l]->recv + n * inst.bytes, inst.data[n].data(), inst.bytes);
      }
      break;
    case OpKind::kReduceScatter: {
      std::vector<const void*> in(N);
      for (size_t n = 0; n < N; ++n) {
        if (n == me) {
          in[n] = inst.temp.data() + me * inst.bytes;
          continue;
        }
        if (inst.data[n].size() != inst.bytes) return Complete(inst, ProtocolError("peer sent a payload of the wrong size"));
        in[n] = inst.data[n].data();
      }
      std::vector<uint8_t> result(inst.bytes);
      void* out = result.data();
      engine::ReduceInto(o.dtype, PartialOp(o.reduce_op), in.data(), static_cast<int>(N), &out, 1, inst.bytes / elem);
      if (o.reduce_op == ReduceOp::kAvg) DivideInPlace(o.dtype, result.data(), inst.bytes / elem, world);
      for (size_t l = 0; l < L; ++l) std::memcpy(inst.ops[l]->recv, result.data() + l * o.recv_bytes, o.recv_bytes);
      break;
    }
    case OpKind::kBroadcast: {
      size_t root_node = static_cast<size_t>(o.root / local_size_);
      if (root_node != me) {
        if (inst.data[root_node].size() != inst.bytes) return Complete(inst, ProtocolError("peer sent a payload of the wrong size"));
        for (size_t l = 0; l < L; ++l) std::memcpy(inst.ops[l]->recv, inst.data[root_node].data(), inst.bytes);
      }
      break;
    }
    default:  // sparse kinds finish in MaybeFinishSparse
      break;
    case OpKind::kBarrier:
      break;
    case OpKind::kAlltoallv: {
      if (!inst.local_error.ok()) return Complete(inst, inst.local_error);
      // Check every pair in both directions before writing any output.
      for (size_t n = 0; n < N; ++n) {
        if (n == me) continue;
        if (inst.data[n].size() < sizeof(uint64_t)) {
          return Complete(inst, ProtocolError("peer sent an alltoallv payload without its header"));
        }
        uint64_t want = 0, they_expect = 0;
        for (size_t i = 0; i < L; ++i) {
          for (size_t j = 0; j < L; ++j) want += static_cast<uint64_t>(inst.ops[j]->recv_counts[n * L + i]) * elem;
        }
        std::memcpy(&they_expect, inst.data[n].data(), sizeof(they_expect));
        uint64_t got = inst.data[n].size() - sizeof(uint64_t);
        uint64_t sent = inst.outgoing[n].size() - sizeof(uint64_t);
        if (got != want || they_expect != sent) {
          bool inbound = got != want;
          std::string from = DescribeNode(static_cast<int>(inbound ? n : me));
          std::string to = DescribeNode(static_cast<int>(inbound ? me : n));
          return Complete(inst, Mismatch("alltoallv counts disagree: " + from + " sends " +
                                         std::to_string((inbound ? got : sent) / elem) + " elements to " + to +
                                         ", which expects " + std::to_string((inbound ? want : they_expect) / elem)));
        }
      }
      for (size_t n = 0; n < N; ++n) {
        if (n == me) continue;
        const uint8_t* src = inst.data[n].data() + sizeof(uint64_t);
        for (size_t i = 0; i < L; ++i) {
          size_t gi = n * L + i;
          for (size_t j = 0; j < L; ++j) {
            uint64_t len = static_cast<uint64_t>(inst.ops[j]->recv_counts[gi]) * elem;
            std::memcpy(inst.ops[j]->recv + BlockOffset(inst.ops[j]->recv_counts, gi, elem), src, len);
            src += len;
          }
        }
      }
      break;
    }
  }
  Complete(inst, Status::Ok());
}

void NodeGroup::ReduceSlice(Instance& inst, uint64_t s) {
  if (s >= inst.local_ready.size() || inst.local_ready[s]) return;
  const ValidatedOp& o = *inst.ops[0];
  uint64_t elem = ipc::DTypeSize(o.dtype);
  uint64_t slice = std::max<uint64_t>(elem, options_.chunk_bytes / elem * elem);
  uint64_t off = s * slice, len = std::min(slice, inst.bytes - off);
  std::vector<const void*> in(inst.ops.size());
  for (size_t l = 0; l < in.size(); ++l) in[l] = inst.ops[l]->send + off;
  void* out = inst.buf + off;
  engine::ReduceInto(o.dtype, PartialOp(o.reduce_op), in.data(), static_cast<int>(in.size()), &out, 1, len / elem);
  inst.local_ready[s] = 1;
  --inst.local_left;
}

void NodeGroup::EnsureLocal(Instance& inst, uint64_t offset, uint64_t len) {
  if (inst.local_left == 0 || len == 0) return;
  const ValidatedOp& o = *inst.ops[0];
  uint64_t elem = ipc::DTypeSize(o.dtype);
  uint64_t slice = std::max<uint64_t>(elem, options_.chunk_bytes / elem * elem);
  for (uint64_t s = offset / slice; s * slice < offset + len; ++s) ReduceSlice(inst, s);
}

bool NodeGroup::Pump() {
  for (auto& [id, inst] : instances_) {
    if (inst.done || !inst.started || inst.local_left == 0) continue;
    // Walk backwards from the segment sent first: that is the order the ring needs them in.
    size_t n = inst.local_ready.size();
    for (size_t k = 0; k < n; ++k) {
      size_t s = (inst.local_cursor + n - k) % n;
      if (!inst.local_ready[s]) {
        ReduceSlice(inst, s);
        inst.local_cursor = s;
        return true;
      }
    }
  }
  return false;
}

void NodeGroup::StartRing(Instance& inst) {
  const ValidatedOp& o = *inst.ops[0];
  uint64_t elem = ipc::DTypeSize(o.dtype);
  size_t N = static_cast<size_t>(num_nodes_);
  inst.seg.resize(N + 1);
  for (size_t k = 0; k <= N; ++k) inst.seg[k] = (o.count * k / N) * elem;
  uint64_t chunk = std::max<uint64_t>(elem, options_.chunk_bytes / elem * elem);
  auto chunks_in = [&](size_t k) { return (inst.seg[k + 1] - inst.seg[k] + chunk - 1) / chunk; };
  size_t r = static_cast<size_t>(node_rank_);
  // Reduce-scatter receives every segment but our own, allgather every one but r + 1.
  inst.ring_chunks_left = 0;
  for (size_t k = 0; k < N; ++k) {
    if (k != r) inst.ring_chunks_left += chunks_in(k);
    if (k != (r + 1) % N) inst.ring_chunks_left += chunks_in(k);
  }
  int next = static_cast<int>((r + 1) % N);
  uint64_t slice = std::max<uint64_t>(elem, options_.chunk_bytes / elem * elem);
  inst.local_cursor = inst.seg[r] / slice;
  for (uint64_t off = inst.seg[r]; off < inst.seg[r + 1] && !inst.done; off += chunk) {
    uint64_t len = std::min(chunk, inst.seg[r + 1] - off);
    EnsureLocal(inst, off, len);
    SendTo(next, inst, PeerMsg::kRing, 0, off, inst.input + off, len);
  }
  std::vector<Instance::Early> early = std::move(inst.early);
  for (auto& e : early) {
    if (inst.done) break;
    OnRingChunk(inst, e.step, e.offset, e.bytes.data(), e.bytes.size());
  }
  if (!inst.done && inst.ring_chunks_left == 0) Complete(inst, Status::Ok());
}

void NodeGroup::OnRingChunk(Instance& inst, uint32_t step, uint64_t offset, const uint8_t* data, size_t len) {
  const ValidatedOp& o = *inst.ops[0];
  uint64_t elem = ipc::DTypeSize(o.dtype);
  uint32_t N = static_cast<uint32_t>(num_nodes_);
  if (o.kind == OpKind::kAllgather) {
    if (step >= N - 1 || len % elem != 0) return Complete(inst, ProtocolError("peer sent a bad allgather chunk"));
    return OnGatherChunk(inst, step, offset, data, len);
  }
  if (step >= 2 * (N - 1) || offset > inst.bytes || len > inst.bytes - offset || len % elem != 0) {
    return Complete(inst, ProtocolError("peer sent a ring chunk outside the buffer"));
  }
  if (o.kind == OpKind::kBroadcast) return OnChainChunk(inst, offset, data, len);
  int next = (node_rank_ + 1) % num_nodes_;
  uint8_t* dst = inst.buf + offset;
  if (step < N - 1) {
    EnsureLocal(inst, offset, len);
    const void* in[2] = {data, inst.input + offset};
    void* out = dst;
    engine::ReduceInto(o.dtype, PartialOp(o.reduce_op), in, 2, &out, 1, len / elem);
    if (step == N - 2 && o.reduce_op == ReduceOp::kAvg) {
      DivideInPlace(o.dtype, dst, len / elem, static_cast<int64_t>(N) * local_size_);
    }
    SendTo(next, inst, PeerMsg::kRing, step + 1, offset, dst, len);
  } else {
    if (data != dst) std::memcpy(dst, data, len);
    if (step < 2 * (N - 1) - 1) SendTo(next, inst, PeerMsg::kRing, step + 1, offset, dst, len);
  }
  if (inst.done) return;
  if (--inst.ring_chunks_left == 0) {
    for (size_t l = 1; l < inst.ops.size(); ++l) std::memcpy(inst.ops[l]->recv, inst.buf, inst.bytes);
    Complete(inst, Status::Ok());
  }
}

void NodeGroup::Complete(Instance& inst, const Status& st) {
  if (inst.done) return;
  inst.done = true;
  if (inst.started && inst.bytes > options_.direct_max_bytes) {
    uint64_t now = ipc::MonotonicNs();
    Logger("engine")->debug("job '{}' seq {}: {} bytes, agreement after {} us, done after {} us: {}", job_id_,
                            inst.seq, inst.bytes, inst.agreed_ns ? (inst.agreed_ns - inst.started_ns) / 1000 : 0,
                            (now - inst.started_ns) / 1000, st.ToString());
  }
  inst.result = st;
  inst.early.clear();
  // Sends may still read the clients' buffers (zero-copy): a successful op is reported only once
  // they are done, so a client never reuses memory a peer has not received yet. Failures are
  // reported at once; a peer that never acknowledges must not hang the clients.
  if (st.ok() && inst.sends_in_flight > 0) return;
  Notify(inst);
}

void NodeGroup::Notify(Instance& inst) {
  // An instance that failed before this node's ranks arrived stays until Start reports it.
  if (inst.notified || !inst.started) return;
  inst.notified = true;
  bool started = inst.started;
  uint64_t key = inst.key, seq = inst.seq;
  inst.ops.clear();
  std::vector<OpReport> reports;
  bool sparse = inst.sparse != nullptr;
  if (sparse) {
    reports = SparseReports(inst);
    for (OpReport& r : reports) {
      r.wire_bytes_sent = inst.wire_sent;
      r.wire_bytes_recv = inst.wire_recv;
    }
  }
  AgentMetrics& m = Metrics();
  if (m.enabled() && (inst.wire_sent != 0 || inst.wire_recv != 0)) {
    if (bytes_sent_ == nullptr) {
      std::string label = m.JobLabel(job_id_);
      bytes_sent_ = m.BytesCounter(label, "sent");
      bytes_recv_ = m.BytesCounter(label, "received");
    }
    bytes_sent_->Inc(static_cast<double>(inst.wire_sent));
    bytes_recv_->Inc(static_cast<double>(inst.wire_recv));
  }
  if (started) done_(key, seq, inst.result, sparse ? &reports : nullptr);
  MaybeErase(key, seq);
}

void NodeGroup::MaybeErase(uint64_t key, uint64_t seq) {
  auto it = instances_.find({key, seq});
  if (it != instances_.end() && it->second.notified && it->second.sends_in_flight == 0) instances_.erase(it);
}

void NodeGroup::FailAll(const Status& why) {
  std::vector<std::pair<uint64_t, uint64_t>> ids;
  for (auto& [id, inst] : instances_) ids.push_back(id);
  for (auto& id : ids) {
    auto it = instances_.find(id);
    if (it == instances_.end()) continue;
    if (it->second.done && !it->second.notified) {  // finished, still waiting for its sends
      it->second.result = why;
      Notify(it->second);
    } else {
      Complete(it->second, why);
    }
  }
}

std::string NodeGroup::WaitingFor(uint64_t key, uint64_t seq) const {
  auto it = instances_.find({key, seq});
  if (it == instances_.end()) return "";
  const Instance& inst = it->second;
  if (inst.done) return inst.sends_in_flight > 0 ? "sends to finish" : "";
  if (!ready()) return "rendezvous with the other nodes";
  std::string missing;
  for (int n = 0; n < num_nodes_; ++n) {
    if (!inst.fps[static_cast<size_t>(n)]) missing += (missing.empty() ? "" : ", ") + DescribeNode(n);
  }
  if (!missing.empty()) return "contributions of " + missing;
  if (inst.sparse && inst.sparse->exchange) return "sparse exchange messages";
  return inst.ring_chunks_left > 0 ? std::to_string(inst.ring_chunks_left) + " ring chunks" : "";
}

void NodeGroup::Abort(uint64_t key, uint64_t seq, const Status& why) {
  aborts_.emplace_back(key, seq, why);
  if (ready()) SendAborts();
}

void NodeGroup::SendAborts() {
  auto aborts = std::move(aborts_);
  for (auto& [key, seq, why] : aborts) {
    Instance& inst = Get(key, seq);
    if (inst.done) continue;
    inst.fp = Fingerprint{kAbortKind, 0, 0, 0, 0};
    inst.abort_text = why.message();
    for (int n = 0; n < num_nodes_ && !inst.done; ++n) {
      if (n != node_rank_) SendTo(n, inst, PeerMsg::kContrib, 0, 0, inst.abort_text.data(), inst.abort_text.size());
    }
    // This node's ranks already have their error; the instance only lives for its sends.
    inst.started = true;
    inst.done = inst.notified = true;
    MaybeErase(key, seq);
  }
}

void NodeGroup::SayJobLeft(int lost_node) {
  if (peers_.empty()) return;
  PeerHeader h{};
  h.magic = kPeerMagic;
  h.version = kPeerVersion;
  h.type = static_cast<uint16_t>(PeerMsg::kJobLeft);
  h.sender = self_hash_;
  h.job_hash = job_hash_;
  h.from_node = node_rank_;
  h.step = static_cast<uint32_t>(lost_node + 1);
  // No completion callback: the group may be gone by the time the send finishes.
  for (int n = 0; n < num_nodes_; ++n) {
    if (n == node_rank_) continue;
    h.offset = sent_to_[static_cast<size_t>(n)];
    (void)transport_->Send(peers_[static_cast<size_t>(n)], &h, sizeof(h), nullptr, 0, nullptr);
  }
}

}  // namespace outrider::agent
