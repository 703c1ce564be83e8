// Letting go of the GIL around a wait (the "outrider" backend's C++ threads never take it).
#pragma once

#include <Python.h>

namespace outrider::torch_backend {

// Waiting on the backend's threads with the GIL held can deadlock: they complete futures, which
// runs their Python callbacks and drops their Python references, and both take the GIL. Waits
// that can be reached with the GIL held (destructors run from Python, Connection::Call) hold one of
// these while they wait. Nothing happens where the GIL is not held or Python is gone.
class GilReleased {
 public:
  GilReleased()
      : state_(Py_IsInitialized() && PyGILState_Check() ? PyEval_SaveThread() : nullptr) {}
  ~GilReleased() {
    if (state_ != nullptr) PyEval_RestoreThread(state_);
  }
  GilReleased(const GilReleased&) = delete;
  GilReleased& operator=(const GilReleased&) = delete;

 private:
  PyThreadState* state_;
};

}  // namespace outrider::torch_backend
