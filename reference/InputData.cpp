//===- reference/InputData.cpp - Deterministic input data -----------------===//

#include "reference/InputData.h"

#include "ir/Prng.h"
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

} // namespace

std::vector<RefTensor> makeInputs(const Case &c) {
  std::vector<RefTensor> inputs;
  uint64_t ordinal = 0;
  for (const Op &op : c.ops) {
    if (op.kind != OpKind::Input || op.results.empty())
      continue;
    Prng p = Prng::stream(c.dataSeed, ordinal++);
    inputs.push_back(makeInput(c.typeOf(op.results[0]), op.attrs.fill, p, c.edgeRate));
  }
  return inputs;
}

} // namespace npufuzz
