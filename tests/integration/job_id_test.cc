// The job id a trainer gets without OUTRIDER_JOB_ID (docs/jobs.md): two jobs launched the usual
// ways on one node never collide, and a true duplicate's error names the variable to set.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <functional>
#include <string>

#include "tests/support/test_support.h"

namespace outrider::testing {
namespace {

// The launcher variables the default is derived from, all unset.
void ClearLauncherEnv() {
  for (const char* v :
       {"OUTRIDER_JOB_ID", "TORCHELASTIC_RUN_ID", "SLURM_JOB_ID", "SLURM_STEP_ID", "MASTER_ADDR",
        "MASTER_PORT", "RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE"})
    ::unsetenv(v);
}

// Connects rank 0 of a one-rank job with no job id given; null with the error in `error`.
outrider_client_t* ConnectUnnamed(const std::string& socket, std::string* error) {
  outrider_connect_options_t o;
  outrider_connect_options_init(&o);
  o.socket_path = socket.c_str();
  o.rank = 0;
  o.world_size = 1;
  outrider_client_t* c = nullptr;
  if (outrider_connect(&o, &c) != OUTRIDER_OK) {
    *error = outrider_last_error(c);
    if (c != nullptr) outrider_disconnect(c);
    return nullptr;
  }
  return c;
}

// Two one-rank jobs on one agent, each connected after `first`, then `second` set its launcher
// variables: both connect (the second while the first still is).
void TwoJobsRunApart(const std::function<void()>& first, const std::function<void()>& second) {
  auto agent = StartAgent();
  ASSERT_NE(agent, nullptr);
  ClearLauncherEnv();
  std::string error;
  first();
  outrider_client_t* a = ConnectUnnamed(agent->socket_path(), &error);
  ASSERT_NE(a, nullptr) << error;
  second();
  outrider_client_t* b = ConnectUnnamed(agent->socket_path(), &error);
  EXPECT_NE(b, nullptr) << error;
  if (b != nullptr) outrider_disconnect(b);
  outrider_disconnect(a);
  ClearLauncherEnv();
}

// torchrun without --rdzv-id: its run id is "none" in both jobs; their master ports differ.
TEST(JobIdTest, TwoTorchrunJobsWithoutAnIdOnOneNodeRunApart) {
  TwoJobsRunApart(
      [] {
        ::setenv("TORCHELASTIC_RUN_ID", "none", 1);
        ::setenv("MASTER_ADDR", "127.0.0.1", 1);
        ::setenv("MASTER_PORT", "29500", 1);
      },
      [] { ::setenv("MASTER_PORT", "29501", 1); });
}

TEST(JobIdTest, TwoSlurmJobsWithoutAnIdOnOneNodeRunApart) {
  TwoJobsRunApart([] { ::setenv("SLURM_JOB_ID", "4101", 1); },
                  [] { ::setenv("SLURM_JOB_ID", "4102", 1); });
}

// The same launcher variables twice: the same place of the same job. The error says where the
// id came from and what to set.
TEST(JobIdTest, ATrueDuplicateIsRefusedNamingTheVariableToSet) {
  auto agent = StartAgent();
  ASSERT_NE(agent, nullptr);
  ClearLauncherEnv();
  ::setenv("MASTER_ADDR", "10.0.0.7", 1);
  ::setenv("MASTER_PORT", "29500", 1);
  std::string error;
  outrider_client_t* a = ConnectUnnamed(agent->socket_path(), &error);
  ASSERT_NE(a, nullptr) << error;
  EXPECT_EQ(ConnectUnnamed(agent->socket_path(), &error), nullptr);
  EXPECT_NE(error.find("already connected"), std::string::npos) << error;
  EXPECT_NE(error.find("OUTRIDER_JOB_ID"), std::string::npos) << error;
  EXPECT_NE(error.find("torch-10.0.0.7-29500"), std::string::npos) << error;
  EXPECT_NE(error.find("MASTER_ADDR and MASTER_PORT"), std::string::npos) << error;
  outrider_disconnect(a);
  ClearLauncherEnv();
}

}  // namespace
}  // namespace outrider::testing
