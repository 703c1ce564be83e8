// Fuzz target: NCCL telemetry datagrams (ipc/nccl_stats_wire.h), which any process allowed on the
// agent's telemetry socket may send. The input is one datagram. A report is taken whole or
// refused with INVALID_ARGUMENT; one taken has 1..kNumNcclOps known records and a job name that is
// a safe metrics label value (printable ASCII without spaces, or empty).
#include <cstddef>
#include <cstdint>

#include "agent/control/nccl_stats_receiver.h"
#include "agent/log.h"
#include "base/check.h"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  (void)outrider::agent::InitLogging("off");
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace outrider;
  Result<agent::NcclTelemetryReport> report = agent::ParseNcclTelemetry(data, size);
  if (!report.ok()) {
    OUTRIDER_CHECK(report.status().code() == Code::kInvalidArgument);
    OUTRIDER_CHECK(!report.status().message().empty());
    return 0;
  }
  OUTRIDER_CHECK(!report->records.empty() && report->records.size() <= ipc::kNumNcclOps);
  OUTRIDER_CHECK(report->records.size() == report->header.records);
  for (const ipc::NcclStatsRecord& r : report->records) OUTRIDER_CHECK(r.op < ipc::kNumNcclOps);
  OUTRIDER_CHECK(report->job.size() < sizeof(report->header.job));
  for (char c : report->job) OUTRIDER_CHECK(c > 0x20 && c < 0x7f);
  OUTRIDER_CHECK(report->header.source < ipc::kNumNcclSources);
  return 0;
}
