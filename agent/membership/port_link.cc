// The job generations over the agents' port (port_link.h).
#include "agent/membership/port_link.h"

#include <sys/socket.h>

#include <cerrno>

#include "agent/bootstrap/frame_io.h"
#include "agent/bootstrap/rendezvous_frame.h"
#include "agent/membership/reformer.h"

namespace outrider::agent::membership {
namespace {

// A request's connection, held by the Reformer until it answers.
class FdResponder final : public Responder {
 public:
  FdResponder(RendezvousServer* server, UniqueFd fd) : server_(server), fd_(std::move(fd)) {}
  void Answer(const ReformDecision& d) override {
    Send(rendezvous::kReformResult, EncodeReformDecision(d));
  }
  void Redirect(const std::string& agent) override { Send(rendezvous::kRedirect, agent); }
  bool Closed() const override {
    if (!fd_.valid()) return true;
    char c;
    ssize_t n = ::recv(fd_.get(), &c, 1, MSG_PEEK | MSG_DONTWAIT);
    return n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR);
  }

 private:
  void Send(rendezvous::FrameType type, const std::string& blob) {
    if (!fd_.valid()) return;
    JobShape none;
    server_->Reply(std::move(fd_), rendezvous::Encode(type, none, 0, {blob}));
  }
  RendezvousServer* server_;
  UniqueFd fd_;
};

class FrameCallHandle final : public Call {
 public:
  explicit FrameCallHandle(std::unique_ptr<FrameCall> call) : call_(std::move(call)) {}
  void HalfClose() override { call_->HalfClose(); }

 private:
  std::unique_ptr<FrameCall> call_;
};

// What another agent's reply frame says.
Result<CallAnswer> ReadAnswer(Result<FrameReply> r) {
  if (!r.ok()) return r.status();
  CallAnswer a;
  if (r->type == rendezvous::kRedirect && r->blobs.size() == 1 && !r->blobs[0].empty()) {
    a.redirect = r->blobs[0];
    return a;
  }
  if (r->type != rendezvous::kReformResult || r->blobs.size() != 1)
    return ProtocolError("not a decision (frame type " + std::to_string(r->type) + ")");
  OUTRIDER_ASSIGN_OR_RETURN(a.decision, ParseReformDecision(r->blobs[0]));
  return a;
}

}  // namespace

PortLink::~PortLink() { server_->set_generation_frames(nullptr); }

void PortLink::Serve(Reformer* reformer) {
  reformer_ = reformer;
  server_->set_generation_frames(reformer != nullptr ? this : nullptr);
}

std::unique_ptr<Call> PortLink::Ask(const std::string& agent, const std::string& base,
                                    const std::string& token, const ReformRequest& request,
                                    uint32_t timeout_ms,
                                    std::function<void(Result<CallAnswer>)> done) {
  JobShape shape{base, token, 0, 0};
  std::string frame =
      rendezvous::Encode(rendezvous::kReform, shape, request.node, {EncodeReformRequest(request)});
  return std::make_unique<FrameCallHandle>(std::make_unique<FrameCall>(
      loop_, agent, std::move(frame), timeout_ms,
      [done = std::move(done)](Result<FrameReply> r) { done(ReadAnswer(std::move(r))); }));
}

std::unique_ptr<Call> PortLink::Withdraw(const std::string& root, const std::string& id,
                                         const std::string& token, const Status& why,
                                         int32_t node_left) {
  JobShape shape{id, token, 0, 0};
  std::vector<std::string> blobs = {why.message()};
  if (node_left >= 0) blobs.push_back(std::to_string(node_left));
  return std::make_unique<FrameCallHandle>(std::make_unique<FrameCall>(
      loop_, root, rendezvous::Encode(rendezvous::kWithdraw, shape, 0, blobs), 5000,
      [](const Result<FrameReply>&) {}));
}

void PortLink::OnReformFrame(const std::string& job_id, const std::string& token, std::string body,
                             UniqueFd fd, const std::string& local, const std::string& peer_host) {
  reformer_->OnRequest(job_id, token, std::move(body),
                       std::make_unique<FdResponder>(server_, std::move(fd)), local, peer_host);
}

bool PortLink::Vouches(const std::string& id, const std::string& token) {
  return reformer_->Vouches(id, token);
}

void PortLink::OnNodeLeft(const std::string& id, int32_t node) {
  reformer_->NoteNodeLeft(id, node);
}

}  // namespace outrider::agent::membership
