// An in-process network of Transport endpoints for unit tests. Every message waits in one queue
// and moves only when the test calls Step(), so a test decides the order of deliveries, breaks
// links and hangs peers without sockets, threads or sleeps.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "agent/transport/transport.h"
#include "agent/transport/transport_factory.h"
#include "base/status.h"
#include "ipc/unique_fd.h"

namespace outrider::agent {

class FakeNetwork;

// One endpoint of a FakeNetwork, made by FakeNetwork::Attach(). Its address is "fake:<index>" and
// Connect("fake:<i>") returns PeerId i. Callbacks run only from FakeNetwork::Step(), never from
// Send() or Progress(), as the Transport contract requires ("always later").
// Thread-safety: the thread that drives its FakeNetwork only.
class FakeTransport : public Transport {
 public:
  ~FakeTransport()
      override;  // detaches: messages still queued to it are failed, its own sends' done never run

  int index() const { return index_; }
  const std::string& address() const override { return address_; }
  // Succeeds for the address of an attached endpoint (itself included).
  Result<PeerId> Connect(const std::string& remote_address) override;
  // Copies header and payload now (the caller may reuse both at once). PeerLost if `peer` is not
  // connected (never, or since Disconnect()) or the link is broken; `done` then never runs.
  Status Send(PeerId peer, Lane lane, const void* header, size_t header_len, const void* data,
              size_t len, SendDone done) override;
  // Sends to `peer` fail from now on and its errors are no longer reported; messages already
  // queued still travel.
  void Disconnect(PeerId peer) override;
  // An eventfd that never becomes readable: the test delivers with FakeNetwork::Step().
  int event_fd() const override { return efd_.get(); }
  bool Progress() override { return false; }
  bool Arm() override { return true; }

 private:
  friend class FakeNetwork;
  FakeTransport(FakeNetwork* net, int index, Callbacks callbacks, UniqueFd efd);

  FakeNetwork* net_;  // Not owned; null once the network is gone.
  int index_;
  std::string address_;
  Callbacks callbacks_;
  UniqueFd efd_;
  std::set<PeerId> connected_;
};

// Thread-safety: one thread (the test's). Endpoints may outlive the network: they then refuse
// every send.
class FakeNetwork {
 public:
  FakeNetwork() = default;
  FakeNetwork(const FakeNetwork&) = delete;
  FakeNetwork& operator=(const FakeNetwork&) = delete;
  ~FakeNetwork();

  static std::string Address(int index) { return "fake:" + std::to_string(index); }

  // A new endpoint with the next index (0, 1, ...); `callbacks` receive what is delivered to it.
  std::unique_ptr<FakeTransport> Attach(Transport::Callbacks callbacks);
  // Attach() as a factory, for Network::Create. The network must outlive what it makes.
  TransportFactory Factory();

  // Takes the oldest queued event and returns true, or returns false if there is none:
  //  - a message: the sender's SendDone runs first (Ok, or PeerLost if the link broke or the
  //    receiver detached), then the receiver's on_message, into the buffer its recv_buffer
  //    offers for a non-empty payload (or into one of the network's own);
  //  - a message from or to a silenced endpoint: SendDone runs with Ok (the bytes left the
  //    sender) and nothing is delivered;
  //  - a broken link's error: on_peer_error at one endpoint, if it is still connected to the other.
  bool Step();
  // Step() for the oldest queued message from `from` to `to` only (either lane), or false if
  // there is none. Each link's lanes stay in order; the network as a whole need not (as with real
  // links).
  bool StepLink(int from, int to);
  // StepLink() for the messages of one lane only: the other lane's wait (as behind bulk bytes).
  bool StepLane(int from, int to, Lane lane);
  // Steps until nothing is queued or `max_steps` were taken; returns the steps taken.
  size_t RunUntilIdle(size_t max_steps = 1000000);
  // Queued messages and error reports.
  size_t queued() const { return queue_.size(); }

  // A queued message as the receiver would see it.
  struct Envelope {
    int from;
    int to;
    std::vector<uint8_t> header;
    size_t payload_len;
    bool landing = false;  // its buffer is taken; its bytes are still to land (LandLater)
    Lane lane = Lane::kBulk;
  };
  // The queued messages, oldest first (error reports left out).
  std::vector<Envelope> InFlight() const;

  // The link between a and b breaks for good: queued and later sends between them fail, and each
  // side's on_peer_error runs (from Step, after what is already queued) for the other.
  void Break(int a, int b);
  // `a` hangs for good: everything it sends or is sent vanishes on delivery, with SendDone Ok,
  // and no error is reported, so only a liveness deadline can notice.
  void Silence(int a);
  // From now on a payload that a receiver's recv_buffer places lands in two steps, as a
  // rendezvous transfer does: the step that delivers the message takes the buffer (and its
  // keep-alive), and the bytes land, followed by on_message, at a later step (queued behind
  // what is queued then), whatever happened to the receiver in between.
  void LandLater() { land_later_ = true; }

 private:
  friend class FakeTransport;
  struct Event {
    bool is_error;  // an on_peer_error report at `to` about `from`, else a message
    int from;
    int to;
    std::vector<uint8_t> header;
    std::vector<uint8_t> payload;
    Transport::SendDone done;
    bool lands = false;    // the bytes of a message whose buffer was taken earlier (LandLater)
    RecvTarget landing{};  // that buffer, held until they have landed and on_message returned
    Lane lane = Lane::kBulk;
  };
  // Takes the oldest queued message that `match` accepts; false if there is none.
  template <typename Match>
  bool StepFirst(Match match);
  // Delivers (or reports) one event taken off the queue.
  void Process(Event e);
  FakeTransport* Endpoint(int index) const;
  bool Broken(int a, int b) const;
  void Detach(int index);

  std::vector<FakeTransport*> endpoints_;  // by index; null once detached. Not owned.
  std::deque<Event> queue_;
  std::set<std::pair<int, int>> broken_;  // (smaller index, larger index)
  std::set<int> silenced_;
  bool land_later_ = false;
};

}  // namespace outrider::agent
