//===- ir/ViewTypes.cpp - Typing and index maps of view ops ---------------===//
//
// Views copy nothing: each is an index map from result indices to source
// indices. This file holds their typing rules and those maps.
//
//===----------------------------------------------------------------------===//
#include "ir/TypeRules.h"
#include "ir/Verifier.h"

#include <algorithm>

namespace npufuzz {

std::string shapeStr(const std::vector<int64_t> &s) {
  std::string out = "[";
  for (size_t i = 0; i < s.size(); ++i)
    out += (i ? "," : "") + std::to_string(s[i]);
  return out + "]";
}

/// Checks rank and per-dim limits of a shape a result would get.
bool checkShape(const std::vector<int64_t> &shape, std::string &error) {
  if (shape.empty() || shape.size() > kMaxRank) {
    error = "rank " + std::to_string(shape.size()) + " is outside 1.." + std::to_string(kMaxRank);
    return false;
  }
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d < 1 || d > kMaxDim) {
      error = "dimension " + std::to_string(d) + " in " + shapeStr(shape) + " is outside 1.." +
              std::to_string(kMaxDim);
      return false;
    }
    n *= d;
    if (n > kMaxTensorElements) {
      error = "shape " + shapeStr(shape) + " has more than " + std::to_string(kMaxTensorElements) +
              " elements";
      return false;
    }
  }
  return true;
}

bool checkAxis(int64_t axis, unsigned rank, std::string &error) {
  if (axis < 0 || axis >= static_cast<int64_t>(rank)) {
    error = "axis " + std::to_string(axis) + " is outside [0, " + std::to_string(rank) + ")";
    return false;
  }
  return true;
}

bool inferView(const Case &c, const Op &op, const TensorType &src, TensorType &r,
               std::string &error) {
  const OpAttrs &a = op.attrs;
  const unsigned rank = src.rank();
  r.dtype = src.dtype;
  switch (op.kind) {
  case OpKind::Slice:
    if (a.offsets.size() != rank || a.sizes.size() != rank || a.strides.size() != rank) {
      error = "slice needs offsets, sizes and strides of the source rank";
      return false;
    }
    for (unsigned i = 0; i < rank; ++i) {
      // Each term is bounded by the dim before the sum is formed, so no
      // offset or stride near 2^63 can wrap the check into passing.
      if (a.offsets[i] < 0 || a.sizes[i] < 1 || a.strides[i] < 1 || a.offsets[i] >= src.shape[i] ||
          a.sizes[i] > src.shape[i] || a.strides[i] > src.shape[i] ||
          a.offsets[i] + (a.sizes[i] - 1) * a.strides[i] >= src.shape[i]) {
        error = "slice dim " + std::to_string(i) + " reads outside [0, " +
                std::to_string(src.shape[i]) + ")";
        return false;
      }
    }
    r.shape = a.sizes;
    return true;
  case OpKind::Chunk:
    if (!checkAxis(a.axis, rank, error))
      return false;
    if (a.count < 1 || src.shape[a.axis] % a.count != 0 || a.index < 0 || a.index >= a.count) {
      error = "chunk count " + std::to_string(a.count) + " index " + std::to_string(a.index) +
              " does not split dim " + std::to_string(src.shape[a.axis]);
      return false;
    }
    r.shape = src.shape;
    r.shape[a.axis] /= a.count;
    return true;
  case OpKind::Transpose: {
    std::vector<int64_t> sorted = a.perm;
    std::sort(sorted.begin(), sorted.end());
    for (unsigned i = 0; i < sorted.size(); ++i)
      if (sorted[i] != i) {
        error = "perm " + shapeStr(a.perm) + " is not a permutation";
        return false;
      }
    if (a.perm.size() != rank) {
      error = "perm " + shapeStr(a.perm) + " does not match rank " + std::to_string(rank);
      return false;
    }
    for (unsigned i = 0; i < rank; ++i)
      r.shape.push_back(src.shape[a.perm[i]]);
    return true;
  }
  case OpKind::Reshape:
    r.shape = a.shape;
    if (!checkShape(r.shape, error))
      return false;
    if (r.numElements() != src.numElements()) {
      error = "reshape " + shapeStr(src.shape) + " to " + shapeStr(r.shape) +
              " changes the element count";
      return false;
    }
    return true;
  case OpKind::Broadcast:
    r.shape = a.shape;
    if (!checkShape(r.shape, error))
      return false;
    if (r.shape.size() != rank) {
      error = "broadcast keeps the rank";
      return false;
    }
    for (unsigned i = 0; i < rank; ++i)
      if (src.shape[i] != r.shape[i] && src.shape[i] != 1) {
        error = "broadcast of " + shapeStr(src.shape) + " to " + shapeStr(r.shape) +
                " grows a dim that is not 1";
        return false;
      }
    return true;
  case OpKind::Squeeze:
    if (!checkAxis(a.axis, rank, error))
      return false;
    if (rank < 2 || src.shape[a.axis] != 1) {
      error = "squeeze needs a size-1 dim and rank >= 2";
      return false;
    }
    r.shape = src.shape;
    r.shape.erase(r.shape.begin() + a.axis);
    return true;
  case OpKind::Unsqueeze:
    if (a.axis < 0 || a.axis > static_cast<int64_t>(rank)) {
      error = "unsqueeze axis " + std::to_string(a.axis) + " is outside [0, " +
              std::to_string(rank) + "]";
      return false;
    }
    r.shape = src.shape;
    r.shape.insert(r.shape.begin() + a.axis, 1);
    return true;
  case OpKind::IndexMap: {
    r.shape = a.shape;
    if (!checkShape(r.shape, error))
      return false;
    if (a.map.size() != rank) {
      error = "index_map has " + std::to_string(a.map.size()) + " expressions for a rank-" +
              std::to_string(rank) + " source";
      return false;
    }
    std::vector<Interval> dims;
    for (int64_t d : r.shape)
      dims.push_back({0, d - 1});
    for (unsigned j = 0; j < rank; ++j) {
      if (a.map[j].numDims() > r.shape.size()) {
        error = "index_map expression '" + a.map[j].str() + "' uses a dim beyond rank " +
                std::to_string(r.shape.size());
        return false;
      }
      if (!a.map[j].boundedBy(dims, int64_t(1) << 40)) {
        error = "index_map expression '" + a.map[j].str() + "' has intermediate values beyond 2^40";
        return false;
      }
      Interval iv = a.map[j].range(dims);
      if (iv.lo < 0 || iv.hi >= src.shape[j]) {
        error = "index_map expression '" + a.map[j].str() + "' ranges over [" +
                std::to_string(iv.lo) + ", " + std::to_string(iv.hi) + "], outside source dim " +
                std::to_string(src.shape[j]);
        return false;
      }
    }
    return true;
  }
#define NPF_HANDLED_CATEGORY View
#include "ir/OpCasesOutside.def"
    error = "not a view";
    return false;
  }
  return false; // unreachable: every OpKind is a case above
}

std::vector<IndexExpr> viewIndexMap(const Case &c, const Op &op) {
  const TensorType &src = c.values[op.operands[0]].type;
  const TensorType &res = c.values[op.results[0]].type;
  const OpAttrs &a = op.attrs;
  const unsigned rank = src.rank();
  std::vector<IndexExpr> map;
  using E = IndexExpr;
  switch (op.kind) {
  case OpKind::Slice:
    for (unsigned j = 0; j < rank; ++j) {
      E e = a.strides[j] == 1 ? E::dim(j) : E::mul(E::dim(j), a.strides[j]);
      map.push_back(a.offsets[j] ? E::add(e, E::constant(a.offsets[j])) : e);
    }
    break;
  case OpKind::Chunk:
    for (unsigned j = 0; j < rank; ++j) {
      const int64_t offset = a.index * res.shape[j];
      map.push_back(j == a.axis && offset ? E::add(E::dim(j), E::constant(offset)) : E::dim(j));
    }
    break;
  case OpKind::Transpose:
    map.resize(rank);
    for (unsigned i = 0; i < rank; ++i)
      map[a.perm[i]] = E::dim(i);
    break;
  case OpKind::Reshape: {
    // Linearise the result index row-major, then split it mixed-radix over
    // the source shape: the floordiv/mod form Inductor and affine maps use.
    std::vector<int64_t> strides(res.shape.size(), 1);
    for (size_t i = res.shape.size(); i-- > 1;)
      strides[i - 1] = strides[i] * res.shape[i];
    E linear = E::constant(0);
    bool first = true;
    for (size_t i = 0; i < res.shape.size(); ++i) {
      if (res.shape[i] == 1)
        continue;
      const unsigned d = static_cast<unsigned>(i);
      E term = strides[i] == 1 ? E::dim(d) : E::mul(E::dim(d), strides[i]);
      linear = first ? term : E::add(linear, term);
      first = false;
    }
    int64_t srcStride = src.numElements();
    for (unsigned j = 0; j < rank; ++j) {
      srcStride /= src.shape[j];
      if (src.shape[j] == 1) {
        map.push_back(E::constant(0));
        continue;
      }
      E e = srcStride == 1 ? linear : E::floorDiv(linear, srcStride);
      map.push_back(j == 0 ? e : E::mod(e, src.shape[j]));
    }
    break;
  }
  case OpKind::Broadcast:
    for (unsigned j = 0; j < rank; ++j)
      map.push_back(src.shape[j] == 1 && res.shape[j] != 1 ? E::constant(0) : E::dim(j));
    break;
  case OpKind::Squeeze:
    for (unsigned j = 0; j < rank; ++j)
      map.push_back(j == a.axis ? E::constant(0) : E::dim(j < a.axis ? j : j - 1));
    break;
  case OpKind::Unsqueeze:
    for (unsigned j = 0; j < rank; ++j)
      map.push_back(E::dim(j < a.axis ? j : j + 1));
    break;
  case OpKind::IndexMap: map = a.map; break;
#define NPF_HANDLED_CATEGORY View
#include "ir/OpCasesOutside.def"
    break; // not a view: no map
  }
  return map;
}

} // namespace npufuzz
