// Who the agent's --socket-group admits: a user whose primary group it is, and a user who joined it
// as a supplementary group (usermod -aG, the way docs/operations.md and /etc/outrider/agent.toml
// say to admit a trainer's user); a user in neither is refused, and told which settings admit it.
#include <grp.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "tests/support/test_support.h"

namespace outrider::testing {
namespace {

constexpr uid_t kNobody = 65534;

struct Outcome {
  int rc;
  Text error;
};

// Connects a one-rank job from a child running as uid nobody with primary group `gid` and
// supplementary groups `groups`.
Outcome ConnectAs(const std::string& socket, gid_t gid, std::vector<gid_t> groups) {
  SharedValue<Outcome> out;
  pid_t pid = Spawn([&] {
    if (::setgroups(groups.size(), groups.data()) != 0 || ::setgid(gid) != 0 ||
        ::setuid(kNobody) != 0) {
      return 50;
    }
    outrider_connect_options_t o;
    outrider_connect_options_init(&o);
    o.socket_path = socket.c_str();
    o.job_id = "group-member";
    o.rank = 0;
    o.world_size = 1;
    outrider_client_t* c = nullptr;
    out->rc = outrider_connect(&o, &c);
    CopyText(out->error.s, sizeof(out->error.s), outrider_last_error(c));
    if (c != nullptr) outrider_disconnect(c);
    return 0;
  });
  EXPECT_EQ(Reap(pid), 0);
  return *out;
}

class SocketGroupTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (::geteuid() != 0) GTEST_SKIP() << "needs root to run clients as another user";
    group* g = ::getgrnam("users");
    if (g == nullptr) GTEST_SKIP() << "no group 'users' on this machine";
    gid_ = g->gr_gid;
    agent_ = StartAgent({"--socket-group", "users"});
    ASSERT_NE(agent_, nullptr);
    // The test's socket directory existed before the agent (which leaves an existing one as it
    // is): it gets what the unit's RuntimeDirectory gets with Group=outrider.
    std::string dir = agent_->socket_path().substr(0, agent_->socket_path().rfind('/'));
    ASSERT_EQ(::chown(dir.c_str(), 0, gid_), 0);
    ASSERT_EQ(::chmod(dir.c_str(), 0750), 0);
  }

  gid_t gid_ = 0;
  std::unique_ptr<harness::AgentProcess> agent_;
};

// The agent leaves a socket directory that was there before as it is (an admin's), and says when
// the group cannot pass it, as the test's own temporary directory (0700) could not.
TEST_F(SocketGroupTest, SaysWhenAnExistingSocketDirectoryShutsTheGroupOut) {
  EXPECT_NE(agent_->ReadLog().find("does not let group users pass"), std::string::npos)
      << agent_->ReadLog();
}

TEST_F(SocketGroupTest, AdmitsAUserWhosePrimaryGroupItIs) {
  Outcome o = ConnectAs(agent_->socket_path(), gid_, {});
  EXPECT_EQ(o.rc, OUTRIDER_OK) << o.error.s;
}

TEST_F(SocketGroupTest, AdmitsAUserWhoJoinedItAsASupplementaryGroup) {
  Outcome o = ConnectAs(agent_->socket_path(), kNobody, {gid_});
  EXPECT_EQ(o.rc, OUTRIDER_OK) << o.error.s;
}

TEST_F(SocketGroupTest, RefusesAUserOutsideItNamingWhatAdmitsIt) {
  Outcome o = ConnectAs(agent_->socket_path(), kNobody, {});
  EXPECT_EQ(o.rc, OUTRIDER_ERR_PERMISSION_DENIED);
  EXPECT_NE(std::string(o.error.s).find("--socket-group"), std::string::npos) << o.error.s;
}

}  // namespace
}  // namespace outrider::testing
