// outrider-bench --trace: where the agent spent each op's time, read from the per-op traces in
// its /status (recent ops of the bench's job) and summarized as medians per phase.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "base/status.h"

namespace outrider::bench {

// GET `path` from an agent's HTTP listener at `url` ("http://127.0.0.1:9750"; "" means
// $OUTRIDER_HTTP_URL, else http://127.0.0.1:$OUTRIDER_HTTP_PORT, else port 9750).
Result<nlohmann::json> FetchAgentJson(const std::string& url, const std::string& path);

// Medians over the last `n` finished ops of kind `op` (and `count` elements and op key `key`,
// unless 0) of
// $OUTRIDER_JOB_ID's job (any job when unset) that carry a trace: duration, milestones, busy
// time per kind, page faults and private memory peak; null if none matched.
nlohmann::json SummarizeTraces(const nlohmann::json& status, const std::string& op, uint64_t count,
                               size_t n, uint64_t key = 0);

// "duration 4.1 ms | wire 3.9 | reduce 0.8 | ..." for the table's trace line.
std::string FormatTrace(const nlohmann::json& summary);

// Fetches, summarizes and prints one trace line ("# trace ..."); returns the summary (null on
// failure, said on stderr).
nlohmann::json TraceLastOps(const std::string& url, const std::string& op, uint64_t count, size_t n,
                            uint64_t key = 0);

}  // namespace outrider::bench
