// What differs between the c10d APIs the backend builds against, chosen by the PyTorch it is
// compiled with (TORCH_VERSION_MAJOR): in 1.13 a backend is a c10d::ProcessGroup; from 2.0 it is a
// c10d::Backend, which the c10d::ProcessGroup that torch.distributed creates wraps (one backend
// per device type; the dispatcher routes each collective of a CPU tensor to the "cpu" one).
// Everything version-specific lives here; process_group.{h,cc} use the names below.
//
// For a new op, what differs (1.13 ProcessGroup -> 2.x Backend):
// - the same virtuals and signatures: broadcast, allreduce, allreduce_coalesced, reduce, allgather,
//   _allgather_base, allgather_coalesced, gather, scatter, reduce_scatter, _reduce_scatter_base,
//   alltoall_base, alltoall, send, recv, recvAnysource, barrier, getBackendName; Work and its
//   future are used alike. Sparse CPU tensors still arrive through allreduce.
// - 2.x only (guard overrides with #if OUTRIDER_TORCH_BACKEND_API): allgather_into_tensor_coalesced
//   and reduce_scatter_tensor_coalesced (what torch.distributed's coalescing manager calls),
//   allreduce_sparse (sparse CUDA tensors only), supportsSplitting, eagerConnectSingleDevice,
//   and the NCCL-style hooks registerOnCompletionHook, waitForPendingWorks,
//   enableCollectivesTiming.
// - startCoalescing() / endCoalescing: no-ops in 1.13, where it is void
//   endCoalescing(std::vector<intrusive_ptr<Work>>&); in 2.x intrusive_ptr<Work> endCoalescing(),
//   and both throw unless overridden (called by _coalescing_manager(..., device=...) only).
// - options: 2.x adds asyncOp (Broadcast, Allgather, Scatter, ReduceScatter), sparseIndices
//   (Allreduce) and device (Barrier); opts.timeout is kUnsetTimeout unless the caller set one.
// - registration (__init__.py): register_backend(..., devices=["cpu"]) in 2.x; the factory gets
//   (store, rank, size, timeout) in both, and in 2.x returns the backend inside an
//   OutriderProcessGroup (below).
// - errors of failed collectives: BackendError below.
#pragma once

#include <torch/version.h>

#include <exception>
#include <stdexcept>
#include <string>

#if TORCH_VERSION_MAJOR >= 2
#define OUTRIDER_TORCH_BACKEND_API 1
#include <c10/util/Exception.h>

#include <torch/csrc/distributed/c10d/Backend.hpp>
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>
#else
#define OUTRIDER_TORCH_BACKEND_API 0
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>
#endif

namespace outrider::torch_backend {

#if OUTRIDER_TORCH_BACKEND_API
// The c10d class a backend derives from (the Python base class of ProcessGroupOutrider).
using TorchBase = c10d::Backend;
#else
using TorchBase = c10d::ProcessGroup;
#endif

// TorchBase and what its constructor needs. The collective virtuals the backend overrides
// (broadcast, allreduce, allgather, _allgather_base, reduce_scatter, alltoall_base, barrier) and
// getBackendName have the same signatures in both versions.
class BackendBase : public TorchBase {
 public:
  BackendBase(int rank, int size) : TorchBase(rank, size) {}

 protected:
  // Call at the end of the most derived constructor: 2.x's c10d::Backend::init logs API usage
  // under getBackendName(), which must be the derived class's by then.
  void InitBackend() {
#if OUTRIDER_TORCH_BACKEND_API
    init();
#endif
  }
};

#if OUTRIDER_TORCH_BACKEND_API
// What torch.distributed holds for an outrider group in 2.x (the factory returns it): a c10d
// ProcessGroup whose CPU, CUDA and default backend is the outrider Backend, named "outrider". The
// ProcessGroup torch.distributed would make around a registered backend names it "custom" (in
// DDP's logging data and ProcessGroup.name()); collectives reach the backend the same way.
class OutriderProcessGroup : public c10d::ProcessGroup {
 public:
  OutriderProcessGroup(c10::intrusive_ptr<c10d::Store> store,
                       const c10::intrusive_ptr<c10d::Backend>& backend)
      : c10d::ProcessGroup(std::move(store), backend->getRank(), backend->getSize()) {
    setBackend(c10::DeviceType::CPU, BackendType::CUSTOM, backend);
    setBackend(c10::DeviceType::CUDA, BackendType::CUSTOM, backend);
    setDefaultBackend(BackendType::CUSTOM);
  }
  const std::string getBackendName() const override { return "outrider"; }
  // torch's ProcessGroup answers these only for the backends it knows.
  void setSequenceNumberForGroup() override { getDefaultBackend()->setSequenceNumberForGroup(); }
  uint64_t getSequenceNumberForGroup() override {
    return getDefaultBackend()->getSequenceNumberForGroup();
  }
};
#endif

// The exception of a collective that failed in the agent or on the way there (and of a process
// group that cannot reach its agent): c10::DistBackendError from 2.x, which crosses into Python
// as torch.distributed.DistBackendError, the type c10d users catch for communication failures;
// a std::runtime_error in 1.13, which has no such type. Both are RuntimeErrors in Python. Bad
// arguments stay std::runtime_error in both.
inline std::exception_ptr BackendError(const std::string& what) {
#if OUTRIDER_TORCH_BACKEND_API
  return std::make_exception_ptr(
      c10::DistBackendError(c10::SourceLocation{__func__, __FILE__, __LINE__}, what));
#else
  return std::make_exception_ptr(std::runtime_error(what));
#endif
}

[[noreturn]] inline void ThrowBackendError(const std::string& what) {
  std::rethrow_exception(BackendError(what));
}

}  // namespace outrider::torch_backend
