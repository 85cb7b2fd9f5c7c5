//===- oracles/Exactness.cpp - How exactly a value can be compared --------===//
#include "oracles/Exactness.h"

#include "ir/Window.h"

#include <algorithm>

namespace npufuzz {

std::string_view exactnessName(Exactness e) {
  switch (e) {
  case Exactness::Exact: return "exact";
  case Exactness::Approx: return "approx";
  case Exactness::Reordered: return "reordered";
  case Exactness::Unstable: return "unstable";
  }
  return "?";
}

bool isApproximateOp(OpKind k) { return hasTrait(k, op_trait::Approximate); }

namespace {
/// Sums of many terms: when approximate terms nearly cancel, a few ULP of
/// error each become an unbounded relative error of the result, which no
/// relative tolerance covers.
bool cancels(OpKind k) {
  return k == OpKind::ReduceSum || k == OpKind::Matmul || hasTrait(k, op_trait::ReorderedSum);
}

/// A two-term sum or difference. Independent terms almost never cancel to
/// within a few ULP, so these stay comparable (a miscompiled add must stay
/// visible); terms computed from a common value do, systematically:
/// x - silu(x) for x = 17 is one ULP of 17, and either rounding of silu is
/// right.
bool isTwoTermSum(OpKind k) {
  const OpKind base = expandBaseOp(k);
  return base == OpKind::Add || base == OpKind::Sub;
}

/// Ops that map an infinity to a finite value while NaN stays NaN
/// (clamp(-inf) is its bound, max(-inf, 3) is 3, relu(-inf) is 0).
bool makesInfinitiesFinite(OpKind k) {
  const OpKind base = expandBaseOp(k);
  return base == OpKind::Max || base == OpKind::Min || k == OpKind::Clamp || k == OpKind::Relu ||
         k == OpKind::ReduceMax || k == OpKind::ReduceMin || k == OpKind::MaxPool2d;
}

/// Where an approximate value may be an infinity on one side and NaN on the
/// other, which compare as agreeing (both non-finite): the formulas of
/// these ops differ at overflow (silu(-inf) is NaN as x*sigmoid(x)), and a
/// product or quotient of an approximate value can be 0 * inf on one side
/// and tiny * inf on the other (silu(-100.8) is a subnormal in the
/// reference, -0 in f32). log, rsqrt and exp are NaN or infinite alike.
bool mayMakeNonFiniteClassDiffer(OpKind k, Exactness in) {
  const OpKind base = expandBaseOp(k);
  return k == OpKind::Silu || k == OpKind::Sigmoid || k == OpKind::Tanh || k == OpKind::Erf ||
         (in == Exactness::Approx && (base == OpKind::Mul || base == OpKind::Div));
}

/// Ops singular at zero: a few ULP around 0 flip the sign of the input and
/// the result between a number, NaN and an infinity.
bool singularAtZero(OpKind k) { return hasTrait(k, op_trait::SingularAtZero); }

/// Ops whose result can jump when an input moves by an ULP.
bool isDiscontinuous(const Case &c, const Op &op, unsigned resultIndex) {
  if (hasTrait(op.kind, op_trait::Discontinuous))
    return true;
  switch (op.kind) {
  case OpKind::TopK:
  case OpKind::MaxPool2d: return resultIndex == 1; // the index of a maximum
  case OpKind::Cast: {
    // To an integer it rounds; widening a 16-bit float keeps that format's
    // error but would be judged by the wider format's tolerance.
    const DType to = c.typeOf(op.results[0]).dtype, from = c.typeOf(op.operands[0]).dtype;
    return !isFloat(to) || byteSize(to) > byteSize(from);
  }
  case OpKind::Select:
  case OpKind::MaskedFill:
  case OpKind::ReduceSum:
  case OpKind::ReduceMax:
  case OpKind::ReduceMin:
  case OpKind::ArgMax: // Discontinuous in the table
  case OpKind::Matmul:
  case OpKind::Gather:
  case OpKind::SetValidShape:
  case OpKind::FillPad:
  case OpKind::Insert:
  case OpKind::Concat:
  case OpKind::Pad:
  case OpKind::ReduceMean:
  case OpKind::AvgPool2d:
  case OpKind::Addmm:
  case OpKind::Conv2d:
#define NPF_HANDLED_CATEGORY Other
#include "ir/OpCasesOutside.def"
    return false; // elementwise and view ops: by the table's trait alone
  }
  return false;
}
} // namespace

namespace {
/// An op that computes new values (arithmetic, a cast, a reduction), as
/// opposed to one that moves them (views, inserts, gathers, fills).
bool computes(OpKind k) {
  switch (opCategory(k)) {
  case OpCategory::Unary:
  case OpCategory::Binary:
  case OpCategory::RowExpand:
  case OpCategory::ColExpand: return true;
  case OpCategory::Source:
  case OpCategory::Compare:
  case OpCategory::View:
  case OpCategory::Other: break;
  }
  return k == OpKind::Cast || k == OpKind::Matmul || k == OpKind::ReduceSum ||
         hasTrait(k, op_trait::ReorderedSum);
}

bool isLowPrecisionFloat(DType t) { return t == DType::F16 || t == DType::BF16; }

/// An op that looks at its operands' values: one that computes, compares,
/// or ranks them.
bool readsValues(OpKind k) {
  return computes(k) || opCategory(k) == OpCategory::Compare || k == OpKind::ArgMax ||
         k == OpKind::TopK || k == OpKind::MaxPool2d;
}

/// How many terms each element of a sum (reduce_sum, matmul, the
/// ReorderedSum ops) adds at most; 0 for other ops.
int64_t termsPerSum(const Case &c, const Op &op) {
  if (op.kind == OpKind::ReduceSum || op.kind == OpKind::ReduceMean) {
    const TensorType &in = c.typeOf(op.operands[0]);
    return in.shape[static_cast<size_t>(op.attrs.axis)];
  }
  if (op.kind == OpKind::Matmul)
    return c.typeOf(op.operands[0]).shape.back();
  if (op.kind == OpKind::Addmm) // the bias is a term
    return c.typeOf(op.operands[1]).shape.back() + 1;
  Window2d w;
  if (op.kind == OpKind::AvgPool2d && windowOf(c, op, w))
    return w.taps();
  // A convolution's padded taps are terms of its implementations (zero
  // products), if not of its definition.
  if (op.kind == OpKind::Conv2d && windowOf(c, op, w))
    return w.taps() * c.typeOf(op.operands[1]).shape[1] +
           (w.padding[0] > 0 || w.padding[1] > 0 ? 1 : 0);
  return 0;
}
} // namespace

ExactnessModel freedomsOfRun(const BackendRun &run) {
  ExactnessModel m;
  m.lowPrecisionHeldWide = run.lowPrecisionHeldWide;
  m.floatSumsReassociated = run.floatSumsReassociated;
  m.productsContracted = run.productsContracted;
  m.signedOverflowUndefined = run.signedOverflowUndefined;
  m.negationOverflowUndefined = run.negationOverflowUndefined;
  m.selfSubtractionFolded = run.selfSubtractionFolded;
  m.constantDivisorsAsReciprocal = run.constantDivisorsAsReciprocal;
  return m;
}

void markFreedoms(BackendRun &run, const ExactnessModel &freedoms) {
  // Added to what the run says of itself (PyTorchSim's model reassociates
  // float sums: its lanes sum their shares), never taken from it.
  run.lowPrecisionHeldWide |= freedoms.lowPrecisionHeldWide;
  run.floatSumsReassociated |= freedoms.floatSumsReassociated;
  run.productsContracted |= freedoms.productsContracted;
  run.signedOverflowUndefined |= freedoms.signedOverflowUndefined;
  run.negationOverflowUndefined |= freedoms.negationOverflowUndefined;
  run.selfSubtractionFolded |= freedoms.selfSubtractionFolded;
  run.constantDivisorsAsReciprocal |= freedoms.constantDivisorsAsReciprocal;
}

ExactnessModel freedomsOf(BackendKind backend, const SwitchStates &states) {
  ExactnessModel m;
  // Inductor keeps fused f16/bf16 intermediates in f32 (its
  // emulate_precision_casts is off by default, and on under strict
  // pointwise numerics: torch/_inductor/config.py, numerics); TVM's bf16
  // legalization drops an intermediate rounding by design (apache/tvm#5601:
  // cast32(cast16(x)) becomes x).
  const bool strictPointwise = std::any_of(states.begin(), states.end(), [](const SwitchState &s) {
    return s.id == CompilerSwitch::InductorDefaultPointwiseNumerics && !s.on;
  });
  // PyTorchSim's code generation promotes a half-precision load to f32
  // and rounds only at the store, as Inductor's C++ does (its
  // reduction_init: "load promotes all half-precision inputs to float").
  m.lowPrecisionHeldWide = (backend == BackendKind::Inductor && !strictPointwise) ||
                           backend == BackendKind::Tvm || backend == BackendKind::PyTorchSim;
  m.negationOverflowUndefined = backend == BackendKind::Inductor;
  m.floatSumsReassociated = backend == BackendKind::Iree;
  m.productsContracted = backend == BackendKind::Iree;
  m.signedOverflowUndefined = backend == BackendKind::Tvm;
  m.selfSubtractionFolded = backend == BackendKind::Tvm;
  m.constantDivisorsAsReciprocal =
      backend == BackendKind::Inductor || backend == BackendKind::PyTorchSim;
  return m;
}

std::vector<Exactness> classifyValues(const Case &c, const ExactnessModel &model) {
  std::vector<Exactness> cls(c.values.size(), Exactness::Exact);
  const std::vector<bool> producedByComputation = computedValues(c);
  // An f32 product, or its negation: what a fused multiply-add may take.
  std::vector<bool> f32Product(c.values.size(), false);
  std::vector<bool> nonFiniteClassMayDiffer(c.values.size(), false);
  // A constant, or a view of one: what a compiler may fold as a divisor.
  std::vector<bool> constant(c.values.size(), false);
  // ancestors[v][u]: value u is v or is computed into v.
  std::vector<std::vector<bool>> ancestors(c.values.size(),
                                           std::vector<bool>(c.values.size(), false));
  for (const Op &op : c.ops) {
    Exactness in = Exactness::Exact;
    std::vector<bool> from(c.values.size(), false);
    for (ValueId v : op.operands) {
      in = std::max(in, cls[v]);
      for (size_t u = 0; u < from.size(); ++u)
        from[u] = from[u] || ancestors[v][u];
    }
    bool correlated = false;
    if (op.operands.size() == 2)
      for (size_t u = 0; u < from.size() && !correlated; ++u)
        correlated = ancestors[op.operands[0]][u] && ancestors[op.operands[1]][u];
    bool classMayDiffer = false;
    for (ValueId v : op.operands)
      classMayDiffer = classMayDiffer || nonFiniteClassMayDiffer[v];
    // A narrow float computed by an op, read by another that computes:
    // under lowPrecisionHeldWide the reader may see it unrounded.
    bool readsWideValue = false;
    if (model.lowPrecisionHeldWide && readsValues(op.kind))
      for (ValueId v : op.operands)
        readsWideValue =
            readsWideValue || (isLowPrecisionFloat(c.typeOf(v).dtype) && producedByComputation[v]);
    for (unsigned r = 0; r < op.results.size(); ++r) {
      Exactness e = in;
      if ((isApproximateOp(op.kind) || readsWideValue) && isFloat(c.typeOf(op.results[r]).dtype))
        e = std::max(e, Exactness::Approx);
      // An unrounded narrow input is off by up to half an ULP of its own
      // type: a transcendental (exp(17 + d) moves by 17 d) or an op singular
      // at zero amplifies that past any tolerance of the result.
      if (readsWideValue && (isApproximateOp(op.kind) || singularAtZero(op.kind)))
        e = Exactness::Unstable;
      // A result that is not a float (a compare, an index, an integer
      // cast) jumps where the unrounded value is on the other side of what
      // decides it.
      if (readsWideValue && !isFloat(c.typeOf(op.results[r]).dtype))
        e = Exactness::Unstable;
      // A reordered sum is compared against its terms' magnitudes, which
      // only the sum itself has: whatever reads it is not compared.
      if (in == Exactness::Reordered)
        e = Exactness::Unstable;
      else if (in == Exactness::Exact && isFloat(c.typeOf(op.results[r]).dtype) &&
               ((model.floatSumsReassociated && termsPerSum(c, op) >= 3) ||
                // A library's sum (a convolution, a mean, a pool) is added
                // in the order its kernel likes, on every backend.
                (hasTrait(op.kind, op_trait::ReorderedSum) && termsPerSum(c, op) >= 2) ||
                (readsWideValue && termsPerSum(c, op) >= 2) ||
                // Products contracted into the accumulator (fma) round
                // otherwise at any depth, and flush a subnormal product
                // after the add, keeping its sign: compared as a sum.
                (model.productsContracted && op.kind == OpKind::Matmul)))
        e = Exactness::Reordered;
      const bool isF32 = c.typeOf(op.results[r]).dtype == DType::F32;
      // Ops that only move values (views, selects, masked fills) may fold
      // away and leave the product next to the sum.
      bool carriesProduct = false;
      if (op.kind == OpKind::Neg || !computes(op.kind))
        for (ValueId v : op.operands)
          carriesProduct = carriesProduct || f32Product[v];
      f32Product[op.results[r]] = isF32 && (expandBaseOp(op.kind) == OpKind::Mul || carriesProduct);
      if (model.productsContracted && isF32 && isTwoTermSum(op.kind))
        for (ValueId v : op.operands)
          if (f32Product[v])
            e = std::max(e, Exactness::Approx);
      constant[op.results[r]] =
          op.kind == OpKind::Const || (!computes(op.kind) && !op.operands.empty() &&
                                       std::all_of(op.operands.begin(), op.operands.end(),
                                                   [&](ValueId v) { return constant[v]; }));
      if (model.constantDivisorsAsReciprocal && expandBaseOp(op.kind) == OpKind::Div &&
          isFloat(c.typeOf(op.results[r]).dtype) && op.operands.size() == 2 &&
          constant[op.operands[1]])
        e = std::max(e, Exactness::Approx);
      // Discontinuous ops flip on approximate inputs; cancelling and singular
      // ones amplify the error of approximate inputs (not their own).
      // NaN on one side, an infinity on the other, made finite on one.
      if (classMayDiffer && makesInfinitiesFinite(op.kind))
        e = Exactness::Unstable;
      nonFiniteClassMayDiffer[op.results[r]] =
          classMayDiffer || mayMakeNonFiniteClassDiffer(op.kind, in);
      if ((e == Exactness::Approx && isDiscontinuous(c, op, r)) ||
          (in == Exactness::Approx &&
           (cancels(op.kind) || singularAtZero(op.kind) || (correlated && isTwoTermSum(op.kind)))))
        e = Exactness::Unstable;
      cls[op.results[r]] = e;
      ancestors[op.results[r]] = from;
      ancestors[op.results[r]][op.results[r]] = true;
    }
  }
  return cls;
}

std::vector<unsigned> approximationCounts(const Case &c, const std::vector<Exactness> &exactness) {
  std::vector<unsigned> n(c.values.size(), 0);
  for (const Op &op : c.ops) {
    const OpKind base = expandBaseOp(op.kind);
    const bool product = base == OpKind::Mul || base == OpKind::Div;
    unsigned in = 0;
    for (ValueId v : op.operands)
      in = product ? std::min(kMaxApproximations, in + n[v]) : std::max(in, n[v]);
    for (ValueId r : op.results) {
      n[r] = in;
      if (n[r] == 0 && (isApproximateOp(op.kind) || exactness[r] == Exactness::Approx))
        n[r] = 1;
    }
  }
  return n;
}

std::vector<bool> computedValues(const Case &c) {
  std::vector<bool> computed(c.values.size(), false);
  for (const Op &op : c.ops) {
    // A value moved (viewed, selected, broadcast, reduced by max) from a
    // computed one is computed with it: inside a fused kernel a view is an
    // index map, not a rounding store.
    bool moved = false;
    if (opCategory(op.kind) != OpCategory::Source)
      for (ValueId u : op.operands)
        moved = moved || computed[u];
    for (ValueId r : op.results)
      computed[r] = computes(op.kind) || moved;
  }
  return computed;
}

} // namespace npufuzz
