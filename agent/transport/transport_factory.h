// How the owner of a transport obtains one: a factory that takes the callbacks the transport will
// run, so the network can be built over UCX in the agent and over an in-process fake in tests.
#pragma once

#include <functional>
#include <memory>

#include "agent/transport/transport.h"
#include "base/status.h"

namespace outrider::agent {

using TransportFactory = std::function<Result<std::unique_ptr<Transport>>(Transport::Callbacks)>;

}  // namespace outrider::agent
