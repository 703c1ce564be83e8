// The agent port as anyone on the network may use it, against a real agent: generation requests
// that are not what an agent sends (fields out of range, truncated, another version, JSON), frames
// without the job's token, connections that hold part of a frame, a flood of forged reports and
// running out of fds. The agent answers or drops each one, keeps serving its jobs, and gives back
// what they took.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "agent/bootstrap/frame_io.h"
#include "agent/bootstrap/rendezvous_frame.h"
#include "agent/membership/wire.h"
#include "ipc/event_fd.h"
#include "ipc/unique_fd.h"
#include "tests/support/test_support.h"

namespace outrider::testing {
namespace {

namespace rdv = agent::rendezvous;
namespace m = agent::membership;
using Answer = std::optional<m::ReformDecision>;

std::string JoinerAsk() {
  m::ReformRequest r;
  r.joiner = true;
  return m::EncodeReformRequest(r);
}

// Node 0's report of rank `rank` for generation 0.
std::string NodeReport(int32_t rank) {
  m::ReformRequest r;
  r.node = 0;
  r.ranks = {rank};
  return m::EncodeReformRequest(r);
}

std::string With(std::string body, size_t offset, uint32_t v, size_t width) {
  std::memcpy(body.data() + offset, &v, width);
  return body;
}

UniqueFd ConnectPort(uint16_t port) {
  UniqueFd fd = ConnectLoopback(port);
  EXPECT_TRUE(fd.valid()) << std::strerror(errno);
  return fd;
}

// Sends a request for job `job`'s next generation with `token` and `body`; the agent's answer
// (none if it sent none within 5 s or something that is not an answer).
Answer Ask(uint16_t port, const std::string& job, const std::string& token,
           const std::string& body) {
  UniqueFd fd = ConnectPort(port);
  agent::JobShape shape{job, token, 0, 0};
  std::string frame = rdv::Encode(rdv::kReform, shape, 0, {body});
  uint64_t deadline = ipc::MonotonicNs() + 5'000'000'000ull;
  if (!agent::frame_io::WriteAll(fd.get(), frame, -1, deadline).ok()) return std::nullopt;
  Result<rdv::Frame> reply = agent::frame_io::ReadFrame(fd.get(), -1, deadline);
  if (!reply.ok() || reply->header.type != rdv::kReformResult || reply->blobs.size() != 1)
    return std::nullopt;
  Result<m::ReformDecision> d = m::ParseReformDecision(reply->blobs[0]);
  if (!d.ok()) return std::nullopt;
  return *d;
}

// A one-rank job held open by a child process until released; its allreduce then must complete
// within 10 s.
class HeldJob {
 public:
  HeldJob(const std::string& socket, const std::string& job, const std::string& token) {
    pid_ = Spawn([&] {
      ::setenv("OUTRIDER_JOB_TOKEN", token.c_str(), 1);
      outrider_client_t* c = ConnectOrExit(socket, job, 0, 1);
      connected_.Send('c');
      char go;
      if (!release_.Receive(&go, 60000)) return 8;
      auto* x = static_cast<float*>(outrider_alloc(c, 4));
      *x = 2.0f;
      outrider_op_t h;
      int e = outrider_allreduce(c, x, x, 1, OUTRIDER_F32, OUTRIDER_SUM, nullptr, &h);
      if (e == OUTRIDER_OK) e = outrider_wait(c, h, 10000);
      int rc = e == OUTRIDER_OK && *x == 2.0f ? 0 : 10 + e;
      outrider_disconnect(c);
      return rc;
    });
    char c;
    EXPECT_TRUE(connected_.Receive(&c, 10000)) << "the trainer did not connect";
  }
  // Lets the trainer run its op; its exit code.
  int Finish() {
    release_.Send('g');
    return Reap(pid_);
  }

 private:
  Pipe connected_, release_;
  pid_t pid_;
};

std::unique_ptr<harness::AgentProcess> StartPortAgent(uint16_t* port) {
  *port = FreePort();
  return StartAgent({"--port", std::to_string(*port), "--listen-address", "127.0.0.1"});
}

TEST(AgentPortTest, MalformedRequestsAreAnsweredAndTheAgentCarriesOn) {
  uint16_t port = 0;
  auto agent = StartPortAgent(&port);
  ASSERT_NE(agent, nullptr);
  HeldJob job(agent->socket_path(), "victim", "tok");
  // Offsets in a request (agent/membership/wire.h): version 4, joiner 8, timeout_ms 19, count 23.
  std::string report = NodeReport(0);
  std::string bodies[] = {
      With(report, 19, 0, 4),            // timeout_ms 0
      With(report, 8, 7, 1),             // joiner neither 0 nor 1
      With(report, 23, 1u << 20, 4),     // more ranks than the body holds
      With(report, 4, 99, 2),            // another version
      report.substr(0, 20),              // truncated
      report + "trailing",               // bytes after the message
      R"({"kind":"node","ranks":[0]})",  // what agents once sent
      "",
  };
  for (const std::string& body : bodies) {
    Answer a = Ask(port, "victim", "tok", body);
    ASSERT_TRUE(a.has_value()) << "no answer (the agent died?)";
    EXPECT_EQ(a->status_code(), Code::kProtocol) << a->message;
    EXPECT_NE(a->message.find("malformed"), std::string::npos) << a->message;
  }
  EXPECT_EQ(job.Finish(), 0);
  EXPECT_EQ(::kill(agent->pid(), 0), 0);
}

TEST(AgentPortTest, ARequestWithoutTheJobsTokenIsRefusedUnread) {
  uint16_t port = 0;
  auto agent = StartPortAgent(&port);
  ASSERT_NE(agent, nullptr);
  // A single-node job keeps its token too.
  HeldJob job(agent->socket_path(), "solo", "secret");
  for (const char* token : {"", "guess"}) {
    Answer a = Ask(port, "solo", token, "not even a request");
    ASSERT_TRUE(a.has_value()) << token;
    EXPECT_EQ(a->status_code(), Code::kPermissionDenied) << a->message;
    EXPECT_NE(a->message.find("wrong job token"), std::string::npos) << a->message;
  }
  // A forged report for the job's generation is not counted: the job's own next step runs.
  Answer a = Ask(port, "solo", "", NodeReport(5));
  ASSERT_TRUE(a.has_value());
  EXPECT_EQ(a->status_code(), Code::kPermissionDenied) << a->message;
  EXPECT_EQ(job.Finish(), 0);
}

TEST(AgentPortTest, HeldConnectionsAndForgedReportsNeitherStallNorBloatTheAgent) {
  uint16_t port = 0;
  auto agent = StartPortAgent(&port);
  ASSERT_NE(agent, nullptr);
  HeldJob job(agent->socket_path(), "busy", "tok");
  int baseline = CountOpenFds(agent->pid());
  // 64 connections that send a frame's length and a few bytes, then nothing: each would once
  // have held the agent's loop for 2 s.
  std::vector<UniqueFd> held;
  std::string part = rdv::Encode(rdv::kJoin, agent::JobShape{"busy", "tok", 2, 1}, 1, {"a"});
  for (int i = 0; i < 64; ++i) {
    held.push_back(ConnectPort(port));
    ASSERT_EQ(::send(held.back().get(), part.data(), 12, MSG_NOSIGNAL), 12);
  }
  // 1,000 forged reports, each answered.
  int refused = 0;
  for (int i = 0; i < 1000; ++i) {
    Answer a = Ask(port, "busy", "forged", JoinerAsk());
    refused += a.has_value() && a->status_code() == Code::kPermissionDenied;
  }
  EXPECT_EQ(refused, 1000);
  // The job's op completes while they are held (within its 10 s wait).
  EXPECT_EQ(job.Finish(), 0);
  // Once they are gone, so are their fds.
  held.clear();
  uint64_t deadline = ipc::MonotonicNs() + 10'000'000'000ull;
  while (CountOpenFds(agent->pid()) > baseline && ipc::MonotonicNs() < deadline)
    ::poll(nullptr, 0, 20);
  EXPECT_LE(CountOpenFds(agent->pid()), baseline);
}

TEST(AgentPortTest, OutOfFileDescriptorsThePortShedsConnectionsInsteadOfSpinning) {
  uint16_t port = 0;
  auto agent = StartPortAgent(&port);
  ASSERT_NE(agent, nullptr);
  rlimit old{};
  ASSERT_EQ(::prlimit(agent->pid(), RLIMIT_NOFILE, nullptr, &old), 0) << std::strerror(errno);
  rlimit lim{static_cast<rlim_t>(CountOpenFds(agent->pid())) + 4, old.rlim_max};
  ASSERT_EQ(::prlimit(agent->pid(), RLIMIT_NOFILE, &lim, nullptr), 0) << std::strerror(errno);
  std::vector<UniqueFd> conns;
  for (int i = 0; i < 40; ++i) conns.push_back(ConnectPort(port));
  uint64_t deadline = ipc::MonotonicNs() + 10'000'000'000ull;
  while (agent->ReadLog().find("agent port: out of fds") == std::string::npos &&
         ipc::MonotonicNs() < deadline) {
    ::poll(nullptr, 0, 10);
  }
  ASSERT_NE(agent->ReadLog().find("agent port: out of fds"), std::string::npos);
  // A spinning loop would burn the whole interval.
  double before = CpuSeconds(agent->pid());
  ::poll(nullptr, 0, 500);
  EXPECT_LT(CpuSeconds(agent->pid()) - before, 0.2) << "the agent spins at the fd limit";
  conns.clear();
  ASSERT_EQ(::prlimit(agent->pid(), RLIMIT_NOFILE, &old, nullptr), 0) << std::strerror(errno);
  // The port answers again.
  Answer a = Ask(port, "nobody", "", JoinerAsk());
  ASSERT_TRUE(a.has_value());
  EXPECT_TRUE(a->absent) << a->message;
}

}  // namespace
}  // namespace outrider::testing
