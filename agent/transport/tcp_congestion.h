// The congestion control of the agent's TCP connections. UCX opens the data plane's sockets
// itself and has no setting for their algorithm, so the agent sets it on the TCP sockets it holds:
// the listener (the kernel gives connections accepted there the listener's algorithm) and each
// connection it opens.
//
// Why one would: BBR (v1, the kernel's `bbr`) drops a connection's congestion window to 4
// segments for 200 ms whenever its minimum RTT has not been seen for 10 s, and a link busy all
// that time never sees it. A ring is as fast as its slowest link, so every link's pause stalls all
// of them: back-to-back 512 MiB allreduces on 4 nodes took up to 150 ms longer each. A loss-based
// algorithm (cubic) has no such pause but keeps more in the queues that urgent chunks wait in, so
// the default leaves the kernel's choice alone.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace outrider::agent {

// The parameter value that keeps the kernel's default algorithm.
inline constexpr std::string_view kKernelCongestionControl = "system";

// A name the kernel could know (1-15 of [a-z0-9_]), or "system".
Status ValidateCongestionControlName(std::string_view name);

// The TCP sockets (IPv4 and IPv6) this process holds, by descriptor.
std::vector<int> OwnTcpSockets();

// The algorithm of TCP socket `fd`.
Result<std::string> TcpCongestionControl(int fd);

// Sets `name` on every TCP socket of this process that has another one. Returns how many it
// changed. The kernel's refusal, with what to do about it: PERMISSION_DENIED when the process may
// not pick `name` (it lacks CAP_NET_ADMIN and `name` is not in
// net.ipv4.tcp_allowed_congestion_control), INVALID_ARGUMENT when the kernel lacks `name`.
Result<int> SetTcpCongestionControlOnOwnSockets(const std::string& name);

}  // namespace outrider::agent
