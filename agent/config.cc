// The agent's parameter table and the loader built on it. Every parameter is one row of kParams:
// adding a parameter means adding a row (and a field); parsing from flag, env and file, --help,
// the startup log and the README table all follow from it.
#include "agent/config.h"

#include <sys/un.h>

#include <array>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>

#include <CLI/CLI.hpp>
#include <toml++/toml.h>

#ifndef OUTRIDER_VERSION
#define OUTRIDER_VERSION "0.1.0"
#endif

namespace outrider::agent {
namespace {

// How a value must be typed in the TOML file; flags and env vars are always text.
enum class Kind { kString, kUint, kUintList };

struct Param {
  std::string_view name;          // config-key style; the EffectiveValue name
  std::string_view flag;          // "--sq-entries"
  std::string_view env;           // "" = not read from the environment
  std::string_view toml_key;      // "" = not read from the config file
  std::string_view metavar;       // placeholder in --help
  std::string_view default_text;  // for --help and README; the real default is in AgentOptions
  std::string_view unit;
  std::string_view help;
  bool in_readme;
  Kind kind;
  // Parses text into the field; the message gives the reason only (the caller adds name/source).
  Status (*set)(AgentOptions&, std::string_view);
  std::string (*get)(const AgentOptions&);
  // Checks the field's value; nullptr = every parsable value is valid.
  Status (*check)(const AgentOptions&);
};

template <typename T>
Status ParseUnsigned(std::string_view text, T* out) {
  const char* end = text.data() + text.size();
  T value{};
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec == std::errc::result_out_of_range) {
    return InvalidArgument("out of range, at most " +
                           std::to_string(std::numeric_limits<T>::max()));
  }
  if (text.empty() || ec != std::errc() || ptr != end) {
    return InvalidArgument("not an unsigned decimal integer");
  }
  *out = value;
  return Status::Ok();
}

// "1000, 1001" -> {1000, 1001}; "" -> {}.
Status ParseUidList(std::string_view text, std::vector<uint32_t>* out) {
  std::vector<uint32_t> uids;
  size_t pos = 0;
  while (pos <= text.size() && !text.empty()) {
    size_t comma = text.find(',', pos);
    if (comma == std::string_view::npos) comma = text.size();
    std::string_view item = text.substr(pos, comma - pos);
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
    uint32_t uid = 0;
    Status st = ParseUnsigned(item, &uid);
    if (!st.ok()) return st.Annotate("uid '" + std::string(item) + "'");
    uids.push_back(uid);
    pos = comma + 1;
  }
  *out = std::move(uids);
  return Status::Ok();
}

std::string JoinUids(const std::vector<uint32_t>& uids) {
  std::string s;
  for (uint32_t uid : uids) s += (s.empty() ? "" : ",") + std::to_string(uid);
  return s;
}

Status AtLeastOne(std::string_view name, uint64_t value) {
  if (value >= 1) return Status::Ok();
  return InvalidArgument(std::string(name) + " must be at least 1, got 0");
}

constexpr std::array<std::string_view, 7> kLogLevels = {"trace", "debug", "info", "warn",
                                                        "error", "critical", "off"};

// Field setters/getters for the table: text in, text out.
#define OUTRIDER_STRING_FIELD(f)                                                          \
  [](AgentOptions& o, std::string_view t) { o.f = std::string(t); return Status::Ok(); }, \
      [](const AgentOptions& o) { return o.f; }
#define OUTRIDER_UINT_FIELD(f)                                                                    \
  [](AgentOptions& o, std::string_view t) { return ParseUnsigned(t, &o.f); },                     \
      [](const AgentOptions& o) { return std::to_string(o.f); }

const Param kParams[] = {
    {"socket_path", "--socket", "OUTRIDER_SOCKET", "socket", "PATH",
     "$XDG_RUNTIME_DIR/outrider/agent.sock, else /run/outrider/agent.sock", "",
     "Unix-domain socket the trainers' shim connects to.", true, Kind::kString,
     OUTRIDER_STRING_FIELD(socket_path), [](const AgentOptions& o) {
       if (o.socket_path.empty()) return InvalidArgument("socket_path must not be empty");
       if (o.socket_path.size() >= sizeof(sockaddr_un{}.sun_path)) {
         return InvalidArgument("socket_path must be shorter than " +
                                std::to_string(sizeof(sockaddr_un{}.sun_path)) +
                                " bytes (sockaddr_un limit), got " +
                                std::to_string(o.socket_path.size()) + " bytes");
       }
       return Status::Ok();
     }},
    {"socket_group", "--socket-group", "OUTRIDER_SOCKET_GROUP", "socket_group", "GROUP", "(empty)",
     "", "Group whose members may connect: socket directory 0750 and socket 0660 owned by it. "
     "Empty: directory 0700, socket 0600.", true, Kind::kString,
     OUTRIDER_STRING_FIELD(socket_group), nullptr},
    {"allowed_uids", "--allowed-uids", "OUTRIDER_ALLOWED_UIDS", "allowed_uids", "UID,...",
     "(empty)", "", "Comma-separated uids (a TOML array of integers in the file) that may connect "
     "besides the agent's own uid; root always may.", true, Kind::kUintList,
     [](AgentOptions& o, std::string_view t) { return ParseUidList(t, &o.allowed_uids); },
     [](const AgentOptions& o) { return JoinUids(o.allowed_uids); },
     [](const AgentOptions& o) {
       for (uint32_t uid : o.allowed_uids) {
         if (uid == std::numeric_limits<uint32_t>::max()) {
           return InvalidArgument("allowed_uids must not contain 4294967295 ((uid_t)-1)");
         }
       }
       return Status::Ok();
     }},
    {"log_level", "--log-level", "OUTRIDER_LOG_LEVEL", "log_level", "LEVEL", "info", "",
     "One of trace, debug, info, warn, error, critical, off.", true, Kind::kString,
     OUTRIDER_STRING_FIELD(log_level), [](const AgentOptions& o) {
       for (std::string_view level : kLogLevels) {
         if (o.log_level == level) return Status::Ok();
       }
       return InvalidArgument("log_level must be one of trace, debug, info, warn, error, "
                              "critical, off, got '" + o.log_level + "'");
     }},
    {"sq_entries", "--sq-entries", "OUTRIDER_SQ_ENTRIES", "sq_entries", "N", "256", "entries",
     "Submission-ring entries per client; a power of two in [8, 65536].", true, Kind::kUint,
     OUTRIDER_UINT_FIELD(sq_entries), [](const AgentOptions& o) {
       uint32_t n = o.sq_entries;
       if (n >= 8 && n <= 65536 && (n & (n - 1)) == 0) return Status::Ok();
       return InvalidArgument("sq_entries must be a power of two in [8, 65536], got " +
                              std::to_string(n));
     }},
    {"max_clients", "--max-clients", "OUTRIDER_MAX_CLIENTS", "max_clients", "N", "256", "clients",
     "Most trainer processes connected at once.", true, Kind::kUint,
     OUTRIDER_UINT_FIELD(max_clients),
     [](const AgentOptions& o) { return AtLeastOne("max_clients", o.max_clients); }},
    {"max_regions_per_client", "--max-regions-per-client", "OUTRIDER_MAX_REGIONS_PER_CLIENT",
     "max_regions_per_client", "N", "64", "regions",
     "Most memory regions one client may have registered at once.", true, Kind::kUint,
     OUTRIDER_UINT_FIELD(max_regions_per_client), [](const AgentOptions& o) {
       return AtLeastOne("max_regions_per_client", o.max_regions_per_client);
     }},
    {"max_region_bytes", "--max-region-bytes", "OUTRIDER_MAX_REGION_BYTES", "max_region_bytes",
     "BYTES", "68719476736 (64 GiB)", "bytes", "Largest memory region a client may register.",
     true, Kind::kUint, OUTRIDER_UINT_FIELD(max_region_bytes),
     [](const AgentOptions& o) { return AtLeastOne("max_region_bytes", o.max_region_bytes); }},
    {"op_timeout_ms", "--op-timeout-ms", "OUTRIDER_OP_TIMEOUT_MS", "op_timeout_ms", "MS", "300000",
     "ms", "How long a collective may wait for all local ranks to submit before it fails with "
     "DEADLINE_EXCEEDED; 0 = never.", true, Kind::kUint, OUTRIDER_UINT_FIELD(op_timeout_ms),
     nullptr},
    {"spin_us", "--spin-us", "OUTRIDER_SPIN_US", "spin_us", "US", "50", "us",
     "How long the progress loop polls the rings before sleeping in epoll; at most 1000000.", true,
     Kind::kUint, OUTRIDER_UINT_FIELD(spin_us), [](const AgentOptions& o) {
       if (o.spin_us <= 1000000) return Status::Ok();
       return InvalidArgument("spin_us must be at most 1000000 (1 s), got " +
                              std::to_string(o.spin_us));
     }},
    {"port", "--port", "OUTRIDER_PORT", "port", "PORT", "29750", "",
     "TCP port of the agent-to-agent rendezvous (the root agent of a job hosts it; the others "
     "connect to OUTRIDER_ROOT_ADDR or MASTER_ADDR at this port). 0 = no multi-node service.",
     true, Kind::kUint, OUTRIDER_UINT_FIELD(port), [](const AgentOptions& o) {
       if (o.port <= 65535) return Status::Ok();
       return InvalidArgument("port must be in [0, 65535], got " + std::to_string(o.port));
     }},
    {"listen_address", "--listen-address", "OUTRIDER_LISTEN_ADDRESS", "listen_address", "ADDR",
     "0.0.0.0", "", "IPv4 address the rendezvous port binds to.", true, Kind::kString,
     OUTRIDER_STRING_FIELD(listen_address), nullptr},
    {"heartbeat_ms", "--heartbeat-ms", "OUTRIDER_HEARTBEAT_MS", "heartbeat_ms", "MS", "1000", "ms",
     "Interval of heartbeats to peer agents.", true, Kind::kUint,
     OUTRIDER_UINT_FIELD(heartbeat_ms),
     [](const AgentOptions& o) { return AtLeastOne("heartbeat_ms", o.heartbeat_ms); }},
    {"peer_timeout_ms", "--peer-timeout-ms", "OUTRIDER_PEER_TIMEOUT_MS", "peer_timeout_ms", "MS",
     "10000", "ms",
     "A peer agent silent this long is declared lost: its jobs' ops fail on every survivor.",
     true, Kind::kUint, OUTRIDER_UINT_FIELD(peer_timeout_ms), [](const AgentOptions& o) {
       if (o.peer_timeout_ms > o.heartbeat_ms) return Status::Ok();
       return InvalidArgument("peer_timeout_ms must exceed heartbeat_ms (" +
                              std::to_string(o.heartbeat_ms) + "), got " +
                              std::to_string(o.peer_timeout_ms));
     }},
    {"rendezvous_timeout_ms", "--rendezvous-timeout-ms", "OUTRIDER_RENDEZVOUS_TIMEOUT_MS",
     "rendezvous_timeout_ms", "MS", "120000", "ms",
     "How long a multi-node job may take to find all its nodes' agents before its ops fail.",
     true, Kind::kUint, OUTRIDER_UINT_FIELD(rendezvous_timeout_ms), [](const AgentOptions& o) {
       return AtLeastOne("rendezvous_timeout_ms", o.rendezvous_timeout_ms);
     }},
    {"ring_chunk_bytes", "--ring-chunk-bytes", "OUTRIDER_RING_CHUNK_BYTES", "ring_chunk_bytes",
     "BYTES", "1048576", "bytes",
     "Unit of pipelining in the inter-node ring: each chunk is forwarded as soon as it is reduced.",
     true, Kind::kUint, OUTRIDER_UINT_FIELD(ring_chunk_bytes), [](const AgentOptions& o) {
       if (o.ring_chunk_bytes >= 4096) return Status::Ok();
       return InvalidArgument("ring_chunk_bytes must be at least 4096, got " + std::to_string(o.ring_chunk_bytes));
     }},
    {"direct_max_bytes", "--direct-max-bytes", "OUTRIDER_DIRECT_MAX_BYTES", "direct_max_bytes",
     "BYTES", "262144", "bytes",
     "Inter-node allreduces up to this size send the node's whole buffer to every other node (one "
     "round, lowest latency); larger ones use the ring (least bandwidth).",
     true, Kind::kUint, OUTRIDER_UINT_FIELD(direct_max_bytes), nullptr},
    {"sparse_block_rows", "--sparse-block-rows", "OUTRIDER_SPARSE_BLOCK_ROWS", "sparse_block_rows",
     "ROWS", "8", "rows",
     "Rows per block of the sparse `block` algorithm (only non-zero blocks travel). Every agent of "
     "a job must use the same value.",
     true, Kind::kUint, OUTRIDER_UINT_FIELD(sparse_block_rows), [](const AgentOptions& o) {
       if (o.sparse_block_rows >= 1 && o.sparse_block_rows <= 4096) return Status::Ok();
       return InvalidArgument("sparse_block_rows must be in [1, 4096], got " + std::to_string(o.sparse_block_rows));
     }},
    {"scheduler", "--scheduler", "OUTRIDER_SCHEDULER", "scheduler", "POLICY", "priority", "",
     "How bulk chunks of all jobs share each peer link: `priority` (lowest op priority first, aging, "
     "fair between jobs) or `fifo` (submission order).",
     true, Kind::kString, OUTRIDER_STRING_FIELD(scheduler), [](const AgentOptions& o) {
       if (o.scheduler == "priority" || o.scheduler == "fifo") return Status::Ok();
       return InvalidArgument("scheduler must be priority or fifo, got '" + o.scheduler + "'");
     }},
    {"credit_window_bytes", "--credit-window-bytes", "OUTRIDER_CREDIT_WINDOW_BYTES", "credit_window_bytes", "BYTES",
     "2097152", "bytes",
     "Bytes of bulk chunks in flight per peer link: an urgent chunk waits behind at most this much.",
     true, Kind::kUint, OUTRIDER_UINT_FIELD(credit_window_bytes), [](const AgentOptions& o) {
       if (o.credit_window_bytes >= 4096) return Status::Ok();
       return InvalidArgument("credit_window_bytes must be at least 4096, got " + std::to_string(o.credit_window_bytes));
     }},
    {"aging_ms", "--aging-ms", "OUTRIDER_AGING_MS", "aging_ms", "MS", "100", "ms",
     "A waiting chunk gains one priority level per this many ms, so no op starves; 0 = no aging.",
     true, Kind::kUint, OUTRIDER_UINT_FIELD(aging_ms), nullptr},
    {"http_address", "--http-address", "OUTRIDER_HTTP_ADDRESS", "http_address", "ADDR", "127.0.0.1", "",
     "Address of the HTTP listener (/metrics, /healthz, /readyz, /status). Anything but loopback "
     "exposes job names and peer addresses to that network.",
     true, Kind::kString, OUTRIDER_STRING_FIELD(http_address), nullptr},
    {"http_port", "--http-port", "OUTRIDER_HTTP_PORT", "http_port", "PORT", "9750", "",
     "TCP port of the HTTP listener; 0 = none.", true, Kind::kUint, OUTRIDER_UINT_FIELD(http_port),
     [](const AgentOptions& o) {
       if (o.http_port <= 65535) return Status::Ok();
       return InvalidArgument("http_port must be at most 65535, got " + std::to_string(o.http_port));
     }},
    {"metrics", "--metrics", "OUTRIDER_METRICS", "metrics", "0|1", "1", "",
     "1: keep Prometheus metrics; 0: skip metric updates (the endpoints still answer).", true, Kind::kUint,
     OUTRIDER_UINT_FIELD(metrics), [](const AgentOptions& o) {
       if (o.metrics <= 1) return Status::Ok();
       return InvalidArgument("metrics must be 0 or 1, got " + std::to_string(o.metrics));
     }},
    {"config_file", "--config", "OUTRIDER_CONFIG", "", "PATH", "(none)", "",
     "TOML file to read; its keys are the config keys of this table.", true, Kind::kString,
     OUTRIDER_STRING_FIELD(config_file), nullptr},
    {"ready_fd", "--ready-fd", "", "", "FD", "(none)", "",
     "Write one byte to this file descriptor once listening, then close it (for supervisors).",
     false, Kind::kUint,
     [](AgentOptions& o, std::string_view t) {
       uint32_t fd = 0;
       OUTRIDER_RETURN_IF_ERROR(ParseUnsigned(t, &fd));
       if (fd > static_cast<uint32_t>(std::numeric_limits<int>::max())) {
         return InvalidArgument("out of range for a file descriptor");
       }
       o.ready_fd = static_cast<int>(fd);
       return Status::Ok();
     },
     [](const AgentOptions& o) { return std::to_string(o.ready_fd); },
     [](const AgentOptions& o) {
       if (o.ready_fd >= -1) return Status::Ok();
       return InvalidArgument("ready_fd must be -1 (none) or a file descriptor, got " +
                              std::to_string(o.ready_fd));
     }},
};
#undef OUTRIDER_STRING_FIELD
#undef OUTRIDER_UINT_FIELD

constexpr size_t kNumParams = std::size(kParams);

size_t IndexOf(std::string_view name) {
  for (size_t i = 0; i < kNumParams; ++i) {
    if (kParams[i].name == name) return i;
  }
  OUTRIDER_CHECK(false && "parameter missing from kParams");
  return 0;
}

std::string DefaultSocketPath(const EnvLookup& getenv) {
  // XDG: a relative XDG_RUNTIME_DIR is invalid and must be ignored.
  std::optional<std::string> dir = getenv("XDG_RUNTIME_DIR");
  if (dir && !dir->empty() && dir->front() == '/') return *dir + "/outrider/agent.sock";
  return "/run/outrider/agent.sock";
}

Status Apply(const Param& p, std::string_view text, const std::string& where, AgentOptions& o) {
  Status st = p.set(o, text);
  if (st.ok()) return st;
  return InvalidArgument(std::string(p.name) + ": bad value '" + std::string(text) + "' from " +
                         where + ": " + st.message());
}

// Renders a TOML value as the text a flag would carry, insisting on the parameter's type.
Status TomlToText(const Param& p, const toml::node& node, const std::string& where,
                  std::string* text) {
  auto wrong_type = [&](std::string_view expected) {
    return InvalidArgument(std::string(p.name) + " from " + where + ": expected " +
                           std::string(expected));
  };
  switch (p.kind) {
    case Kind::kString:
      if (!node.is_string()) return wrong_type("a string");
      *text = node.as_string()->get();
      return Status::Ok();
    case Kind::kUint:
      if (!node.is_integer()) return wrong_type("an integer");
      *text = std::to_string(node.as_integer()->get());
      return Status::Ok();
    case Kind::kUintList:
      if (!node.is_array()) return wrong_type("an array of integers");
      text->clear();
      for (const toml::node& element : *node.as_array()) {
        if (!element.is_integer()) return wrong_type("an array of integers");
        *text += (text->empty() ? "" : ",") + std::to_string(element.as_integer()->get());
      }
      return Status::Ok();
  }
  return Internal("unhandled parameter kind");
}

Status ReadFile(const std::string& path, const std::string& where, std::string* out) {
  auto fail = [&](int err) {
    return InvalidArgument("config file '" + path + "' (from " + where + "): " +
                           std::strerror(err));
  };
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) return fail(errno);
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof(buf), f)) > 0) out->append(buf, n);
  int err = std::ferror(f) ? errno : 0;
  std::fclose(f);
  if (err != 0) return fail(err);
  return Status::Ok();
}

Status ApplyConfigFile(const std::string& path, const std::string& where, AgentOptions& o,
                       std::vector<Source>& source, std::vector<std::string>& origin) {
  std::string doc;
  OUTRIDER_RETURN_IF_ERROR(ReadFile(path, where, &doc));
  toml::table table;
#if TOML_EXCEPTIONS
  try {
    table = toml::parse(doc, path);
  } catch (const toml::parse_error& e) {
    return InvalidArgument("config file " + path + " line " +
                           std::to_string(e.source().begin.line) + ": " +
                           std::string(e.description()));
  }
#else
  toml::parse_result parsed = toml::parse(doc, path);
  if (!parsed) {
    return InvalidArgument("config file " + path + " line " +
                           std::to_string(parsed.error().source().begin.line) + ": " +
                           std::string(parsed.error().description()));
  }
  table = std::move(parsed).table();
#endif
  for (auto&& [key, node] : table) {
    std::string at = "config file " + path + " line " + std::to_string(node.source().begin.line);
    size_t i = 0;
    while (i < kNumParams && (kParams[i].toml_key.empty() || kParams[i].toml_key != key.str())) ++i;
    if (i == kNumParams) {
      std::string known;
      for (const Param& p : kParams) {
        if (!p.toml_key.empty()) known += (known.empty() ? "" : ", ") + std::string(p.toml_key);
      }
      return InvalidArgument(at + ": unknown key '" + std::string(key.str()) +
                             "' (known keys: " + known + ")");
    }
    std::string text;
    OUTRIDER_RETURN_IF_ERROR(TomlToText(kParams[i], node, at, &text));
    OUTRIDER_RETURN_IF_ERROR(Apply(kParams[i], text, at, o));
    source[i] = Source::kConfigFile;
    origin[i] = path;
  }
  return Status::Ok();
}

// Appends `text` wrapped at 80 columns, every line indented by `indent` spaces.
void AppendWrapped(std::string& out, std::string_view text, size_t indent) {
  size_t column = 0;
  while (!text.empty()) {
    size_t space = text.find(' ');
    std::string_view word = text.substr(0, space);
    text = space == std::string_view::npos ? std::string_view() : text.substr(space + 1);
    if (column > 0 && column + 1 + word.size() > 80) {
      out += '\n';
      column = 0;
    }
    if (column == 0) {
      out.append(indent, ' ');
      column = indent;
    } else {
      out += ' ';
      ++column;
    }
    out += word;
    column += word.size();
  }
  out += '\n';
}

std::string MarkdownCell(std::string_view text, bool code) {
  if (text.empty()) return "—";
  std::string s = code ? "`" : "";
  for (char c : text) s += c == '|' ? std::string("\\|") : std::string(1, c);
  return s + (code ? "`" : "");
}

}  // namespace

std::string_view SourceName(Source source) {
  switch (source) {
    case Source::kDefault: return "default";
    case Source::kConfigFile: return "config";
    case Source::kEnv: return "env";
    case Source::kFlag: return "flag";
  }
  return "unknown";
}

Status AgentOptions::Validate() const {
  for (const Param& p : kParams) {
    if (p.check != nullptr) OUTRIDER_RETURN_IF_ERROR(p.check(*this));
  }
  return Status::Ok();
}

EnvLookup ProcessEnvironment() {
  return [](const std::string& name) -> std::optional<std::string> {
    const char* value = std::getenv(name.c_str());
    if (value == nullptr) return std::nullopt;
    return std::string(value);
  };
}

std::string HelpText() {
  std::string out =
      "outrider-agent " OUTRIDER_VERSION ": per-node communication-offload agent.\n"
      "Usage: outrider-agent [options]\n"
      "Precedence: flag > OUTRIDER_* environment variable > config file (--config) > default.\n"
      "\nOptions:\n";
  for (const Param& p : kParams) {
    out += "  " + std::string(p.flag) + " " + std::string(p.metavar) + "\n";
    AppendWrapped(out, p.help, 6);
    std::string where = "[";
    if (!p.env.empty()) where += "env " + std::string(p.env) + "; ";
    if (!p.toml_key.empty()) where += "config " + std::string(p.toml_key) + "; ";
    where += "default " + std::string(p.default_text);
    if (!p.unit.empty()) where += "; unit " + std::string(p.unit);
    AppendWrapped(out, where + "]", 6);
  }
  out += "  -h, --help\n      Print this help and exit.\n";
  out += "  --version\n      Print the version and exit.\n";
  out += "  --print-config-table\n      Print the README's parameter table (Markdown) and exit.\n";
  return out;
}

std::string ParameterTableMarkdown() {
  std::string out =
      "| Parameter | Flag | Environment | Config key | Default | Unit | Description |\n"
      "|---|---|---|---|---|---|---|\n";
  for (const Param& p : kParams) {
    if (!p.in_readme) continue;
    out += "| " + MarkdownCell(p.name, false) + " | " + MarkdownCell(p.flag, true) + " | " +
           MarkdownCell(p.env, true) + " | " + MarkdownCell(p.toml_key, true) + " | " +
           MarkdownCell(p.default_text, false) + " | " + MarkdownCell(p.unit, false) + " | " +
           MarkdownCell(p.help, false) + " |\n";
  }
  return out;
}

Result<LoadedConfig> LoadConfig(int argc, const char* const* argv, const EnvLookup& getenv) {
  LoadedConfig out;
  CLI::App app("outrider-agent", "outrider-agent");
  app.set_help_flag();  // --help is rendered from kParams, not by CLI11
  bool help = false, version = false, table = false;
  app.add_flag("-h,--help", help);
  app.add_flag("--version", version);
  app.add_flag("--print-config-table", table);
  std::vector<std::string> flag_text(kNumParams);
  std::vector<CLI::Option*> flag_option(kNumParams);
  for (size_t i = 0; i < kNumParams; ++i) {
    // A repeated flag takes its last value (launchers append overrides to their defaults).
    flag_option[i] = app.add_option(std::string(kParams[i].flag), flag_text[i])
                         ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return InvalidArgument(std::string("command line: ") + e.what());
  }
  if (help || version || table) {
    out.help_requested = true;
    out.help_text = help      ? HelpText()
                    : version ? std::string("outrider-agent " OUTRIDER_VERSION "\n")
                              : ParameterTableMarkdown();
    return out;
  }

  AgentOptions& o = out.options;
  o.socket_path = DefaultSocketPath(getenv);
  std::vector<Source> source(kNumParams, Source::kDefault);
  std::vector<std::string> origin(kNumParams, "default");
  auto env_value = [&](const Param& p) {
    return p.env.empty() ? std::nullopt : getenv(std::string(p.env));
  };

  // The config file's own path follows the usual precedence, but must be known before the file
  // is read; the env and flag passes below then record it like any other parameter.
  const size_t config_index = IndexOf("config_file");
  const Param& config = kParams[config_index];
  std::string config_path, config_where;
  if (flag_option[config_index]->count() > 0) {
    config_path = flag_text[config_index];
    config_where = "flag " + std::string(config.flag);
  } else if (std::optional<std::string> v = env_value(config)) {
    config_path = *v;
    config_where = "env " + std::string(config.env);
  }
  if (!config_path.empty()) {
    OUTRIDER_RETURN_IF_ERROR(ApplyConfigFile(config_path, config_where, o, source, origin));
  }

  for (size_t i = 0; i < kNumParams; ++i) {
    const Param& p = kParams[i];
    if (std::optional<std::string> v = env_value(p)) {
      OUTRIDER_RETURN_IF_ERROR(Apply(p, *v, "env " + std::string(p.env), o));
      source[i] = Source::kEnv;
      origin[i] = std::string(p.env);
    }
  }
  for (size_t i = 0; i < kNumParams; ++i) {
    const Param& p = kParams[i];
    if (flag_option[i]->count() > 0) {
      OUTRIDER_RETURN_IF_ERROR(Apply(p, flag_text[i], "flag " + std::string(p.flag), o));
      source[i] = Source::kFlag;
      origin[i] = std::string(p.flag);
    }
  }

  for (size_t i = 0; i < kNumParams; ++i) {
    const Param& p = kParams[i];
    if (p.check == nullptr) continue;
    Status st = p.check(o);
    if (!st.ok()) {
      std::string set_by = source[i] == Source::kDefault ? "default"
                           : source[i] == Source::kConfigFile ? "config file " + origin[i]
                           : std::string(SourceName(source[i])) + " " + origin[i];
      return InvalidArgument(st.message() + " (set by " + set_by + ")");
    }
  }
  for (size_t i = 0; i < kNumParams; ++i) {
    out.effective.push_back(
        {std::string(kParams[i].name), kParams[i].get(o), source[i], origin[i]});
  }
  return out;
}

}  // namespace outrider::agent
