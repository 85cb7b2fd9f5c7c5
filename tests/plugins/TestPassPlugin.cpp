//===- tests/plugins/TestPassPlugin.cpp - Passes that are wrong on purpose ===//
//
// An MLIR pass plugin for testing the oracles. Each pass fires only when its
// pattern is present, like a real compiler bug:
//   npufuzz-test-miscompile       rewrites arith.addf into arith.subf
//   npufuzz-test-break-verifier   gives arith.mulf an i32 result type
//   npufuzz-test-crash            aborts when it sees arith.divf
//   npufuzz-test-hang             loops forever when it sees arith.subf
//   npufuzz-test-oom              allocates without bound on arith.maximumf
//   npufuzz-test-stale-state      aborts from the third kernel entry (public
//                                 function) one process compiles on, like a
//                                 compiler whose cache outlives a compilation
//   npufuzz-test-fatal-error      calls report_fatal_error on arith.divf
//   npufuzz-test-slow             sleeps 300 ms on every function (gives a
//                                 test time to act while a case runs); with
//                                 NPUFUZZ_TEST_SLOW_MARK=FILE, the first
//                                 process to run it writes its pid to FILE
//                                 and waits to be killed (a test kills it
//                                 mid-case, at no particular time)
//   npufuzz-test-maxnumf          rewrites arith.maximumf into arith.maxnumf
//                                 (wrong only when an operand is NaN)
//   npufuzz-test-saturating-truncf clamps an f32 to +-65504 before each
//                                 truncf to f16 (wrong only past f16's range)
//   npufuzz-test-double-free      frees every deallocated buffer twice (the
//                                 compiled kernel aborts, the passes do not)
//   npufuzz-test-warn             emits a warning on every function and
//                                 succeeds
//   npufuzz-test-drop-flush       erases every call of the npu runtime's
//                                 dcci, as a pass that takes it for dead
//                                 would (seed 004: no tail flush)
//   npufuzz-test-drop-fence       erases every call of the npu runtime's
//                                 dsb (a flush with nothing to make it
//                                 complete before the task ends)
//   npufuzz-test-pack-shares      packs the blocks' shares of a chain's GM
//                                 tensors element to element, ignoring
//                                 cache lines (simpler's broken
//                                 out[block_idx] = value)
//   npufuzz-test-tile-past-spad   moves every DMA of the npu runtime past
//                                 the scratchpad's end (seed 004's tile
//                                 at UB's end)
//   npufuzz-test-store-past-end   adds 1 to the last subscript of every
//                                 affine.store and memref.store (the last
//                                 element of each row is written one past)
//   npufuzz-test-load-past-end    the same for every affine.load and
//                                 memref.load
//   npufuzz-test-long-mask        makes every 1-D vector.create_mask one
//                                 lane longer
//   npufuzz-test-drop-write-mask  drops the mask of every masked
//                                 vector.transfer_write
//   npufuzz-test-two-bugs         two miscompiles that need different IR:
//                                 every affine.for from 0 to a constant past
//                                 16 with step 1 loses its last iteration
//                                 (in whichever op's loop is long), and
//                                 every affine.load subscript d*c (c > 1)
//                                 loses its stride (only strided views)
//
//===----------------------------------------------------------------------===//
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/AffineExpr.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Tools/Plugins/PassPlugin.h"
#include "llvm/Support/ErrorHandling.h"

#include <chrono>
#include <cstdlib>
#include <fcntl.h>
#include <string>
#include <thread>
#include <unistd.h>

#include "llvm/Config/llvm-config.h"

#include <cstdlib>
#include <vector>

using namespace mlir;

namespace {

struct MiscompilePass : PassWrapper<MiscompilePass, OperationPass<func::FuncOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(MiscompilePass)
  StringRef getArgument() const final { return "npufuzz-test-miscompile"; }
  StringRef getDescription() const final { return "Rewrite arith.addf into arith.subf"; }
  void runOnOperation() override {
    getOperation().walk([](arith::AddFOp add) {
      OpBuilder b(add);
      Value sub = arith::SubFOp::create(b, add.getLoc(), add.getLhs(), add.getRhs());
      add.replaceAllUsesWith(sub);
      add.erase();
    });
  }
};

struct MaxnumfPass : PassWrapper<MaxnumfPass, OperationPass<func::FuncOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(MaxnumfPass)
  StringRef getArgument() const final { return "npufuzz-test-maxnumf"; }
  StringRef getDescription() const final { return "Rewrite arith.maximumf into maxnumf"; }
  void runOnOperation() override {
    std::vector<arith::MaximumFOp> ops;
    getOperation().walk([&](arith::MaximumFOp op) { ops.push_back(op); });
    for (arith::MaximumFOp op : ops) {
      OpBuilder b(op);
      op.replaceAllUsesWith(
          arith::MaxNumFOp::create(b, op.getLoc(), op.getLhs(), op.getRhs()).getResult());
      op.erase();
    }
  }
};

struct SaturatingTruncfPass : PassWrapper<SaturatingTruncfPass, OperationPass<func::FuncOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(SaturatingTruncfPass)
  StringRef getArgument() const final { return "npufuzz-test-saturating-truncf"; }
  StringRef getDescription() const final { return "Clamp before truncf f32 -> f16"; }
  void runOnOperation() override {
    getOperation().walk([&](arith::TruncFOp op) {
      if (!op.getIn().getType().isF32() || !op.getType().isF16())
        return;
      OpBuilder b(op);
      const Location loc = op.getLoc();
      Value hi = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(65504.0f));
      Value lo = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(-65504.0f));
      Value clamped =
          arith::MinimumFOp::create(b, loc, arith::MaximumFOp::create(b, loc, op.getIn(), lo), hi);
      op.getInMutable().assign(clamped);
    });
  }
};

struct DoubleFreePass : PassWrapper<DoubleFreePass, OperationPass<func::FuncOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(DoubleFreePass)
  StringRef getArgument() const final { return "npufuzz-test-double-free"; }
  StringRef getDescription() const final { return "Free every deallocated buffer twice"; }
  void runOnOperation() override {
    std::vector<Operation *> deallocs;
    getOperation().walk([&](Operation *op) {
      if (op->getName().getStringRef() == "memref.dealloc")
        deallocs.push_back(op);
    });
    for (Operation *op : deallocs) {
      OpBuilder b(op);
      b.setInsertionPointAfter(op);
      b.clone(*op);
    }
  }
};

struct WarnPass : PassWrapper<WarnPass, OperationPass<func::FuncOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(WarnPass)
  StringRef getArgument() const final { return "npufuzz-test-warn"; }
  StringRef getDescription() const final { return "Warn on every function"; }
  void runOnOperation() override {
    getOperation().emitWarning("npufuzz-test-warn saw this function");
  }
};

struct BreakVerifierPass : PassWrapper<BreakVerifierPass, OperationPass<func::FuncOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(BreakVerifierPass)
  StringRef getArgument() const final { return "npufuzz-test-break-verifier"; }
  StringRef getDescription() const final { return "Give arith.mulf an i32 result"; }
  void runOnOperation() override {
    getOperation().walk(
        [](arith::MulFOp mul) { mul.getResult().setType(IntegerType::get(mul.getContext(), 32)); });
  }
};

struct CrashPass : PassWrapper<CrashPass, OperationPass<func::FuncOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(CrashPass)
  StringRef getArgument() const final { return "npufuzz-test-crash"; }
  StringRef getDescription() const final { return "Abort on arith.divf"; }
  void runOnOperation() override {
    getOperation().walk([](arith::DivFOp) { std::abort(); });
  }
};

struct HangPass : PassWrapper<HangPass, OperationPass<func::FuncOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(HangPass)
  StringRef getArgument() const final { return "npufuzz-test-hang"; }
  StringRef getDescription() const final { return "Loop forever on arith.subf"; }
  void runOnOperation() override {
    bool found = false;
    getOperation().walk([&](arith::SubFOp) { found = true; });
    volatile bool spin = found;
    while (spin) {
    }
  }
};

struct OomPass : PassWrapper<OomPass, OperationPass<func::FuncOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(OomPass)
  StringRef getArgument() const final { return "npufuzz-test-oom"; }
  StringRef getDescription() const final { return "Allocate without bound on arith.maximumf"; }
  void runOnOperation() override {
    bool found = false;
    getOperation().walk([&](arith::MaximumFOp) { found = true; });
    if (!found)
      return;
    std::vector<std::vector<char>> hoard;
    for (;;)
      hoard.emplace_back(64 << 20, 1); // touched, so it really is resident
  }
};

struct StaleStatePass : PassWrapper<StaleStatePass, OperationPass<func::FuncOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(StaleStatePass)
  StringRef getArgument() const final { return "npufuzz-test-stale-state"; }
  StringRef getDescription() const final {
    return "Abort from the third kernel entry compiled in one process on";
  }
  void runOnOperation() override {
    // A kernel's entry, once a compilation: a chain's task functions are
    // private ones beside it.
    if (getOperation().isPrivate())
      return;
    static int seen = 0; // process-wide on purpose: that is the bug
    if (++seen >= 3)
      std::abort();
  }
};

struct FatalErrorPass : PassWrapper<FatalErrorPass, OperationPass<func::FuncOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(FatalErrorPass)
  StringRef getArgument() const final { return "npufuzz-test-fatal-error"; }
  StringRef getDescription() const final { return "report_fatal_error on arith.divf"; }
  void runOnOperation() override {
    getOperation().walk(
        [](arith::DivFOp) { llvm::report_fatal_error("npufuzz-test-fatal-error saw divf"); });
  }
};

struct SlowPass : PassWrapper<SlowPass, OperationPass<func::FuncOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(SlowPass)
  StringRef getArgument() const final { return "npufuzz-test-slow"; }
  StringRef getDescription() const final {
    return "Sleep 300 ms (NPUFUZZ_TEST_SLOW_MS) on every function";
  }
  void runOnOperation() override {
    if (const char *mark = std::getenv("NPUFUZZ_TEST_SLOW_MARK")) {
      const int fd = ::open(mark, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
      if (fd >= 0) {
        const std::string pid = std::to_string(::getpid()) + "\n";
        (void)!::write(fd, pid.data(), pid.size());
        ::close(fd);
        for (;;)
          ::pause();
      }
    }
    // A test of a machine slower than a limit sets how slow.
    long ms = 300;
    if (const char *slow = std::getenv("NPUFUZZ_TEST_SLOW_MS"))
      ms = std::strtol(slow, nullptr, 10);
    std::this_thread::sleep_for(std::chrono::milliseconds(ms));
  }
};

/// `e` with every product by a constant other than 1 replaced by its
/// other factor.
AffineExpr withoutStrides(AffineExpr e) {
  const auto bin = dyn_cast<AffineBinaryOpExpr>(e);
  if (!bin)
    return e;
  const AffineExpr lhs = withoutStrides(bin.getLHS()), rhs = withoutStrides(bin.getRHS());
  switch (e.getKind()) {
  case AffineExprKind::Mul:
    if (const auto k = dyn_cast<AffineConstantExpr>(rhs); k && k.getValue() > 1)
      return lhs;
    return lhs * rhs;
  case AffineExprKind::Add: return lhs + rhs;
  case AffineExprKind::Mod: return lhs % rhs;
  case AffineExprKind::FloorDiv: return lhs.floorDiv(rhs);
  case AffineExprKind::CeilDiv: return lhs.ceilDiv(rhs);
  case AffineExprKind::Constant:
  case AffineExprKind::DimId:
  case AffineExprKind::SymbolId: return e;
  }
  return e;
}

struct TwoBugsPass : PassWrapper<TwoBugsPass, OperationPass<func::FuncOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TwoBugsPass)
  StringRef getArgument() const final { return "npufuzz-test-two-bugs"; }
  StringRef getDescription() const final {
    return "Drop the last iteration of long loops; drop the stride of strided loads";
  }
  void runOnOperation() override {
    getOperation().walk([](Operation *op) {
      const StringRef name = op->getName().getStringRef();
      if (name == "affine.for") {
        const auto lb = op->getAttrOfType<AffineMapAttr>("lowerBoundMap");
        const auto ub = op->getAttrOfType<AffineMapAttr>("upperBoundMap");
        const auto step = op->getAttrOfType<IntegerAttr>("step");
        if (lb && ub && step && step.getInt() == 1 && lb.getValue().isSingleConstant() &&
            lb.getValue().getSingleConstantResult() == 0 && ub.getValue().isSingleConstant() &&
            ub.getValue().getSingleConstantResult() > 16)
          op->setAttr("upperBoundMap",
                      AffineMapAttr::get(AffineMap::getConstantMap(
                          ub.getValue().getSingleConstantResult() - 1, op->getContext())));
      } else if (name == "affine.load") {
        const auto map = op->getAttrOfType<AffineMapAttr>("map");
        if (!map)
          return;
        SmallVector<AffineExpr> results;
        for (const AffineExpr e : map.getValue().getResults())
          results.push_back(withoutStrides(e));
        const AffineMap plain = AffineMap::get(
            map.getValue().getNumDims(), map.getValue().getNumSymbols(), results, op->getContext());
        if (plain != map.getValue())
          op->setAttr("map", AffineMapAttr::get(plain));
      }
    });
  }
};

/// Adds 1 to the last subscript of every load (`loads`) or store of the
/// affine and memref dialects in `fn`.
void shiftLastSubscript(func::FuncOp fn, bool loads) {
  std::vector<Operation *> accesses;
  fn.walk([&](Operation *op) {
    const StringRef name = op->getName().getStringRef();
    if (loads ? name == "affine.load" || name == "memref.load"
              : name == "affine.store" || name == "memref.store")
      accesses.push_back(op);
  });
  for (Operation *op : accesses) {
    if (const auto map = op->getAttrOfType<AffineMapAttr>("map")) {
      const AffineMap m = map.getValue();
      if (m.getNumResults() == 0)
        continue;
      SmallVector<AffineExpr> results(m.getResults().begin(), m.getResults().end());
      results.back() = results.back() + 1;
      op->setAttr("map", AffineMapAttr::get(AffineMap::get(m.getNumDims(), m.getNumSymbols(),
                                                           results, op->getContext())));
      continue;
    }
    // memref.load %m[...] / memref.store %x, %m[...]: the subscripts are the
    // operands after the memref.
    const unsigned last = op->getNumOperands() - 1;
    if (last < (loads ? 1u : 2u))
      continue;
    OpBuilder b(op);
    Value one = arith::ConstantIndexOp::create(b, op->getLoc(), 1);
    op->setOperand(last, arith::AddIOp::create(b, op->getLoc(), op->getOperand(last), one));
  }
}

struct StorePastEndPass : PassWrapper<StorePastEndPass, OperationPass<func::FuncOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(StorePastEndPass)
  StringRef getArgument() const final { return "npufuzz-test-store-past-end"; }
  StringRef getDescription() const final { return "Store one element past each subscript"; }
  void runOnOperation() override { shiftLastSubscript(getOperation(), false); }
};

struct LoadPastEndPass : PassWrapper<LoadPastEndPass, OperationPass<func::FuncOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(LoadPastEndPass)
  StringRef getArgument() const final { return "npufuzz-test-load-past-end"; }
  StringRef getDescription() const final { return "Load one element past each subscript"; }
  void runOnOperation() override { shiftLastSubscript(getOperation(), true); }
};

struct LongMaskPass : PassWrapper<LongMaskPass, OperationPass<func::FuncOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(LongMaskPass)
  StringRef getArgument() const final { return "npufuzz-test-long-mask"; }
  StringRef getDescription() const final { return "Make every 1-D create_mask one lane longer"; }
  void runOnOperation() override {
    getOperation().walk([](vector::CreateMaskOp mask) {
      if (mask.getNumOperands() != 1)
        return;
      OpBuilder b(mask);
      Value one = arith::ConstantIndexOp::create(b, mask.getLoc(), 1);
      mask->setOperand(0, arith::AddIOp::create(b, mask.getLoc(), mask.getOperand(0), one));
    });
  }
};

struct DropWriteMaskPass : PassWrapper<DropWriteMaskPass, OperationPass<func::FuncOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(DropWriteMaskPass)
  StringRef getArgument() const final { return "npufuzz-test-drop-write-mask"; }
  StringRef getDescription() const final { return "Drop the mask of every transfer_write"; }
  void runOnOperation() override {
    getOperation().walk([](vector::TransferWriteOp write) {
      if (write.getMask())
        write.getMaskMutable().clear();
    });
  }
};

/// Erases every call of `callee` in `f`, as a pass that takes a call with
/// no results for dead would.
void eraseCallsTo(func::FuncOp f, StringRef callee) {
  std::vector<Operation *> calls;
  f.walk([&](func::CallOp call) {
    if (call.getCallee() == callee)
      calls.push_back(call);
  });
  for (Operation *op : calls)
    op->erase();
}

struct DropFlushPass : PassWrapper<DropFlushPass, OperationPass<func::FuncOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(DropFlushPass)
  StringRef getArgument() const final { return "npufuzz-test-drop-flush"; }
  StringRef getDescription() const final { return "Erase every call of npf_dcci"; }
  void runOnOperation() override { eraseCallsTo(getOperation(), "npf_dcci"); }
};

struct DropFencePass : PassWrapper<DropFencePass, OperationPass<func::FuncOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(DropFencePass)
  StringRef getArgument() const final { return "npufuzz-test-drop-fence"; }
  StringRef getDescription() const final { return "Erase every call of npf_dsb"; }
  void runOnOperation() override { eraseCallsTo(getOperation(), "npf_dsb"); }
};

struct TilePastScratchpadPass : PassWrapper<TilePastScratchpadPass, OperationPass<func::FuncOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TilePastScratchpadPass)
  StringRef getArgument() const final { return "npufuzz-test-tile-past-spad"; }
  StringRef getDescription() const final {
    return "Move every DMA's scratchpad side past the scratchpad's end";
  }
  void runOnOperation() override {
    // The capacity the function binds its scratchpad with.
    Value capacity;
    getOperation().walk([&](func::CallOp call) {
      if (call.getCallee() == "npf_sim_begin" && call.getNumOperands() == 2)
        capacity = call.getOperand(1);
    });
    if (!capacity)
      return;
    getOperation().walk([&](func::CallOp call) {
      if (call.getCallee() != "npf_sim_dma" || call.getNumOperands() < 5)
        return;
      OpBuilder b(call);
      call->setOperand(4, arith::AddIOp::create(b, call.getLoc(), call.getOperand(4), capacity));
    });
  }
};

struct PackSharesPass : PassWrapper<PackSharesPass, OperationPass<func::FuncOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(PackSharesPass)
  StringRef getArgument() const final { return "npufuzz-test-pack-shares"; }
  StringRef getDescription() const final {
    return "Share a chain's GM tensors out element by element, not line by line";
  }
  void runOnOperation() override {
    getOperation().walk([](arith::ConstantOp share) {
      auto what = share->getAttrOfType<ArrayAttr>("npufuzz.block_share");
      if (!what || what.size() != 2)
        return;
      const int64_t elements = cast<IntegerAttr>(what[0]).getInt();
      const int64_t blocks = cast<IntegerAttr>(what[1]).getInt();
      share.setValueAttr(IntegerAttr::get(share.getType(),
                                          std::max<int64_t>(1, (elements + blocks - 1) / blocks)));
    });
  }
};

} // namespace

extern "C" LLVM_ATTRIBUTE_WEAK PassPluginLibraryInfo mlirGetPassPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "NpufuzzTestPasses", LLVM_VERSION_STRING, [] {
            PassRegistration<MiscompilePass>();
            PassRegistration<BreakVerifierPass>();
            PassRegistration<CrashPass>();
            PassRegistration<HangPass>();
            PassRegistration<OomPass>();
            PassRegistration<StaleStatePass>();
            PassRegistration<FatalErrorPass>();
            PassRegistration<SlowPass>();
            PassRegistration<MaxnumfPass>();
            PassRegistration<SaturatingTruncfPass>();
            PassRegistration<DoubleFreePass>();
            PassRegistration<WarnPass>();
            PassRegistration<TwoBugsPass>();
            PassRegistration<StorePastEndPass>();
            PassRegistration<LoadPastEndPass>();
            PassRegistration<LongMaskPass>();
            PassRegistration<DropWriteMaskPass>();
            PassRegistration<DropFlushPass>();
            PassRegistration<DropFencePass>();
            PassRegistration<PackSharesPass>();
            PassRegistration<TilePastScratchpadPass>();
          }};
}
