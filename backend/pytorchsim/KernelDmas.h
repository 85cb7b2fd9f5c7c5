//===- backend/pytorchsim/KernelDmas.h - A PyTorchSim kernel, verified and its DMAs decoded -*- C++
//-*-===//
//
// One kernel as PyTorchSim's code generation wrote it, judged by upstream
// MLIR and read for what its DMAs move, without running it:
//
// 1. Its dma_starts are put in generic form (DmaStart.h) and the kernel is
//    parsed and verified by upstream MLIR. What upstream rejects is named by
//    the op at the diagnostic's line and the message with its SSA names
//    dropped (seed 000: `arith.cmpi` on i64 and index vectors).
// 2. Its loop nest is walked (affine.for with constant bounds, affine.apply,
//    arith.constant) and every dma_start decoded with PyTorchSim's semantics
//    (docs/pytorchsim.md#dma): the tile is the scratchpad memref's shape, the
//    DRAM index operand is the flat element of tile element 0, `dram_stride`
//    the step of each tile dimension in DRAM. A tile that overhangs the end
//    of its loops is clipped there (PyTorchSim's loop padding moves that part
//    to and from padding the caller never sees). The result: each element of
//    each kernel argument a DMA moves, in execution order.
//
// No MLIR type appears here: the implementation alone links MLIR.
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_BACKEND_PYTORCHSIM_KERNELDMAS_H
#define NPUFUZZ_BACKEND_PYTORCHSIM_KERNELDMAS_H

#include "backend/pytorchsim/InductorIndex.h"
#include "backend/pytorchsim/LanePlacement.h"

#include <cstdint>
#include <string>
#include <vector>

namespace npufuzz {

/// What Inductor asked of one DMA, as the adapter recorded it when
/// PyTorchSim's kernel code wrote the DMA for a load or store: the index
/// Inductor gave, and the iteration variable each tile dimension runs over.
/// How the adapter's `why` starts for a tile of another rank than its
/// index's variables (tools/adapters/pytorchsim_server.py).
inline constexpr const char *kOtherRank = "a tile of rank";

struct DmaAsk {
  std::string code;   ///< the dma_start line PyTorchSim wrote for it
  std::string buffer; ///< Inductor's buffer
  InductorIndex index;
  /// One per tile dimension; empty when the map is not judged, and `why`.
  std::vector<std::string> tileVariables;
  std::string why;
};

struct KernelDmas {
  /// Upstream MLIR parsed and verified the kernel.
  bool verified = false;
  /// A dma_start npufuzz cannot put in generic form (DmaStart.h): the
  /// kernel is not judged, and this says why.
  std::string unreadable;
  /// When not: `op: message` (SSA names and numbers dropped), which signs
  /// the finding, and the diagnostic as MLIR printed it.
  std::string rejection, diagnostic;

  /// Every DMA was decoded; when not, why (and nothing below is complete).
  bool decoded = false;
  std::string undecoded;

  struct Argument {
    std::string name;     ///< `%in_ptr0`
    int64_t elements = 0; ///< of its memref type
    uint32_t elementBytes = 0;
    std::string elementType; ///< as MLIR prints it (`f32`)
  };
  std::vector<Argument> arguments;
  struct Dma {
    bool write = false; ///< scratchpad to the argument (DMA type 3, MVOUT)
    uint32_t argument = 0;
    std::string text; ///< the op, one line
    /// The index asked of it (DmaAsk), when its map was judged; else why
    /// not.
    std::string askedIndex, unjudged;
    bool indexDivides = false;
    /// Its tile has another rank than its index's variables (a dimension
    /// split by a floor division): judged by the elements it moves, each
    /// one asked for at some point of the tile, and each asked for inside
    /// the loops moved, not slot by slot.
    bool judgedAsSet = false;
    /// Judged slot by slot: some execution moved a wrong element into its
    /// first slot (its DRAM index is wrong, not only its strides).
    bool baseWrong = false;
    /// A store's: the ops that computed the tile it stores
    /// (StoredTile.h).
    std::string computedBy;
    /// Its tile's slots inside the loops, and those that moved another
    /// element than the index asks for there, the first of them in full.
    uint64_t slots = 0, wrongSlots = 0;
    std::vector<int64_t> firstWrongSlot;
    std::string firstWrongPoint; ///< `index0=0, index1=8`
    int64_t moved = 0, wanted = 0;
    /// How PyTorchSim's NPU places the tile (NpuModel.h): its shape, its
    /// `sram_stride`, the dimension split across the vector lanes and how
    /// many consecutive elements of it each lane takes, and the
    /// scratchpad's element size; the placement that makes of them, when
    /// the kernel is runnable.
    std::vector<int64_t> tile, sramStride;
    int64_t laneAxis = 0, laneStride = 1;
    uint32_t elementBytes = 0;
    LanePlacement placement;
  };
  std::vector<Dma> dmas;
  /// One element a DMA moved: its position in the argument, which may lie
  /// outside it.
  struct Move {
    uint32_t dma = 0;
    int64_t element = 0;
    int64_t slot = 0; ///< the tile slot it moves, row-major
  };
  std::vector<Move> moves;
  /// Each time a DMA runs, in order, with its moves (a run whose tile its
  /// loops clip away entirely moves nothing and is still here).
  struct Execution {
    uint32_t dma = 0;
    int64_t base = 0; ///< its DRAM index
    size_t first = 0, count = 0;
  };
  std::vector<Execution> executions;

  /// The kernel as npufuzz's model of PyTorchSim's NPU runs it
  /// (NpuModel.h): upstream MLIR with each dma_start a call of the model's
  /// DMA engine, each scratchpad a buffer of one lane, taking the
  /// scratchpads after the kernel's arguments and the lane last. Empty when
  /// the model cannot run it, and `notRunnable` says why.
  std::string runnable, notRunnable;
};

/// Judges `kernel`, PyTorchSim's text. At most `maxMoves` elements are
/// decoded; a kernel that moves more is left undecoded. A DMA whose line is
/// the `code` of one of `asks` has its map judged too: the element each
/// slot of its tile moves against the one the ask's index wants at that
/// slot's iteration point (the loops around the DMA, by their variables'
/// names, each tile dimension's moved by the slot).
KernelDmas checkPyTorchSimKernel(const std::string &kernel, const std::vector<DmaAsk> &asks = {},
                                 size_t maxMoves = 1 << 22);

} // namespace npufuzz

#endif // NPUFUZZ_BACKEND_PYTORCHSIM_KERNELDMAS_H
