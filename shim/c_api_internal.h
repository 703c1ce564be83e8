// What the two halves of the C ABI share (c_api.cc: connection, communicators, memory;
// c_api_ops.cc: ops and waits): the handle behind outrider_client_t and the conversion of a
// Status into an error code, kept as the client's last error.
#pragma once

#include <exception>
#include <memory>
#include <new>

#include "outrider/outrider.h"
#include "shim/client.h"

struct outrider_client {
  std::unique_ptr<outrider::shim::Client> impl;
};

namespace outrider::shim::capi {

inline int Fail(outrider_client_t* c, const Status& st) {
  if (c != nullptr) c->impl->last_error() = st.ToString();
  return static_cast<int>(st.code());
}

inline int Report(outrider_client_t* c, const Status& st) {
  if (st.ok()) return OUTRIDER_OK;
  return Fail(c, st);
}

// Runs `f`; no exception crosses the ABI.
template <typename F>
int Guard(outrider_client_t* c, F&& f) {
  try {
    return f();
  } catch (const std::bad_alloc&) {
    return c ? Fail(c, outrider::ResourceExhausted("out of memory"))
             : OUTRIDER_ERR_RESOURCE_EXHAUSTED;
  } catch (const std::exception& e) {
    return c ? Fail(c, outrider::Internal(e.what())) : OUTRIDER_ERR_INTERNAL;
  }
}

}  // namespace outrider::shim::capi
