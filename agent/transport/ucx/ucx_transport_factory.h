// The UCX transport as a TransportFactory, declared apart from ucx_transport.h so that users of
// the factory do not compile against UCX's headers.
#pragma once

#include "agent/transport/transport_factory.h"

namespace outrider::agent {

// Creates a UcxTransport (one UCX worker) per call.
TransportFactory UcxTransportFactory();

}  // namespace outrider::agent
