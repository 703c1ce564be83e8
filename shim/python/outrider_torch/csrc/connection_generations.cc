// The process's connection and its job's generations (docs/elastic.md): asking the agent where it
// stands, and moving into the next generation.
#include <chrono>
#include <string>
#include <thread>

#include "shim/python/outrider_torch/csrc/connection.h"
#include "shim/python/outrider_torch/csrc/gil.h"

namespace outrider::torch_backend {

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
