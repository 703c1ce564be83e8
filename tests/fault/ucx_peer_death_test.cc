// A peer killed while this process has a large send partly written to it, with UCX configured as
// the agent configures it (ConfigureUcxEnvironment): the send fails and the endpoint reports the
// error; the process goes on. UCX's TCP transport completes a partly written zero-copy send twice
// when its socket fails under it (an assertion abort in uct_iface.h, `comp->count > 0`): the
// agent's configuration must never reach that path. The choreography makes the partial write
// certain: the survivor stops reading while the victim floods it, then queues sends the victim
// (which stops reading too) cannot take, and the victim is killed.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <ucp/api/ucp.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "agent/transport/ucx/ucx_transport.h"
#include "base/check.h"
#include "ipc/event_fd.h"

namespace outrider {
namespace {

constexpr uint16_t kAmId = 17;
constexpr size_t kMessageBytes = 200000;
constexpr int kMessages = 40;

// One process's UCP: a worker, an endpoint to the other process, and what happened on them.
struct Side {
  ucp_context_h context = nullptr;
  ucp_worker_h worker = nullptr;
  ucp_ep_h ep = nullptr;
  int received = 0, sends_done = 0, send_errors = 0;
  bool ep_error = false;
  std::vector<char> buffer = std::vector<char>(kMessageBytes);
};
Side* g_side = nullptr;  // the process's one side (a child of the test)

void OnEpError(void*, ucp_ep_h, ucs_status_t) { g_side->ep_error = true; }
void OnSendDone(void* request, ucs_status_t st, void*) {
  ++g_side->sends_done;
  if (st != UCS_OK) ++g_side->send_errors;
  ucp_request_free(request);
}
ucs_status_t OnMessage(void*, const void*, size_t, void*, size_t, const ucp_am_recv_param_t*) {
  ++g_side->received;
  return UCS_OK;
}

void Send(size_t bytes) {
  ucp_request_param_t p{};
  p.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK;
  p.cb.send = OnSendDone;
  ucs_status_ptr_t r =
      ucp_am_send_nbx(g_side->ep, kAmId, nullptr, 0, g_side->buffer.data(), bytes, &p);
  if (r == nullptr) {
    ++g_side->sends_done;
  } else if (UCS_PTR_IS_ERR(r)) {
    ++g_side->sends_done;
    ++g_side->send_errors;
  }
}

void ProgressFor(uint64_t ms) {
  uint64_t end = ipc::MonotonicNs() + ms * 1'000'000;
  while (ipc::MonotonicNs() < end) ucp_worker_progress(g_side->worker);
}

void Put(int fd, char c) { OUTRIDER_CHECK(::write(fd, &c, 1) == 1); }
char Get(int fd) {
  char c = 0;
  OUTRIDER_CHECK(::read(fd, &c, 1) == 1);
  return c;
}

// A child: sets up its side, trades worker addresses with the other child over `peer`, connects,
// and warms the endpoint up. Exits 70+ on a setup failure.
void SetUpSide(int peer) {
  static Side side;
  g_side = &side;
  ucp_config_t* config = nullptr;
  if (ucp_config_read(nullptr, nullptr, &config) != UCS_OK) std::_Exit(70);
  ucp_params_t params{};
  params.field_mask = UCP_PARAM_FIELD_FEATURES;
  params.features = UCP_FEATURE_AM;
  if (ucp_init(&params, config, &side.context) != UCS_OK) std::_Exit(71);
  ucp_config_release(config);
  ucp_worker_params_t wp{};
  wp.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE;
  wp.thread_mode = UCS_THREAD_MODE_SINGLE;
  if (ucp_worker_create(side.context, &wp, &side.worker) != UCS_OK) std::_Exit(72);
  ucp_am_handler_param_t hp{};
  hp.field_mask = UCP_AM_HANDLER_PARAM_FIELD_ID | UCP_AM_HANDLER_PARAM_FIELD_CB |
                  UCP_AM_HANDLER_PARAM_FIELD_FLAGS;
  hp.id = kAmId;
  hp.cb = OnMessage;
  hp.flags = UCP_AM_FLAG_WHOLE_MSG;
  if (ucp_worker_set_am_recv_handler(side.worker, &hp) != UCS_OK) std::_Exit(73);
  ucp_address_t* address = nullptr;
  size_t length = 0;
  if (ucp_worker_get_address(side.worker, &address, &length) != UCS_OK) std::_Exit(74);
  OUTRIDER_CHECK(::send(peer, address, length, 0) ==
                 static_cast<ssize_t>(length));  // a seqpacket: one message
  ucp_worker_release_address(side.worker, address);
  std::vector<char> other(4096);
  ssize_t n = ::recv(peer, other.data(), other.size(), 0);
  if (n <= 0) std::_Exit(75);
  ucp_ep_params_t ep{};
  ep.field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS | UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE |
                  UCP_EP_PARAM_FIELD_ERR_HANDLER;
  ep.address = reinterpret_cast<const ucp_address_t*>(other.data());
  ep.err_mode = UCP_ERR_HANDLING_MODE_PEER;
  ep.err_handler.cb = OnEpError;
  if (ucp_ep_create(side.worker, &ep, &side.ep) != UCS_OK) std::_Exit(76);
  Send(8);
  uint64_t deadline = ipc::MonotonicNs() + 10'000'000'000ull;
  while (!(side.received >= 1 && side.sends_done >= 1)) {
    if (ipc::MonotonicNs() > deadline) std::_Exit(77);
    ucp_worker_progress(side.worker);
  }
  ProgressFor(300);
  Put(peer, 'r');  // both connected both ways
  Get(peer);
  ProgressFor(200);
}

TEST(UcxPeerDeathTest, ASendPartlyWrittenToAPeerThatIsKilledFailsWithoutTakingThisProcessDown) {
  // Small socket buffers make the partial write certain; everything else is the agent's.
  ::setenv("UCX_TLS", "tcp", 1);
  ::setenv("UCX_NET_DEVICES", "lo", 1);
  ::setenv("UCX_TCP_SNDBUF", "64K", 1);
  ::setenv("UCX_TCP_RCVBUF", "64K", 1);
  agent::ConfigureUcxEnvironment();
  int peers[2], to_survivor[2], from_survivor[2];
  ASSERT_EQ(::socketpair(AF_UNIX, SOCK_SEQPACKET, 0, peers), 0);
  ASSERT_EQ(::pipe(to_survivor), 0);
  ASSERT_EQ(::pipe(from_survivor), 0);
  pid_t victim = ::fork();
  ASSERT_GE(victim, 0);
  if (victim == 0) {
    SetUpSide(peers[1]);
    Get(peers[1]);  // the survivor stopped progressing
    for (int i = 0; i < kMessages; ++i) Send(kMessageBytes);
    ProgressFor(1000);  // fills the survivor's receive buffer
    Put(peers[1], 'b');
    for (;;) ::pause();  // reads nothing more: the survivor's sends back fill this side
  }
  pid_t survivor = ::fork();
  ASSERT_GE(survivor, 0);
  if (survivor == 0) {
    SetUpSide(peers[0]);
    Put(peers[0], 'q');
    Get(peers[0]);  // the victim's burst is queued at this side, unread
    for (int i = 0; i < kMessages; ++i) Send(kMessageBytes);  // the first one goes out partly
    Put(from_survivor[1], 'p');
    Get(to_survivor[0]);  // the victim is dead
    ProgressFor(2000);
    // Survived: the endpoint reported the error and every send completed, failed.
    std::_Exit(g_side->ep_error && g_side->sends_done == kMessages + 1 && g_side->send_errors > 0
                   ? 0
                   : 90);
  }
  ASSERT_EQ(Get(from_survivor[0]), 'p');
  ASSERT_EQ(::kill(victim, SIGKILL), 0);
  int st = 0;
  ASSERT_EQ(::waitpid(victim, &st, 0), victim);
  Put(to_survivor[1], 'k');
  ASSERT_EQ(::waitpid(survivor, &st, 0), survivor);
  EXPECT_TRUE(WIFEXITED(st)) << "the surviving process died of signal " << WTERMSIG(st)
                             << " (UCX's zero-copy error path: see this test's header)";
  if (WIFEXITED(st)) {
    EXPECT_EQ(WEXITSTATUS(st), 0) << "90: no endpoint error or unfinished sends; 70-77: setup";
  }
}

}  // namespace
}  // namespace outrider
