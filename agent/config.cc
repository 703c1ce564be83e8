// The agent's configuration loader on top of the parameter table (config_params.cc): flags,
// environment and TOML file in precedence order, validation naming where a bad value came from,
// and the --help text and the parameter table of docs/operations.md.
#include "agent/config.h"

#include <sys/un.h>
#include <toml++/toml.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <optional>
#include <span>
#include <utility>

#include "agent/config_params.h"
#include "ipc/defaults.h"

#ifndef OUTRIDER_VERSION
#define OUTRIDER_VERSION "0.1.0"
#endif

namespace outrider::agent {
namespace {

constexpr std::array<std::string_view, 7> kLogLevels = {"trace", "debug",    "info", "warn",
                                                        "error", "critical", "off"};

size_t IndexOf(std::string_view name) {
  std::span<const Param> params = Params();
  for (size_t i = 0; i < params.size(); ++i) {
    if (params[i].name == name) return i;
  }
  OUTRIDER_CHECK(false && "parameter missing from the table");
  return 0;
}

// The parameter a validation message is about: messages start with the parameter's name.
std::optional<size_t> ParamNamedBy(std::string_view message) {
  std::span<const Param> params = Params();
  for (size_t i = 0; i < params.size(); ++i) {
    std::string_view name = params[i].name;
    if (message.size() > name.size() && message.substr(0, name.size()) == name &&
        message[name.size()] == ' ') {
      return i;
    }
  }
  return std::nullopt;
}

// Where an effective value came from, as error messages say it: "flag --port",
// "config file /etc/outrider.toml".
std::string SetBy(Source source, const std::string& origin) {
  switch (source) {
    case Source::kDefault:
      return "default";
    case Source::kConfigFile:
      return "config file " + origin;
    case Source::kEnv:
      return "env " + origin;
    case Source::kFlag:
      return "flag " + origin;
  }
  return origin;
}

// Sets p's field from `text` found at `where` ("env OUTRIDER_PORT", "config file F line 3").
// A value the field cannot mean is reported like a Validate failure, with `set_by`.
Status Apply(const Param& p, std::string_view text, const std::string& where,
             const std::string& set_by, AgentOptions& o) {
  Status st = p.set(o, text);
  if (st.ok()) return st;
  if (ParamNamedBy(st.message()) == IndexOf(p.name)) {
    return InvalidArgument(st.message() + " (set by " + set_by + ")");
  }
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
    case ParamKind::kString:
      if (!node.is_string()) return wrong_type("a string");
      *text = node.as_string()->get();
      return Status::Ok();
    case ParamKind::kUint:
      if (!node.is_integer()) return wrong_type("an integer");
      *text = std::to_string(node.as_integer()->get());
      return Status::Ok();
    case ParamKind::kUintList:
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
    return InvalidArgument("config file '" + path + "' (from " + where +
                           "): " + std::strerror(err));
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
  std::span<const Param> params = Params();
  for (auto&& [key, node] : table) {
    std::string at = "config file " + path + " line " + std::to_string(node.source().begin.line);
    size_t i = 0;
    while (i < params.size() && (params[i].toml_key.empty() || params[i].toml_key != key.str())) {
      ++i;
    }
    if (i == params.size()) {
      std::string known;
      for (const Param& p : params) {
        if (!p.toml_key.empty()) known += (known.empty() ? "" : ", ") + std::string(p.toml_key);
      }
      return InvalidArgument(at + ": unknown key '" + std::string(key.str()) +
                             "' (known keys: " + known + ")");
    }
    std::string text;
    OUTRIDER_RETURN_IF_ERROR(TomlToText(params[i], node, at, &text));
    source[i] = Source::kConfigFile;
    origin[i] = path;
    OUTRIDER_RETURN_IF_ERROR(Apply(params[i], text, at, SetBy(source[i], origin[i]), o));
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
    case Source::kDefault:
      return "default";
    case Source::kConfigFile:
      return "config";
    case Source::kEnv:
      return "env";
    case Source::kFlag:
      return "flag";
  }
  return "unknown";
}

Status ControlServerOptions::ValidateAccess() const {
  if (socket_path.empty()) return InvalidArgument("socket_path must not be empty");
  if (socket_path.size() >= sizeof(sockaddr_un{}.sun_path)) {
    return InvalidArgument(
        "socket_path must be shorter than " + std::to_string(sizeof(sockaddr_un{}.sun_path)) +
        " bytes (sockaddr_un limit), got " + std::to_string(socket_path.size()) + " bytes");
  }
  for (uint32_t uid : allowed_uids) {
    if (uid == std::numeric_limits<uint32_t>::max()) {
      return InvalidArgument("allowed_uids must not contain 4294967295 ((uid_t)-1)");
    }
  }
  return Status::Ok();
}

Status ControlServerOptions::ValidateCapacity() const {
  if (sq_entries < 8 || sq_entries > 65536 || (sq_entries & (sq_entries - 1)) != 0) {
    return InvalidArgument("sq_entries must be a power of two in [8, 65536], got " +
                           std::to_string(sq_entries));
  }
  if (max_clients < 1) return InvalidArgument("max_clients must be at least 1, got 0");
  if (max_communicators < 1) return InvalidArgument("max_communicators must be at least 1, got 0");
  if (handshake_timeout_ms < 1)
    return InvalidArgument("handshake_timeout_ms must be at least 1, got 0");
  if (max_world_size < 1 || max_world_size > (1u << 30)) {
    return InvalidArgument("max_world_size must be in [1, 2^30], got " +
                           std::to_string(max_world_size));
  }
  return limits.Validate();
}

Status AgentOptions::Validate() const {
  // Table order: the socket's rows, log_level, then the rings' and clients' rows.
  OUTRIDER_RETURN_IF_ERROR(control.ValidateAccess());
  if (std::find(kLogLevels.begin(), kLogLevels.end(), log_level) == kLogLevels.end()) {
    return InvalidArgument(
        "log_level must be one of trace, debug, info, warn, error, "
        "critical, off, got '" +
        log_level + "'");
  }
  OUTRIDER_RETURN_IF_ERROR(control.ValidateCapacity());
  for (auto [name, us] : {std::pair{"spin_us", spin_us}, {"gpu_spin_us", gpu_spin_us}}) {
    if (us > 1000000) {
      return InvalidArgument(std::string(name) + " must be at most 1000000 (1 s), got " +
                             std::to_string(us));
    }
  }
  // Table order: the network's rows, the engine's, then the scheduler's.
  OUTRIDER_RETURN_IF_ERROR(network.ValidateLinks());
  OUTRIDER_RETURN_IF_ERROR(engine.Validate());
  OUTRIDER_RETURN_IF_ERROR(network.scheduler.Validate());
  if (http_port > 65535) {
    return InvalidArgument("http_port must be at most 65535, got " + std::to_string(http_port));
  }
  if (metrics > 1) return InvalidArgument("metrics must be 0 or 1, got " + std::to_string(metrics));
  if (ready_fd < -1) {
    return InvalidArgument("ready_fd must be -1 (none) or a file descriptor, got " +
                           std::to_string(ready_fd));
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
      "outrider-agent " OUTRIDER_VERSION
      ": per-node communication-offload agent.\n"
      "Usage: outrider-agent [options]\n"
      "Precedence: flag > OUTRIDER_* environment variable > config file (--config) > default.\n"
      "\nOptions:\n";
  for (const Param& p : Params()) {
    out += "  " + std::string(p.flag) + " " + std::string(p.metavar) + "\n";
    AppendWrapped(out, p.help, 6);
    std::string where = "[";
    if (!p.env.empty()) where += "env " + std::string(p.env) + "; ";
    if (!p.toml_key.empty()) where += "config " + std::string(p.toml_key) + "; ";
    where += "default " + DefaultText(p);
    if (!p.unit.empty()) where += "; unit " + std::string(p.unit);
    AppendWrapped(out, where + "]", 6);
  }
  out += "  -h, --help\n      Print this help and exit.\n";
  out += "  --version\n      Print the version and exit.\n";
  out +=
      "  --print-config-table\n      Print the parameter table of docs/operations.md "
      "(Markdown) and exit.\n";
  return out;
}

std::string ParameterTableMarkdown() {
  std::string out =
      "| Parameter | Flag | Environment | Config key | Default | Unit | Description |\n"
      "|---|---|---|---|---|---|---|\n";
  for (const Param& p : Params()) {
    if (!p.in_readme) continue;
    out += "| " + MarkdownCell(p.name, false) + " | " + MarkdownCell(p.flag, true) + " | " +
           MarkdownCell(p.env, true) + " | " + MarkdownCell(p.toml_key, true) + " | " +
           MarkdownCell(DefaultText(p), false) + " | " + MarkdownCell(p.unit, false) + " | " +
           MarkdownCell(p.help, false) + " |\n";
  }
  return out;
}

Result<LoadedConfig> LoadConfig(int argc, const char* const* argv, const EnvLookup& getenv) {
  LoadedConfig out;
  std::span<const Param> params = Params();
  CLI::App app("outrider-agent", "outrider-agent");
  app.set_help_flag();  // --help is rendered from the parameter table, not by CLI11
  bool help = false, version = false, table = false;
  app.add_flag("-h,--help", help);
  app.add_flag("--version", version);
  app.add_flag("--print-config-table", table);
  std::vector<std::string> flag_text(params.size());
  std::vector<CLI::Option*> flag_option(params.size());
  for (size_t i = 0; i < params.size(); ++i) {
    // A repeated flag takes its last value (launchers append overrides to their defaults).
    flag_option[i] = app.add_option(std::string(params[i].flag), flag_text[i])
                         ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return InvalidArgument(std::string("command line: ") + e.what());
  }
  if (help || version || table) {
    ProtocolWindow protocol;
    out.help_requested = true;
    out.help_text = help ? HelpText()
                    : version
                        ? "outrider-agent " OUTRIDER_VERSION " (protocol " +
                              std::to_string(protocol.newest) + ", serves shims of versions " +
                              std::to_string(protocol.oldest) + " to " +
                              std::to_string(protocol.newest) + ")\n"
                        : ParameterTableMarkdown();
    return out;
  }

  AgentOptions& o = out.options;
  std::optional<std::string> runtime_dir = getenv("XDG_RUNTIME_DIR");
  o.control.socket_path = ipc::DefaultSocketPath(runtime_dir ? runtime_dir->c_str() : nullptr);
  std::vector<Source> source(params.size(), Source::kDefault);
  std::vector<std::string> origin(params.size(), "default");
  auto env_value = [&](const Param& p) {
    return p.env.empty() ? std::nullopt : getenv(std::string(p.env));
  };

  // The config file's own path follows the usual precedence, but must be known before the file
  // is read; the env and flag passes below then record it like any other parameter.
  const size_t config_index = IndexOf("config_file");
  const Param& config = params[config_index];
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

  for (size_t i = 0; i < params.size(); ++i) {
    const Param& p = params[i];
    if (std::optional<std::string> v = env_value(p)) {
      source[i] = Source::kEnv;
      origin[i] = std::string(p.env);
      OUTRIDER_RETURN_IF_ERROR(Apply(p, *v, "env " + origin[i], SetBy(source[i], origin[i]), o));
    }
  }
  for (size_t i = 0; i < params.size(); ++i) {
    const Param& p = params[i];
    if (flag_option[i]->count() > 0) {
      source[i] = Source::kFlag;
      origin[i] = std::string(p.flag);
      OUTRIDER_RETURN_IF_ERROR(
          Apply(p, flag_text[i], "flag " + origin[i], SetBy(source[i], origin[i]), o));
    }
  }

  if (Status st = o.Validate(); !st.ok()) {
    std::optional<size_t> i = ParamNamedBy(st.message());
    if (!i) return st;
    return InvalidArgument(st.message() + " (set by " + SetBy(source[*i], origin[*i]) + ")");
  }
  for (size_t i = 0; i < params.size(); ++i) {
    out.effective.push_back({std::string(params[i].name), params[i].get(o), source[i], origin[i]});
  }
  return out;
}

}  // namespace outrider::agent
