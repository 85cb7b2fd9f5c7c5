//===- backend/emit/PtoEmitter.h - A case as PTO tile text -----*- C++ -*-===//
//
// PTO-style tile assembly as accepted by the PTOAS assembler: one kernel
// (one per task of a chain) taking a `!pto.ptr<dtype>` per input and
// output, then per GM scratch tensor, then an `index` per runtime
// valid-shape dimension; tensor views of the global buffers, tiles from
// `pto.alloc_tile` with their valid shapes, `pto.tload`, t-ops and
// `pto.tstore`. Covers the rank-2 tile subset: elementwise unary and binary
// ops with a PTO t-op, row and column expands, set_validshape, fillpad,
// float casts, and views (GM views, sub-tiles, transposes, reshapes).
// Everything else (reductions, topk, matmul, gather, compares, integer
// division, ...) is refused with a reason rather than given invented syntax.
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_BACKEND_EMIT_PTOEMITTER_H
#define NPUFUZZ_BACKEND_EMIT_PTOEMITTER_H

#include "ir/Case.h"

#include <string>
#include <vector>

namespace npufuzz {

/// The vector buffer (UB) of A2/A3's AIV, where every vec tile lives: the
/// emitter keeps a kernel's tiles within it, and the simulator is run with
/// it, not with its larger scratch default.
inline constexpr int64_t kPtoVecBufferBytes = 192 << 10;

/// Emits the kernel for the verified case `c`, or returns false with the
/// reason PTO cannot express it. Same case, same bytes. A chain (ir/Case.h)
/// is one entry function per task (ptoTaskFunction), each the kernel of
/// taskAsCase: pointers to the GM tensors it reads, then to those it hands
/// on, then to its scratch tensors, then its runtime valid shapes. A runtime, here the harness
/// (backend/pto/KernelHarness.h), runs them block by block.
bool emitPto(const Case &c, std::string &out, std::string &unsupported);

/// The GM scratch tensors `c`'s kernel takes after its outputs (before its
/// runtime valid shapes), each the type of a computed tile that a view of
/// it stages (a window UB cannot address: a row step, part of a 32-element
/// column block; a reshape of a computed tile) by storing it there and
/// loading the view back. Their contents before the kernel are the run's
/// poison. None for a chain, whose tasks take theirs after what they hand
/// on (ptoTaskScratchTensors).
std::vector<TensorType> ptoScratchTensors(const Case &c);
/// Task `k`'s GM scratch tensors: each block of it, a core of its own, has
/// its own.
std::vector<TensorType> ptoTaskScratchTensors(const Case &c, const TaskOps &k);

/// Whether `c`'s kernels place their tiles in UB themselves, as PyPTO's
/// memory reuse does (`pto.alloc_tile addr = ...`, assembled with ptoas's
/// `--pto-level=level3`): a tile no later op reads hands its bytes to the
/// next tile that fits. Chosen by a bit of the case's data seed, which
/// reduction keeps, so a campaign runs both placements and a case one.
bool ptoPlacesTiles(const Case &c);

/// Whether `c` runs as a chain of kernels: it has tasks with ops. A chain
/// cut before its first compute op (op blame's prefixes) is one kernel that
/// copies its inputs.
bool ptoIsChain(const Case &c);

/// What task `k`'s kernel reads and writes: taskBoundary, and for a
/// chain's first task also the inputs the case returns, which no task
/// computes (loaded and stored as a one-kernel case returns one).
TaskBoundary ptoTaskBoundary(const Case &c, const TaskOps &k);

/// The entry function of task `task` (its index in Case::tasks).
std::string ptoTaskFunction(int32_t task);

} // namespace npufuzz

#endif // NPUFUZZ_BACKEND_EMIT_PTOEMITTER_H
