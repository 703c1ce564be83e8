// Element-wise reduction kernels the agent uses to combine the buffers of its local clients.
// Results are bitwise reproducible: a fixed left fold over inputs, no reassociation across
// elements, and the same IEEE operations whatever code path the CPU dispatch picks (NaN sign and
// payload excepted). Thread-safety: pure functions; call from any thread. ReduceInto uses ~32 KiB
// of stack.
#pragma once

#include <cstddef>
#include <cstdint>

#include "ipc/protocol.h"

namespace outrider::agent {

// True for every (dtype, op) pair the kernels implement: those ipc::ReduceRefusal does not refuse
// (every op but bool avg and complex min, max and prod).
bool IsSupported(ipc::DType dtype, ipc::ReduceOp op);

// The alignment ReduceInto and DivideInPlace need of every buffer: the element size, but only a
// part's for complex numbers.
size_t KernelAlignment(ipc::DType dtype);

// Reduces `num_inputs` arrays of `count` elements element-wise as the left fold
// inputs[0] op inputs[1] op ... and stores the result into each of the `num_outputs` arrays.
// An output may be exactly one of the inputs (in-place allreduce) but must not otherwise overlap
// an input: element j of every input is read before element j of any output is written.
// - f16/bf16 accumulate in f32 and round to nearest-even once, when storing.
// - kAvg divides the sum by num_inputs; for integers the wrapped sum is divided truncating toward
//   zero. Integer sum/prod wrap around (two's complement).
// - bool: any nonzero byte is true; sum and max are or, prod and min are and; results are 0 or 1.
// - c64/c128 (sum and avg only) act on the real and imaginary parts alone.
// - Floating kMin/kMax propagate NaN: a NaN in any input makes the element a quiet NaN. Any NaN
//   result, whatever the op, is quiet; its sign and payload are unspecified.
// Preconditions (CHECKed): IsSupported(dtype, op), num_inputs >= 1, num_outputs >= 0.
void ReduceInto(ipc::DType dtype, ipc::ReduceOp op, const void* const* inputs, int num_inputs,
                void* const* outputs, int num_outputs, size_t count);

// p[i] /= n for `count` elements (the last step of an average across n ranks); f16/bf16 go
// through f32 and round once. Integers truncate toward zero; complex numbers divide both parts.
// Bool has no average (CHECKed).
void DivideInPlace(ipc::DType dtype, void* p, size_t count, int64_t n);

// Scalar conversions, round-to-nearest-even; NaN stays NaN (quiet), +-Inf and subnormals are
// handled. Inline vectorizable versions live in agent/engine/dataplane/half.h.
float HalfToFloat(uint16_t h);
uint16_t FloatToHalf(float f);
float BFloat16ToFloat(uint16_t b);
uint16_t FloatToBFloat16(float f);

}  // namespace outrider::agent
