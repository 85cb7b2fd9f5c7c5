//===- generators/Patterns.cpp - Seed patterns inserted as a unit ---------===//
//
// Each pattern rebuilds the dataflow of one bug report in shared/seeds, with
// its sizes and types varied, so the campaign keeps reaching the shapes that
// found real bugs (and their neighbours).
//
//===----------------------------------------------------------------------===//
#include "generators/GenContext.h"

#include <algorithm>
#include <limits>

namespace npufuzz::gen {

namespace {

template <size_t N> int64_t pickOf(GenContext &g, const int64_t (&choices)[N]) {
  return choices[g.rng.below(N)];
}

DType drawFloat(GenContext &g) {
  return g.drawDType([](DType t) { return isFloat(t); });
}

InputFill rangeFill(int64_t lo, int64_t hi) {
  InputFill f;
  f.kind = FillKind::Range;
  f.lo = lo;
  f.hi = hi;
  return f;
}

ValueId broadcastTo(GenContext &g, ValueId x, const std::vector<int64_t> &shape) {
  if (x == kNoValue || g.c.typeOf(x).shape == shape)
    return x;
  OpAttrs a;
  a.shape = shape;
  return g.emitValue(OpKind::Broadcast, {x}, a);
}

/// Seed 000: the MoE expert mask `iota == expert_idx` where the lane ids are
/// `index` and the expert ids `i64` (or the reverse), joined by a cast, then
/// masked_fill of the router scores and topk (and a gather by its indices).
bool buildMoeMask(GenContext &g) {
  static const int64_t kExperts[] = {8, 16, 32, 64, 256};
  static const int64_t kTokens[] = {1, 4, 16, 32};
  const int64_t experts = pickOf(g, kExperts);
  const bool perToken = g.policy.maxRank >= 2 && g.rng.chance(0.7);
  const std::vector<int64_t> shape =
      perToken ? std::vector<int64_t>{pickOf(g, kTokens), experts} : std::vector<int64_t>{experts};
  const int64_t last = static_cast<int64_t>(shape.size()) - 1;
  const DType laneType = g.rng.chance(0.5) ? DType::Index : DType::I64;
  const DType expertType = laneType == DType::Index ? DType::I64 : DType::Index;

  OpAttrs iota;
  iota.axis = last;
  ValueId lanes;
  if (perToken && g.rng.chance(0.5))
    lanes = broadcastTo(g, g.emitSource(OpKind::Iota, {laneType, {1, experts}, std::nullopt}, iota),
                        shape);
  else
    lanes = g.emitSource(OpKind::Iota, {laneType, shape, std::nullopt}, iota);
  OpAttrs cast;
  cast.dtype = expertType;
  lanes = g.emitValue(OpKind::Cast, {lanes}, cast);

  std::vector<int64_t> expertShape = shape;
  expertShape[last] = 1;
  const ValueId expert = broadcastTo(
      g, g.newInput({expertType, expertShape, std::nullopt}, rangeFill(0, experts - 1)), shape);
  // Models write it either way round (`idx == torch.arange(E)` is seed
  // 000's); a compiler may cast only one of them.
  ValueId mask = g.rng.chance(0.5) ? g.emitValue(OpKind::CmpEq, {expert, lanes}, {})
                                   : g.emitValue(OpKind::CmpEq, {lanes, expert}, {});
  if (g.rng.chance(0.5))
    mask = g.emitValue(OpKind::Not, {mask}, {});

  const ValueId scores = g.newInput({drawFloat(g), shape, std::nullopt});
  OpAttrs fill;
  fill.value.f = g.rng.chance(0.6) ? -std::numeric_limits<float>::infinity() : 0.0f;
  const ValueId masked = g.emitValue(OpKind::MaskedFill, {scores, mask}, fill);
  // A policy without topk (a compiler that has none) keeps the masked
  // scores: the mask is the seed's.
  if (g.policy.opWeights[static_cast<size_t>(OpKind::TopK)] == 0)
    return masked != kNoValue;
  OpAttrs topk;
  topk.axis = last;
  topk.k = std::min<int64_t>(experts, g.rng.range(1, 8));
  const int32_t topkOp = g.emit(OpKind::TopK, {masked}, topk);
  if (topkOp < 0)
    return false;
  if (g.rng.chance(0.5)) {
    OpAttrs gather;
    gather.axis = last;
    return g.emit(OpKind::Gather, {scores, g.c.result(topkOp, 1)}, gather) >= 0;
  }
  return true;
}

/// Seed 001: SwiGLU. gate_up = x @ w1; gate, up = chunk(gate_up, 2, last);
/// silu(gate) * up feeds the down projection: two half-size views of one
/// matmul result.
bool buildSwiGlu(GenContext &g) {
  static const int64_t kM[] = {1, 4, 16, 32};
  static const int64_t kK[] = {16, 32, 64};
  static const int64_t kE[] = {8, 16, 32, 64};
  static const int64_t kD[] = {16, 32};
  const DType dt = drawFloat(g);
  std::vector<int64_t> batch;
  if (g.policy.maxRank >= 3 && g.rng.chance(0.3))
    batch.push_back(g.rng.range(1, 4));
  auto shape = [&](int64_t rows, int64_t cols) {
    std::vector<int64_t> s = batch;
    s.push_back(rows);
    s.push_back(cols);
    return s;
  };
  const int64_t m = pickOf(g, kM), k = pickOf(g, kK), e = pickOf(g, kE), d = pickOf(g, kD);
  const int64_t last = static_cast<int64_t>(batch.size()) + 1;

  OpAttrs mm;
  mm.dtype = DType::F32;
  const ValueId gateUp = g.emitValue(OpKind::Matmul,
                                     {g.newInput({dt, shape(m, k), std::nullopt}),
                                      g.newInput({dt, shape(k, 2 * e), std::nullopt})},
                                     mm);
  OpAttrs chunk;
  chunk.axis = last;
  chunk.count = 2;
  chunk.index = 0;
  const ValueId gate = g.emitValue(OpKind::Chunk, {gateUp}, chunk);
  chunk.index = 1;
  const ValueId up = g.emitValue(OpKind::Chunk, {gateUp}, chunk);
  ValueId h = g.emitValue(OpKind::Mul, {g.emitValue(OpKind::Silu, {gate}, {}), up}, {});
  if (dt != DType::F32) {
    OpAttrs cast;
    cast.dtype = dt;
    h = g.emitValue(OpKind::Cast, {h}, cast);
  }
  return g.emit(OpKind::Matmul, {h, g.newInput({dt, shape(e, d), std::nullopt})}, mm) >= 0;
}

/// Seed 002: row_expand_mul into a fresh tile, narrowed by set_validshape
/// (often to one row, often dynamically) and padded by fillpad, then often
/// inserted into a bigger live tensor.
bool buildValidTail(GenContext &g) {
  static const int64_t kRows[] = {1, 4, 8, 16};
  const int64_t rows = pickOf(g, kRows);
  const int64_t cols = g.rng.chance(0.4) ? 256 : g.drawDim(256);
  const DType dt = g.rng.chance(0.7) ? DType::F32 : drawFloat(g);
  const ValueId x = g.newInput({dt, {rows, cols}, std::nullopt});
  const ValueId scale = g.newInput({dt, {rows, 1}, std::nullopt});
  const ValueId product = g.emitValue(OpKind::RowExpandMul, {x, scale}, {});
  OpAttrs valid;
  valid.rows = g.rng.chance(0.5) ? 1 : g.rng.range(1, rows);
  valid.cols = g.rng.chance(0.7) ? cols : g.rng.range(1, cols);
  valid.dynamic = g.rng.chance(0.5);
  const ValueId narrowed = g.emitValue(OpKind::SetValidShape, {product}, valid);
  OpAttrs pad;
  pad.pad = g.rng.chance(0.6) ? PadKind::Zero : static_cast<PadKind>(g.rng.below(3));
  const ValueId padded = g.emitValue(OpKind::FillPad, {narrowed}, pad);
  if (padded == kNoValue)
    return false;
  // A policy that weighs insert at zero (pto's) keeps the pattern without it.
  if (g.policy.opWeights[static_cast<size_t>(OpKind::Insert)] == 0 || !g.rng.chance(0.5))
    return true;
  // `out[r:, c:] = h_chunk` into a live tensor that holds more: the padded
  // tile, or its valid rows alone (a KV-cache row update).
  const int64_t cacheRows = rows + g.rng.range(1, 16);
  const int64_t cacheCols = cols + (g.rng.chance(0.5) ? 0 : g.rng.range(1, 8));
  const ValueId cache = g.newInput({dt, {cacheRows, cacheCols}, std::nullopt});
  if (cache == kNoValue)
    return true;
  OpAttrs at;
  at.offsets = {g.rng.range(0, cacheRows - rows), g.rng.range(0, cacheCols - cols)};
  g.emit(OpKind::Insert, {cache, g.rng.chance(0.5) ? padded : narrowed}, at);
  return true;
}

/// Seed 003: a 4-D tile flattened by a mixed-radix floordiv/mod map, split
/// again into a >4-D view with trailing unit dims and a lane tail, then
/// computed on.
bool buildRadixSplit(GenContext &g) {
  if (g.policy.maxRank < 5)
    return false;
  static const int64_t kOuter[] = {2, 3, 4};
  static const int64_t kInner[] = {2, 4};
  const int64_t lane = g.policy.laneWidth;
  const int64_t a = pickOf(g, kOuter), b = pickOf(g, kOuter), q = pickOf(g, kInner);
  const int64_t c = lane * g.rng.range(1, 2) + (g.rng.chance(0.5) ? 1 : -1);
  const std::vector<int64_t> src = {a, b, q, std::max<int64_t>(1, c)};
  const DType dt = g.drawDType([](DType t) { return t != DType::I1; });
  const ValueId x = g.newInput({dt, src, std::nullopt});

  int64_t n = 1;
  for (int64_t d : src)
    n *= d;
  OpAttrs flat;
  flat.shape = {n};
  flat.map = radixSplit(IndexExpr::dim(0), src);
  const ValueId flatView = g.emitValue(OpKind::IndexMap, {x}, flat);

  OpAttrs split;
  split.shape = {a * b, q, src[3], 1, 1};
  if (g.policy.maxRank >= 6 && g.rng.chance(0.5))
    split.shape.push_back(1);
  split.map = {linearIndex(split.shape)};
  const ValueId view = g.emitValue(OpKind::IndexMap, {flatView}, split);
  return g.emit(isFloat(dt) ? OpKind::Exp : OpKind::Neg, {view}, {}) >= 0;
}

/// Seed 001's gate on any axis: a chunk, or a slice at an offset, of a
/// bigger input, through one elementwise op (a prologue Inductor fuses
/// into the matmul) into a matmul. Seed 001 chunked the last axis of a
/// matmul's result; a backend that matches a prologue's view against whole
/// buffers (PyTorchSim's) meets other axes and other starts as well.
bool buildSlicedMatmul(GenContext &g) {
  static const int64_t kM[] = {1, 4, 8, 16, 32};
  static const int64_t kK[] = {8, 16, 32, 64};
  static const int64_t kN[] = {8, 16, 32};
  const DType dt = drawFloat(g);
  const int64_t m = pickOf(g, kM), k = pickOf(g, kK), n = pickOf(g, kN);
  const int64_t axis = static_cast<int64_t>(g.rng.below(2)); // the rows or the contracted axis
  const int64_t parts = g.rng.range(2, 4);
  const std::vector<int64_t> part = {m, k};
  std::vector<int64_t> whole = part;
  whole[axis] *= parts;
  const ValueId x = g.newInput({dt, whole, std::nullopt});
  ValueId view = kNoValue;
  if (g.rng.chance(0.5)) {
    OpAttrs chunk;
    chunk.axis = axis;
    chunk.count = parts;
    chunk.index = static_cast<int64_t>(g.rng.below(static_cast<uint64_t>(parts)));
    view = g.emitValue(OpKind::Chunk, {x}, chunk);
  } else {
    OpAttrs slice;
    slice.offsets = {0, 0};
    slice.offsets[axis] = g.rng.range(1, whole[axis] - part[axis]);
    slice.sizes = part;
    slice.strides = {1, 1};
    view = g.emitValue(OpKind::Slice, {x}, slice);
  }
  if (view == kNoValue)
    return false;
  const ValueId prologue = g.emitValue(g.rng.chance(0.5) ? OpKind::Silu : OpKind::Neg, {view}, {});
  if (prologue == kNoValue)
    return false;
  OpAttrs mm;
  mm.dtype = DType::F32;
  return g.emit(OpKind::Matmul, {prologue, g.newInput({dt, {k, n}, std::nullopt})}, mm) >= 0;
}

} // namespace

bool buildPattern(GenContext &g, PatternKind p) {
  switch (p) {
  case PatternKind::MoeMask: return buildMoeMask(g);
  case PatternKind::SwiGlu: return buildSwiGlu(g);
  case PatternKind::ValidTail: return buildValidTail(g);
  case PatternKind::RadixSplit: return buildRadixSplit(g);
  case PatternKind::SlicedMatmul: return buildSlicedMatmul(g);
  }
  return false;
}

} // namespace npufuzz::gen
