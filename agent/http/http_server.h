// The agent's HTTP listener (civetweb): serves a fixed set of GET routes, each answered by a
// handler that returns status, content type and body. Handlers run on civetweb's worker threads.
// Thread-safety: Start/Stop on one thread; handlers must be thread-safe.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>

#include "base/status.h"

struct mg_context;
struct mg_connection;

namespace outrider::agent {

struct HttpResponse {
  int status = 200;
  std::string content_type = "text/plain; charset=utf-8";
  std::string body;
};

class HttpServer {
 public:
  using Handler = std::function<HttpResponse()>;
  // Listens on address:port; `routes` maps exact paths to handlers.
  static Result<std::unique_ptr<HttpServer>> Start(const std::string& address, uint16_t port,
                                                   std::map<std::string, Handler> routes);
  ~HttpServer();  // stops the listener and waits for running handlers

 private:
  HttpServer() = default;
  static int Dispatch(::mg_connection* conn, void* cbdata);
  mg_context* ctx_ = nullptr;
  std::map<std::string, Handler> routes_;
};

}  // namespace outrider::agent
