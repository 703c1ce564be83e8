// Fuzz target: sparse-collective messages from peer nodes, as whole messages (the node group
// reassembles chunks before an exchange sees them). The input sets up one node of a sparse op
// (algorithm, nodes, table shape, block size, this node's rows), starts its exchange, then feeds it
// messages from the other nodes. Every message must be taken or refused with an error; a finished
// exchange's result must be a valid row set of the table. A second mode decodes one payload
// against an id range and checks that what decodes re-encodes to the same rows.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <vector>

#include "agent/engine/sparse/codec.h"
#include "agent/engine/sparse/exchange.h"
#include "agent/log.h"
#include "base/check.h"
#include "fuzz/fuzz_input.h"
#include "fuzz/sparse_setup.h"

namespace outrider::fuzz {
namespace {

using namespace agent::sparse;

void CheckRows(const Rows& r, const Table& t, IdRange range) {
  OUTRIDER_CHECK(r.vals.size() == r.ids.size() * t.dim);
  for (size_t i = 0; i < r.ids.size(); ++i) {
    OUTRIDER_CHECK(r.ids[i] >= range.lo && r.ids[i] < range.hi);
    OUTRIDER_CHECK(i == 0 || r.ids[i] > r.ids[i - 1]);
  }
}

// Same ids and the same values, bit for bit; a NaN may come back as another NaN (converting to
// f16 or bf16 keeps NaNs NaN, not their payload).
bool SameRows(const Rows& a, const Rows& b) {
  if (a.ids != b.ids || a.vals.size() != b.vals.size()) return false;
  for (size_t i = 0; i < a.vals.size(); ++i) {
    bool both_nan = std::isnan(a.vals[i]) && std::isnan(b.vals[i]);
    if (!both_nan && std::memcmp(&a.vals[i], &b.vals[i], sizeof(float)) != 0) return false;
  }
  return true;
}

// Decodes `payload` against a range of the table and re-encodes what it got.
void FuzzCodec(FuzzInput& in, const Table& t, uint64_t block_rows) {
  uint64_t lo = in.Read<uint64_t>() % t.rows;
  uint64_t hi = lo + 1 + in.Read<uint64_t>() % (t.rows - lo);
  IdRange range{lo, hi};
  std::vector<uint8_t> payload = in.Rest();
  Result<Rows> rows = Decode(payload.data(), payload.size(), range, t, block_rows);
  if (!rows.ok()) return;
  CheckRows(*rows, t, range);
  for (Encoding enc : {Encoding::kSparse, Encoding::kBlocks, Encoding::kDense}) {
    uint64_t n = rows->size();
    if (enc == Encoding::kBlocks) n = CountBlocks(*rows, 0, rows->size(), block_rows);
    uint64_t bytes = EncodedBytes(enc, n, range, t, block_rows);
    if (bytes > (uint64_t{1} << 24))
      continue;  // a dense range this large is not this test's subject
    std::vector<uint8_t> again = Encode(enc, *rows, 0, rows->size(), range, t, block_rows);
    if (enc != Encoding::kBlocks) OUTRIDER_CHECK(again.size() == bytes);
    Result<Rows> back = Decode(again.data(), again.size(), range, t, block_rows);
    OUTRIDER_CHECK(back.ok());
    OUTRIDER_CHECK(SameRows(*rows, *back));
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
  SparseSetup setup = ReadSparseSetup(in);
  const Context& c = setup.ctx;
  if (setup.codec) {
    FuzzCodec(in, c.table, c.block_rows);
    return 0;
  }
  Rows mine = ReadRows(in, setup);
  IdRange own_shard = ShardPartitioning(c, ipc::ShardScheme::kRange).range(c.me);
  Table table = c.table;
  std::unique_ptr<Exchange> ex =
      MakeExchange(setup.algo, c, [own_shard, table](uint64_t id, float* dst) {
        // Peers may only ask this node for rows of its own shard.
        OUTRIDER_CHECK(id >= own_shard.lo && id < own_shard.hi);
        for (uint64_t k = 0; k < table.dim; ++k) dst[k] = static_cast<float>(k);
      });
  std::vector<Outgoing> out;
  ex->Start(std::move(mine), &out);
  ex->Pull(&out);
  while (!in.empty()) {
    for (const Outgoing& o : out)
      OUTRIDER_CHECK(o.node >= 0 && o.node < c.nodes && o.node != c.me && o.bytes);
    out.clear();
    int from = in.Read<uint8_t>() % c.nodes;
    if (from == c.me) from = (from + 1) % c.nodes;
    uint32_t phase = in.Read<uint8_t>() % 4;
    std::vector<uint8_t> msg = in.Bytes(1 << 16);
    Status st = ex->OnMessage(from, phase, msg.data(), msg.size(), &out);
    if (!st.ok()) {
      OUTRIDER_CHECK(st.code() == Code::kProtocol);
      break;  // the instance fails here: its node group sends this exchange nothing more
    }
    ex->Pull(&out);  // what it held back, as its sender would take it
  }
  if (ex->done()) CheckRows(ex->result(), c.table, IdRange{0, c.table.rows});
  return 0;
}
