//===- backend/emit/PtoEmitter.h - A case as PTO tile text -----*- C++ -*-===//
//
// PTO-style tile assembly as accepted by the PTOAS assembler: one kernel
// taking a `!pto.ptr<dtype>` per input and output (then an `index` per
// runtime valid-shape dimension), tensor views of the global buffers, tiles
// from `pto.alloc_tile` with their valid shapes, `pto.tload`, t-ops and
// `pto.tstore`. Covers the rank-2 tile subset: elementwise unary and binary
// ops with a PTO t-op, row-broadcast ops (the R x 1 operand is a col_major
// tile), set_validshape, fillpad and float casts. Everything else (views,
// reductions, topk, matmul, gather, compares, integer division, ...) is
// refused with a reason rather than given invented syntax.
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_BACKEND_EMIT_PTOEMITTER_H
#define NPUFUZZ_BACKEND_EMIT_PTOEMITTER_H

#include "ir/Case.h"

#include <string>

namespace npufuzz {

/// The vector buffer (UB) of A2/A3's AIV, where every vec tile lives: the
/// emitter keeps a kernel's tiles within it, and the simulator is run with
/// it, not with its larger scratch default.
inline constexpr int64_t kPtoVecBufferBytes = 192 << 10;

/// Emits the kernel for the verified case `c`, or returns false with the
/// reason PTO cannot express it. Same case, same bytes.
bool emitPto(const Case &c, std::string &out, std::string &unsupported);

} // namespace npufuzz

#endif // NPUFUZZ_BACKEND_EMIT_PTOEMITTER_H
