// The UCX transport as a TransportFactory, declared apart from ucx_transport.h so that users of
// the factory do not compile against UCX's headers.
#pragma once

#include <string>

#include "agent/transport/tcp_congestion.h"
#include "agent/transport/transport_factory.h"

namespace outrider::agent {

// Creates a UcxTransport (one UCX worker) per call, whose TCP connections use congestion control
// `tcp_congestion_control` ("system": the kernel's default); `zero_copy`: see
// ConfigureUcxEnvironment.
TransportFactory UcxTransportFactory(
    std::string tcp_congestion_control = std::string(kKernelCongestionControl),
    bool zero_copy = false);

}  // namespace outrider::agent
