//===- generators/ViewGen.cpp - Views and index-map expressions -----------===//
//
// Views are where layout bugs live (seed 001: a chunk's numel is half its
// parent's; seed 003: floor/mod index arithmetic, >4-D views, unit-dim
// collapse, lane tails). Index maps are built in bounds by construction: a
// random expression is fitted to its source dim using the same interval
// arithmetic (IndexExpr::range) the verifier checks with.
//
//===----------------------------------------------------------------------===//
#include "generators/GenContext.h"

#include "ir/Verifier.h"

#include <algorithm>
#include <iterator>
#include <tuple>

namespace npufuzz::gen {

namespace {

std::vector<int64_t> divisorsOf(int64_t n) {
  std::vector<int64_t> small, large;
  for (int64_t d = 1; d * d <= n; ++d)
    if (n % d == 0) {
      small.push_back(d);
      if (d != n / d)
        large.push_back(n / d);
    }
  small.insert(small.end(), large.rbegin(), large.rend());
  return small;
}

/// Redraws the valid shape of a drawn type whose dims were then adjusted.
TensorType refitValid(GenContext &g, TensorType t) {
  if (t.valid)
    t.valid = g.drawValidShape(t.shape[0], t.shape[1]);
  return t;
}

ValueId anyOperand(GenContext &g, unsigned minRank, unsigned maxRank) {
  return g.operand([=](const TensorType &t) { return t.rank() >= minRank && t.rank() <= maxRank; },
                   [&] { return g.drawType([](DType) { return true; }, minRank, maxRank); });
}

bool buildSlice(GenContext &g) {
  const ValueId x = anyOperand(g, 1, kMaxRank);
  if (x == kNoValue)
    return false;
  OpAttrs a;
  const std::vector<int64_t> &shape = g.c.typeOf(x).shape;
  for (size_t k = 0; k < shape.size(); ++k) {
    const int64_t dim = shape[k], lane = g.policy.laneWidth;
    // Whole lane blocks along the last dim, or all of it when it has fewer
    // than two (a policy of 0 draws nothing).
    if (k + 1 == shape.size() && g.policy.viewLaneAligned > 0 && lane > 0 &&
        g.rng.chance(g.policy.viewLaneAligned)) {
      const bool blocks = dim % lane == 0 && dim >= 2 * lane;
      const int64_t size = blocks ? lane * g.rng.range(1, dim / lane - 1) : dim;
      a.strides.push_back(1);
      a.sizes.push_back(size);
      a.offsets.push_back(blocks ? lane * g.rng.range(0, (dim - size) / lane) : 0);
      continue;
    }
    const int64_t stride = dim > 2 && g.rng.chance(0.25) ? g.rng.range(2, 3) : 1;
    const int64_t maxSize = (dim - 1) / stride + 1;
    int64_t size = maxSize;
    switch (g.rng.below(4)) {
    case 0: size = std::max<int64_t>(1, maxSize / 2); break;
    case 1: size = std::max<int64_t>(1, maxSize - 1); break;
    case 2: size = g.rng.range(1, maxSize); break;
    default: break;
    }
    a.strides.push_back(stride);
    a.sizes.push_back(size);
    a.offsets.push_back(g.rng.range(0, dim - 1 - (size - 1) * stride));
  }
  return g.emit(OpKind::Slice, {x}, a) >= 0;
}

bool buildChunk(GenContext &g) {
  auto splittable = [](const TensorType &t) {
    return std::any_of(t.shape.begin(), t.shape.end(), [](int64_t d) { return d % 2 == 0; });
  };
  ValueId x = g.operand(splittable, [&] {
    TensorType t = g.drawType([](DType) { return true; }, 1, kMaxRank);
    int64_t &d = t.shape[g.rng.below(t.rank())];
    d = std::max<int64_t>(2, d - d % 2);
    return refitValid(g, t);
  });
  if (x == kNoValue || !splittable(g.c.typeOf(x)))
    return false;
  const std::vector<int64_t> shape = g.c.typeOf(x).shape;
  std::vector<std::pair<int64_t, int64_t>> splits; // (axis, count)
  for (size_t axis = 0; axis < shape.size(); ++axis)
    for (int64_t count : divisorsOf(shape[axis]))
      if (count > 1 && count <= 8)
        splits.push_back({static_cast<int64_t>(axis), count});
  OpAttrs a;
  // Halves along the last axis are the SwiGLU case (seed 001).
  const size_t last = shape.size() - 1;
  // Whole lane blocks along the last axis (a policy of 0 draws nothing):
  // a split of it into chunks of whole blocks, else along another axis.
  const int64_t lane = g.policy.laneWidth;
  if (g.policy.viewLaneAligned > 0 && lane > 0 && g.rng.chance(g.policy.viewLaneAligned)) {
    const auto aligned = std::remove_if(splits.begin(), splits.end(), [&](const auto &s) {
      return static_cast<size_t>(s.first) == last && (shape[last] / s.second) % lane != 0;
    });
    splits.erase(aligned, splits.end());
    if (splits.empty())
      return false;
    std::tie(a.axis, a.count) = g.rng.pick(splits);
  } else if (shape[last] % 2 == 0 && g.rng.chance(0.4)) {
    a.axis = static_cast<int64_t>(last);
    a.count = 2;
  } else {
    std::tie(a.axis, a.count) = g.rng.pick(splits);
  }
  a.index = g.rng.range(0, a.count - 1);
  return g.emit(OpKind::Chunk, {x}, a) >= 0;
}

bool buildTranspose(GenContext &g) {
  const ValueId x = anyOperand(g, 2, kMaxRank);
  if (x == kNoValue)
    return false;
  OpAttrs a;
  const unsigned rank = g.c.typeOf(x).rank();
  for (unsigned i = 0; i < rank; ++i)
    a.perm.push_back(i);
  // Swap the last two dims half the time (the common matrix transpose),
  // otherwise shuffle; neither is the identity.
  if (g.rng.chance(0.5)) {
    std::swap(a.perm[rank - 2], a.perm[rank - 1]);
  } else {
    for (unsigned i = rank; i > 1; --i)
      std::swap(a.perm[i - 1], a.perm[g.rng.below(i)]);
    if (std::is_sorted(a.perm.begin(), a.perm.end()))
      std::swap(a.perm[0], a.perm[rank - 1]);
  }
  return g.emit(OpKind::Transpose, {x}, a) >= 0;
}

bool buildReshape(GenContext &g) {
  const ValueId x = anyOperand(g, 1, kMaxRank);
  if (x == kNoValue)
    return false;
  const TensorType &xt = g.c.typeOf(x);
  OpAttrs a;
  a.shape = factorize(g, xt.numElements(), g.drawRank(1, kMaxRank));
  if (a.shape.empty())
    return false;
  return g.emit(OpKind::Reshape, {x}, a) >= 0;
}

bool hasUnitDim(const TensorType &t) {
  return std::find(t.shape.begin(), t.shape.end(), 1) != t.shape.end();
}

/// A fresh type with at least one unit dim, at rank >= minRank.
TensorType typeWithUnitDim(GenContext &g, unsigned minRank) {
  TensorType t = g.drawType([](DType) { return true; }, minRank, kMaxRank);
  t.shape[g.rng.below(t.rank())] = 1;
  return refitValid(g, t);
}

bool buildBroadcast(GenContext &g) {
  const ValueId x = g.operand(hasUnitDim, [&] { return typeWithUnitDim(g, 1); });
  if (x == kNoValue || !hasUnitDim(g.c.typeOf(x)))
    return false;
  const TensorType &xt = g.c.typeOf(x);
  OpAttrs a;
  a.shape = xt.shape;
  int64_t product = xt.numElements();
  for (int64_t &d : a.shape) {
    if (d != 1 || !g.rng.chance(0.8))
      continue;
    d = g.drawDim(std::max<int64_t>(1, g.elementsLeft() / product));
    product *= d;
  }
  return g.emit(OpKind::Broadcast, {x}, a) >= 0;
}

bool buildSqueeze(GenContext &g) {
  auto fits = [](const TensorType &t) { return t.rank() >= 2 && hasUnitDim(t); };
  const ValueId x = g.operand(fits, [&] { return typeWithUnitDim(g, 2); });
  if (x == kNoValue || !fits(g.c.typeOf(x)))
    return false;
  const std::vector<int64_t> &shape = g.c.typeOf(x).shape;
  std::vector<int64_t> unitAxes;
  for (size_t i = 0; i < shape.size(); ++i)
    if (shape[i] == 1)
      unitAxes.push_back(static_cast<int64_t>(i));
  OpAttrs a;
  a.axis = g.rng.pick(unitAxes);
  return g.emit(OpKind::Squeeze, {x}, a) >= 0;
}

bool buildUnsqueeze(GenContext &g) {
  if (g.policy.maxRank < 2)
    return false;
  const ValueId x = anyOperand(g, 1, g.policy.maxRank - 1);
  if (x == kNoValue)
    return false;
  OpAttrs a;
  a.axis = g.rng.range(0, g.c.typeOf(x).rank());
  return g.emit(OpKind::Unsqueeze, {x}, a) >= 0;
}

//===----------------------------------------------------------------------===//
// Index maps
//===----------------------------------------------------------------------===//

using E = IndexExpr;

/// A random expression over dims [0, rank) of at most `depth` levels.
E randomExpr(GenContext &g, unsigned rank, unsigned depth) {
  if (depth == 0 || g.rng.chance(0.3)) {
    if (g.rng.chance(0.85))
      return E::dim(static_cast<unsigned>(g.rng.below(rank)));
    return E::constant(g.rng.range(-2 * g.policy.laneWidth, 2 * g.policy.laneWidth));
  }
  const int64_t lane = g.policy.laneWidth;
  if (g.rng.chance(g.policy.floorDivModRate)) {
    static const int64_t kDivisors[] = {2, 3, 4, 7, 8};
    const int64_t divisor = g.rng.chance(0.4) ? lane + g.rng.range(-1, 1)
                                              : kDivisors[g.rng.below(std::size(kDivisors))];
    E lhs = randomExpr(g, rank, depth - 1);
    return g.rng.chance(0.5) ? E::floorDiv(lhs, std::max<int64_t>(1, divisor))
                             : E::mod(lhs, std::max<int64_t>(1, divisor));
  }
  if (g.rng.chance(0.6)) {
    E rhs =
        g.rng.chance(0.5) ? E::constant(g.rng.range(-lane, lane)) : randomExpr(g, rank, depth - 1);
    return E::add(randomExpr(g, rank, depth - 1), rhs);
  }
  static const int64_t kFactors[] = {-2, -1, 2, 3, 4};
  const int64_t factor = g.rng.chance(0.3) ? lane : kFactors[g.rng.below(std::size(kFactors))];
  return E::mul(randomExpr(g, rank, depth - 1), factor);
}

/// Brings `e` (ranging over `r` for result dims `dims`) into [0, size): a
/// shift when it fits, else a wrap (`mod size`) or a squeeze (`floordiv k`).
E fitToDim(GenContext &g, E e, const std::vector<Interval> &dims, int64_t size) {
  if (e.numDims() == 0) // no dim to index by: one element, broadcast
    return E::constant(g.rng.range(0, size - 1));
  const Interval r = e.range(dims);
  const int64_t width = r.hi - r.lo + 1;
  if (width <= size && g.rng.chance(0.6)) {
    const int64_t shift = g.rng.range(0, size - width) - r.lo;
    return shift == 0 ? e : E::add(e, E::constant(shift));
  }
  if (g.rng.chance(0.5))
    return E::mod(e, size);
  const int64_t k = (width + size - 1) / size;
  E based = r.lo == 0 ? e : E::add(e, E::constant(-r.lo));
  return k == 1 ? based : E::floorDiv(based, k);
}

/// Per-dim index map: each source dim gets its own fitted expression over a
/// freshly drawn result shape of any rank.
bool perDimMap(GenContext &g, const TensorType &src, OpAttrs &a) {
  a.shape = g.drawShape(g.drawRank(1, kMaxRank), g.elementsLeft());
  std::vector<Interval> dims;
  for (int64_t d : a.shape)
    dims.push_back({0, d - 1});
  const unsigned rank = static_cast<unsigned>(a.shape.size());
  for (int64_t size : src.shape) {
    if (size == 1 && g.rng.chance(0.7)) {
      a.map.push_back(E::constant(0));
      continue;
    }
    const unsigned depth = static_cast<unsigned>(g.rng.range(0, g.policy.indexDepth));
    a.map.push_back(fitToDim(g, randomExpr(g, rank, depth), dims, size));
  }
  return true;
}

/// Mixed-radix map: linearize a result shape of at most numel(src)
/// elements (plus an offset) and split it over the source shape.
bool radixMap(GenContext &g, const TensorType &src, OpAttrs &a) {
  const int64_t n = src.numElements();
  int64_t m = n;
  if (g.rng.chance(0.4)) {
    const std::vector<int64_t> divisors = divisorsOf(n);
    m = g.rng.chance(0.5) ? g.rng.pick(divisors) : g.rng.range(1, n);
  }
  m = std::min(m, g.elementsLeft());
  if (m < 1)
    return false;
  a.shape = factorize(g, m, g.drawRank(1, kMaxRank));
  if (a.shape.empty())
    return false;
  E linear = linearIndex(a.shape);
  if (m < n && g.rng.chance(0.5))
    linear = E::add(linear, E::constant(g.rng.range(1, n - m)));
  a.map = radixSplit(linear, src.shape);
  return true;
}

bool buildIndexMap(GenContext &g) {
  const ValueId x = anyOperand(g, 1, kMaxRank);
  if (x == kNoValue)
    return false;
  const TensorType src = g.c.typeOf(x);
  OpAttrs a;
  const bool ok = g.rng.chance(g.policy.radixMapRate) ? radixMap(g, src, a) : perDimMap(g, src, a);
  return ok && g.emit(OpKind::IndexMap, {x}, a) >= 0;
}

} // namespace

IndexExpr linearIndex(const std::vector<int64_t> &shape) {
  E linear = E::constant(0);
  bool first = true;
  int64_t stride = 1;
  for (size_t i = shape.size(); i-- > 0;) {
    if (shape[i] != 1) {
      E d = E::dim(static_cast<unsigned>(i));
      E term = stride == 1 ? d : E::mul(d, stride);
      linear = first ? term : E::add(term, linear);
      first = false;
    }
    stride *= shape[i];
  }
  return linear;
}

std::vector<IndexExpr> radixSplit(const IndexExpr &linear, const std::vector<int64_t> &src) {
  std::vector<IndexExpr> map;
  int64_t stride = 1;
  for (int64_t d : src)
    stride *= d;
  for (size_t j = 0; j < src.size(); ++j) {
    stride /= src[j];
    if (src[j] == 1) {
      map.push_back(E::constant(0));
      continue;
    }
    E e = stride == 1 ? linear : E::floorDiv(linear, stride);
    // The leading dim needs no wrap: the linear index stays below numel.
    map.push_back(j == 0 ? e : E::mod(e, src[j]));
  }
  return map;
}

std::vector<int64_t> factorize(GenContext &g, int64_t n, unsigned rank) {
  std::vector<int64_t> shape;
  int64_t rest = n;
  for (unsigned i = 0; i + 1 < rank; ++i) {
    // Unit dims now and then: the `[.., 4, 1, 1]` collapse of seed 003.
    int64_t d = 1;
    if (!g.rng.chance(0.25)) {
      const std::vector<int64_t> divisors = divisorsOf(rest);
      d = g.rng.pick(divisors);
    }
    shape.push_back(d);
    rest /= d;
  }
  shape.push_back(rest);
  if (rank > 1 && g.rng.chance(0.5))
    std::rotate(shape.begin(), shape.end() - 1, shape.end());
  for (int64_t d : shape)
    if (d > kMaxDim)
      return {};
  return shape;
}

bool buildView(GenContext &g, OpKind k) {
  switch (k) {
  case OpKind::Slice: return buildSlice(g);
  case OpKind::Chunk: return buildChunk(g);
  case OpKind::Transpose: return buildTranspose(g);
  case OpKind::Reshape: return buildReshape(g);
  case OpKind::Broadcast: return buildBroadcast(g);
  case OpKind::Squeeze: return buildSqueeze(g);
  case OpKind::Unsqueeze: return buildUnsqueeze(g);
  case OpKind::IndexMap: return buildIndexMap(g);
#define NPF_HANDLED_CATEGORY View
#include "ir/OpCasesOutside.def"
    return false;
  }
  return false; // unreachable: every OpKind is a case above
}

} // namespace npufuzz::gen
