// The one comparison of collective shapes, used twice: by a job among its local ranks and by the
// node group among nodes. Both name both sides of the first field that differs.
#pragma once

#include <optional>
#include <string>

#include "agent/engine/op.h"
#include "agent/net/peer_protocol.h"

namespace outrider::agent {

// The op's shape; fields that do not apply to its kind are zero.
Fingerprint FingerprintOf(const ValidatedOp& op);

struct Disagreement {
  std::string field;  // "dtype", "count", "dim", "reduce op", "root", "rows", "algorithm", ...
  std::string a, b;   // the two values, as a person would write them
};
// The first field in which `b` differs from `a`, in the order kind, dtype, count, reduce op,
// root, memory (GPU on the agents' NCCL, or host), rows, algorithm.
std::optional<Disagreement> Compare(const Fingerprint& a, const Fingerprint& b);

// "<kind> key 0x.. seq N in job 'j': ranks disagree on <field>: <who_a> has <a>, <who_b> has <b>".
std::string DisagreementMessage(const Fingerprint& a, uint64_t key, uint64_t seq,
                                const std::string& job_id, const Disagreement& d,
                                const std::string& who_a, const std::string& who_b);

}  // namespace outrider::agent
