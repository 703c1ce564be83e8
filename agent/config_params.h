// The agent's parameter table, shared by the files of agent/config*: one row per parameter, from
// which parsing (flag, env, config file), --help, the startup log and the parameter table of
// docs/operations.md follow. Thread-safety: the table is immutable; every function here is
// reentrant.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "agent/config.h"
#include "base/status.h"

namespace outrider::agent {

// How a value must be typed in the TOML file; flags and env vars are always text.
enum class ParamKind { kString, kUint, kUintList };

struct Param {
  std::string_view name;      // config-key style; the EffectiveValue name
  std::string_view flag;      // "--sq-entries"
  std::string_view env;       // "" = not read from the environment
  std::string_view toml_key;  // "" = not read from the config file
  std::string_view metavar;   // placeholder in --help
  // Shown as the default instead of get(AgentOptions{}), for defaults that are not a value of a
  // default-constructed AgentOptions: computed at load time, or "(none)". Usually "".
  std::string_view fixed_default;
  std::string_view unit;
  std::string_view help;
  bool in_readme;
  ParamKind kind;
  // Parses text into the field. A value of the right form that the field cannot mean (a port past
  // 65535) is refused with a message that starts with the parameter's name, like Validate's;
  // other messages give the reason only (the caller adds name and source).
  Status (*set)(AgentOptions&, std::string_view);
  // The field as it would be written on the command line.
  std::string (*get)(const AgentOptions&);
};

// Every parameter, in the order of --help, the parameter table of docs/operations.md and the
// startup log (which is also the order in which AgentOptions::Validate checks them).
std::span<const Param> Params();

// The default as --help and docs/operations.md show it: "256", "(empty)", "68719476736 (64 GiB)".
std::string DefaultText(const Param& p);

}  // namespace outrider::agent
