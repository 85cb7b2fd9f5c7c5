//===- oracles/DataSets.cpp - Input data for a function of any MLIR -------===//
#include "oracles/DataSets.h"

#include "ir/Prng.h"
#include "ir/Storage.h"
#include "reference/InputData.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace npufuzz {

namespace {
std::vector<float> floatEdges(DType t) {
  std::vector<float> v = floatEdgeValues(t); // +-0, subnormals, normals, max
  const float inf = std::numeric_limits<float>::infinity();
  v.insert(v.end(), {inf, -inf, std::numeric_limits<float>::quiet_NaN(), 1.0f, -1.0f, 2.0f, -2.0f,
                     0.5f, -0.5f});
  return v;
}

std::vector<int64_t> intEdges(DType t) {
  if (t == DType::I1)
    return {0, 1};
  std::vector<int64_t> v = {
      0, 1, -1, minIntValue(t), maxIntValue(t), minIntValue(t) + 1, maxIntValue(t) - 1};
  const int bits = static_cast<int>(byteSize(t)) * 8;
  for (int k = 1; k < bits - 1; k += 3) {
    v.push_back(int64_t{1} << k);
    v.push_back(-(int64_t{1} << k));
  }
  return v;
}

/// The edge values of a buffer's dtype; none for index buffers, which are
/// sizes and subscripts.
struct Edges {
  std::vector<float> floats;
  std::vector<int64_t> ints;
  size_t size() const { return floats.size() + ints.size(); }
};
Edges edgesOf(DType t) {
  Edges e;
  if (isFloat(t))
    e.floats = floatEdges(t);
  else if (t != DType::Index)
    e.ints = intEdges(t);
  return e;
}

/// A buffer of small random values, each element an edge value with
/// probability `edgeRate`.
TensorData randomFill(const TensorType &type, Prng &p, double edgeRate) {
  RefTensor t = RefTensor::zeros(type);
  const DType dt = type.dtype;
  const Edges e = edgesOf(dt);
  for (int64_t k = 0; k < t.numElements(); ++k) {
    t.defined[k] = 1;
    const bool edge = e.size() > 0 && p.chance(edgeRate);
    if (isFloat(dt))
      t.f[k] = edge ? p.pick(e.floats) : static_cast<float>(p.range(-16, 16)) / 4.0f;
    else if (dt == DType::I1)
      t.i[k] = static_cast<int64_t>(p.below(2));
    else
      t.i[k] = edge ? p.pick(e.ints) : p.range(dt == DType::Index ? 0 : -8, 8);
  }
  return toTensorData(t);
}

/// Sweep `s` of buffer `b`: element k is edge value (s + k + 7b) mod n, so
/// over n sweeps every element (a scalar too) takes every edge value, and
/// two scalars meet in different pairs. Index buffers count 0, 1, 2, ...
TensorData edgeSweep(const TensorType &type, size_t s, size_t b) {
  RefTensor t = RefTensor::zeros(type);
  const Edges e = edgesOf(type.dtype);
  for (int64_t k = 0; k < t.numElements(); ++k) {
    t.defined[k] = 1;
    const size_t at = s + static_cast<size_t>(k) + 7 * b;
    if (!e.floats.empty())
      t.f[k] = e.floats[at % e.floats.size()];
    else if (!e.ints.empty())
      t.i[k] = e.ints[at % e.ints.size()];
    else
      t.i[k] = static_cast<int64_t>(k % 8);
  }
  return toTensorData(t);
}
} // namespace

std::vector<std::vector<TensorData>> verificationDataSets(const std::vector<TensorType> &buffers,
                                                          uint64_t seed) {
  std::vector<std::vector<TensorData>> sets;
  auto random = [&](uint64_t stream, double edgeRate) {
    std::vector<TensorData> set;
    for (size_t b = 0; b < buffers.size(); ++b) {
      Prng p = Prng::stream(seed + stream, b);
      set.push_back(randomFill(buffers[b], p, edgeRate));
    }
    sets.push_back(std::move(set));
  };
  random(0, 0.0);
  size_t sweeps = 0;
  for (const TensorType &t : buffers)
    sweeps = std::max(sweeps, edgesOf(t.dtype).size());
  for (size_t s = 0; s < sweeps; ++s) {
    std::vector<TensorData> set;
    for (size_t b = 0; b < buffers.size(); ++b)
      set.push_back(edgeSweep(buffers[b], s, b));
    sets.push_back(std::move(set));
  }
  random(1, 1.0 / 3);
  return sets;
}

} // namespace npufuzz
