// The hand-over records' file (see hand_over_record.h): JSON, written atomically.
#include "agent/engine/hand_over_record.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>

namespace outrider::agent {
namespace {

std::string Hex(const std::string& bytes) {
  static const char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(2 * bytes.size());
  for (unsigned char c : bytes) {
    out.push_back(kDigits[c >> 4]);
    out.push_back(kDigits[c & 15]);
  }
  return out;
}

std::optional<std::string> Unhex(const std::string& hex) {
  if (hex.size() % 2 != 0) return std::nullopt;
  auto digit = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
  };
  std::string out(hex.size() / 2, '\0');
  for (size_t i = 0; i < out.size(); ++i) {
    int hi = digit(hex[2 * i]), lo = digit(hex[2 * i + 1]);
    if (hi < 0 || lo < 0) return std::nullopt;
    out[i] = static_cast<char>(hi << 4 | lo);
  }
  return out;
}

}  // namespace

std::string HandOverRecordPath(const std::string& socket_path) {
  return socket_path + ".hand-over";
}

Status WriteHandOverRecords(const std::string& path, const std::vector<HandOverRecord>& records) {
  if (records.empty()) {
    if (::unlink(path.c_str()) != 0 && errno != ENOENT)
      return Internal("removing " + path + ": " + std::strerror(errno));
    return Status::Ok();
  }
  nlohmann::json all = nlohmann::json::array();
  for (const HandOverRecord& r : records) {
    nlohmann::json stop = nlohmann::json::array();
    for (const auto& [key, seq] : r.stop) stop.push_back({key, seq});
    nlohmann::json transports = nlohmann::json::array();
    for (const std::string& t : r.transports) transports.push_back(Hex(t));
    all.push_back({{"job", r.job_id},
                   {"token", r.token},
                   {"node_rank", r.node_rank},
                   {"agents", r.agents},
                   {"transports", transports},
                   {"stop", stop},
                   {"written_unix_s", r.written_unix_s}});
  }
  std::string text = nlohmann::json{{"hand_over", all}}.dump() + "\n";
  std::string tmp = path + ".tmp";
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return Internal("writing " + tmp + ": " + std::strerror(errno));
  bool ok = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  ok = ::fsync(fd) == 0 && ok;
  ::close(fd);
  if (!ok || ::rename(tmp.c_str(), path.c_str()) != 0) {
    Status st = Internal("writing " + path + ": " + std::strerror(errno));
    ::unlink(tmp.c_str());
    return st;
  }
  return Status::Ok();
}

Result<std::vector<HandOverRecord>> ReadHandOverRecords(const std::string& path,
                                                        uint64_t max_age_s) {
  std::ifstream in(path);
  if (!in) return std::vector<HandOverRecord>{};
  std::stringstream text;
  text << in.rdbuf();
  nlohmann::json j = nlohmann::json::parse(text.str(), nullptr, /*allow_exceptions=*/false);
  auto bad = [&](const std::string& what) {
    return InvalidArgument(path + " is not a hand-over record file (" + what +
                           "): remove it, it only serves a restart in progress");
  };
  if (!j.is_object() || !j.contains("hand_over") || !j["hand_over"].is_array())
    return bad("no hand_over list");
  uint64_t now = static_cast<uint64_t>(std::time(nullptr));
  std::vector<HandOverRecord> out;
  for (const nlohmann::json& e : j["hand_over"]) {
    if (!e.is_object() || !e.contains("job") || !e["job"].is_string() || !e.contains("token") ||
        !e["token"].is_string() || !e.contains("node_rank") ||
        !e["node_rank"].is_number_integer() || !e.contains("agents") || !e["agents"].is_array() ||
        !e.contains("transports") || !e["transports"].is_array() || !e.contains("stop") ||
        !e["stop"].is_array() || !e.contains("written_unix_s") ||
        !e["written_unix_s"].is_number_unsigned())
      return bad("a record without its fields");
    HandOverRecord r;
    r.job_id = e["job"].get<std::string>();
    r.token = e["token"].get<std::string>();
    r.node_rank = e["node_rank"].get<int32_t>();
    r.written_unix_s = e["written_unix_s"].get<uint64_t>();
    for (const nlohmann::json& a : e["agents"]) {
      if (!a.is_string()) return bad("an agent address that is not a string");
      r.agents.push_back(a.get<std::string>());
    }
    for (const nlohmann::json& t : e["transports"]) {
      std::optional<std::string> bytes = t.is_string() ? Unhex(t.get<std::string>()) : std::nullopt;
      if (!bytes) return bad("a transport address that is not hex");
      r.transports.push_back(std::move(*bytes));
    }
    for (const nlohmann::json& s : e["stop"]) {
      if (!s.is_array() || s.size() != 2 || !s[0].is_number_unsigned() ||
          !s[1].is_number_unsigned())
        return bad("a stop point that is not a (key, seq) pair");
      r.stop[s[0].get<uint64_t>()] = s[1].get<uint64_t>();
    }
    if (r.node_rank < 0 || static_cast<size_t>(r.node_rank) >= r.transports.size() ||
        r.agents.size() != r.transports.size())
      return bad("a node rank outside its agents");
    if (r.written_unix_s + max_age_s < now) continue;  // from a restart long over
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace outrider::agent
