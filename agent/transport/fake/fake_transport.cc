// In-process fake transport: one queue of messages and error reports, delivered by Step().
#include "agent/transport/fake/fake_transport.h"

#include <algorithm>
#include <cstring>

#include "base/check.h"
#include "ipc/event_fd.h"

namespace outrider::agent {

FakeTransport::FakeTransport(FakeNetwork* net, int index, Callbacks callbacks, UniqueFd efd)
    : net_(net),
      index_(index),
      address_(FakeNetwork::Address(index)),
      callbacks_(std::move(callbacks)),
      efd_(std::move(efd)) {}

FakeTransport::~FakeTransport() {
  if (net_ != nullptr) net_->Detach(index_);
}

Result<PeerId> FakeTransport::Connect(const std::string& remote_address) {
  const std::string prefix = "fake:";
  if (remote_address.rfind(prefix, 0) != 0 || remote_address.size() == prefix.size()) {
    return InvalidArgument("'" + remote_address + "' is not a fake transport address");
  }
  int index = 0;
  for (size_t i = prefix.size(); i < remote_address.size(); ++i) {
    char c = remote_address[i];
    if (c < '0' || c > '9' || index > 1'000'000) {
      return InvalidArgument("'" + remote_address + "' is not a fake transport address");
    }
    index = index * 10 + (c - '0');
  }
  if (net_ == nullptr || net_->Endpoint(index) == nullptr) {
    return Unavailable("no fake endpoint at '" + remote_address + "'");
  }
  connected_.insert(static_cast<PeerId>(index));
  return static_cast<PeerId>(index);
}

Status FakeTransport::Send(PeerId peer, Lane lane, const void* header, size_t header_len,
                           const void* data, size_t len, SendDone done) {
  if (net_ == nullptr || connected_.count(peer) == 0)
    return PeerLost("peer agent is not connected");
  int to = static_cast<int>(peer);
  if (net_->Broken(index_, to))
    return PeerLost("link to fake:" + std::to_string(to) + " is broken");
  FakeNetwork::Event e{false, index_, to, {}, {}, std::move(done)};
  e.lane = lane;
  const auto* h = static_cast<const uint8_t*>(header);
  e.header.assign(h, h + header_len);
  if (len > 0) {
    const auto* d = static_cast<const uint8_t*>(data);
    e.payload.assign(d, d + len);
  }
  net_->queue_.push_back(std::move(e));
  return Status::Ok();
}

void FakeTransport::Disconnect(PeerId peer) { connected_.erase(peer); }

FakeNetwork::~FakeNetwork() {
  for (FakeTransport* t : endpoints_) {
    if (t != nullptr) t->net_ = nullptr;
  }
}

std::unique_ptr<FakeTransport> FakeNetwork::Attach(Transport::Callbacks callbacks) {
  Result<UniqueFd> efd = ipc::CreateEventFd();
  OUTRIDER_CHECK(efd.ok());  // only fd exhaustion fails it: the test cannot go on
  int index = static_cast<int>(endpoints_.size());
  auto t = std::unique_ptr<FakeTransport>(
      new FakeTransport(this, index, std::move(callbacks), std::move(efd).value()));
  endpoints_.push_back(t.get());
  return t;
}

TransportFactory FakeNetwork::Factory() {
  return [this](Transport::Callbacks callbacks) -> Result<std::unique_ptr<Transport>> {
    return std::unique_ptr<Transport>(Attach(std::move(callbacks)));
  };
}

FakeTransport* FakeNetwork::Endpoint(int index) const {
  if (index < 0 || static_cast<size_t>(index) >= endpoints_.size()) return nullptr;
  return endpoints_[static_cast<size_t>(index)];
}

bool FakeNetwork::Broken(int a, int b) const {
  return broken_.count({std::min(a, b), std::max(a, b)}) != 0;
}

void FakeNetwork::Detach(int index) { endpoints_[static_cast<size_t>(index)] = nullptr; }

bool FakeNetwork::Step() {
  if (queue_.empty()) return false;
  // Moved out first: the callbacks below may send (growing the queue) or detach endpoints.
  Event e = std::move(queue_.front());
  queue_.pop_front();
  Process(std::move(e));
  return true;
}

template <typename Match>
bool FakeNetwork::StepFirst(Match match) {
  auto it = std::find_if(queue_.begin(), queue_.end(),
                         [&](const Event& e) { return !e.is_error && match(e); });
  if (it == queue_.end()) return false;
  Event e = std::move(*it);
  queue_.erase(it);
  Process(std::move(e));
  return true;
}

bool FakeNetwork::StepLink(int from, int to) {
  return StepFirst([&](const Event& e) { return e.from == from && e.to == to; });
}

bool FakeNetwork::StepLane(int from, int to, Lane lane) {
  return StepFirst([&](const Event& e) { return e.from == from && e.to == to && e.lane == lane; });
}

void FakeNetwork::Process(Event e) {
  if (e.lands) {  // the receiver's buffer is kept alive by e.landing until this returns
    std::memcpy(e.landing.data, e.payload.data(), e.payload.size());
    FakeTransport* to = Endpoint(e.to);
    if (to != nullptr && to->callbacks_.on_message) {
      to->callbacks_.on_message(e.lane, e.header.data(), e.header.size(), e.landing.data,
                                e.payload.size());
    }
    return;
  }
  if (e.is_error) {
    FakeTransport* at = Endpoint(e.to);
    if (at != nullptr && at->connected_.count(static_cast<PeerId>(e.from)) != 0 &&
        at->callbacks_.on_peer_error) {
      at->callbacks_.on_peer_error(static_cast<PeerId>(e.from),
                                   PeerLost("link to fake:" + std::to_string(e.from) + " broke"));
    }
    return;
  }
  Status sent = Status::Ok();
  bool deliver = true;
  if (Broken(e.from, e.to)) {
    sent = PeerLost("link to fake:" + std::to_string(e.to) + " broke");
    deliver = false;
  } else if (Endpoint(e.to) == nullptr) {
    sent = PeerLost("fake:" + std::to_string(e.to) + " detached");
    deliver = false;
  } else if (silenced_.count(e.from) != 0 || silenced_.count(e.to) != 0) {
    deliver = false;
  }
  // A detached sender's completions do not run: what they would touch may be gone with it.
  if (e.done && Endpoint(e.from) != nullptr) e.done(sent);
  FakeTransport* to = deliver ? Endpoint(e.to) : nullptr;  // looked up again: `done` may detach it
  if (to == nullptr || !to->callbacks_.on_message) return;
  const uint8_t* data = e.payload.data();
  RecvTarget target;  // held until on_message returns
  if (!e.payload.empty() && to->callbacks_.recv_buffer) {
    target = to->callbacks_.recv_buffer(e.header.data(), e.header.size(), e.payload.size());
    if (target.data != nullptr && land_later_) {
      queue_.push_back({false, e.from, e.to, std::move(e.header), std::move(e.payload), nullptr,
                        true, std::move(target), e.lane});
      return;
    }
    if (target.data != nullptr) {
      std::memcpy(target.data, e.payload.data(), e.payload.size());
      data = target.data;
    }
  }
  to->callbacks_.on_message(e.lane, e.header.data(), e.header.size(), data, e.payload.size());
}

size_t FakeNetwork::RunUntilIdle(size_t max_steps) {
  size_t steps = 0;
  while (steps < max_steps && Step()) ++steps;
  return steps;
}

std::vector<FakeNetwork::Envelope> FakeNetwork::InFlight() const {
  std::vector<Envelope> out;
  for (const Event& e : queue_) {
    if (!e.is_error) out.push_back({e.from, e.to, e.header, e.payload.size(), e.lands, e.lane});
  }
  return out;
}

void FakeNetwork::Break(int a, int b) {
  if (!broken_.insert({std::min(a, b), std::max(a, b)}).second) return;
  queue_.push_back({true, b, a, {}, {}, nullptr});
  queue_.push_back({true, a, b, {}, {}, nullptr});
}

void FakeNetwork::Silence(int a) { silenced_.insert(a); }

}  // namespace outrider::agent
