// HTTP listener over civetweb.
#include "agent/http/http_server.h"

#include <arpa/inet.h>
#include <civetweb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <mutex>
#include <thread>

namespace outrider::agent {
namespace {

// Opens and closes a TCP connection to 127.0.0.1:port (the listener wakes up for it).
void Knock(int port) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) return;
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_port = htons(static_cast<uint16_t>(port));
  sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  (void)::connect(fd, reinterpret_cast<sockaddr*>(&sa), sizeof(sa));
  ::close(fd);
}

}  // namespace

int HttpServer::Dispatch(::mg_connection* conn, void* cbdata) {
  const mg_request_info* ri = mg_get_request_info(conn);
  auto* handler = static_cast<Handler*>(cbdata);
  HttpResponse r;
  if (ri == nullptr || ri->request_method == nullptr ||
      (std::strcmp(ri->request_method, "GET") != 0 &&
       std::strcmp(ri->request_method, "HEAD") != 0)) {
    r.status = 405;
    r.body = "only GET\n";
  } else {
    r = (*handler)();
  }
  const char* reason = r.status == 200   ? "OK"
                       : r.status == 503 ? "Service Unavailable"
                       : r.status == 405 ? "Method Not Allowed"
                                         : "Error";
  mg_printf(conn,
            "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\nCache-Control: "
            "no-store\r\nConnection: close\r\n\r\n",
            r.status, reason, r.content_type.c_str(), r.body.size());
  if (ri != nullptr && ri->request_method != nullptr &&
      std::strcmp(ri->request_method, "HEAD") != 0) {
    mg_write(conn, r.body.data(), r.body.size());
  }
  return r.status;
}

Result<std::unique_ptr<HttpServer>> HttpServer::Start(const std::string& address, uint16_t port,
                                                      std::map<std::string, Handler> routes) {
  static std::once_flag init;
  std::call_once(init, [] { mg_init_library(0); });
  auto s = std::unique_ptr<HttpServer>(new HttpServer());
  s->routes_ = std::move(routes);
  std::string ports = address + ":" + std::to_string(port);
  const char* options[] = {"listening_ports",   ports.c_str(), "num_threads", "2",
                           "enable_keep_alive", "no",          nullptr};
  mg_callbacks callbacks{};
  s->ctx_ = mg_start(&callbacks, nullptr, options);
  if (s->ctx_ == nullptr) {
    return Unavailable("cannot listen for HTTP on " + ports +
                       " (port in use, or a bad --http-address?)");
  }
  for (auto& [path, handler] : s->routes_)
    mg_set_request_handler(s->ctx_, path.c_str(), &HttpServer::Dispatch, &handler);
  return s;
}

HttpServer::~HttpServer() {
  if (ctx_ == nullptr) return;
  // civetweb's listener sees the stop request only between two polls, up to 2 s apart. A
  // connection to the listening port wakes it: knock until mg_stop returns (bounded), so that a
  // stopping agent does not wait out the poll.
  mg_server_port ports[4];
  int n = mg_get_server_ports(ctx_, 4, ports);
  std::atomic<bool> stopped{false};
  std::thread stopper([this, &stopped] {
    mg_stop(ctx_);
    stopped.store(true);
  });
  for (int i = 0; i < 300 && !stopped.load(); ++i) {
    for (int k = 0; k < n; ++k) Knock(ports[k].port);
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  stopper.join();
}

}  // namespace outrider::agent
