//===- backend/pytorchsim/ModelKernel.h - A PyTorchSim kernel rewritten for the NPU model -*- C++
//-*-===//
//
// Private to backend/pytorchsim (it speaks MLIR): the decoder
// (KernelDmas.cpp) hands the kernel it parsed and walked here, and gets
// back the text the model runs (KernelDmas::runnable), in upstream MLIR:
//
// - each scratchpad (a memref.global in memory space 1) becomes a buffer
//   argument of the kernel, one lane's, and memory space 1 is dropped
//   from every type;
// - each memref.dma_start becomes a call of the model's DMA engine
//   (backend/runtime/PyTorchSimDma.h) with the DMA's number, its DRAM index
//   and both sides' buffers;
// - the lane is the kernel's last argument: PyTorchSim's lane offset
//   (`arith.addi %z, %z {vlane_offset = N}`, which its fork lowers to the
//   lane's id times N) becomes that product;
// - `@npufuzz_lanes` takes the kernel's arguments and runs the kernel once
//   per lane, each run with fresh scratchpads.
//
// A template's kernel (one with a linalg.matmul, which the systolic array
// computes from every lane's scratchpad at once) runs its lanes in
// lockstep instead: one call of the kernel, each scratchpad one buffer of
// every lane's, each DMA a call that moves every lane's share, each
// matmul a call of the array (backend/runtime/PyTorchSimDma.h), and each
// op between them that reads or writes a scratchpad in a loop over the
// lanes, on that lane's view.
//
// What the model does not run is named in KernelDmas::notRunnable: a
// template's linalg op other than an f32 matmul of three scratchpads, a DMA
// in subtiles smaller than its tile, an indirect access, a scalar access
// to a scratchpad (which reads one lane), a tile the lanes cannot place
// (LanePlacement.h).
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_BACKEND_PYTORCHSIM_MODELKERNEL_H
#define NPUFUZZ_BACKEND_PYTORCHSIM_MODELKERNEL_H

#include "backend/pytorchsim/KernelDmas.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

#include "llvm/ADT/DenseMap.h"

#include <algorithm>
#include <cstdint>

namespace npufuzz {

/// The bytes of one element of type `e` (an index is 8).
inline uint32_t elementBytesOf(mlir::Type e) {
  return e.isIndex() ? 8u : std::max(1u, e.getIntOrFloatBitWidth() / 8);
}

/// Rewrites `kernel` of `module` in place into what the model runs and
/// sets `out.runnable` and each DMA's placement, or `out.notRunnable`. `numbers` gives each
/// dma_start that ran its number among `out.dmas`.
void rewriteForModel(mlir::ModuleOp module, mlir::func::FuncOp kernel,
                     const llvm::DenseMap<mlir::Operation *, size_t> &numbers, KernelDmas &out);

} // namespace npufuzz

#endif // NPUFUZZ_BACKEND_PYTORCHSIM_MODELKERNEL_H
