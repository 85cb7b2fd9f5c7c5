//===- bench/bugs/ConjunctionFaults.cpp - Faults that need rare IR --------===//
//
// A pass plugin for the time-to-bug benchmark (bench/TimeToBugBench.cpp).
// Real compiler bugs fire on a conjunction of rare features: an op, a
// dtype, a rank or loop depth, a lowering form, the op that feeds it. Each
// pass here plants one such fault in the affine style's IR and changes
// nothing unless every part of its conjunction is there:
//
//   npufuzz-cf-cmpi-i8-deep         arith.cmpi on i8, 5+ loops deep, one
//                                   of them an scf.for -> the inverse
//                                   predicate
//   npufuzz-cf-maximumf-f16-while   arith.maximumf whose result is
//                                   truncated to f16, 3+ loops deep in an
//                                   scf.while loop -> minimumf
//   npufuzz-cf-mulf-bf16-unrolled   arith.mulf truncated to bf16, 4+
//                                   loops deep, one of step 2 -> addf
//   npufuzz-cf-select-i32-cmpf      arith.select of i32 on an arith.cmpf,
//                                   in an scf.while -> branches swapped
//   npufuzz-cf-reduction-f16        vector.reduction <add> of an f16
//                                   vector read under a mask -> maximumf
//   npufuzz-cf-contract-i8          vector.contract of i8 operands, 4+
//                                   loops deep -> its accumulator
//   npufuzz-cf-mask-i32-write       vector.create_mask of a masked
//                                   transfer_write of i32, 2+ loops deep
//                                   -> one lane more
//   npufuzz-cf-collapse-f16-rank4   memref.load of f16 through a
//                                   collapse_shape of a rank-5+ memref ->
//                                   the first element
//   npufuzz-cf-floordiv-i64         arith.floordivsi on i64 (the i64
//                                   index form) -> divsi
//   npufuzz-cf-gather-while         memref.load at an index cast from
//                                   i64 (a gather), 3+ loops deep in an
//                                   scf.while -> element 0
//
// The benchmark is developed and tuned on these. These were written after
// the mechanism and its weights were frozen, and are only measured:
//
//   npufuzz-cfx-andi-i1-cmpf        arith.andi of i1 with an arith.cmpf
//                                   operand, 4+ loops deep -> ori
//   npufuzz-cfx-remsi-i64-tiled     arith.remsi on i64 in a loop of step 3
//                                   -> its dividend
//   npufuzz-cfx-exp-bf16-deep       math.exp of a value extended from
//                                   bf16, 2+ loops deep -> exp2
//   npufuzz-cfx-minsi-i32-while     arith.minsi on i32 in an scf.while
//                                   -> maxsi
//
//===----------------------------------------------------------------------===//
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Tools/Plugins/PassPlugin.h"

#include "llvm/Config/llvm-config.h"

using namespace mlir;

namespace {

//===----------------------------------------------------------------------===//
// What the conjunctions are made of
//===----------------------------------------------------------------------===//

/// Loops around `op`, of any form the affine style lowers to.
unsigned loopDepth(Operation *op) {
  unsigned depth = 0;
  for (Operation *p = op->getParentOp(); p; p = p->getParentOp())
    depth += isa<affine::AffineForOp, scf::ForOp, scf::WhileOp, scf::ParallelOp>(p);
  return depth;
}

/// Whether `op` is in an scf.while loop (the `while` loop form).
bool inWhile(Operation *op) { return op->getParentOfType<scf::WhileOp>() != nullptr; }

/// Whether `op` is in a loop whose constant step is 2 (the `unroll2` form).
bool inStepTwoLoop(Operation *op) {
  for (Operation *p = op->getParentOp(); p; p = p->getParentOp()) {
    if (auto f = dyn_cast<scf::ForOp>(p))
      if (std::optional<int64_t> step = getConstantIntValue(f.getStep()); step && *step == 2)
        return true;
    if (auto f = dyn_cast<affine::AffineForOp>(p); f && f.getStepAsInt() == 2)
      return true;
  }
  return false;
}

/// Whether some user of `v` truncates it to `to`.
bool truncatedTo(Value v, Type to) {
  for (Operation *user : v.getUsers())
    if (auto t = dyn_cast<arith::TruncFOp>(user); t && getElementTypeOrSelf(t.getType()) == to)
      return true;
  return false;
}

/// Whether `v` is `from` extended (arith.extf/extsi/extui), or of `from`.
bool extendedFrom(Value v, Type from) {
  if (getElementTypeOrSelf(v.getType()) == from)
    return true;
  Operation *def = v.getDefiningOp();
  return def && isa<arith::ExtFOp, arith::ExtSIOp, arith::ExtUIOp>(def) &&
         getElementTypeOrSelf(def->getOperand(0).getType()) == from;
}

/// Replaces `op` by a `NewOp` of the same operands: the wrong op of a
/// fault. Returns true (the IR changed).
/// `op` dropped, its result replaced by `value` (one of its operands).
bool forwardTo(Operation *op, Value value) {
  op->getResult(0).replaceAllUsesWith(value);
  op->erase();
  return true;
}

template <typename NewOp> bool replaceBy(Operation *op, OpBuilder &b) {
  b.setInsertionPoint(op);
  return forwardTo(op, NewOp::create(b, op->getLoc(), op->getOperands())->getResult(0));
}

//===----------------------------------------------------------------------===//
// The faults
//===----------------------------------------------------------------------===//

/// A fault: where it fires, and what it does there. It returns whether it
/// changed the IR.
using Fault = bool (*)(Operation *op, OpBuilder &b);

bool cmpiI8Deep(Operation *op, OpBuilder &) {
  auto cmp = dyn_cast<arith::CmpIOp>(op);
  if (!cmp || !getElementTypeOrSelf(cmp.getLhs().getType()).isInteger(8) || loopDepth(op) < 5 ||
      !op->getParentOfType<scf::ForOp>())
    return false;
  cmp.setPredicate(arith::invertPredicate(cmp.getPredicate()));
  return true;
}

bool maximumfF16While(Operation *op, OpBuilder &b) {
  auto max = dyn_cast<arith::MaximumFOp>(op);
  if (!max || !truncatedTo(max.getResult(), b.getF16Type()) || !inWhile(op) || loopDepth(op) < 3)
    return false;
  return replaceBy<arith::MinimumFOp>(op, b);
}

bool mulfBf16Unrolled(Operation *op, OpBuilder &b) {
  auto mul = dyn_cast<arith::MulFOp>(op);
  if (!mul || !truncatedTo(mul.getResult(), b.getBF16Type()) || !inStepTwoLoop(op) ||
      loopDepth(op) < 4)
    return false;
  return replaceBy<arith::AddFOp>(op, b);
}

bool selectI32Cmpf(Operation *op, OpBuilder &) {
  auto sel = dyn_cast<arith::SelectOp>(op);
  if (!sel || !sel.getType().isInteger(32) || !sel.getCondition().getDefiningOp<arith::CmpFOp>() ||
      !inWhile(op))
    return false;
  Value t = sel.getTrueValue();
  sel.getTrueValueMutable().assign(sel.getFalseValue());
  sel.getFalseValueMutable().assign(t);
  return true;
}

bool reductionF16(Operation *op, OpBuilder &b) {
  auto red = dyn_cast<vector::ReductionOp>(op);
  if (!red || red.getKind() != vector::CombiningKind::ADD ||
      !extendedFrom(red.getVector(), b.getF16Type()) ||
      !isa<FloatType>(getElementTypeOrSelf(red.getType())))
    return false;
  // Read under a mask (the `masked` reduction form).
  Value v = red.getVector();
  if (Operation *ext = v.getDefiningOp(); ext && isa<arith::ExtFOp>(ext))
    v = ext->getOperand(0);
  auto read = v.getDefiningOp<vector::TransferReadOp>();
  if (!read || !read.getMask())
    return false;
  red.setKind(vector::CombiningKind::MAXIMUMF);
  return true;
}

bool contractI8(Operation *op, OpBuilder &b) {
  auto contract = dyn_cast<vector::ContractionOp>(op);
  if (!contract || !extendedFrom(contract.getLhs(), b.getI8Type()) || loopDepth(op) < 4)
    return false;
  return forwardTo(contract, contract.getAcc());
}

bool maskI32Write(Operation *op, OpBuilder &b) {
  auto mask = dyn_cast<vector::CreateMaskOp>(op);
  if (!mask || mask->getNumOperands() != 1 || loopDepth(op) < 2)
    return false;
  bool i32Write = false;
  for (Operation *user : mask->getUsers())
    if (auto w = dyn_cast<vector::TransferWriteOp>(user))
      i32Write |= w.getVectorType().getElementType().isInteger(32);
  if (!i32Write)
    return false;
  b.setInsertionPoint(op);
  Value one = arith::ConstantIndexOp::create(b, op->getLoc(), 1);
  mask->setOperand(0, arith::AddIOp::create(b, op->getLoc(), mask->getOperand(0), one));
  return true;
}

bool collapseF16Rank4(Operation *op, OpBuilder &b) {
  auto load = dyn_cast<memref::LoadOp>(op);
  if (!load || !load.getType().isF16())
    return false;
  auto collapse = load.getMemRef().getDefiningOp<memref::CollapseShapeOp>();
  if (!collapse || collapse.getSrcType().getRank() < 5)
    return false;
  b.setInsertionPoint(op);
  Value zero = arith::ConstantIndexOp::create(b, op->getLoc(), 0);
  bool changed = false;
  for (OpOperand &index : load.getIndicesMutable()) {
    changed |= index.get() != zero;
    index.set(zero);
  }
  return changed;
}

bool floordivI64(Operation *op, OpBuilder &b) {
  auto div = dyn_cast<arith::FloorDivSIOp>(op);
  if (!div)
    return false;
  // In the i64 index form.
  if (!div.getType().isInteger(64))
    return false;
  return replaceBy<arith::DivSIOp>(op, b);
}

bool gatherWhile(Operation *op, OpBuilder &b) {
  auto load = dyn_cast<memref::LoadOp>(op);
  if (!load || !inWhile(op) || loopDepth(op) < 3)
    return false;
  for (OpOperand &index : load.getIndicesMutable())
    if (auto cast = index.get().getDefiningOp<arith::IndexCastOp>();
        cast && cast.getIn().getType().isInteger(64)) {
      b.setInsertionPoint(op);
      index.set(arith::ConstantIndexOp::create(b, op->getLoc(), 0));
      return true;
    }
  return false;
}

//===----------------------------------------------------------------------===//
// Held out: written after the mechanism and its weights were frozen, and
// only measured
//===----------------------------------------------------------------------===//

/// Whether `op` is in a loop whose constant step is 3 (the `tiled3` form).
bool inStepThreeLoop(Operation *op) {
  for (Operation *p = op->getParentOp(); p; p = p->getParentOp())
    if (auto f = dyn_cast<scf::ForOp>(p))
      if (std::optional<int64_t> step = getConstantIntValue(f.getStep()); step && *step == 3)
        return true;
  return false;
}

bool andiI1Cmpf(Operation *op, OpBuilder &b) {
  auto andi = dyn_cast<arith::AndIOp>(op);
  if (!andi || !andi.getType().isInteger(1) || loopDepth(op) < 4 ||
      !(andi.getLhs().getDefiningOp<arith::CmpFOp>() ||
        andi.getRhs().getDefiningOp<arith::CmpFOp>()))
    return false;
  return replaceBy<arith::OrIOp>(op, b);
}

bool remsiI64Tiled(Operation *op, OpBuilder &) {
  auto rem = dyn_cast<arith::RemSIOp>(op);
  if (!rem || !rem.getType().isInteger(64) || !inStepThreeLoop(op))
    return false;
  return forwardTo(rem, rem.getLhs());
}

bool expBf16Deep(Operation *op, OpBuilder &b) {
  auto exp = dyn_cast<math::ExpOp>(op);
  if (!exp || !extendedFrom(exp.getOperand(), b.getBF16Type()) || loopDepth(op) < 2)
    return false;
  return replaceBy<math::Exp2Op>(op, b);
}

bool minsiI32While(Operation *op, OpBuilder &b) {
  auto min = dyn_cast<arith::MinSIOp>(op);
  if (!min || !min.getType().isInteger(32) || !inWhile(op))
    return false;
  return replaceBy<arith::MaxSIOp>(op, b);
}

struct FaultRow {
  const char *argument, *description;
  Fault fault;
};

/// The faults, by index: ConjunctionFaultPass<N> plants row N.
constexpr FaultRow kFaults[] = {
    {"npufuzz-cf-cmpi-i8-deep", "arith.cmpi on i8 5+ loops deep: the inverse predicate",
     cmpiI8Deep},
    {"npufuzz-cf-maximumf-f16-while", "f16 arith.maximumf in an scf.while: minimumf",
     maximumfF16While},
    {"npufuzz-cf-mulf-bf16-unrolled", "bf16 arith.mulf in a loop of step 2: addf",
     mulfBf16Unrolled},
    {"npufuzz-cf-select-i32-cmpf", "arith.select of i32 on an arith.cmpf: branches swapped",
     selectI32Cmpf},
    {"npufuzz-cf-reduction-f16", "vector.reduction <add> of f16: maximumf", reductionF16},
    {"npufuzz-cf-contract-i8", "vector.contract of i8: the accumulator alone", contractI8},
    {"npufuzz-cf-mask-i32-write", "create_mask of an i32 transfer_write: one lane more",
     maskI32Write},
    {"npufuzz-cf-collapse-f16-rank4", "f16 load through a rank-4+ collapse_shape: element 0",
     collapseF16Rank4},
    {"npufuzz-cf-floordiv-i64", "i64 floordivsi: divsi", floordivI64},
    {"npufuzz-cf-gather-while", "a gather's load in an scf.while: element 0", gatherWhile},
    {"npufuzz-cfx-andi-i1-cmpf", "i1 arith.andi of a cmpf 4+ loops deep: ori", andiI1Cmpf},
    {"npufuzz-cfx-remsi-i64-tiled", "i64 arith.remsi in a loop of step 3: its lhs", remsiI64Tiled},
    {"npufuzz-cfx-exp-bf16-deep", "math.exp of bf16 2+ loops deep: exp2", expBf16Deep},
    {"npufuzz-cfx-minsi-i32-while", "i32 arith.minsi in an scf.while: maxsi", minsiI32While},
};
constexpr unsigned kNumFaults = sizeof(kFaults) / sizeof(kFaults[0]);

/// The pass of fault row N: one class each, so each has its own TypeID.
template <unsigned N>
struct ConjunctionFaultPass : PassWrapper<ConjunctionFaultPass<N>, OperationPass<func::FuncOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(ConjunctionFaultPass)
  StringRef getArgument() const final { return kFaults[N].argument; }
  StringRef getDescription() const final { return kFaults[N].description; }
  void runOnOperation() override {
    OpBuilder b(&this->getContext());
    SmallVector<Operation *> ops;
    this->getOperation().walk([&](Operation *op) { ops.push_back(op); });
    for (Operation *op : ops)
      kFaults[N].fault(op, b);
  }
};

template <unsigned... N> void registerAll(std::integer_sequence<unsigned, N...>) {
  (PassRegistration<ConjunctionFaultPass<N>>(), ...);
}

} // namespace

extern "C" LLVM_ATTRIBUTE_WEAK PassPluginLibraryInfo mlirGetPassPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "NpufuzzConjunctionFaults", LLVM_VERSION_STRING,
          [] { registerAll(std::make_integer_sequence<unsigned, kNumFaults>{}); }};
}
