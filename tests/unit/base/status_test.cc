// Status and Result<T>: formatting, annotation, propagation macros, and the errno mapping (the
// one place errno becomes a Code). Code values are wire/ABI constants and are pinned here.
#include "base/status.h"

#include <gtest/gtest.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <string>
#include <utility>

namespace outrider {
namespace {

TEST(StatusTest, DefaultIsOk) {
  Status st;
  EXPECT_TRUE(st.ok());
  EXPECT_EQ(st.code(), Code::kOk);
  EXPECT_EQ(st.message(), "");
  EXPECT_TRUE(Status::Ok().ok());
}

TEST(StatusTest, OkToStringIsOk) { EXPECT_EQ(Status::Ok().ToString(), "OK"); }

TEST(StatusTest, ToStringIsCodeNameColonMessage) {
  EXPECT_EQ(PeerLost("local rank 1 disconnected").ToString(),
            "PEER_LOST: local rank 1 disconnected");
  EXPECT_EQ(InvalidArgument("bad").ToString(), "INVALID_ARGUMENT: bad");
  EXPECT_EQ(DeadlineExceeded("slow").ToString(), "DEADLINE_EXCEEDED: slow");
}

TEST(StatusTest, ConstructorsSetTheirCodes) {
  EXPECT_EQ(InvalidArgument("").code(), Code::kInvalidArgument);
  EXPECT_EQ(FailedPrecondition("").code(), Code::kFailedPrecondition);
  EXPECT_EQ(Unavailable("").code(), Code::kUnavailable);
  EXPECT_EQ(DeadlineExceeded("").code(), Code::kDeadlineExceeded);
  EXPECT_EQ(PeerLost("").code(), Code::kPeerLost);
  EXPECT_EQ(Mismatch("").code(), Code::kMismatch);
  EXPECT_EQ(Internal("").code(), Code::kInternal);
  EXPECT_EQ(ResourceExhausted("").code(), Code::kResourceExhausted);
  EXPECT_EQ(PermissionDenied("").code(), Code::kPermissionDenied);
  EXPECT_EQ(ProtocolError("").code(), Code::kProtocol);
  EXPECT_EQ(Cancelled("").code(), Code::kCancelled);
  EXPECT_FALSE(Cancelled("x").ok());
}

TEST(StatusTest, CodeValuesAreStable) {
  // These travel in completion entries and equal the C API's OUTRIDER_ERR_* constants.
  EXPECT_EQ(static_cast<int>(Code::kOk), 0);
  EXPECT_EQ(static_cast<int>(Code::kInvalidArgument), 1);
  EXPECT_EQ(static_cast<int>(Code::kFailedPrecondition), 2);
  EXPECT_EQ(static_cast<int>(Code::kUnavailable), 3);
  EXPECT_EQ(static_cast<int>(Code::kDeadlineExceeded), 4);
  EXPECT_EQ(static_cast<int>(Code::kPeerLost), 5);
  EXPECT_EQ(static_cast<int>(Code::kMismatch), 6);
  EXPECT_EQ(static_cast<int>(Code::kInternal), 7);
  EXPECT_EQ(static_cast<int>(Code::kResourceExhausted), 8);
  EXPECT_EQ(static_cast<int>(Code::kPermissionDenied), 9);
  EXPECT_EQ(static_cast<int>(Code::kProtocol), 10);
  EXPECT_EQ(static_cast<int>(Code::kCancelled), 11);
  EXPECT_EQ(static_cast<int>(Code::kOutputTooSmall), 12);
  EXPECT_EQ(kMaxCode, 12);
}

TEST(StatusTest, EveryCodeHasAName) {
  for (int32_t c = 0; c <= kMaxCode; ++c) {
    EXPECT_NE(CodeName(static_cast<Code>(c)), "UNKNOWN") << c;
  }
  EXPECT_EQ(CodeName(static_cast<Code>(kMaxCode + 1)), "UNKNOWN");
}

TEST(StatusTest, AnnotatePrefixesContextAndKeepsCode) {
  Status st = Unavailable("connection refused").Annotate("registering region");
  EXPECT_EQ(st.code(), Code::kUnavailable);
  EXPECT_EQ(st.message(), "registering region: connection refused");
  EXPECT_EQ(st.ToString(), "UNAVAILABLE: registering region: connection refused");
}

TEST(StatusTest, AnnotateNests) {
  Status st = Internal("boom").Annotate("inner").Annotate("outer");
  EXPECT_EQ(st.message(), "outer: inner: boom");
}

TEST(StatusTest, AnnotateOnOkStaysOk) {
  Status st = Status::Ok().Annotate("context");
  EXPECT_TRUE(st.ok());
  EXPECT_EQ(st.message(), "");
}

TEST(StatusTest, ErrnoStatusMapsEnoentToUnavailable) {
  Status st = ErrnoStatus("connect", ENOENT);
  EXPECT_EQ(st.code(), Code::kUnavailable);
  EXPECT_EQ(st.message(), std::string("connect: ") + std::strerror(ENOENT));
}

TEST(StatusTest, ErrnoStatusMapsEaccesToPermissionDenied) {
  EXPECT_EQ(ErrnoStatus("open", EACCES).code(), Code::kPermissionDenied);
  EXPECT_EQ(ErrnoStatus("open", EPERM).code(), Code::kPermissionDenied);
}

TEST(StatusTest, ErrnoStatusMapsEnomemToResourceExhausted) {
  EXPECT_EQ(ErrnoStatus("mmap", ENOMEM).code(), Code::kResourceExhausted);
  EXPECT_EQ(ErrnoStatus("socket", EMFILE).code(), Code::kResourceExhausted);
}

TEST(StatusTest, ErrnoStatusMapsOtherKnownErrnos) {
  EXPECT_EQ(ErrnoStatus("x", EINVAL).code(), Code::kInvalidArgument);
  EXPECT_EQ(ErrnoStatus("x", EBADF).code(), Code::kInvalidArgument);
  EXPECT_EQ(ErrnoStatus("x", ECONNREFUSED).code(), Code::kUnavailable);
  EXPECT_EQ(ErrnoStatus("x", EPIPE).code(), Code::kUnavailable);
  EXPECT_EQ(ErrnoStatus("x", EAGAIN).code(), Code::kUnavailable);
  EXPECT_EQ(ErrnoStatus("x", ETIMEDOUT).code(), Code::kDeadlineExceeded);
}

TEST(StatusTest, ErrnoStatusMapsUnknownErrnoToInternal) {
  Status st = ErrnoStatus("ioctl", ENOTTY);
  EXPECT_EQ(st.code(), Code::kInternal);
  EXPECT_NE(st.message().find("ioctl: "), std::string::npos);
}

TEST(ResultTest, HoldsValue) {
  Result<int> r = 42;
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r.status().ok());
  EXPECT_EQ(r.value(), 42);
  EXPECT_EQ(*r, 42);
}

TEST(ResultTest, HoldsStatus) {
  Result<int> r = Mismatch("sizes differ");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Code::kMismatch);
  EXPECT_EQ(r.status().message(), "sizes differ");
}

TEST(ResultTest, ArrowAndMutableAccess) {
  Result<std::string> r = std::string("abc");
  EXPECT_EQ(r->size(), 3u);
  r.value() += "d";
  *r += "e";
  EXPECT_EQ(r.value(), "abcde");
}

TEST(ResultTest, RvalueValueMovesOutMoveOnlyTypes) {
  Result<std::unique_ptr<int>> r = std::make_unique<int>(7);
  std::unique_ptr<int> p = std::move(r).value();
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(*p, 7);
}

TEST(ResultDeathTest, ConstructingFromOkStatusAborts) {
  // An OK status carries no value: that is a programming error, not a condition.
  EXPECT_DEATH(
      {
        Result<int> r(Status::Ok());
        (void)r;
      },
      "CHECK failed");
}

TEST(ResultDeathTest, ValueOfErrorAborts) {
  EXPECT_DEATH(
      {
        Result<int> r(Internal("x"));
        (void)r.value();
      },
      "CHECK failed");
}

// ---- Propagation macros ----

Status FailIf(bool fail) { return fail ? FailedPrecondition("inner failed") : Status::Ok(); }

int g_steps = 0;
Status TwoSteps(bool fail_first) {
  g_steps = 0;
  OUTRIDER_RETURN_IF_ERROR(FailIf(fail_first));
  ++g_steps;
  OUTRIDER_RETURN_IF_ERROR(FailIf(false));
  ++g_steps;
  return Status::Ok();
}

TEST(StatusMacroTest, ReturnIfErrorPropagatesTheFirstError) {
  Status st = TwoSteps(true);
  EXPECT_EQ(st.code(), Code::kFailedPrecondition);
  EXPECT_EQ(st.message(), "inner failed");
  EXPECT_EQ(g_steps, 0);
}

TEST(StatusMacroTest, ReturnIfErrorContinuesOnOk) {
  EXPECT_TRUE(TwoSteps(false).ok());
  EXPECT_EQ(g_steps, 2);
}

TEST(StatusMacroTest, ReturnIfErrorEvaluatesItsArgumentOnce) {
  int calls = 0;
  auto f = [&]() -> Status {
    ++calls;
    return Status::Ok();
  };
  auto g = [&]() -> Status {
    OUTRIDER_RETURN_IF_ERROR(f());
    return Status::Ok();
  };
  EXPECT_TRUE(g().ok());
  EXPECT_EQ(calls, 1);
}

Result<int> Parse(bool fail) {
  if (fail) return InvalidArgument("not a number");
  return 21;
}

Result<int> Doubled(bool fail) {
  OUTRIDER_ASSIGN_OR_RETURN(int v, Parse(fail));
  return v * 2;
}

TEST(StatusMacroTest, AssignOrReturnAssignsTheValue) {
  Result<int> r = Doubled(false);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, 42);
}

TEST(StatusMacroTest, AssignOrReturnPropagatesTheError) {
  Result<int> r = Doubled(true);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Code::kInvalidArgument);
  EXPECT_EQ(r.status().message(), "not a number");
}

Status ConvertsToStatus(bool fail) {
  // Result -> Status propagation, and two uses in one scope (distinct temporaries per line).
  OUTRIDER_ASSIGN_OR_RETURN(int a, Parse(false));
  OUTRIDER_ASSIGN_OR_RETURN(int b, Parse(fail));
  return a + b == 42 ? Status::Ok() : Internal("wrong sum");
}

TEST(StatusMacroTest, AssignOrReturnWorksInStatusFunctions) {
  EXPECT_TRUE(ConvertsToStatus(false).ok());
  EXPECT_EQ(ConvertsToStatus(true).code(), Code::kInvalidArgument);
}

Result<std::unique_ptr<int>> MakePtr() { return std::make_unique<int>(5); }
Result<int> Deref() {
  std::unique_ptr<int> p;
  OUTRIDER_ASSIGN_OR_RETURN(p, MakePtr());  // assigns to an existing variable
  return *p;
}

TEST(StatusMacroTest, AssignOrReturnMovesIntoExistingVariable) {
  Result<int> r = Deref();
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, 5);
}

}  // namespace
}  // namespace outrider
