//===- reference/InputData.cpp - Deterministic input data -----------------===//

#include "reference/InputData.h"

#include "ir/Prng.h"
#include "reference/Executor.h"
#include "reference/OpEval.h"

#include <algorithm>
#include <cmath>

namespace npufuzz {
namespace {

/// Bit patterns of a float dtype's special magnitudes, as f32 values.
struct FloatEdges {
  float minSub, maxSub, minNormal, maxFinite;
};

FloatEdges floatEdges(DType t) {
  switch (t) {
  case DType::F16:
    return {f16BitsToFloat(0x0001), f16BitsToFloat(0x03FF), f16BitsToFloat(0x0400),
            f16BitsToFloat(0x7BFF)};
  case DType::BF16:
    return {bf16BitsToFloat(0x0001), bf16BitsToFloat(0x007F), bf16BitsToFloat(0x0080),
            bf16BitsToFloat(0x7F7F)};
  default: return {0x1p-149f, 0x1.fffffcp-127f, 0x1p-126f, 0x1.fffffep127f};
  }
}

} // namespace

std::vector<float> floatEdgeValues(DType t) {
  const FloatEdges e = floatEdges(t);
  // max/2 is exact: it only lowers the exponent of a normal number.
  return {0.0f,      -0.0f,       e.minSub,     e.maxSub,        e.minNormal,     0x1p-10f,
          -0x1p-10f, e.maxFinite, -e.maxFinite, e.maxFinite / 2, -e.maxFinite / 2};
}

namespace {
/// The streams of related operands: kRelationStream + the op's index, far
/// from the inputs' ordinals; a division's dividend draws from
/// kDividendStream + the op's index, apart from its divisor's draws.
constexpr uint64_t kRelationStream = uint64_t(1) << 40;
constexpr uint64_t kDividendStream = uint64_t(1) << 41;

/// An integer converted to `t` as Range and Iota fills do.
void storeInt(RefTensor &t, int64_t k, int64_t v) {
  if (t.isFloat())
    t.f[k] = intToFloat(v, t.type.dtype, RoundingMode::NearestEven);
  else
    t.i[k] = wrapToWidth(v, t.type.dtype);
}

void fillRandom(RefTensor &t, Prng &p, double edgeRate) {
  const DType dt = t.type.dtype;
  const int64_t n = t.numElements();
  if (dt == DType::I1) {
    for (int64_t k = 0; k < n; ++k)
      t.i[k] = int64_t(p.below(2));
    return;
  }
  if (t.isFloat()) {
    const std::vector<float> edges = floatEdgeValues(dt);
    for (int64_t k = 0; k < n; ++k)
      t.f[k] = p.chance(edgeRate) ? p.pick(edges) : ref::roundRNE(float(p.unit() * 8.0 - 4.0), dt);
    return;
  }
  const std::vector<int64_t> edges = {minIntValue(dt), maxIntValue(dt), -1};
  const int64_t lo = dt == DType::Index ? 0 : -8;
  for (int64_t k = 0; k < n; ++k)
    t.i[k] = p.chance(edgeRate) ? p.pick(edges) : p.range(lo, 8);
}

RefTensor makeInput(const TensorType &type, const InputFill &fill, Prng &p, double edgeRate) {
  RefTensor t = RefTensor::zeros(type);
  const int64_t n = t.numElements();
  switch (fill.kind) {
  case FillKind::Random: fillRandom(t, p, edgeRate); break;
  case FillKind::Zeros: break;
  case FillKind::Ones:
    for (int64_t k = 0; k < n; ++k)
      storeInt(t, k, 1);
    break;
  case FillKind::Range: {
    const int64_t lo = std::min(fill.lo, fill.hi), hi = std::max(fill.lo, fill.hi);
    for (int64_t k = 0; k < n; ++k)
      storeInt(t, k, p.range(lo, hi));
    break;
  }
  case FillKind::Iota:
    for (int64_t k = 0; k < n; ++k)
      storeInt(t, k, k);
    break;
  }
  for (int64_t k = 0; k < n; ++k)
    t.defined[k] = t.insideValid(k) ? 1 : 0;
  return t;
}

/// Floor and truncating division differ only on a remainder whose sign is
/// not the divisor's, and an emitter that adjusts the quotient without
/// testing the remainder is wrong only on exact divisions of mixed signs:
/// random data almost never make either. So a random divisor gets 1s and
/// -1s, which every dividend divides (at least one of each).
void relateDivisor(RefTensor &divisor, Prng &p) {
  const int64_t n = divisor.numElements();
  for (int64_t k = 0; k < n; ++k) {
    const uint64_t draw = p.below(4);
    if (draw == 0)
      storeInt(divisor, k, p.chance(0.5) ? -1 : 1);
    else if (draw == 1 && divisor.i[k] == 0) // a zero divisor is an edge of its own, but rarer
      storeInt(divisor, k, (p.chance(0.5) ? -1 : 1) * p.range(2, 8));
  }
  const int64_t one = static_cast<int64_t>(p.below(static_cast<uint64_t>(n)));
  storeInt(divisor, one, 1);
  if (n > 1)
    storeInt(divisor, (one + 1 + static_cast<int64_t>(p.below(n - 1))) % n, -1);
}

/// A random dividend related to its divisor's values `divisor` (an input or
/// computed): half of its elements become, for their divisor y and q in
/// [1, 4], -y*q (exact, of mixed signs), y*q (exact, same sign) or a value
/// of the other sign than y that leaves a remainder.
void relateDividend(const Case &c, const Op &op, RefTensor &dividend, const RefTensor &divisor,
                    Prng &p) {
  const TensorType &result = c.typeOf(op.results[0]);
  // A value stored only where the dtype holds it: a wrapped one (an i8
  // dividend of 4 * 127) would no longer be in the relation.
  auto store = [&](int64_t k, int64_t v) {
    if (wrapToWidth(v, dividend.type.dtype) == v)
      storeInt(dividend, k, v);
  };
  for (int64_t k = 0; k < result.numElements(); ++k) {
    if (p.below(2) == 0)
      continue;
    const int64_t y = divisor.i[secondOperandElement(op, result, k)];
    const int64_t q = p.range(1, 4);
    if (y == 0 || y < -1024 || y > 1024) // (and no -y of INT64_MIN)
      continue;
    const int64_t magnitude = y < 0 ? -y : y;
    const uint64_t relation = p.below(10);
    if (relation < 5) // exact, of mixed signs
      store(k, -y * q);
    else if (relation < 7 || magnitude == 1) // exact, same sign
      store(k, y * q);
    else // a remainder, the dividend's sign not the divisor's
      store(k, (y < 0 ? 1 : -1) * (magnitude * (q - 1) + p.range(1, magnitude - 1)));
  }
}

/// Element k of `from` copied into element k of `to` (same dtype).
void copyElement(const RefTensor &from, int64_t j, RefTensor &to, int64_t k) {
  if (to.isFloat())
    to.f[k] = from.f[j];
  else
    to.i[k] = from.i[j];
}

bool comparesOperands(OpKind k) {
  return k == OpKind::Max || k == OpKind::Min || k == OpKind::RowExpandMax ||
         k == OpKind::RowExpandMin || k == OpKind::ColExpandMax || k == OpKind::ColExpandMin ||
         opCategory(k) == OpCategory::Compare;
}

/// Ties, which random data rarely make and which max, min, compares, topk
/// and argmax must break as the reference says: a quarter of a compared
/// pair's elements made equal (`a` takes `b`'s), or a quarter of a
/// selection's elements equal to their neighbour along its axis.
void relateTies(const Case &c, size_t opIndex, RefTensor *a, RefTensor *b) {
  const Op &op = c.ops[opIndex];
  Prng p = Prng::stream(c.dataSeed, kRelationStream + opIndex);
  if (b && a) {
    const TensorType &result = c.typeOf(op.results[0]);
    if (a->type.shape != result.shape)
      return;
    for (int64_t k = 0; k < a->numElements(); ++k)
      if (p.below(4) == 0)
        copyElement(*b, secondOperandElement(op, result, k), *a, k);
    return;
  }
  if (!a || b)
    return;
  const std::vector<int64_t> &shape = a->type.shape;
  int64_t stride = 1; // of the selection's axis, row-major
  for (size_t d = static_cast<size_t>(op.attrs.axis) + 1; d < shape.size(); ++d)
    stride *= shape[d];
  const int64_t extent = shape[op.attrs.axis];
  for (int64_t k = 0; k < a->numElements(); ++k)
    if ((k / stride) % extent != 0 && p.below(4) == 0)
      copyElement(*a, k - stride, *a, k);
}

/// Gather indices at the ends of their range (0 and the last element, as
/// the generator draws ranges): an eighth of them.
void relateIndexEnds(const Case &c, size_t opIndex, RefTensor *indices, const InputFill &fill) {
  if (!indices || fill.kind != FillKind::Range)
    return;
  Prng p = Prng::stream(c.dataSeed, kRelationStream + opIndex);
  const int64_t lo = std::min(fill.lo, fill.hi), hi = std::max(fill.lo, fill.hi);
  for (int64_t k = 0; k < indices->numElements(); ++k)
    if (p.below(8) == 0)
      storeInt(*indices, k, p.chance(0.5) ? lo : hi);
}

} // namespace

int64_t secondOperandElement(const Op &op, const TensorType &result, int64_t k) {
  switch (opCategory(op.kind)) {
  case OpCategory::RowExpand: return k / result.shape[1];
  case OpCategory::ColExpand: return k % result.shape[1];
  case OpCategory::Source:
  case OpCategory::Unary:
  case OpCategory::Binary:
  case OpCategory::Compare:
  case OpCategory::View:
  case OpCategory::Other: return k;
  }
  return k;
}

bool isIntegerDivision(const Case &c, const Op &op) {
  return (op.kind == OpKind::Div || op.kind == OpKind::RowExpandDiv ||
          op.kind == OpKind::ColExpandDiv) &&
         !isFloat(c.typeOf(op.results[0]).dtype);
}

std::vector<RefTensor> makeInputs(const Case &c) {
  std::vector<RefTensor> inputs;
  std::vector<size_t> inputOf(c.values.size(), SIZE_MAX);
  uint64_t ordinal = 0;
  for (const Op &op : c.ops) {
    if (op.kind != OpKind::Input || op.results.empty())
      continue;
    Prng p = Prng::stream(c.dataSeed, ordinal++);
    inputOf[op.results[0]] = inputs.size();
    inputs.push_back(makeInput(c.typeOf(op.results[0]), op.attrs.fill, p, c.edgeRate));
  }
  auto filled = [&](ValueId v, FillKind kind) -> RefTensor * {
    const size_t i = inputOf[v];
    return i != SIZE_MAX && c.ops[c.values[v].defOp].attrs.fill.kind == kind ? &inputs[i] : nullptr;
  };
  auto random = [&](ValueId v) { return filled(v, FillKind::Random); };
  // The random input a computed divisor takes its values from through
  // views, casts, neg and abs, which keep 1 and -1 among 1 and -1.
  auto divisorSource = [&](ValueId v) -> RefTensor * {
    for (;;) {
      const Op &def = c.ops[c.values[v].defOp];
      if (def.kind == OpKind::Input)
        return random(v);
      if (!isView(def.kind) && def.kind != OpKind::Cast && def.kind != OpKind::Neg &&
          def.kind != OpKind::Abs)
        return nullptr;
      if (def.kind == OpKind::Cast && !isInteger(c.typeOf(def.operands[0]).dtype))
        return nullptr;
      v = def.operands[0];
    }
  };
  // Dividends whose divisor is computed: related to its values, from a
  // run of the reference on the inputs so far.
  std::vector<size_t> computedDivisor;
  for (size_t k = 0; k < c.ops.size(); ++k) {
    const Op &op = c.ops[k];
    if (isIntegerDivision(c, op)) {
      Prng p = Prng::stream(c.dataSeed, kRelationStream + k);
      Prng q = Prng::stream(c.dataSeed, kDividendStream + k);
      RefTensor *dividend = random(op.operands[0]), *divisor = random(op.operands[1]);
      if (RefTensor *source = divisorSource(op.operands[1]))
        relateDivisor(*source, p);
      if (dividend && divisor && dividend != divisor)
        relateDividend(c, op, *dividend, *divisor, q);
      else if (dividend && !divisor)
        computedDivisor.push_back(k);
    } else if (comparesOperands(op.kind))
      relateTies(c, k, random(op.operands[0]), random(op.operands[1]));
    else if (op.kind == OpKind::TopK || op.kind == OpKind::ArgMax || op.kind == OpKind::ReduceMax ||
             op.kind == OpKind::ReduceMin)
      relateTies(c, k, random(op.operands[0]), nullptr);
    else if (op.kind == OpKind::Gather)
      relateIndexEnds(c, k, filled(op.operands[1], FillKind::Range),
                      c.ops[c.values[op.operands[1]].defOp].attrs.fill);
  }
  if (computedDivisor.empty())
    return inputs;
  // The data must not depend on the process's floating-point environment
  // (IREE's runs flush subnormals): the divisors are computed in IEEE's.
  const ReferenceFlushScope ieee(false);
  std::vector<RefTensor> values;
  std::string error;
  if (evaluateCase(c, inputs, values, error))
    for (size_t k : computedDivisor) {
      const Op &op = c.ops[k];
      Prng q = Prng::stream(c.dataSeed, kDividendStream + k);
      relateDividend(c, op, *random(op.operands[0]), values[op.operands[1]], q);
    }
  return inputs;
}

} // namespace npufuzz
