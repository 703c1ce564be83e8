// Header-only C++ RAII wrapper over the Outrider C API. Errors become outrider::Error
// exceptions on the caller's side of the ABI (the library itself never throws).
//
//   outrider::Client client;                       // connect with defaults from the environment
//   auto grad = client.Alloc<float>(n);            // shared with the agent, freed automatically
//   client.Allreduce(grad.get(), grad.get(), n, OUTRIDER_AVG, "layer1.grad").Wait();
//
// Thread-safety: as the C API — one thread at a time per Client.
#ifndef OUTRIDER_OUTRIDER_HPP_
#define OUTRIDER_OUTRIDER_HPP_

#include <complex>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

#include "outrider/outrider.h"

namespace outrider {

class Error : public std::runtime_error {
 public:
  Error(int code, const std::string& message) : std::runtime_error(message), code_(code) {}
  int code() const { return code_; }

 private:
  int code_;
};

template <typename T>
constexpr outrider_dtype_t DTypeOf() {
  if constexpr (std::is_same_v<T, float>) return OUTRIDER_F32;
  else if constexpr (std::is_same_v<T, double>) return OUTRIDER_F64;
  else if constexpr (std::is_same_v<T, int32_t>) return OUTRIDER_I32;
  else if constexpr (std::is_same_v<T, int64_t>) return OUTRIDER_I64;
  else if constexpr (std::is_same_v<T, uint8_t>) return OUTRIDER_U8;
  else if constexpr (std::is_same_v<T, int8_t>) return OUTRIDER_I8;
  else if constexpr (std::is_same_v<T, int16_t>) return OUTRIDER_I16;
  else if constexpr (std::is_same_v<T, bool>) return OUTRIDER_BOOL;
  else if constexpr (std::is_same_v<T, std::complex<float>>) return OUTRIDER_C64;
  else if constexpr (std::is_same_v<T, std::complex<double>>) return OUTRIDER_C128;
  else static_assert(sizeof(T) == 0, "use the dtype overloads for f16/bf16");
}

// An op in flight. Waiting is explicit; destroying an unwaited Op abandons its handle.
class Op {
 public:
  Op(outrider_client_t* client, outrider_op_t handle) : client_(client), handle_(handle) {}
  // Waits up to timeout_ms (-1: no limit); throws Error on failure or timeout.
  void Wait(int64_t timeout_ms = -1) {
    int rc = outrider_wait(client_, handle_, timeout_ms);
    if (rc != OUTRIDER_OK) throw Error(rc, outrider_last_error(client_));
  }
  // True once finished; throws Error if it finished with an error.
  bool Test() {
    int done = 0;
    int rc = outrider_test(client_, handle_, &done);
    if (rc != OUTRIDER_OK) throw Error(rc, outrider_last_error(client_));
    return done != 0;
  }
  outrider_op_t handle() const { return handle_; }

 private:
  outrider_client_t* client_;  // Not owned; the Client outlives its ops.
  outrider_op_t handle_;
};

class Client {
 public:
  struct Deleter {
    outrider_client_t* client;
    void operator()(void* p) const { outrider_free(client, p); }
  };
  template <typename T>
  using Buffer = std::unique_ptr<T[], Deleter>;

  Client() : Client(nullptr) {}
  explicit Client(const outrider_connect_options_t* options) {
    int rc = outrider_connect(options, &client_);
    if (rc != OUTRIDER_OK) throw Error(rc, outrider_last_error(nullptr));
  }
  Client(Client&& o) noexcept : client_(std::exchange(o.client_, nullptr)) {}
  Client& operator=(Client&& o) noexcept {
    if (this != &o) {
      outrider_disconnect(client_);
      client_ = std::exchange(o.client_, nullptr);
    }
    return *this;
  }
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;
  ~Client() { outrider_disconnect(client_); }

  int rank() const { return outrider_rank(client_); }
  int world_size() const { return outrider_world_size(client_); }
  outrider_client_t* get() const { return client_; }

  // `count` elements of shared memory (64-byte aligned, uninitialized).
  template <typename T>
  Buffer<T> Alloc(size_t count) {
    void* p = outrider_alloc(client_, count * sizeof(T));
    if (p == nullptr) throw Error(OUTRIDER_ERR_RESOURCE_EXHAUSTED, outrider_last_error(client_));
    return Buffer<T>(static_cast<T*>(p), Deleter{client_});
  }

  Op Allreduce(const void* send, void* recv, uint64_t count, outrider_dtype_t dtype,
               outrider_redop_t op, const std::string& key = {}) {
    return Submit(key, [&](const outrider_op_options_t* o, outrider_op_t* h) {
      return outrider_allreduce(client_, send, recv, count, dtype, op, o, h);
    });
  }
  template <typename T>
  Op Allreduce(const T* send, T* recv, uint64_t count, outrider_redop_t op, const std::string& key = {}) {
    return Allreduce(send, recv, count, DTypeOf<T>(), op, key);
  }
  Op Broadcast(void* buf, uint64_t count, outrider_dtype_t dtype, int root, const std::string& key = {}) {
    return Submit(key, [&](const outrider_op_options_t* o, outrider_op_t* h) {
      return outrider_broadcast(client_, buf, count, dtype, root, o, h);
    });
  }
  Op Allgather(const void* send, void* recv, uint64_t count, outrider_dtype_t dtype, const std::string& key = {}) {
    return Submit(key, [&](const outrider_op_options_t* o, outrider_op_t* h) {
      return outrider_allgather(client_, send, recv, count, dtype, o, h);
    });
  }
  Op ReduceScatter(const void* send, void* recv, uint64_t recv_count, outrider_dtype_t dtype,
                   outrider_redop_t op, const std::string& key = {}) {
    return Submit(key, [&](const outrider_op_options_t* o, outrider_op_t* h) {
      return outrider_reduce_scatter(client_, send, recv, recv_count, dtype, op, o, h);
    });
  }
  Op Barrier(const std::string& key = {}) {
    return Submit(key, [&](const outrider_op_options_t* o, outrider_op_t* h) {
      return outrider_barrier(client_, o, h);
    });
  }

 private:
  template <typename F>
  Op Submit(const std::string& key, F&& submit) {
    outrider_op_options_t opts;
    outrider_op_options_init(&opts);
    if (!key.empty()) opts.key = outrider_key(key.c_str());
    outrider_op_t h = 0;
    int rc = submit(&opts, &h);
    if (rc != OUTRIDER_OK) throw Error(rc, outrider_last_error(client_));
    return Op(client_, h);
  }

  outrider_client_t* client_ = nullptr;
};

}  // namespace outrider

#endif  // OUTRIDER_OUTRIDER_HPP_
