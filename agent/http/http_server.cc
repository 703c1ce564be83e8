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
#include <string>
#include <string_view>
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

bool IsLoopback(const char* remote_addr) {
  std::string_view a = remote_addr != nullptr ? remote_addr : "";
  return a.starts_with("127.") || a == "::1" || a.starts_with("::ffff:127.");
}

int HttpServer::Dispatch(::mg_connection* conn, void* cbdata) {
  const mg_request_info* ri = mg_get_request_info(conn);
  const auto* route = static_cast<const Route*>(cbdata);
  route->server->answering_.fetch_add(1);
  struct Answered {
    HttpServer* server;
    ~Answered() { server->answering_.fetch_sub(1); }
  } answered{route->server};
  const char* method = ri != nullptr ? ri->request_method : nullptr;
  bool get =
      method != nullptr && (std::strcmp(method, "GET") == 0 || std::strcmp(method, "HEAD") == 0);
  bool post = method != nullptr && std::strcmp(method, "POST") == 0;
  HttpResponse r;
  if (route->post ? !post : !get) {
    r.status = 405;
    r.body = route->post ? "only POST\n" : "only GET\n";
  } else if (route->post && !IsLoopback(ri->remote_addr)) {
    r.status = 403;
    r.body = std::string("served over loopback only (ask 127.0.0.1 on the agent's host), not to ") +
             ri->remote_addr + "\n";
  } else {
    r = route->handler();
  }
  const char* reason = r.status == 200   ? "OK"
                       : r.status == 202 ? "Accepted"
                       : r.status == 503 ? "Service Unavailable"
                       : r.status == 405 ? "Method Not Allowed"
                       : r.status == 403 ? "Forbidden"
                                         : "Error";
  mg_printf(conn,
            "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\nCache-Control: "
            "no-store\r\nConnection: close\r\n\r\n",
            r.status, reason, r.content_type.c_str(), r.body.size());
  if (method != nullptr && std::strcmp(method, "HEAD") != 0) {
    mg_write(conn, r.body.data(), r.body.size());
  }
  return r.status;
}

Result<std::unique_ptr<HttpServer>> HttpServer::Start(const std::string& address, uint16_t port,
                                                      std::map<std::string, Handler> routes,
                                                      std::map<std::string, Handler> post_routes) {
  static std::once_flag init;
  std::call_once(init, [] { mg_init_library(0); });
  auto s = std::unique_ptr<HttpServer>(new HttpServer());
  for (auto& [path, handler] : routes) s->routes_[path] = Route{std::move(handler), false, s.get()};
  for (auto& [path, handler] : post_routes)
    s->routes_[path] = Route{std::move(handler), true, s.get()};
  std::string ports = address + ":" + std::to_string(port);
  const char* options[] = {"listening_ports",   ports.c_str(), "num_threads", "2",
                           "enable_keep_alive", "no",          nullptr};
  mg_callbacks callbacks{};
  s->ctx_ = mg_start(&callbacks, nullptr, options);
  if (s->ctx_ == nullptr) {
    return Unavailable("cannot listen for HTTP on " + ports +
                       " (port in use, or a bad --http-address?)");
  }
  for (auto& [path, route] : s->routes_)
    mg_set_request_handler(s->ctx_, path.c_str(), &HttpServer::Dispatch, &route);
  return s;
}

HttpServer::~HttpServer() {
  if (ctx_ == nullptr) return;
  // Answers being written go out first (each handler is bounded: 2 s for the loop's answer).
  for (int waited = 0; answering_.load() != 0 && waited < kDrainAnswersMs; waited += 5)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
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
