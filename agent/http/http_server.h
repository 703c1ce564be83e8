// The agent's HTTP listener (civetweb): serves a fixed set of GET routes, and POST routes that act
// (served over loopback only), each answered by a handler that returns status, content
// type and body. Handlers run on civetweb's worker threads.
// Thread-safety: Start/Stop on one thread; handlers must be thread-safe.
#pragma once

#include <atomic>
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

// Whether a client address (as civetweb writes it: "127.0.0.1", "::1", "::ffff:127.0.0.1") is
// this host's loopback.
bool IsLoopback(const char* remote_addr);

class HttpServer {
 public:
  using Handler = std::function<HttpResponse()>;
  // Listens on address:port; `routes` maps exact paths to GET handlers, `post_routes` to POST
  // handlers, which only clients over loopback reach (others get 403, whatever the listening
  // address: an action such as a drain is the node operator's).
  static Result<std::unique_ptr<HttpServer>> Start(const std::string& address, uint16_t port,
                                                   std::map<std::string, Handler> routes,
                                                   std::map<std::string, Handler> post_routes = {});
  // Stops the listener once the requests being answered have been (within kDrainAnswersMs: an
  // agent that stops right after a drain still tells whoever asked), then waits for its threads.
  ~HttpServer();
  static constexpr int kDrainAnswersMs = 3000;

 private:
  struct Route {
    Handler handler;
    bool post = false;
    HttpServer* server = nullptr;
  };
  HttpServer() = default;
  static int Dispatch(::mg_connection* conn, void* cbdata);
  mg_context* ctx_ = nullptr;
  std::map<std::string, Route> routes_;
  // Requests being answered: civetweb's stop abandons a response it has not written yet.
  std::atomic<int> answering_{0};
};

}  // namespace outrider::agent
