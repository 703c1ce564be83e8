// Python module outrider_torch._C: the process group class and its factory for
// torch.distributed.Backend.register_backend.
#include <pybind11/chrono.h>
#include <pybind11/stl.h>
#include <torch/python.h>

#include "ipc/protocol.h"
#include "shim/python/outrider_torch/csrc/process_group.h"
#include "shim/python/outrider_torch/csrc/shared_heap.h"
#include "shim/python/outrider_torch/csrc/shared_memory.h"

namespace py = pybind11;
using outrider::torch_backend::ProcessGroupOutrider;
using outrider::torch_backend::SparseWork;

PYBIND11_MODULE(_C, m) {
  m.doc() = "Outrider torch.distributed backend";
  py::module::import(
      "torch.distributed");  // registers the base classes (ProcessGroup, Backend, Work)
  // What this extension was built against: __init__.py registers the backend accordingly and
  // refuses another PyTorch.
  m.attr("torch_version") = TORCH_VERSION;
  m.attr("backend_api") = static_cast<bool>(OUTRIDER_TORCH_BACKEND_API);
  m.attr("protocol_version") = outrider::ipc::kProtocolVersion;
#if OUTRIDER_TORCH_CUDA
  m.attr("cuda") = true;
#else
  m.attr("cuda") = false;
#endif
  py::class_<SparseWork, c10d::Work, c10::intrusive_ptr<SparseWork>>(m, "SparseWork")
      .def("wait_demanded", &SparseWork::WaitDemanded, py::call_guard<py::gil_scoped_release>(),
           "Blocks until the demanded rows are summed; returns them (coalesced sparse COO tensor).")
      .def("wait_rest", &SparseWork::WaitRest, py::call_guard<py::gil_scoped_release>(),
           "Blocks until the op is done; returns the rows the demand did not name.");
  py::class_<ProcessGroupOutrider, outrider::torch_backend::TorchBase,
             c10::intrusive_ptr<ProcessGroupOutrider>>(m, "ProcessGroupOutrider")
      .def("set_demand", &ProcessGroupOutrider::SetDemand, py::arg("ids"),
           "Row ids (int64 tensor) the next forward pass needs: the next sparse allreduce sends "
           "their rows first.")
      .def(
          "sparse_allreduce", &ProcessGroupOutrider::SparseAllreduce, py::arg("tensor"),
          py::arg("demand") = py::none(),
          "Sums a sparse COO tensor over all ranks; the rows named by `demand` (ids) arrive first: "
          "returns a SparseWork (wait_demanded, then wait_rest).")
      .def("set_priority", &ProcessGroupOutrider::SetPriority, py::arg("priority"),
           "Every op of the group goes at this priority (lower = sooner; 0: the agent's defaults).")
      .def_property_readonly("priority", &ProcessGroupOutrider::priority)
      .def("set_sparse_algo", &ProcessGroupOutrider::SetSparseAlgo, py::arg("algo"),
           "Sparse allreduce algorithm: 0 auto, 1 allgather, 2 balanced, 3 block, 4 dense.")
      .def_property_readonly("last_sparse_algo", &ProcessGroupOutrider::last_sparse_algo,
                             "The algorithm the agent ran for the last sparse allreduce.");
  m.def("create_group", &ProcessGroupOutrider::CreateGroup, py::arg("store"), py::arg("ranks"),
        py::arg("job_rank"), py::arg("job_size"), py::arg("rank"), py::arg("size"),
        py::arg("timeout"), py::call_guard<py::gil_scoped_release>(),
        "Creates a group of the job's ranks `ranks` (members only) over the process's connection "
        "to its agent.");
#if OUTRIDER_TORCH_BACKEND_API
  py::class_<outrider::torch_backend::OutriderProcessGroup, c10d::ProcessGroup,
             c10::intrusive_ptr<outrider::torch_backend::OutriderProcessGroup>>(
      m, "OutriderProcessGroup");
  m.def(
      "wrap_group",
      [](const c10::intrusive_ptr<c10d::Store>& store,
         const c10::intrusive_ptr<ProcessGroupOutrider>& backend) {
        return c10::make_intrusive<outrider::torch_backend::OutriderProcessGroup>(store, backend);
      },
      py::arg("store"), py::arg("backend"),
      "The torch.distributed ProcessGroup of an outrider backend (2.x).");
#endif
  m.def(
      "shutdown",
      [] {
        // The connection's ops finish or fail: every work completes while the interpreter can
        // run its callbacks.
        if (std::shared_ptr<outrider::torch_backend::Connection> c =
                outrider::torch_backend::Connection::Current())
          c->Stop();
      },
      "Stops this process's connection to the agent (registered with atexit).");
  m.def("shared_bytes", &outrider::torch_backend::SharedBytes, py::arg("bytes"),
        py::call_guard<py::gil_scoped_release>(),
        "`bytes` of memory shared with the agent as a uint8 tensor (outrider_torch.empty is the "
        "friendly form).");
  m.def("set_shared_allocation", &outrider::torch_backend::SetSharedAllocation, py::arg("on"),
        "Routes this thread's CPU tensor allocations to shared memory (or not); returns the "
        "previous setting.");
  m.def("shared_allocation_from", &outrider::torch_backend::SharedAllocationFrom,
        "The size from which every thread's CPU allocations go to shared memory (0: off).");
  m.def(
      "shared_memory_stats",
      [] {
        auto st = outrider::torch_backend::SharedHeap::Get().stats();
        py::dict d;
        d["segments"] = st.segments;
        d["reserved_bytes"] = st.reserved_bytes;
        d["allocated_bytes"] = st.allocated_bytes;
        d["blocks"] = st.blocks;
        d["abandoned_blocks"] = st.abandoned_blocks;
        return d;
      },
      "The shared heap: segments, reserved address space, bytes and blocks in use, blocks never "
      "reused because an op on them timed out.");
  m.def(
      "trim_shared_memory", [] { return outrider::torch_backend::SharedHeap::Get().Trim(); },
      "Gives the pages of the shared heap's free blocks back to the system; returns their bytes.");
  m.def(
      "copy_counters",
      [] {
        const auto& c = outrider::torch_backend::Copies();
        py::dict d;
        d["bytes_in"] = c.bytes_in.load();
        d["bytes_out"] = c.bytes_out.load();
        d["tensors_staged"] = c.tensors_staged.load();
        d["tensors_in_place"] = c.tensors_in_place.load();
        return d;
      },
      "What the backend copied between tensors and shared memory so far, and the tensors it used "
      "in place.");
  using outrider::torch_backend::Connection;
  auto to_dict = [](const Connection::Membership& ms) {
    py::dict d;
    d["generation"] = ms.generation;
    d["rank"] = ms.rank;
    d["world_size"] = ms.size;
    d["local_rank"] = ms.local_rank;
    d["local_world_size"] = ms.local_size;
    d["joiners_waiting"] = ms.joiners_waiting;
    d["root_addr"] = ms.root_addr;
    d["error"] = ms.error;
    return d;
  };
  m.def(
      "membership",
      [to_dict] {
        std::shared_ptr<Connection> c = Connection::Current();
        if (!c) throw std::runtime_error("outrider: no connection to the agent (no process group)");
        Connection::Membership ms;
        {
          py::gil_scoped_release unlocked;
          ms = c->GetMembership();
        }
        return to_dict(ms);
      },
      "This process's place in its job (generation, rank, world_size, ...), the joiners its agent "
      "holds, and why the generation cannot go on ('' while it can).");
  m.def(
      "reconfigure",
      [to_dict](int64_t timeout_ms, bool join, const c10::intrusive_ptr<c10d::Store>& store) {
        Connection::Membership ms;
        c10::intrusive_ptr<ProcessGroupOutrider> group;
        {
          py::gil_scoped_release unlocked;
          std::shared_ptr<Connection> c = join ? Connection::OpenJoiner() : Connection::Current();
          if (!c)
            throw std::runtime_error("outrider: no connection to the agent (no process group)");
          ms = c->Reconfigure(std::chrono::milliseconds(timeout_ms));
          // A group of the new generation holds the connection (the process's is only a weak
          // reference) until torch.distributed makes its own.
          group = c10::make_intrusive<ProcessGroupOutrider>(
              c, OUTRIDER_COMM_WORLD, ms.rank, ms.size, std::chrono::milliseconds(timeout_ms));
        }
        return py::make_tuple(to_dict(ms), group);
      },
      py::arg("timeout_ms"), py::arg("join"), py::arg("store"),
      "Moves this process's connection into its job's next generation (join: connects first, as "
      "a joiner); returns its place there and a process group of it over `store`.");
  m.def("create", &ProcessGroupOutrider::Create, py::arg("store"), py::arg("rank"), py::arg("size"),
        py::arg("timeout"), py::call_guard<py::gil_scoped_release>(),
        "Creates an outrider process group (torch.distributed backend factory).");
}
