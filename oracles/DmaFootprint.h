//===- oracles/DmaFootprint.h - What a program's DMAs must and must not touch -*- C++ -*-===//
//
// The footprint oracle judges a backend's DMA trace (backend/DmaTrace.h),
// with no values and no execution: replayed in order,
//
//   - no DMA moves an element outside its kernel argument or its storage
//     (out-of-bounds-read for a load into the scratchpad, -write for a
//     store out of it);
//   - no DMA loads an element of an output or temporary that nothing wrote
//     before (uninitialized-read: a kernel that reads a buffer before the
//     one that fills it, or reads past what it filled);
//   - every element of every returned view is written by the end
//     (unwritten-output: a dropped tail, a wrong stride).
//
// Each finding names the kernel, its DMA, the argument and the element. A
// trace with undecoded kernels is judged only for bounds: what those
// kernels wrote is unknown.
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_ORACLES_DMAFOOTPRINT_H
#define NPUFUZZ_ORACLES_DMAFOOTPRINT_H

#include "backend/DmaTrace.h"
#include "oracles/Verdict.h"

#include <optional>
#include <string>

namespace npufuzz {

struct FootprintFinding {
  VerdictKind verdict = VerdictKind::Ok;
  std::string text;  ///< one line: what, which kernel and DMA, which element
  std::string where; ///< what a signature keeps: the DMA's direction and the buffer's role
};

/// The first finding of `trace`, or nothing.
std::optional<FootprintFinding> checkDmaFootprint(const DmaTrace &trace);

} // namespace npufuzz

#endif // NPUFUZZ_ORACLES_DMAFOOTPRINT_H
