//===- bench/bugs/PlantedBugs.cpp - The seed bug classes as MLIR passes ---===//
//
// A pass plugin for the detection-power benchmark (bench/DetectBench.cpp).
// Each pass plants one bug class of /work/shared/seeds as a compiler fault
// and, like a real compiler bug, fires only when its pattern is in the IR;
// on IR without the pattern it changes nothing. None of them is in a
// default pipeline: the benchmark names them in --pipeline.
//
//   pass                               style   seed  pattern -> effect
//   npufuzz-bug-index-i64-compare      tensor  000   index_cast index->i64
//                                                    feeding arith.cmpi ->
//                                                    the cast is dropped, IR
//                                                    does not verify
//   npufuzz-bug-uninit-validshape      npu     002   a runtime valid dim ->
//                                                    read from a descriptor
//                                                    slot never written
//   npufuzz-bug-slice-fusion-assert    tensor  001   linalg consumer of an
//                                                    extract_slice smaller
//                                                    than its computed parent
//                                                    -> abort
//   npufuzz-bug-floormod-stride        npu     003   `e mod M` index -> one
//                                                    dim's stride off by one
//   npufuzz-bug-unit-dim-collapse      npu     003   DMA of a tile [..,n,1..]
//                                                    -> the collapse keeps
//                                                    the unit extent
//   npufuzz-bug-peel-alias             npu     003   >4-D DMA peel loop ->
//                                                    every slice at one
//                                                    scratchpad offset
//   npufuzz-bug-drop-tail              npu     003   scalar remainder loop
//                                                    after full vectors ->
//                                                    dropped
//   npufuzz-bug-loop-overrun           any     003   innermost unit-step loop
//                                                    -> one iteration past its
//                                                    bound (reads and writes
//                                                    past each row)
//   npufuzz-bug-bf16-round-half-away   any     004   truncf f32->bf16 ->
//                                                    (bits + 0x8000) >> 16
//
//===----------------------------------------------------------------------===//
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Tools/Plugins/PassPlugin.h"

#include "llvm/Config/llvm-config.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <map>

using namespace mlir;

namespace {

//===----------------------------------------------------------------------===//
// Helpers for the npu style's IR (backend/mlir/NpuDma.cpp)
//===----------------------------------------------------------------------===//

/// Operand positions of `npf_sim_dma(to_dram, dram, extent, dram_offset,
/// spad_offset, elem_bytes, rank, sizes[4], dram_strides[4], spad_strides[4])`.
constexpr unsigned kDmaSpadOffset = 4;
constexpr unsigned kDmaFirstSize = 7;
constexpr unsigned kDmaMaxRank = 4;

bool isDma(func::CallOp call) { return call.getCallee() == "npf_sim_dma"; }

/// The affine.apply chain of a DMA's scratchpad offset: the emitter casts an
/// `index` offset to i64, and each peel loop adds `iv * stride` to the
/// offset of the loop outside it with `(d0, d1) -> (d0 + d1 * stride)`.
SmallVector<affine::AffineApplyOp> peelChain(func::CallOp dma) {
  SmallVector<affine::AffineApplyOp> chain;
  auto cast = dma.getOperand(kDmaSpadOffset).getDefiningOp<arith::IndexCastOp>();
  if (!cast)
    return chain;
  Value v = cast.getIn();
  while (auto apply = v.getDefiningOp<affine::AffineApplyOp>()) {
    if (apply.getNumOperands() != 2)
      break;
    auto iv = dyn_cast<BlockArgument>(apply.getOperand(1));
    if (!iv || !isa<scf::ForOp>(iv.getOwner()->getParentOp()))
      break;
    chain.push_back(apply);
    v = apply.getOperand(0);
  }
  return chain;
}

/// The base scratchpad byte offset of a DMA (the tile's offset), if constant.
std::optional<int64_t> spadBase(func::CallOp dma) {
  auto cast = dma.getOperand(kDmaSpadOffset).getDefiningOp<arith::IndexCastOp>();
  if (!cast)
    return std::nullopt;
  SmallVector<affine::AffineApplyOp> chain = peelChain(dma);
  Value base = chain.empty() ? cast.getIn() : chain.back().getOperand(0);
  return getConstantIntValue(base);
}

//===----------------------------------------------------------------------===//
// Seed 000
//===----------------------------------------------------------------------===//

/// Seed 000 lost the `arith.index_cast` between a lane id in `index` and the
/// i64 expert id it is compared with. After elementwise fusion of the tensor
/// style, the iota's `linalg.index`, its cast and the compare share one
/// body, as they did in the fused kernel of the report.
struct IndexI64ComparePass : PassWrapper<IndexI64ComparePass, OperationPass<func::FuncOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(IndexI64ComparePass)
  StringRef getArgument() const final { return "npufuzz-bug-index-i64-compare"; }
  StringRef getDescription() const final {
    return "Drop the index_cast between an index value and an i64 arith.cmpi operand";
  }
  void runOnOperation() override {
    getOperation().walk([](arith::CmpIOp cmp) {
      for (OpOperand &use : cmp->getOpOperands()) {
        auto cast = use.get().getDefiningOp<arith::IndexCastOp>();
        if (!cast || !getElementTypeOrSelf(cast.getIn().getType()).isIndex() ||
            !getElementTypeOrSelf(cast.getType()).isInteger(64))
          continue;
        use.set(cast.getIn());
        return;
      }
    });
  }
};

//===----------------------------------------------------------------------===//
// Seed 002
//===----------------------------------------------------------------------===//

/// Seed 002: the op computing into a fresh tile read its loop extents from a
/// tile descriptor whose valid shape was never set. In the npu style the
/// runtime valid dims are the `index` arguments of the kernel; the fault
/// reads them from a descriptor slot in the scratchpad that nothing writes
/// (the last 8 bytes). The simulator's scratchpad starts zeroed, so the
/// bound is 0 and the valid region is never computed (fillpad pads all of
/// it); on hardware it would be whatever the slot held.
struct UninitValidShapePass : PassWrapper<UninitValidShapePass, OperationPass<func::FuncOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(UninitValidShapePass)
  StringRef getArgument() const final { return "npufuzz-bug-uninit-validshape"; }
  StringRef getDescription() const final {
    return "Take runtime valid-shape bounds from a never-written descriptor slot";
  }
  void runOnOperation() override {
    func::FuncOp f = getOperation();
    if (f.isExternal())
      return;
    SmallVector<BlockArgument> validDims;
    for (BlockArgument a : f.getArguments())
      if (a.getType().isIndex() && !a.use_empty())
        validDims.push_back(a);
    memref::GetGlobalOp spad;
    f.walk([&](memref::GetGlobalOp g) {
      if (g.getName() == "npf_spad")
        spad = g;
    });
    if (validDims.empty() || !spad)
      return;
    auto spadType = cast<MemRefType>(spad.getType());
    OpBuilder b(f.getContext());
    b.setInsertionPointAfter(spad);
    Location loc = spad.getLoc();
    Value slotOffset = arith::ConstantIndexOp::create(b, loc, spadType.getNumElements() - 8);
    auto slotType = MemRefType::get({1}, b.getI64Type());
    Value slot = memref::ViewOp::create(b, loc, slotType, spad, slotOffset, ValueRange{});
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    Value raw = memref::LoadOp::create(b, loc, slot, ValueRange{zero});
    Value bound = arith::IndexCastOp::create(b, loc, b.getIndexType(), raw);
    for (BlockArgument a : validDims)
      a.replaceAllUsesWith(bound);
  }
};

//===----------------------------------------------------------------------===//
// Seed 001
//===----------------------------------------------------------------------===//

/// Seed 001: prologue fusion matched a consumer's reads against the numel of
/// the parent buffer, so a consumer reading a chunk/slice view of a computed
/// buffer found no candidate and `assert(candidate_found)` fired. Views of
/// kernel inputs are not fusion candidates, so only a view of a linalg
/// result counts.
struct SliceFusionAssertPass : PassWrapper<SliceFusionAssertPass, OperationPass<func::FuncOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(SliceFusionAssertPass)
  StringRef getArgument() const final { return "npufuzz-bug-slice-fusion-assert"; }
  StringRef getDescription() const final {
    return "Abort when a fused consumer reads a slice smaller than its parent buffer";
  }
  void runOnOperation() override {
    getOperation().walk([](linalg::LinalgOp consumer) {
      for (OpOperand *in : consumer.getDpsInputOperands()) {
        auto slice = in->get().getDefiningOp<tensor::ExtractSliceOp>();
        if (!slice || !slice.getSource().getDefiningOp<linalg::LinalgOp>())
          continue;
        auto parent = slice.getSourceType(), view = slice.getResultType();
        if (!parent.hasStaticShape() || !view.hasStaticShape() ||
            view.getNumElements() >= parent.getNumElements())
          continue;
        llvm::errs() << "prologue fusion: no input buffer matches numel " << view.getNumElements()
                     << " (parent numel " << parent.getNumElements() << ")\n";
        std::abort();
      }
    });
  }
};

//===----------------------------------------------------------------------===//
// Seed 003
//===----------------------------------------------------------------------===//

/// The coefficient of dim `pos` in the linear part of `e` (terms inside a
/// floordiv/mod do not count).
int64_t linearCoeff(AffineExpr e, unsigned pos) {
  if (auto d = dyn_cast<AffineDimExpr>(e))
    return d.getPosition() == pos;
  auto bin = dyn_cast<AffineBinaryOpExpr>(e);
  if (!bin)
    return 0;
  if (e.getKind() == AffineExprKind::Add)
    return linearCoeff(bin.getLHS(), pos) + linearCoeff(bin.getRHS(), pos);
  if (e.getKind() == AffineExprKind::Mul) {
    if (auto c = dyn_cast<AffineConstantExpr>(bin.getRHS()))
      return c.getValue() * linearCoeff(bin.getLHS(), pos);
    if (auto c = dyn_cast<AffineConstantExpr>(bin.getLHS()))
      return c.getValue() * linearCoeff(bin.getRHS(), pos);
  }
  return 0;
}

/// Rewrites every `e mod M` of `e` so that the stride of one dim in `e` is
/// one too large: the dim with the largest stride that still matters modulo
/// M (the outer digit of a mixed-radix split, as in seed 003's rescaled
/// split-outer strides).
AffineExpr wrongModStride(AffineExpr e, unsigned numDims, bool &changed) {
  auto bin = dyn_cast<AffineBinaryOpExpr>(e);
  if (!bin)
    return e;
  AffineExpr lhs = wrongModStride(bin.getLHS(), numDims, changed);
  AffineExpr rhs = wrongModStride(bin.getRHS(), numDims, changed);
  auto m = dyn_cast<AffineConstantExpr>(rhs);
  if (e.getKind() == AffineExprKind::Mod && m && m.getValue() > 1) {
    std::optional<unsigned> outer;
    int64_t best = 0;
    for (unsigned d = 0; d < numDims; ++d) {
      const int64_t c = linearCoeff(lhs, d);
      if (c % m.getValue() != 0 && std::abs(c) > best) {
        best = std::abs(c);
        outer = d;
      }
    }
    if (outer) {
      lhs = lhs + getAffineDimExpr(*outer, e.getContext());
      changed = true;
    }
  }
  return getAffineBinaryOpExpr(e.getKind(), lhs, rhs);
}

/// Seed 003: a floor/mod index computed with a wrong stride. Targets the
/// index maps of reshape, index_map and gather in the npu (and affine) style.
struct FloorModStridePass : PassWrapper<FloorModStridePass, OperationPass<func::FuncOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(FloorModStridePass)
  StringRef getArgument() const final { return "npufuzz-bug-floormod-stride"; }
  StringRef getDescription() const final {
    return "Give a dim of a mod index an off-by-one stride";
  }
  void runOnOperation() override {
    getOperation().walk([](Operation *op) {
      if (!isa<affine::AffineApplyOp, affine::AffineLoadOp, affine::AffineStoreOp>(op))
        return;
      auto attr = op->getAttrOfType<AffineMapAttr>("map");
      if (!attr)
        return;
      AffineMap map = attr.getValue();
      bool changed = false;
      SmallVector<AffineExpr> results;
      for (AffineExpr r : map.getResults())
        results.push_back(wrongModStride(r, map.getNumDims(), changed));
      if (changed)
        op->setAttr("map", AffineMapAttr::get(AffineMap::get(map.getNumDims(), map.getNumSymbols(),
                                                             results, op->getContext())));
    });
  }
};

/// Seed 003: collapsing a `[.., 4, 1, 1]` group of a DMA descriptor kept a
/// unit dim's extent instead of the non-unit one. The npu style drops unit
/// dims from descriptors (NpuDma.cpp); the fault finds the tile of each DMA
/// by its scratchpad offset and, for a non-unit dim followed by unit dims,
/// transfers extent 1 instead.
struct UnitDimCollapsePass : PassWrapper<UnitDimCollapsePass, OperationPass<func::FuncOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(UnitDimCollapsePass)
  StringRef getArgument() const final { return "npufuzz-bug-unit-dim-collapse"; }
  StringRef getDescription() const final {
    return "Keep the unit extent when a DMA descriptor collapses [..,n,1,1]";
  }
  void runOnOperation() override {
    // Tiles are laid out per op, so the tile at an offset is the one most
    // recently bound there: walk in program order.
    std::map<int64_t, SmallVector<int64_t>> tileAt;
    Value one;
    getOperation().walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (auto view = dyn_cast<memref::ViewOp>(op)) {
        auto cast = view->hasOneUse()
                        ? dyn_cast<memref::ReinterpretCastOp>(*view->getUsers().begin())
                        : nullptr;
        if (std::optional<int64_t> off = getConstantIntValue(view.getByteShift()); off && cast)
          tileAt[*off] = SmallVector<int64_t>(cast.getType().getShape());
        return;
      }
      auto dma = dyn_cast<func::CallOp>(op);
      if (!dma || !isDma(dma))
        return;
      std::optional<int64_t> base = spadBase(dma);
      if (!base || !tileAt.count(*base))
        return;
      const SmallVector<int64_t> &shape = tileAt[*base];
      SmallVector<size_t> kept;
      for (size_t d = 0; d < shape.size(); ++d)
        if (shape[d] > 1)
          kept.push_back(d);
      const size_t peel = kept.size() > kDmaMaxRank ? kept.size() - kDmaMaxRank : 0;
      for (size_t i = peel; i < kept.size(); ++i) {
        const size_t d = kept[i];
        if (d + 1 >= shape.size() || shape[d + 1] != 1)
          continue;
        if (!one) {
          OpBuilder b(getOperation().getBody());
          one = arith::ConstantIntOp::create(b, getOperation().getLoc(), b.getI64Type(), 1);
        }
        dma->setOperand(kDmaFirstSize + (i - peel), one);
      }
    });
  }
};

/// Seed 003: the >4-D transfer was peeled into slices whose scratchpad
/// offset (carried in a subview) got lost, so every slice landed at the
/// same place. Here the peel loops' `iv * stride` terms are dropped from
/// the scratchpad offset.
struct PeelAliasPass : PassWrapper<PeelAliasPass, OperationPass<func::FuncOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(PeelAliasPass)
  StringRef getArgument() const final { return "npufuzz-bug-peel-alias"; }
  StringRef getDescription() const final {
    return "Put every peeled slice of a >4-D DMA at the same scratchpad offset";
  }
  void runOnOperation() override {
    getOperation().walk([](func::CallOp dma) {
      if (!isDma(dma))
        return;
      for (affine::AffineApplyOp apply : peelChain(dma))
        apply.setMap(AffineMap::get(2, 0, getAffineDimExpr(0, dma.getContext())));
    });
  }
};

/// Seed 003: `N // lanes` full vectors and no remainder. The npu style runs
/// the remainder as a scalar loop from `(n floordiv L) * L` to `n`; the
/// fault drops that loop unless n is a constant multiple of L, where it is
/// empty anyway.
struct DropTailPass : PassWrapper<DropTailPass, OperationPass<func::FuncOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(DropTailPass)
  StringRef getArgument() const final { return "npufuzz-bug-drop-tail"; }
  StringRef getDescription() const final {
    return "Drop the scalar remainder loop after full vectors";
  }
  void runOnOperation() override {
    SmallVector<scf::ForOp> tails;
    getOperation().walk([&](scf::ForOp loop) {
      auto apply = loop.getLowerBound().getDefiningOp<affine::AffineApplyOp>();
      if (!apply || loop.getNumResults() != 0 || apply.getNumOperands() != 1 ||
          apply.getOperand(0) != loop.getUpperBound() || getConstantIntValue(loop.getStep()) != 1)
        return;
      AffineMap m = apply.getAffineMap();
      auto mul = dyn_cast<AffineBinaryOpExpr>(m.getResult(0));
      if (m.getNumResults() != 1 || !mul || mul.getKind() != AffineExprKind::Mul)
        return;
      auto div = dyn_cast<AffineBinaryOpExpr>(mul.getLHS());
      auto lanes = dyn_cast<AffineConstantExpr>(mul.getRHS());
      if (!div || div.getKind() != AffineExprKind::FloorDiv || !lanes || div.getRHS() != lanes ||
          !isa<AffineDimExpr>(div.getLHS()))
        return;
      std::optional<int64_t> n = getConstantIntValue(loop.getUpperBound());
      if (n && *n % lanes.getValue() == 0)
        return;
      tails.push_back(loop);
    });
    for (scf::ForOp loop : tails)
      loop.erase();
  }
};

/// Seed 003's tails, the other way: a remainder computed one too long. Every
/// innermost loop of step 1 (affine.for with one upper bound, or scf.for)
/// runs one iteration past its bound, so its loads and stores reach one
/// element past the row they walk; past the last row, outside the buffer.
struct LoopOverrunPass : PassWrapper<LoopOverrunPass, OperationPass<func::FuncOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(LoopOverrunPass)
  StringRef getArgument() const final { return "npufuzz-bug-loop-overrun"; }
  StringRef getDescription() const final {
    return "Run every innermost unit-step loop one iteration past its bound";
  }
  void runOnOperation() override {
    auto innermost = [](Operation *loop) {
      bool inner = true;
      loop->walk([&](Operation *op) {
        if (op != loop && (isa<affine::AffineForOp>(op) || isa<scf::ForOp>(op)))
          inner = false;
      });
      return inner;
    };
    SmallVector<Operation *> loops;
    getOperation().walk([&](Operation *op) {
      if ((isa<affine::AffineForOp>(op) || isa<scf::ForOp>(op)) && innermost(op))
        loops.push_back(op);
    });
    for (Operation *op : loops) {
      if (auto loop = dyn_cast<affine::AffineForOp>(op)) {
        const AffineMap ub = loop.getUpperBoundMap();
        if (loop.getStepAsInt() != 1 || ub.getNumResults() != 1)
          continue;
        loop.setUpperBound(loop.getUpperBoundOperands(),
                           AffineMap::get(ub.getNumDims(), ub.getNumSymbols(), ub.getResult(0) + 1,
                                          op->getContext()));
        continue;
      }
      auto loop = cast<scf::ForOp>(op);
      if (getConstantIntValue(loop.getStep()) != 1)
        continue;
      OpBuilder b(loop);
      Value one = arith::ConstantIndexOp::create(b, loop.getLoc(), 1);
      loop.setUpperBound(arith::AddIOp::create(b, loop.getLoc(), loop.getUpperBound(), one));
    }
  }
};

//===----------------------------------------------------------------------===//
// Seed 004
//===----------------------------------------------------------------------===//

/// Seed 004: fp32 -> bf16 rounded half away from zero instead of to nearest
/// even. `(bits + 0x8000) >> 16` rounds the magnitude half up; NaNs keep
/// their sign and become quiet so the carry cannot turn them into infinity.
struct Bf16RoundHalfAwayPass : PassWrapper<Bf16RoundHalfAwayPass, OperationPass<func::FuncOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(Bf16RoundHalfAwayPass)
  StringRef getArgument() const final { return "npufuzz-bug-bf16-round-half-away"; }
  StringRef getDescription() const final {
    return "Expand truncf f32->bf16 into round-half-away integer arithmetic";
  }
  void runOnOperation() override {
    SmallVector<arith::TruncFOp> truncs;
    getOperation().walk([&](arith::TruncFOp t) {
      // Other rounding modes are not the seed's round-to-nearest-even.
      if (getElementTypeOrSelf(t.getIn().getType()).isF32() &&
          getElementTypeOrSelf(t.getType()).isBF16() &&
          (!t.getRoundingmodeAttr() ||
           t.getRoundingmodeAttr().getValue() == arith::RoundingMode::to_nearest_even))
        truncs.push_back(t);
    });
    for (arith::TruncFOp t : truncs) {
      OpBuilder b(t);
      Location loc = t.getLoc();
      auto like = [&](Type elem) -> Type {
        if (auto v = dyn_cast<VectorType>(t.getType()))
          return v.clone(elem);
        return elem;
      };
      auto splat = [&](Type type, int64_t x) -> Value {
        Type elem = getElementTypeOrSelf(type);
        TypedAttr a = b.getIntegerAttr(elem, x);
        if (auto v = dyn_cast<VectorType>(type))
          a = DenseElementsAttr::get(v, a);
        return arith::ConstantOp::create(b, loc, type, a);
      };
      Type i32 = like(b.getI32Type()), i16 = like(b.getI16Type());
      Value bits = arith::BitcastOp::create(b, loc, i32, t.getIn());
      Value sum = arith::AddIOp::create(b, loc, bits, splat(i32, 0x8000));
      Value high = arith::ShRUIOp::create(b, loc, sum, splat(i32, 16));
      Value nanHigh = arith::OrIOp::create(
          b, loc, arith::ShRUIOp::create(b, loc, bits, splat(i32, 16)), splat(i32, 0x40));
      Value isNan = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, t.getIn(), t.getIn());
      Value pick = arith::SelectOp::create(b, loc, isNan, nanHigh, high);
      Value narrow = arith::TruncIOp::create(b, loc, i16, pick);
      Value r = arith::BitcastOp::create(b, loc, t.getType(), narrow);
      t.replaceAllUsesWith(r);
      t.erase();
    }
  }
};

} // namespace

extern "C" LLVM_ATTRIBUTE_WEAK PassPluginLibraryInfo mlirGetPassPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "NpufuzzPlantedBugs", LLVM_VERSION_STRING, [] {
            PassRegistration<IndexI64ComparePass>();
            PassRegistration<UninitValidShapePass>();
            PassRegistration<SliceFusionAssertPass>();
            PassRegistration<FloorModStridePass>();
            PassRegistration<UnitDimCollapsePass>();
            PassRegistration<PeelAliasPass>();
            PassRegistration<DropTailPass>();
            PassRegistration<LoopOverrunPass>();
            PassRegistration<Bf16RoundHalfAwayPass>();
          }};
}
