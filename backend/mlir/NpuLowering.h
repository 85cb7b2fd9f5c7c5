//===- backend/mlir/NpuLowering.h - The npu lowering style ------*- C++ -*-===//
//
// Internal to backend/mlir: cases in the shape real NPU codegen has. Every
// value lives in "DRAM" (a kernel memref or a DRAM-side temporary); an op
// stages blocks of its operands into a scratchpad through the simulated DMA
// engine (backend/runtime/NpuSim.h), computes on scratchpad tiles only, on
// vector lanes with a scalar tail, and stages its result block back.
//
// An op is a Plan: a result iteration space cut into blocks, the scratchpad
// tiles it needs per block, and the DMA accesses that fill and drain them.
// Descriptors of more than 4 dims are peeled into loops; tile layouts pad
// the strides of peeled dims so each peeled slice starts aligned.
//
// NpuLowering.cpp: plans, blocks, views and the op dispatch; NpuDma.cpp:
// tiles and descriptors; NpuCompute.cpp: lane-wise compute of elementwise
// ops, sources and fillpad; NpuStructured.cpp: reductions, topk, matmul,
// gather.
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_BACKEND_MLIR_NPULOWERING_H
#define NPUFUZZ_BACKEND_MLIR_NPULOWERING_H

#include "backend/mlir/EmitterBase.h"

#include <functional>

namespace npufuzz {

struct NpuOptions {
  /// Vector lanes of compute (`vector<lanes x T>`).
  int64_t lanes = 16;
  /// Scratchpad capacity. 1 MiB stages the largest generated tile (64 Ki
  /// elements of 8 bytes) whole, which gathers and index maps need.
  int64_t spadBytes = 1 << 20;
  /// Bytes of the tiles that scale with the block; blocks shrink until their
  /// tiles fit, so large values take several blocks and tail blocks.
  int64_t blockBytes = 64 << 10;
};

/// A value's home in DRAM and the bounds of its valid region.
struct DramBuf {
  std::string memref, type;
  std::string ptr;    ///< `!llvm.ptr` to its aligned data
  int64_t extent = 0; ///< elements
  /// Valid rows/cols (literal or SSA `index`) of a rank-2 value; empty when
  /// the whole shape is valid.
  std::string rows, cols;
};

/// A scratchpad tile of a plan. Each dim spans a result dim's block or the
/// whole of a fixed extent.
struct TileSpec {
  DType dtype = DType::F32;
  std::vector<int> follows;   ///< per dim: the result dim, or -1
  std::vector<int64_t> whole; ///< per dim: the extent when follows == -1
};

/// A tile laid out in the scratchpad.
struct SpadTile {
  DType dtype = DType::F32;
  std::vector<int64_t> shape;   ///< its largest block
  std::vector<int64_t> strides; ///< in elements
  int64_t offset = 0;           ///< bytes from the scratchpad base
  int64_t size = 0;             ///< bytes
  std::string memref, type;
};

/// One DMA transfer per block between a value and a tile: element `t` of
/// the tile (tile dims, block-local) is DRAM element base +
/// sum(originCoeff[k] * origin[k]) + sum(stride[d] * t[d]).
struct Access {
  int tile = 0;
  DramBuf dram;
  std::vector<int64_t> stride; ///< per tile dim
  int64_t base = 0;
  std::vector<int64_t> originCoeff; ///< per result dim
  /// For a store of a rank-2 result: the valid rows/cols (literal or SSA)
  /// it is clipped to, so the rest of the destination keeps what it held;
  /// empty: the whole block.
  std::string clipRows, clipCols;
};

/// One block of a plan, as SSA `index` values.
struct Block {
  std::vector<std::string> origin, extent; ///< per result dim
  std::vector<const SpadTile *> tiles;
  /// Extents of tile `i` in this block, per tile dim.
  std::vector<std::vector<std::string>> tileExtent;
};

/// How one op runs: per block, DMA the loads in, compute, DMA the stores
/// out. Loads of tiles that follow no result dim run once, before the
/// block loops.
struct Plan {
  std::vector<int64_t> space;   ///< the result iteration space
  std::vector<bool> splittable; ///< per result dim: may be cut into blocks
  std::vector<TileSpec> tiles;
  std::vector<Access> loads, stores;
  /// Fills the result tiles of a block from its operand tiles; unset when a
  /// load fills the stored tile itself (views and copies).
  std::function<void(const Block &)> compute;
};

class NpuEmitter : public EmitterBase {
public:
  NpuEmitter(const Case &c, MlirKernel &out, const NpuOptions &o) : EmitterBase(c, out), opt_(o) {}
  bool run() override;

private:
  // --- Plans (NpuLowering.cpp) -------------------------------------------------
  /// Chooses the block, lays out the tiles (unsupported when they exceed the
  /// scratchpad) and emits the block loops with their DMA and compute.
  void emitPlan(const Plan &p);
  /// A DRAM-side temporary for result `v` (freed at the end).
  const DramBuf &alloc(ValueId v);
  /// A tile whose dims follow the result's dims one to one.
  static TileSpec resultTile(DType t, size_t rank);
  /// The access of `v` by a tile whose dims are v's dims, each following
  /// the result dim of the same position.
  Access rowMajor(int tile, ValueId v) const;

  // --- Tiles and DMA (NpuDma.cpp) ----------------------------------------------
  /// The tile of `s` for blocks of at most `block` (offset not yet set).
  SpadTile layout(const TileSpec &s, const std::vector<int64_t> &block) const;
  /// How many outer dims a descriptor for a tile of `shape` peels into loops.
  static size_t peeledDims(const std::vector<int64_t> &shape);
  /// Emits the strided memref view of `t` in the scratchpad.
  void bindTile(SpadTile &t);
  /// The transfer of access `a` for block `b` (tile `tileIndex` is `t`).
  void dma(bool toDram, const Access &a, const SpadTile &t, const Block &b, size_t tileIndex);
  /// `!llvm.ptr` to the aligned data of a memref.
  std::string pointerOf(const std::string &memref, const std::string &type);

  // --- Compute (NpuCompute.cpp, NpuStructured.cpp) ------------------------------
  /// scf.for loops from 0 to each bound; returns the IVs.
  std::vector<std::string> openFor(const std::vector<std::string> &bounds);
  void closeFor(size_t n);
  /// Scalar and lane-wise access to tile elements (i1 converts from/to its
  /// i8 storage).
  std::string load(const SpadTile &t, const std::vector<std::string> &idx);
  void store(const std::string &x, const SpadTile &t, const std::vector<std::string> &idx);
  std::string vecType(DType t) const;
  /// Loads and stores `lanes` elements (vector.load/store, or, while a
  /// masked tail is emitted, transfer_read/write under its mask).
  std::string vload(const SpadTile &t, const std::vector<std::string> &idx);
  void vstore(const std::string &x, const SpadTile &t, const std::vector<std::string> &idx);
  /// Loops over `bounds` with the innermost on lanes: `vec(j)` for full
  /// vectors, `scalar(j)` for the tail (and everything when !vectorize).
  void laneLoops(const std::vector<std::string> &bounds, bool vectorize,
                 const std::function<void(const std::vector<std::string> &)> &vec,
                 const std::function<void(const std::vector<std::string> &)> &scalar);
  /// Whether `op` has a lane-wise form; the lane-wise forms mirror the
  /// scalar semantics of EmitterBase op for op.
  bool vectorizable(const Op &op) const;
  /// Block-local bound of dim `d` clipped to a valid bound (empty: none).
  std::string clip(const Block &b, size_t d, const std::string &valid);

  // emitOp's hooks: each builds the op's Plan and emits it.
  void emitElementwise(const Op &op) override;
  void emitSource(const Op &op) override;
  void emitFillPad(const Op &op) override;
  void emitInsert(const Op &op) override;
  void emitView(const Op &op) override;
  void emitSetValidShape(const Op &op, const std::string &rows, const std::string &cols) override;
  void emitReduce(const Op &op) override;
  void emitArgMax(const Op &op) override;
  void emitTopK(const Op &op) override;
  void emitMatmul(const Op &op) override;
  void emitGather(const Op &op) override;
  /// Copies `from` (its valid region, when it has one) through the
  /// scratchpad into `to`: a buffer of its shape, or one of `toShape` with
  /// `from` placed at offsets `at`.
  void planCopy(ValueId from, const DramBuf &to, const std::vector<int64_t> &toShape = {},
                const std::vector<int64_t> &at = {});

  // --- Chains (NpuChain.cpp) ------------------------------------------------------
  /// Each task of the case (ir/Case.h) in a loop over its blocks, between
  /// the runtime's task markers: every block runs the task's ops into
  /// buffers of its own kind, then writes its share of each value the task
  /// hands on into that value's GM tensor, by DMA or by scalar stores with
  /// a dcci and a dsb after them (backend/runtime/NpuSim.h records it all).
  void emitChain();
  /// Block `blk`'s share of `v`, from `local` into `gm`: a cache line
  /// aligned run of its row-major elements.
  void storeShare(ValueId v, const DramBuf &local, const DramBuf &gm, const Task &task,
                  const std::string &blk);
  /// `m` seen as one dimension of its elements.
  std::string flat(const DramBuf &m, ValueId v);

  NpuOptions opt_;
  /// Whether the case is a chain: buffers are allocated at the entry.
  bool chain_ = false;
  std::map<ValueId, DramBuf> bufs_;
  /// The mask of the masked tail being emitted (TailForm::Masked); empty
  /// otherwise.
  std::string tailMask_;
  std::vector<std::string> allocs_;
  std::string spad_;
};

} // namespace npufuzz

#endif // NPUFUZZ_BACKEND_MLIR_NPULOWERING_H
