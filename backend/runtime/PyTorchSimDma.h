//===- backend/runtime/PyTorchSimDma.h - PyTorchSim's DMA engine, modelled -*- C++ -*-===//
//
// What a PyTorchSim kernel's memref.dma_start does on its NPU, for the
// kernels npufuzz runs (backend/pytorchsim/NpuModel.h). The NPU has
// vector lanes, each with a scratchpad of its own; a vector instruction
// runs on every lane at once, on the same scratchpad offset of each. A
// kernel is therefore run once per lane, on that lane's scratchpads, and
// each DMA moves the lane's part of its tile (Spike's torchsim_mvin and
// torchsim_mvout, in PSAL-POSTECH/riscv-isa-sim, riscv/insns/):
//
//   a tile element whose coordinate along the split axis is x lies in lane
//   (x / vstride) % used, at scratchpad offset
//   outer * block_stride[axis] * vstride + sum(block_stride[d] * b_d),
//   where outer = x / (vstride * used), b_axis = x % vstride, b_d the
//   element's other coordinates, and block_stride the scratchpad strides
//   with those larger than the axis's scaled to one lane's share.
//
// Which DRAM element each slot moves is not computed here: the decoder
// (backend/pytorchsim/KernelDmas.h) already walked the kernel's loops and
// listed, for every execution of every DMA, each slot it moves and its
// element, clipped at the end of its loops as PyTorchSim's loop padding
// clips it. The engine replays that list in the order the kernel runs its
// DMAs, and checks that the kernel's own DRAM index agrees with it.
//
// State is per thread: one kernel runs at a time on a thread.
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_BACKEND_RUNTIME_PYTORCHSIMDMA_H
#define NPUFUZZ_BACKEND_RUNTIME_PYTORCHSIMDMA_H

#include <cstdint>
#include <string>
#include <vector>

namespace npufuzz {

struct PyTorchSimDmaEngine {
  struct Dma {
    bool write = false; ///< scratchpad to DRAM (MVOUT)
    uint32_t elementBytes = 4;
    int64_t argumentElements = 0; ///< the DRAM side's memref
    /// Per tile slot (row-major): its lane and its offset in the lane's
    /// scratchpad buffer, in elements from the DMA's scratchpad operand.
    std::vector<int32_t> laneOf;
    std::vector<int64_t> spadOf;
    /// The offsets one lane's share covers: what a load zeroes first. The
    /// slots its loops clip read PyTorchSim's padded DRAM buffer, which its
    /// loop padding fills with zeros whatever the DMA's `padding` says
    /// (PSAL-POSTECH/llvm-project, mlir/test/lib/Analysis/
    /// TestLoopPadding.cpp); a lane the tile does not reach gets zeros
    /// (torchsim_mvin).
    std::vector<int64_t> laneShare;
  };
  /// One execution of a DMA, in the order the kernel runs them.
  struct Execution {
    uint32_t dma = 0;
    int64_t base = 0;            ///< the DRAM index the decoder computed
    size_t first = 0, count = 0; ///< its moves
  };
  std::vector<Dma> dmas;
  std::vector<Execution> executions;
  /// Per move: the tile slot and the DRAM element (of the DMA's argument).
  std::vector<int64_t> moveSlot, moveElement;
  /// Per DMA, its executions in order (indices into `executions`).
  std::vector<std::vector<uint32_t>> executionsOf;

  // State of a run.
  int64_t lane = 0;
  std::vector<size_t> next; ///< per DMA, its next execution on this lane
  /// Set by the first execution the engine cannot replay; every later DMA
  /// is ignored.
  std::string fault;
};

/// Binds `engine` to this thread (null unbinds).
void bindPyTorchSimDmaEngine(PyTorchSimDmaEngine *engine);

} // namespace npufuzz

extern "C" {
/// Starts lane `lane`'s run of the kernel: each DMA's executions from its
/// first again.
void npf_pts_lane(int64_t lane);
/// The next execution of DMA `dma` on the current lane. `dram_index` is the
/// kernel's own DRAM index operand, `dram` the DRAM memref's aligned
/// pointer, `spad` the scratchpad memref's and `spad_offset` the element of
/// it the DMA's scratchpad indices name.
void npf_pts_dma(int64_t dma, int64_t dram_index, int64_t dram, int64_t spad, int64_t spad_offset);
/// The same for a kernel whose lanes run in lockstep (a template's, whose
/// systolic array reads every lane): the execution runs on lanes
/// [0, lanes), lane l's scratchpad starting `l * lane_pitch` bytes past
/// `spad`.
void npf_pts_dma_lanes(int64_t dma, int64_t dram_index, int64_t dram, int64_t spad,
                       int64_t spad_offset, int64_t lanes, int64_t lane_pitch);
/// A template's linalg.matmul on the systolic array, f32: Y += X W with X
/// m x k, W k x n, each buffer's lane l at `pitch * l` bytes past its
/// base. The array is weight-stationary: lane j holds W's column j, and
/// the input pushed across the lanes is a row of X; as the template's
/// lowering reads and writes them (PSAL-POSTECH/llvm-project,
/// mlir/test/lib/Conversion/PyTorchSimToVCIX; Spike's systolic array), X's
/// (i, l) lies in lane l % P at offset (l / P) m + i, W's (l, j) in lane
/// j % P at (j / P) k + l and Y's (i, j) in lane j % P at (j / P) m + i,
/// P the array's size (PyTorchSim's lane count, which its
/// `systolic-array-size` must equal). Each chunk of P along k is summed from zero in
/// f32, in k's order, and added to Y.
void npf_pts_matmul_f32(int64_t x, int64_t w, int64_t y, int64_t m, int64_t k, int64_t n,
                        int64_t x_pitch, int64_t w_pitch, int64_t y_pitch, int64_t array);
}

#endif // NPUFUZZ_BACKEND_RUNTIME_PYTORCHSIMDMA_H
