// One connected client: its socket (the client's lease), control segment with SQ/CQ rings,
// eventfds, and the memory regions it registered.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "agent/control/control_options.h"
#include "agent/control/entry_validator.h"
#include "agent/control/fence_segment.h"
#include "agent/control/session_limits.h"
#include "agent/engine/device_path.h"
#include "agent/engine/job.h"
#include "agent/engine/member.h"
#include "agent/engine/op_report.h"
#include "agent/membership/reformer.h"
#include "agent/memory/region_table.h"
#include "ipc/memfd.h"
#include "ipc/protocol.h"
#include "ipc/ring.h"
#include "ipc/unix_channel.h"

namespace outrider::agent {

class JobTable;
class Session;

// The client as a member of one of its job's communicators: a job of its own in the agents,
// whose results go back through the client's session.
class CommMember final : public Member {
 public:
  CommMember(Session* session, ClientIdentity id) : session_(session), id_(std::move(id)) {}
  const ClientIdentity& identity() const override { return id_; }
  void Complete(uint64_t op_id, const Status& status, uint64_t seq, uint64_t agent_ns,
                const OpReport* report = nullptr) override;
  void Partial(uint64_t op_id, uint64_t seq, uint64_t agent_ns, const OpReport& report) override;
  void Moved(uint64_t op_id, uint64_t seq) override;
  bool ComesBackHandedOver() const override;
  size_t in_flight() const { return in_flight_; }
  void Submitted() { ++in_flight_; }

 private:
  Session* session_;  // Not owned; owns this member.
  ClientIdentity id_;
  size_t in_flight_ = 0;
};

// One class in one file (session.cc, ~670 lines): its control messages, its submission ring and its
// completions share the client's regions, fences, memberships and in-flight count, and closing the
// session must see all of them. Ops on GPU memory pass its gate (engine/device_path.h).
// Thread-safety: loop thread only.
class Session final : public Member {
 public:
  // Receives the client's validated ops and the member (the session itself, or one of its
  // communicator memberships) that submitted each; the sink completes them (now or later).
  using OpSink = std::function<void(Member*, const ValidatedOp&)>;
  // Most communicators one client may belong to at once.
  static constexpr size_t kMaxComms = 4096;

  Session(ClientIdentity id, ipc::UnixChannel channel, UniqueFd control_fd, ipc::Mapping control,
          UniqueFd sq_efd, UniqueFd cq_efd, SessionLimits limits);
  ~Session() override;

  const ClientIdentity& identity() const override { return id_; }
  int socket_fd() const { return channel_.fd(); }
  int sq_efd() const { return sq_efd_.get(); }
  bool closed() const { return closed_; }
  uint16_t protocol() const { return protocol_; }  // the client's protocol version
  const Status& close_reason() const { return close_reason_; }
  // The client said goodbye before its connection closed (it left in order, not by dying).
  bool left_in_order() const { return client_goodbye_; }
  size_t region_count() const { return regions_.size(); }
  uint64_t region_bytes() const { return regions_.bytes(); }
  // Ops taken from the ring and not completed (held for a fence, in a job, or running).
  size_t in_flight() const { return in_flight_; }

  // Sends a message on the client's socket (handshake replies).
  Status Send(const void* data, size_t bytes, const int* fds, size_t num_fds) {
    return channel_.Send(data, bytes, fds, num_fds);
  }
  // Handles one control message from the socket. Closes the session on EOF or protocol abuse.
  void OnSocketReadable();
  // Pops, validates and hands every queued submission to `sink`; invalid ones complete with
  // an error at once. Returns true if it found any entry.
  bool DrainSubmissions(const OpSink& sink);
  // Hands `sink` the ops that waited for a fence (ipc::FenceSlot) once it is ready, and those
  // submitted after one, in submission order; fails (DEADLINE_EXCEEDED, fence signalled) a fenced
  // op still not ready `timeout_ns` after it was submitted (0: it waits for good). Whether any op
  // moved.
  bool ReleaseFenced(const OpSink& sink, uint64_t now_ns, uint64_t timeout_ns);
  // Ops are waiting for a fence: the agent polls (the client's stream writes fences without
  // waking it).
  bool has_fenced_waits() const { return !waiting_.empty() || !staged_.empty(); }
  // Posts a completion and wakes the client if it sleeps.
  void Complete(uint64_t op_id, const Status& status, uint64_t seq, uint64_t agent_ns,
                const OpReport* report = nullptr) override;
  // Posts a partial completion: the op's demanded rows are in its output; Complete follows.
  void Partial(uint64_t op_id, uint64_t seq, uint64_t agent_ns, const OpReport& report) override;
  // An op on GPU memory the client staged itself goes back too: its stream waits on its fence,
  // which the next agent signals (AdoptFences); one whose inputs this agent imported fails.
  void Moved(uint64_t op_id, uint64_t seq) override;
  // The client's fences are in `segment` from now on, not in this session's control segment.
  void AdoptFences(FenceSegment segment);
  // Its job across nodes is handed over: the goodbye says so (ipc::kGoodbyeHandedOver).
  void HandedOver() override { handed_over_ = true; }
  bool ComesBackHandedOver() const override { return protocol_ >= 13; }

  bool PrepareSleep() { return closed_ || sq_.PrepareSleep(); }
  void FinishSleep() {
    if (!closed_) sq_.FinishSleep();
  }
  // Tells the client why the agent is dropping it (best effort, once). Sent before the failed
  // completions at shutdown, so a client that wakes for them already sees the reason.
  void SayGoodbye(const Status& reason);

  // Says goodbye (if not yet) and marks the session closed; the owner destroys it later.
  void Close(const Status& reason);

  // Lets the client create communicators: members join and leave them in `jobs`. Without it,
  // kCommCreate is refused. `generations` re-form the client's job (null: kReform is refused).
  // `comms_in_use` counts the memberships of every client (options->max_communicators bounds
  // it); it outlives the session.
  void EnableComms(JobTable* jobs, membership::Reformer* generations,
                   const ControlServerOptions* options, size_t* comms_in_use) {
    jobs_ = jobs;
    generations_ = generations;
    options_ = options;
    comms_in_use_ = comms_in_use;
  }
  // Where the client's ops on GPU memory go (its gate is made on the first; null: they are
  // refused). Not owned; outlives the session.
  void set_device_path(DevicePath* devices) { devices_ = devices; }
  // The client's communicator memberships (to leave their jobs when the client goes).
  std::vector<CommMember*> comms() const;
  // The client's membership of its job's current generation once the job re-formed (null before:
  // the session itself is the member, of generation 0).
  CommMember* generation_member() const { return world_.get(); }
  // The client as a member of its job now: the generation's membership, or the session itself
  // (a joiner that has not joined yet: null).
  Member* world() const;
  // Every job the client is or was in through this session (while one is busy, the client's
  // memory is still in use).
  std::vector<std::string> job_ids() const;
  const ClientIdentity& world_identity() const {
    return world_ != nullptr ? world_->identity() : id_;
  }
  // The session itself is a member of generation 0 (a joiner never is; a client that moved to
  // a later generation no longer is).
  bool in_first_generation() const { return in_first_generation_; }
  size_t comm_count() const { return comms_.size(); }

 private:
  void Post(const ipc::CompletionEntry& c);
  // Completes an op that names no job of this client (an unknown communicator).
  void Refuse(uint64_t op_id, const Status& why);
  // Refuses an op of `member` (counted in flight) before the sink saw it: its job fails the
  // instance on every rank and completes the op with `why`.
  void RefuseToJob(Member* member, const Job::RefusedOp& op, const Status& why);
  void HandleRegister(const ipc::RegisterRegion& msg, std::vector<UniqueFd> fds);
  void HandleRelease(const ipc::ReleaseRegion& msg);
  void HandleCommCreate(const ipc::CommCreate& msg);
  void HandleCommDestroy(const ipc::CommDestroy& msg);
  void HandleReform(const ipc::Reform& msg);
  void ReplyReform(uint32_t request_id, const Status& st, uint32_t joiners);
  // Moves the client into its job's next generation as `a` says.
  Status EnterGeneration(const membership::ReformAssignment& a);
  void ReplyRegion(uint32_t request_id, ipc::MsgType type, const Status& st, uint32_t region_id);
  void FlushOverflow();
  // The op's completion, once its outputs are where the client reads them (`flags`:
  // ipc::kCompletion*).
  void Finished(uint64_t op_id, const Status& status, uint64_t seq, uint64_t agent_ns,
                const OpReport* report, uint32_t flags = 0);
  // What the gate makes of `op` (of `member`, on GPU memory) at the front of the queue.
  DeviceGate::Admission AdmitToDevice(const Member& member, const ValidatedOp& op, uint64_t now_ns,
                                      uint64_t since_ns, uint64_t timeout_ns);
  // The device side of `member`'s job, or null.
  JobDevice* DeviceOf(const Member& member) const;
  // Stores `code` then `op_id` (release) in the fence slot: the client's stream may go on.
  void SignalFence(uint32_t slot, uint64_t op_id, Code code);

  ClientIdentity id_;
  ipc::UnixChannel channel_;
  UniqueFd control_fd_;
  ipc::Mapping control_;
  UniqueFd sq_efd_;
  UniqueFd cq_efd_;
  SessionLimits limits_;
  // The client's protocol version (the control header says it): its messages come and go in it.
  uint16_t protocol_ = ipc::kProtocolVersion;
  ipc::RingConsumer<ipc::SubmitEntry> sq_;
  ipc::RingProducer<ipc::CompletionEntry> cq_;
  std::deque<ipc::CompletionEntry> overflow_;  // completions waiting for CQ space
  RegionTable regions_;
  uint64_t last_op_id_ = 0;
  // Ops handed to the sink and not completed yet. At most the CQ's capacity (what a well-behaved
  // shim keeps in flight), so one client cannot pile up unbounded pending work.
  size_t in_flight_ = 0;
  bool closed_ = false;
  bool said_goodbye_ = false;
  bool handed_over_ = false;  // HandedOver: the client comes back to the next agent as itself
  bool client_goodbye_ = false;
  Status close_reason_;
  JobTable* jobs_ = nullptr;                               // Not owned; set by EnableComms.
  membership::Reformer* generations_ = nullptr;            // Not owned; set by EnableComms.
  const ControlServerOptions* options_ = nullptr;          // Not owned; set by EnableComms.
  size_t* comms_in_use_ = nullptr;                         // Not owned; set by EnableComms.
  std::map<uint32_t, std::unique_ptr<CommMember>> comms_;  // by the id the client names them with
  uint32_t next_comm_ = 1;
  std::unique_ptr<CommMember> world_;  // the current generation's membership (after a re-form)
  // Memberships of generations and communicators the client left by re-forming: ops held in
  // waiting_ may still name them.
  std::vector<std::unique_ptr<CommMember>> retired_;
  bool in_first_generation_ = true;
  bool reforming_ = false;            // a kReform is being answered
  ipc::FenceSlot* fences_ = nullptr;  // in the control segment, or in adopted_fences_
  std::optional<FenceSegment> adopted_fences_;
  // A fenced op, or one submitted after a fenced op that still waits: the sink gets them in order.
  struct Waiting {
    Member* member = nullptr;
    ValidatedOp op{};
    bool fenced = false;
    uint32_t fence = 0;
    uint64_t since_ns = 0;
    // Refused when it came (`op` unused): its job is told when it reaches the front.
    Job::RefusedOp refusal{};
    Status refused{};
  };
  std::deque<Waiting> waiting_;
  std::unordered_map<uint64_t, uint32_t>
      fence_of_;                   // fenced ops until they complete: op id -> slot
  DevicePath* devices_ = nullptr;  // Not owned; set by set_device_path.
  // Ops the gate admitted as host copies, until their completions are handed on: only these
  // completions go through the gate.
  std::unordered_set<uint64_t> staged_;
  // Its ops on GPU memory, from the front of waiting_ until their outputs are back (made on the
  // first; declared last: it waits for copies still running, before the regions go).
  std::unique_ptr<DeviceGate> gate_;
};

}  // namespace outrider::agent
