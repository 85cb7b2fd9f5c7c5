//===- generators/ViewChains.cpp - Views stacked as models stack them -----===//
//
// A model's views come in chains: heads split with view(b, s, h, d) then
// transpose(1, 2), a permuted tensor flattened, an expanded unit dim merged
// with its neighbour, a strided slice reshaped. A compiler turns each chain
// into one index expression (Inductor's FloorDiv and ModularIndexing, a
// DMA's strides, MLIR's collapse_shape of a strided layout), and a reshape
// of a value that is not contiguous is where that expression needs floor
// and mod. Random single views almost never stack that way, so a case
// sometimes starts with one of the chains of ViewChainForms.def, fed to a
// consumer (elementwise, a reduction, a matmul or an insert) as a model
// would. Every link is an ordinary view op: each style and emitter writes
// it its own way, and the reference computes it exactly.
//
//===----------------------------------------------------------------------===//
#include "generators/GenContext.h"

#include "ir/TypeRules.h"
#include "ir/Verifier.h"

#include <algorithm>
#include <functional>
#include <numeric>

namespace npufuzz::gen {

namespace {

using Shape = std::vector<int64_t>;

/// One link: a view op of `kind` on `x`, or kNoValue when refused (rank,
/// budget); the whole chain is then rolled back by the caller.
ValueId link(GenContext &g, ValueId x, OpKind kind, OpAttrs attrs) {
  if (x == kNoValue)
    return kNoValue;
  return g.emitValue(kind, {x}, std::move(attrs));
}

ValueId reshapeTo(GenContext &g, ValueId x, Shape shape) {
  if (x == kNoValue || shape.empty() || shape.size() > g.policy.maxRank)
    return kNoValue;
  OpAttrs a;
  a.shape = std::move(shape);
  return link(g, x, OpKind::Reshape, a);
}

ValueId transposeBy(GenContext &g, ValueId x, std::vector<int64_t> perm) {
  OpAttrs a;
  a.perm = std::move(perm);
  return link(g, x, OpKind::Transpose, a);
}

const Shape &shapeOf(GenContext &g, ValueId v) { return g.c.typeOf(v).shape; }

int64_t product(const Shape &s, size_t from, size_t to) {
  int64_t p = 1;
  for (size_t i = from; i < to; ++i)
    p *= s[i];
  return p;
}

/// `s` with dims [i, j) merged into one.
Shape merged(const Shape &s, size_t i, size_t j) {
  Shape r(s.begin(), s.begin() + static_cast<std::ptrdiff_t>(i));
  r.push_back(product(s, i, j));
  r.insert(r.end(), s.begin() + static_cast<std::ptrdiff_t>(j), s.end());
  return r;
}

/// Indices of the dims of `s` that are not 1.
std::vector<size_t> nonUnitDims(const Shape &s) {
  std::vector<size_t> r;
  for (size_t i = 0; i < s.size(); ++i)
    if (s[i] != 1)
      r.push_back(i);
  return r;
}

/// A permutation of `rank` dims that moves at least two non-unit dims of
/// `s` past each other (so the result is not contiguous): the last two
/// swapped half the time, else a shuffle.
std::vector<int64_t> movingPerm(GenContext &g, const Shape &s) {
  const size_t rank = s.size();
  std::vector<int64_t> perm(rank);
  std::iota(perm.begin(), perm.end(), 0);
  const std::vector<size_t> moving = nonUnitDims(s);
  if (moving.size() < 2)
    return {};
  if (g.rng.chance(0.5)) {
    std::swap(perm[moving[moving.size() - 2]], perm[moving.back()]);
    return perm;
  }
  for (size_t i = rank; i > 1; --i)
    std::swap(perm[i - 1], perm[g.rng.below(i)]);
  std::vector<int64_t> order; // the non-unit dims, in the result's order
  for (int64_t d : perm)
    if (s[d] != 1)
      order.push_back(d);
  if (std::is_sorted(order.begin(), order.end())) {
    // Still in order: swap the first and last places holding a non-unit dim.
    std::vector<size_t> places;
    for (size_t k = 0; k < rank; ++k)
      if (s[perm[k]] != 1)
        places.push_back(k);
    std::swap(perm[places.front()], perm[places.back()]);
  }
  return perm;
}

/// A reshape of `x` that a model would write after a permute: merge two
/// adjacent dims (flatten a pair), flatten all, or refactor the elements.
ValueId reshapeAfterPermute(GenContext &g, ValueId x) {
  if (x == kNoValue)
    return kNoValue;
  const Shape s = shapeOf(g, x);
  const uint64_t how = s.size() >= 2 ? g.rng.below(10) : 9;
  if (how < 5) {
    const size_t i = g.rng.below(s.size() - 1);
    return reshapeTo(g, x, merged(s, i, i + 2));
  }
  if (how < 7)
    return reshapeTo(g, x, {product(s, 0, s.size())});
  return reshapeTo(
      g, x, factorize(g, product(s, 0, s.size()), g.drawRank(1, std::min(g.policy.maxRank, 4u))));
}

/// An existing value or a new input of rank in [minRank, maxRank] that
/// `fits`; a new input's drawn type is first made to fit by `fit`.
ValueId source(GenContext &g, unsigned minRank, unsigned maxRank, const TypePred &fits,
               const std::function<void(TensorType &)> &fit) {
  if (minRank > g.policy.maxRank)
    return kNoValue;
  maxRank = std::min(maxRank, g.policy.maxRank);
  const ValueId x = g.operand(
      [&](const TensorType &t) { return t.rank() >= minRank && t.rank() <= maxRank && fits(t); },
      [&] {
        TensorType t = g.drawType([](DType) { return true; }, minRank, maxRank);
        fit(t);
        t.valid.reset(); // the views keep whole tensors
        return t;
      });
  return x != kNoValue && fits(g.c.typeOf(x)) ? x : kNoValue;
}

bool anyType(const TensorType &) { return true; }
void asDrawn(TensorType &) {}

/// Two dims or more of more than one element: what a permute can move
/// past each other.
bool twoNonUnitDims(const TensorType &t) {
  return std::count_if(t.shape.begin(), t.shape.end(), [](int64_t d) { return d != 1; }) >= 2;
}
void makeTwoNonUnitDims(GenContext &g, TensorType &t) {
  for (size_t i = t.shape.size() - 2; i < t.shape.size(); ++i)
    if (t.shape[i] == 1)
      t.shape[i] = g.rng.range(2, 8);
}

/// A new input of `shape`, any dtype (no valid shape: the chain's views
/// keep whole tensors).
ValueId freshInput(GenContext &g, const Shape &shape) {
  return g.newInput(TensorType{g.drawDType([](DType) { return true; }), shape, std::nullopt});
}

/// A number of heads: small, sometimes odd.
int64_t drawHeads(GenContext &g) {
  static const int64_t kHeads[] = {2, 3, 4, 8, 16};
  return kHeads[g.rng.below(std::size(kHeads))];
}

ValueId permuteReshape(GenContext &g) {
  const ValueId x =
      source(g, 2, kMaxRank, twoNonUnitDims, [&](TensorType &t) { makeTwoNonUnitDims(g, t); });
  if (x == kNoValue)
    return kNoValue;
  const std::vector<int64_t> perm = movingPerm(g, shapeOf(g, x));
  if (perm.empty())
    return kNoValue;
  return reshapeAfterPermute(g, transposeBy(g, x, perm));
}

/// The dims of an attention tensor: batch, sequence, heads, head dim.
struct Heads {
  int64_t b, s, h, d;
};

Heads drawHeadDims(GenContext &g) {
  Heads t{g.drawDim(4), 1, drawHeads(g), 1};
  const int64_t room = std::max<int64_t>(1, g.elementsLeft() / 4 / (t.b * t.h));
  t.s = g.drawDim(std::max<int64_t>(1, std::min<int64_t>(128, room)));
  t.d = g.drawDim(std::max<int64_t>(1, std::min<int64_t>(128, room / t.s)));
  return t;
}

ValueId splitHeads(GenContext &g) {
  const Heads t = drawHeadDims(g);
  ValueId x = freshInput(g, {t.b, t.s, t.h * t.d});
  x = reshapeTo(g, x, {t.b, t.s, t.h, t.d});
  x = transposeBy(g, x, {0, 2, 1, 3});
  // Most attention code then folds batch and heads for a batched matmul.
  return g.rng.chance(0.75) ? reshapeTo(g, x, {t.b * t.h, t.s, t.d}) : x;
}

ValueId mergeHeads(GenContext &g) {
  const Heads t = drawHeadDims(g);
  ValueId x = freshInput(g, {t.b, t.h, t.s, t.d});
  x = transposeBy(g, x, {0, 2, 1, 3});
  return reshapeTo(g, x, {t.b, t.s, t.h * t.d});
}

/// A slice that skips elements: a stride on one dim, or a part of an
/// inner dim, at an offset.
ValueId gappySlice(GenContext &g, ValueId x) {
  if (x == kNoValue)
    return kNoValue;
  const Shape s = shapeOf(g, x);
  const std::vector<size_t> dims = nonUnitDims(s);
  if (dims.empty())
    return kNoValue;
  OpAttrs a;
  a.sizes = s;
  a.strides.assign(s.size(), 1);
  a.offsets.assign(s.size(), 0);
  // Part of a dim past the first non-unit one skips elements; on the first
  // one only a stride of 2 over two elements or more does.
  const size_t d =
      dims.size() > 1 && g.rng.chance(0.7) ? dims[1 + g.rng.below(dims.size() - 1)] : dims.front();
  const bool inner = d != dims.front();
  if (!inner && s[d] <= 2)
    return kNoValue;
  const int64_t stride = !inner ? 2 : (s[d] > 2 && g.rng.chance(0.4) ? g.rng.range(2, 3) : 1);
  const int64_t most = (s[d] - 1) / stride + 1;
  const int64_t size =
      stride > 1 ? g.rng.range(std::min<int64_t>(2, most), most) : g.rng.range(1, s[d] - 1);
  a.strides[d] = stride;
  a.sizes[d] = size;
  a.offsets[d] = g.rng.range(0, s[d] - 1 - (size - 1) * stride);
  return link(g, x, OpKind::Slice, a);
}

ValueId flattenUnflatten(GenContext &g) {
  ValueId x =
      source(g, 2, kMaxRank, twoNonUnitDims, [&](TensorType &t) { makeTwoNonUnitDims(g, t); });
  if (x == kNoValue)
    return kNoValue;
  if (g.rng.chance(0.5)) {
    const std::vector<int64_t> perm = movingPerm(g, shapeOf(g, x));
    x = perm.empty() ? gappySlice(g, x) : transposeBy(g, x, perm);
  } else {
    x = gappySlice(g, x);
  }
  if (x == kNoValue)
    return kNoValue;
  // flatten(start, end), then unflatten one dim of the result.
  Shape s = shapeOf(g, x);
  const size_t start = g.rng.below(s.size() - 1);
  const size_t end = static_cast<size_t>(
      g.rng.range(static_cast<int64_t>(start) + 2, static_cast<int64_t>(s.size())));
  x = reshapeTo(g, x, merged(s, start, end));
  if (x == kNoValue || !g.rng.chance(0.7))
    return x;
  s = shapeOf(g, x);
  const size_t d = g.rng.below(s.size());
  const Shape parts = factorize(g, s[d], 2);
  if (parts.empty())
    return x;
  Shape split(s.begin(), s.begin() + static_cast<std::ptrdiff_t>(d));
  split.insert(split.end(), parts.begin(), parts.end());
  split.insert(split.end(), s.begin() + static_cast<std::ptrdiff_t>(d) + 1, s.end());
  return reshapeTo(g, x, split);
}

ValueId moveDim(GenContext &g) {
  const ValueId x =
      source(g, 3, kMaxRank, twoNonUnitDims, [&](TensorType &t) { makeTwoNonUnitDims(g, t); });
  if (x == kNoValue)
    return kNoValue;
  // A non-unit dim moved past another non-unit dim (torch.movedim(x, from,
  // to)), then merged with a neighbour.
  const Shape s = shapeOf(g, x);
  const std::vector<size_t> dims = nonUnitDims(s);
  const size_t pick = g.rng.below(dims.size());
  size_t other = g.rng.below(dims.size() - 1);
  other += other >= pick;
  const size_t from = dims[pick], to = dims[other];
  std::vector<int64_t> perm(s.size());
  std::iota(perm.begin(), perm.end(), 0);
  perm.erase(perm.begin() + static_cast<std::ptrdiff_t>(from));
  perm.insert(perm.begin() + static_cast<std::ptrdiff_t>(to), static_cast<int64_t>(from));
  const ValueId moved = transposeBy(g, x, perm);
  if (moved == kNoValue)
    return kNoValue;
  const size_t i = to == 0 ? 0 : (to + 1 == s.size() || g.rng.chance(0.5) ? to - 1 : to);
  return reshapeTo(g, moved, merged(shapeOf(g, moved), i, i + 2));
}

ValueId expandReshape(GenContext &g) {
  // x[..., 1, ...] expanded to n there, merged with the dim before it:
  // repeat_kv's [b, kv, 1, s, d] -> [b, kv, n, s, d] -> [b, kv*n, s, d].
  ValueId x = source(g, 2, kMaxRank - 1, anyType, asDrawn);
  if (x == kNoValue)
    return kNoValue;
  const size_t rank = shapeOf(g, x).size();
  OpAttrs u;
  u.axis = g.rng.range(1, static_cast<int64_t>(rank));
  x = link(g, x, OpKind::Unsqueeze, u);
  if (x == kNoValue)
    return kNoValue;
  Shape s = shapeOf(g, x);
  const int64_t total = product(s, 0, s.size());
  const int64_t n =
      g.rng.range(2, std::max<int64_t>(2, std::min<int64_t>(8, g.elementsLeft() / total)));
  OpAttrs b;
  b.shape = s;
  b.shape[u.axis] = n;
  x = link(g, x, OpKind::Broadcast, b);
  if (x == kNoValue)
    return kNoValue;
  const size_t axis = static_cast<size_t>(u.axis);
  const size_t i = g.rng.chance(0.7) || axis + 1 == b.shape.size() ? axis - 1 : axis;
  return reshapeTo(g, x, merged(b.shape, i, i + 2));
}

ValueId sliceReshape(GenContext &g) {
  ValueId x = source(g, 1, kMaxRank, anyType, asDrawn);
  if (x == kNoValue)
    return kNoValue;
  if (g.rng.chance(0.3)) // a reshape first, then the slice of its result
    x = reshapeAfterPermute(g, x);
  x = gappySlice(g, x);
  return reshapeAfterPermute(g, x);
}

/// The (axis, count) splits of `s` into 2 to 4 pieces along a dim past its
/// first dim of more than one element: a chunk that skips elements.
std::vector<std::pair<size_t, int64_t>> gappySplits(const Shape &s) {
  std::vector<std::pair<size_t, int64_t>> splits;
  bool outer = false;
  for (size_t d = 0; d < s.size(); ++d) {
    if (outer)
      for (int64_t count = 2; count <= 4; ++count)
        if (s[d] % count == 0)
          splits.push_back({d, count});
    outer |= s[d] != 1;
  }
  return splits;
}

ValueId chunkReshape(GenContext &g) {
  const ValueId x = source(
      g, 2, kMaxRank, [](const TensorType &t) { return !gappySplits(t.shape).empty(); },
      [&](TensorType &t) {
        if (t.shape[0] == 1)
          t.shape[0] = g.rng.range(2, 4);
        int64_t &last = t.shape.back();
        last = std::max<int64_t>(2, last - last % 2);
      });
  if (x == kNoValue)
    return kNoValue;
  const std::vector<std::pair<size_t, int64_t>> splits = gappySplits(shapeOf(g, x));
  OpAttrs a;
  const auto [axis, count] = g.rng.pick(splits);
  a.axis = static_cast<int64_t>(axis);
  a.count = count;
  a.index = g.rng.range(0, count - 1);
  return reshapeAfterPermute(g, link(g, x, OpKind::Chunk, a));
}

ValueId buildForm(GenContext &g, ViewChainForm form) {
  switch (form) {
  case ViewChainForm::PermuteReshape: return permuteReshape(g);
  case ViewChainForm::SplitHeads: return splitHeads(g);
  case ViewChainForm::MergeHeads: return mergeHeads(g);
  case ViewChainForm::FlattenUnflatten: return flattenUnflatten(g);
  case ViewChainForm::MoveDim: return moveDim(g);
  case ViewChainForm::ExpandReshape: return expandReshape(g);
  case ViewChainForm::SliceReshape: return sliceReshape(g);
  case ViewChainForm::ChunkReshape: return chunkReshape(g);
  }
  return kNoValue; // unreachable: every form is a case above
}

/// Unit dims inserted and dropped along the way, as models' unsqueeze and
/// squeeze do: an unsqueeze then a squeeze of a unit dim of the result.
ValueId unitDims(GenContext &g, ValueId x) {
  if (x == kNoValue || !g.rng.chance(0.25))
    return x;
  if (shapeOf(g, x).size() < g.policy.maxRank) {
    OpAttrs u;
    u.axis = g.rng.range(0, static_cast<int64_t>(shapeOf(g, x).size()));
    x = link(g, x, OpKind::Unsqueeze, u);
  }
  if (x == kNoValue || !g.rng.chance(0.5))
    return x;
  std::vector<int64_t> units;
  const Shape &s = shapeOf(g, x);
  for (size_t i = 0; i < s.size(); ++i)
    if (s[i] == 1)
      units.push_back(static_cast<int64_t>(i));
  if (units.empty() || s.size() < 2)
    return x;
  OpAttrs q;
  q.axis = g.rng.pick(units);
  return link(g, x, OpKind::Squeeze, q);
}

/// What reads the chain, as a model's next layer would: an elementwise op,
/// a reduction, a matmul or an insert into a larger tensor; or nothing (the
/// chain's value is an output, or a later op takes it).
void consume(GenContext &g, ValueId x) {
  const TensorType t = g.c.typeOf(x);
  const GenContext::Mark mark = g.mark();
  bool built = false;
  switch (g.rng.below(6)) {
  case 0: { // unary
    static const OpKind kUnary[] = {OpKind::Neg, OpKind::Abs, OpKind::Exp, OpKind::Relu};
    const OpKind k = kUnary[g.rng.below(std::size(kUnary))];
    built = elementwiseAcceptsDType(k, t.dtype) && g.emit(k, {x}, {}) >= 0;
    break;
  }
  case 1: { // binary, integer division among them
    static const OpKind kBinary[] = {OpKind::Add, OpKind::Mul, OpKind::Div, OpKind::Sub};
    const OpKind k = kBinary[g.rng.below(std::size(kBinary))];
    ValueId y = g.operandLike(t);
    if (y == x && k == OpKind::Div && !isFloat(t.dtype)) // no integer x div x (OpBuilders.cpp)
      y = g.newInput(t);
    built = elementwiseAcceptsDType(k, t.dtype) && y != kNoValue && g.emit(k, {x, y}, {}) >= 0;
    break;
  }
  case 2: { // a reduction
    OpAttrs a;
    a.axis = static_cast<int64_t>(g.rng.below(t.rank()));
    built = t.dtype != DType::I1 &&
            g.emit(g.rng.chance(0.5) ? OpKind::ReduceSum : OpKind::ReduceMax, {x}, a) >= 0;
    break;
  }
  case 3: { // a matmul by a fresh weight
    const bool takes = t.dtype == DType::F32 || t.dtype == DType::BF16 || t.dtype == DType::F16 ||
                       t.dtype == DType::I8 || t.dtype == DType::I32;
    if (!takes || t.rank() < 2 || t.rank() > 3)
      break;
    Shape ws = t.shape;
    ws[t.rank() - 2] = t.shape[t.rank() - 1];
    ws[t.rank() - 1] = g.drawDim(std::max<int64_t>(
        1, std::min<int64_t>(64, g.elementsLeft() / std::max<int64_t>(1, t.numElements()))));
    OpAttrs a;
    a.dtype = isFloat(t.dtype) ? DType::F32 : DType::I32;
    const ValueId w = g.newInput(TensorType{t.dtype, ws, std::nullopt});
    built = w != kNoValue && g.emit(OpKind::Matmul, {x, w}, a) >= 0;
    break;
  }
  case 4: { // stored into a larger tensor
    Shape ds = t.shape;
    ds.back() += g.rng.range(1, 8);
    const ValueId dest = g.newInput(TensorType{t.dtype, ds, std::nullopt});
    OpAttrs a;
    a.offsets.assign(ds.size(), 0);
    a.offsets.back() = g.rng.range(0, ds.back() - t.shape.back());
    built = dest != kNoValue && g.emit(OpKind::Insert, {dest, x}, a) >= 0;
    break;
  }
  default: return;
  }
  if (!built)
    g.rollback(mark);
}

} // namespace

bool buildViewChain(GenContext &g, ViewChainForm form) {
  const ValueId x = unitDims(g, buildForm(g, form));
  if (x == kNoValue)
    return false;
  consume(g, x);
  return true;
}

} // namespace npufuzz::gen
