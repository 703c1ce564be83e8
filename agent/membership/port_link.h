// The job generations' link to other agents over the agents' port: requests and answers ride in
// rendezvous frames (kReform, kReformResult, kRedirect, kWithdraw: agent/bootstrap/
// rendezvous_frame.h) with wire.h's bodies. It serves the port's generation frames to a Reformer
// (bootstrap's GenerationFrames) and carries the Reformer's calls (ports.h's PeerLink).
// Thread-safety: loop thread only.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "agent/bootstrap/rendezvous.h"
#include "agent/event_loop.h"
#include "agent/membership/ports.h"

namespace outrider::agent::membership {

class Reformer;

class PortLink final : public PeerLink, public GenerationFrames {
 public:
  // Neither is owned; both outlive this.
  PortLink(EventLoop* loop, RendezvousServer* server) : loop_(loop), server_(server) {}
  // Stops serving the port's frames.
  ~PortLink() override;
  PortLink(const PortLink&) = delete;
  PortLink& operator=(const PortLink&) = delete;
  // Serves the port's generation frames to `reformer` (not owned; unset with null before it goes).
  void Serve(Reformer* reformer);

  uint16_t port() const override { return server_->port(); }
  std::unique_ptr<Call> Ask(const std::string& agent, const std::string& base,
                            const std::string& token, const ReformRequest& request,
                            uint32_t timeout_ms,
                            std::function<void(Result<CallAnswer>)> done) override;
  std::unique_ptr<Call> Withdraw(const std::string& root, const std::string& id,
                                 const std::string& token, const Status& why,
                                 int32_t node_left) override;
  void Abandon(const std::string& id, const Status& why) override { server_->Abandon(id, why); }

  void OnReformFrame(const std::string& job_id, const std::string& token, std::string body,
                     UniqueFd fd, const std::string& local, const std::string& peer_host) override;
  bool Vouches(const std::string& id, const std::string& token) override;
  void OnNodeLeft(const std::string& id, int32_t node) override;

 private:
  EventLoop* loop_;
  RendezvousServer* server_;
  Reformer* reformer_ = nullptr;
};

}  // namespace outrider::agent::membership
