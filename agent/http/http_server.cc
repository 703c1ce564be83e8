// HTTP listener over civetweb.
#include "agent/http/http_server.h"

#include <civetweb.h>

#include <cstring>
#include <mutex>

namespace outrider::agent {
namespace {


}  // namespace

int HttpServer::Dispatch(::mg_connection* conn, void* cbdata) {
  const mg_request_info* ri = mg_get_request_info(conn);
  auto* handler = static_cast<Handler*>(cbdata);
  HttpResponse r;
  if (ri == nullptr || ri->request_method == nullptr ||
      (std::strcmp(ri->request_method, "GET") != 0 && std::strcmp(ri->request_method, "HEAD") != 0)) {
    r.status = 405;
    r.body = "only GET\n";
  } else {
    r = (*handler)();
  }
  const char* reason = r.status == 200 ? "OK" : r.status == 503 ? "Service Unavailable" : r.status == 405 ? "Method Not Allowed" : "Error";
  mg_printf(conn, "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n",
            r.status, reason, r.content_type.c_str(), r.body.size());
  if (ri != nullptr && ri->request_method != nullptr && std::strcmp(ri->request_method, "HEAD") != 0) {
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
  const char* options[] = {"listening_ports", ports.c_str(), "num_threads", "2", "enable_keep_alive", "no", nullptr};
  mg_callbacks callbacks{};
  s->ctx_ = mg_start(&callbacks, nullptr, options);
  if (s->ctx_ == nullptr) {
    return Unavailable("cannot listen for HTTP on " + ports + " (port in use, or a bad --http-address?)");
  }
  for (auto& [path, handler] : s->routes_) mg_set_request_handler(s->ctx_, path.c_str(), &HttpServer::Dispatch, &handler);
  return s;
}

HttpServer::~HttpServer() {
  if (ctx_ != nullptr) mg_stop(ctx_);
}

}  // namespace outrider::agent
