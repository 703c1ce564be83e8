// Per-op traces from the agent's /status, summarized for the bench's tables.
#include "tools/bench/trace.h"

#include <netdb.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace outrider::bench {
namespace {

std::string DefaultUrl() {
  if (const char* u = std::getenv("OUTRIDER_HTTP_URL"); u != nullptr && *u != '\0') return u;
  const char* port = std::getenv("OUTRIDER_HTTP_PORT");
  return std::string("http://127.0.0.1:") + (port != nullptr && *port != '\0' ? port : "9750");
}

double MedianOf(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
}

}  // namespace

Result<nlohmann::json> FetchAgentJson(const std::string& url_in, const std::string& path) {
  std::string url = url_in.empty() ? DefaultUrl() : url_in;
  std::string rest = url.rfind("http://", 0) == 0 ? url.substr(7) : url;
  rest = rest.substr(0, rest.find('/'));
  size_t colon = rest.rfind(':');
  std::string host = colon == std::string::npos ? rest : rest.substr(0, colon);
  std::string port = colon == std::string::npos ? "80" : rest.substr(colon + 1);
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* ai = nullptr;
  if (int rc = ::getaddrinfo(host.c_str(), port.c_str(), &hints, &ai); rc != 0) {
    return Unavailable("cannot resolve the agent's HTTP address " + url + ": " + gai_strerror(rc));
  }
  int fd = ::socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  timeval tv{5, 0};
  if (fd >= 0) {
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
  }
  bool connected = fd >= 0 && ::connect(fd, ai->ai_addr, ai->ai_addrlen) == 0;
  ::freeaddrinfo(ai);
  if (!connected) {
    if (fd >= 0) ::close(fd);
    return Unavailable("cannot reach the agent's HTTP listener at " + url +
                       " (is it started with --http-port?)");
  }
  std::string req = "GET " + path + " HTTP/1.0\r\nHost: " + host + "\r\n\r\n", resp;
  bool sent = ::send(fd, req.data(), req.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(req.size());
  char buf[65536];
  for (ssize_t n; sent && (n = ::recv(fd, buf, sizeof(buf), 0)) > 0;)
    resp.append(buf, static_cast<size_t>(n));
  ::close(fd);
  size_t body = resp.find("\r\n\r\n");
  if (!sent || body == std::string::npos ||
      (resp.compare(0, 12, "HTTP/1.1 200") != 0 && resp.compare(0, 12, "HTTP/1.0 200") != 0)) {
    return Unavailable("the agent at " + url + " did not answer " + path + " with 200");
  }
  nlohmann::json j =
      nlohmann::json::parse(resp.begin() + static_cast<long>(body + 4), resp.end(), nullptr, false);
  if (j.is_discarded())
    return Unavailable("the agent at " + url + " answered " + path + " with malformed JSON");
  return j;
}

nlohmann::json SummarizeTraces(const nlohmann::json& status, const std::string& op, uint64_t count,
                               size_t n, uint64_t key) {
  const char* job = std::getenv("OUTRIDER_JOB_ID");
  char key_text[24];
  std::snprintf(key_text, sizeof(key_text), "0x%016llx", static_cast<unsigned long long>(key));
  std::vector<const nlohmann::json*> ops;
  if (!status.contains("jobs") || !status["jobs"].is_array()) return nullptr;
  for (const auto& j : status["jobs"]) {
    if (job != nullptr && *job != '\0' && j.value("id", "") != job) continue;
    if (!j.contains("recent_ops")) continue;
    for (const auto& o : j["recent_ops"]) {
      if (o.value("op", "") == op && (count == 0 || o.value("count", uint64_t{0}) == count) &&
          (key == 0 || o.value("key", "") == key_text) && o.contains("trace") &&
          o.value("result", "") == "OK") {
        ops.push_back(&o["trace"]);
      }
    }
  }
  if (ops.empty()) return nullptr;
  if (ops.size() > n) ops.erase(ops.begin(), ops.end() - static_cast<long>(n));
  auto med = [&](auto get) {
    std::vector<double> v;
    for (const nlohmann::json* t : ops) v.push_back(get(*t));
    return MedianOf(std::move(v));
  };
  nlohmann::json s = {{"ops", ops.size()}};
  for (const char* k :
       {"duration_ms", "agreed_ms", "first_send_ms", "last_send_ms", "first_recv_ms",
        "last_recv_ms", "chunks_recv", "page_faults", "private_peak_bytes"}) {
    s[k] = med([k](const nlohmann::json& t) { return t.value(k, 0.0); });
  }
  nlohmann::json busy = nlohmann::json::object();
  for (const auto& [kind, _] : ops.back()->at("busy_ms").items()) {
    busy[kind] = med([&kind](const nlohmann::json& t) { return t["busy_ms"].value(kind, 0.0); });
  }
  s["busy_ms"] = busy;
  return s;
}

std::string FormatTrace(const nlohmann::json& s) {
  char line[512];
  const nlohmann::json& b = s["busy_ms"];
  std::snprintf(line, sizeof(line),
                "%.2f ms: agreed %.2f, first recv %.2f, last recv %.2f, last send done %.2f | wire "
                "%.2f, credit wait %.2f, local reduce %.2f, "
                "reduce %.2f, copy %.2f, write-back %.2f | %.0f faults, agent private %.0f MiB "
                "(median of %d ops)",
                s.value("duration_ms", 0.0), s.value("agreed_ms", 0.0),
                s.value("first_recv_ms", 0.0), s.value("last_recv_ms", 0.0),
                s.value("last_send_ms", 0.0), b.value("wire", 0.0), b.value("credit_wait", 0.0),
                b.value("local_reduce", 0.0), b.value("reduce", 0.0), b.value("copy", 0.0),
                b.value("write_back", 0.0), s.value("page_faults", 0.0),
                s.value("private_peak_bytes", 0.0) / (1 << 20), s.value("ops", 0));
  return line;
}

nlohmann::json TraceLastOps(const std::string& url, const std::string& op, uint64_t count, size_t n,
                            uint64_t key) {
  Result<nlohmann::json> st = FetchAgentJson(url, "/status");
  if (!st.ok()) {
    std::fprintf(stderr, "outrider-bench: --trace: %s\n", st.status().message().c_str());
    return nullptr;
  }
  nlohmann::json s = SummarizeTraces(*st, op, count, n, key);
  if (s.is_null()) {
    std::fprintf(
        stderr,
        "outrider-bench: --trace: the agent's recent ops hold no finished %s with a trace\n",
        op.c_str());
    return nullptr;
  }
  std::printf("#   trace (this node's agent) %s\n", FormatTrace(s).c_str());
  return s;
}

}  // namespace outrider::bench
