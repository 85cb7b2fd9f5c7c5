//===- generators/GenContext.cpp - Drawing types and operands -------------===//
#include "generators/GenContext.h"

#include "ir/Verifier.h"

#include <algorithm>
#include <iterator>
#include <limits>

namespace npufuzz::gen {

GenContext::GenContext(uint64_t seed, const Policy &policy, GenerationStats &stats)
    : rng(seed), policy(policy), stats(stats) {}

GenContext::GenContext(ChoiceStream choices, const Policy &policy, GenerationStats &stats)
    : rng(std::move(choices)), policy(policy), stats(stats) {}

void GenContext::rollback(const Mark &m) {
  c.ops.resize(m.ops);
  c.values.resize(m.values);
  usedElements_ = m.elements;
  numInputs_ = m.inputs;
  uses_.assign(c.values.size(), 0);
  for (const Op &op : c.ops)
    for (ValueId v : op.operands)
      ++uses_[v];
}

//===----------------------------------------------------------------------===//
// Drawing types
//===----------------------------------------------------------------------===//

DType GenContext::drawDType(const DTypePred &allowed) {
  std::vector<uint32_t> weights(kNumDTypes, 0);
  bool anyWeight = false;
  for (int i = 0; i < kNumDTypes; ++i)
    if (allowed(static_cast<DType>(i))) {
      weights[i] = policy.dtypeWeights[i];
      anyWeight |= weights[i] > 0;
    }
  if (!anyWeight)
    for (int i = 0; i < kNumDTypes; ++i)
      weights[i] = allowed(static_cast<DType>(i)) ? 1 : 0;
  return static_cast<DType>(rng.weighted(weights));
}

unsigned GenContext::drawRank(unsigned minRank, unsigned maxRank) {
  maxRank = std::min(maxRank, policy.maxRank);
  if (minRank >= maxRank)
    return minRank;
  std::vector<uint32_t> weights;
  uint64_t total = 0;
  for (unsigned r = minRank; r <= maxRank; ++r) {
    weights.push_back(policy.rankWeights[r - 1]);
    total += weights.back();
  }
  if (total == 0)
    return static_cast<unsigned>(rng.range(minRank, maxRank));
  return minRank + static_cast<unsigned>(rng.weighted(weights));
}

int64_t GenContext::drawDim(int64_t maxDim) {
  maxDim = std::max<int64_t>(1, std::min(maxDim, policy.maxDim));
  const int64_t lane = policy.laneWidth;
  int64_t d = 1;
  switch (static_cast<DimClass>(rng.weighted(policy.dimWeights))) {
  case DimClass::Small: d = rng.range(1, 4); break;
  case DimClass::Lane: d = lane * rng.range(1, std::max<int64_t>(1, maxDim / lane)); break;
  case DimClass::Tail: {
    // Just off a multiple of the lane width: the vector loop's tail.
    const int64_t base = lane * rng.range(1, std::max<int64_t>(1, maxDim / lane));
    const int64_t offset = rng.range(1, 3);
    d = rng.chance(0.5) ? base + offset : base - offset;
    break;
  }
  case DimClass::Any: d = rng.range(1, maxDim); break;
  }
  return std::clamp<int64_t>(d, 1, maxDim);
}

std::vector<int64_t> GenContext::drawShape(unsigned rank, int64_t maxElements) {
  std::vector<int64_t> shape(rank, 1);
  // Draw dims in a random order so the budget does not always squeeze the
  // trailing dims.
  std::vector<unsigned> order(rank);
  for (unsigned i = 0; i < rank; ++i)
    order[i] = i;
  for (unsigned i = rank; i > 1; --i)
    std::swap(order[i - 1], order[rng.below(i)]);
  // A log-uniform element cap keeps typical tensors small (a few K elements)
  // while the budget still allows the occasional large one.
  int bits = 0;
  while (bits < 62 && (int64_t{2} << bits) <= maxElements)
    ++bits;
  maxElements = std::min<int64_t>(maxElements, int64_t{1} << rng.range(std::min(bits, 4), bits));
  int64_t product = 1;
  for (unsigned i : order) {
    const int64_t room = std::max<int64_t>(1, maxElements / product);
    shape[i] = drawDim(room);
    product *= shape[i];
  }
  return shape;
}

std::optional<ValidShape> GenContext::drawValidShape(int64_t rows, int64_t cols) {
  ValidShape v;
  // One valid row (seed 002) and full columns are the interesting corners.
  v.rows = rng.chance(0.3) ? 1 : rng.range(1, rows);
  v.cols = rng.chance(0.5) ? cols : rng.range(1, cols);
  v.dynamic = rng.chance(policy.dynamicValidRate);
  return v;
}

TensorType GenContext::drawType(const DTypePred &allowed, unsigned minRank, unsigned maxRank,
                                bool allowValid) {
  TensorType t;
  t.dtype = drawDType(allowed);
  t.shape = drawShape(drawRank(minRank, maxRank), elementsLeft());
  if (allowValid && t.rank() == 2 && rng.chance(policy.validShapeRate))
    t.valid = drawValidShape(t.shape[0], t.shape[1]);
  return t;
}

int64_t GenContext::elementsLeft() const {
  return std::min(policy.maxTensorElements, policy.maxCaseElements - usedElements_);
}

Scalar GenContext::drawScalar(DType t) {
  Scalar s;
  if (isFloat(t)) {
    static const float kSpecial[] = {0.0f,
                                     -0.0f,
                                     1.0f,
                                     -1.0f,
                                     0.5f,
                                     std::numeric_limits<float>::infinity(),
                                     -std::numeric_limits<float>::infinity(),
                                     65504.0f,
                                     1.0e-40f,
                                     3.0e38f};
    float v = rng.chance(0.6) ? kSpecial[rng.below(std::size(kSpecial))]
                              : static_cast<float>(rng.range(-64, 64)) / 8.0f;
    s.f = roundFloatTo(v, t, RoundingMode::NearestEven);
    return s;
  }
  if (t == DType::I1) {
    s.i = rng.range(0, 1);
    return s;
  }
  switch (rng.below(4)) {
  case 0: s.i = minIntValue(t); break;
  case 1: s.i = maxIntValue(t); break;
  default: s.i = rng.range(-8, 8); break;
  }
  return s;
}

InputFill GenContext::drawFill(DType t) {
  InputFill f;
  f.kind = static_cast<FillKind>(rng.weighted(policy.fillWeights));
  if (f.kind == FillKind::Range) {
    if (t == DType::I1) {
      f.lo = 0;
      f.hi = 1;
    } else {
      const int64_t lo = t == DType::I8 ? -16 : -64;
      f.lo = rng.range(lo, 0);
      f.hi = f.lo + rng.range(0, 32);
    }
  }
  return f;
}

//===----------------------------------------------------------------------===//
// Operands
//===----------------------------------------------------------------------===//

ValueId GenContext::newInput(const TensorType &t) { return newInput(t, drawFill(t.dtype)); }

ValueId GenContext::newInput(const TensorType &t, const InputFill &fill) {
  if (numInputs_ >= policy.maxInputs)
    return kNoValue;
  OpAttrs attrs;
  attrs.fill = fill;
  const ValueId v = addChecked(OpKind::Input, {}, std::move(attrs), {t});
  if (v != kNoValue)
    ++numInputs_;
  return v;
}

std::optional<ValueId> GenContext::pickExisting(const TypePred &pred) {
  std::vector<ValueId> all, unused;
  for (size_t v = 0; v < c.values.size(); ++v)
    if (pred(c.values[v].type)) {
      all.push_back(static_cast<ValueId>(v));
      if (uses_[v] == 0)
        unused.push_back(static_cast<ValueId>(v));
    }
  if (all.empty())
    return std::nullopt;
  // Unused values first: they make chains instead of fans of dead ends.
  if (!unused.empty() && rng.chance(0.6))
    return rng.pick(unused);
  return rng.pick(all);
}

ValueId GenContext::operand(const TypePred &pred, const std::function<TensorType()> &fresh) {
  std::optional<ValueId> existing = pickExisting(pred);
  if (existing && (rng.chance(policy.reuseRate) || numInputs_ >= policy.maxInputs))
    return *existing;
  const ValueId v = newInput(fresh());
  return v == kNoValue && existing ? *existing : v;
}

ValueId GenContext::operandLike(const TensorType &t) {
  auto same = [&](const TensorType &o) { return o.dtype == t.dtype && o.shape == t.shape; };
  std::optional<ValueId> existing = pickExisting(same);
  if (existing && rng.chance(policy.reuseRate))
    return *existing;
  TensorType plain{t.dtype, t.shape, std::nullopt};
  // A policy that weighs const 0 (one for a target without constants)
  // gets none here either; the draw is skipped before the chance, so other
  // policies' seeds make the same cases as before.
  if (policy.opWeights[static_cast<size_t>(OpKind::Const)] > 0 && rng.chance(0.15)) {
    OpAttrs attrs;
    attrs.value = drawScalar(t.dtype);
    return emitSource(OpKind::Const, plain, std::move(attrs));
  }
  if (t.valid && rng.chance(0.5))
    plain.valid = t.valid;
  const ValueId v = newInput(plain);
  return v == kNoValue && existing ? *existing : v;
}

//===----------------------------------------------------------------------===//
// Emission
//===----------------------------------------------------------------------===//

ValueId GenContext::addChecked(OpKind kind, std::vector<ValueId> operands, OpAttrs attrs,
                               const std::vector<TensorType> &types) {
  int64_t total = 0;
  for (const TensorType &t : types) {
    if (t.shape.empty() || t.numElements() > policy.maxTensorElements ||
        t.rank() > policy.maxRank ||
        *std::max_element(t.shape.begin(), t.shape.end()) > policy.maxDim)
      return kNoValue;
    total += t.numElements();
  }
  if (usedElements_ + total > policy.maxCaseElements)
    return kNoValue;
  const int32_t opIndex = c.addOp(kind, std::move(operands), std::move(attrs), types);
  if (opCategory(kind) == OpCategory::Source) {
    // Sources declare their type; the verifier's rule checks the declaration.
    std::vector<TensorType> inferred;
    std::string error;
    if (!inferResultTypes(c, c.ops.back(), inferred, error)) {
      ++stats.opsRefused;
      c.ops.pop_back();
      c.values.pop_back();
      return kNoValue;
    }
  }
  usedElements_ += total;
  uses_.resize(c.values.size(), 0);
  for (ValueId v : c.ops[opIndex].operands)
    ++uses_[v];
  return c.result(opIndex);
}

int32_t GenContext::emit(OpKind kind, std::vector<ValueId> operands, OpAttrs attrs) {
  for (ValueId v : operands)
    if (v == kNoValue)
      return -1;
  Op op;
  op.kind = kind;
  op.operands = operands;
  op.attrs = attrs;
  std::vector<TensorType> types;
  std::string error;
  if (!inferResultTypes(c, op, types, error)) {
    ++stats.opsRefused;
    return -1;
  }
  if (addChecked(kind, std::move(operands), std::move(attrs), types) == kNoValue)
    return -1;
  return static_cast<int32_t>(c.ops.size() - 1);
}

ValueId GenContext::emitValue(OpKind kind, std::vector<ValueId> operands, OpAttrs attrs) {
  const int32_t op = emit(kind, std::move(operands), std::move(attrs));
  return op < 0 ? kNoValue : c.result(op);
}

ValueId GenContext::emitSource(OpKind kind, const TensorType &t, OpAttrs attrs) {
  return addChecked(kind, {}, std::move(attrs), {t});
}

} // namespace npufuzz::gen
