//===- generators/Shrinks.cpp - Simpler valid variants of a case ----------===//
//
// Each move edits a copy of the case, re-derives the result types where the
// edit changed operand types (clamping shape-dependent attributes), compacts
// away dead ops, and is kept only if the verifier accepts it and caseSize
// went down. Moves that change data layout are cheap to try because the
// verifier is the judge.
//
//===----------------------------------------------------------------------===//
#include "generators/Shrinks.h"

#include "ir/Verifier.h"

#include <algorithm>
#include <functional>

namespace npufuzz {

namespace {

unsigned dtypeDistance(DType t) {
  switch (t) {
  case DType::F32:
  case DType::I32: return 0;
  case DType::I1: return 2;
  default: return 1;
  }
}

DType simplerDType(DType t) {
  if (isFloat(t))
    return DType::F32;
  return DType::I32;
}

unsigned fillComplexity(const InputFill &f) {
  switch (f.kind) {
  case FillKind::Zeros:
  case FillKind::Ones: return 0;
  case FillKind::Range: return f.lo == f.hi ? 1 : 2;
  case FillKind::Iota: return 2;
  case FillKind::Random: return 3;
  }
  return 3;
}

/// Re-derives every non-source result type in order after an edit, first
/// clamping the attributes that must fit their operand's new shape.
bool reinfer(Case &c) {
  for (Op &op : c.ops) {
    if (opCategory(op.kind) == OpCategory::Source) {
      TensorType &t = c.values[op.results[0]].type;
      if (t.valid && t.rank() == 2) {
        t.valid->rows = std::min(t.valid->rows, t.shape[0]);
        t.valid->cols = std::min(t.valid->cols, t.shape[1]);
      } else {
        t.valid.reset();
      }
      continue;
    }
    const TensorType &in = c.typeOf(op.operands[0]);
    OpAttrs &a = op.attrs;
    if (op.kind == OpKind::SetValidShape && in.rank() == 2) {
      a.rows = std::min(a.rows, in.shape[0]);
      a.cols = std::min(a.cols, in.shape[1]);
    } else if (op.kind == OpKind::TopK && a.axis >= 0 && a.axis < static_cast<int64_t>(in.rank())) {
      a.k = std::min(a.k, in.shape[a.axis]);
    } else if (op.kind == OpKind::Insert && a.offsets.size() == in.rank() &&
               c.typeOf(op.operands[1]).rank() == in.rank()) {
      const TensorType &src = c.typeOf(op.operands[1]);
      for (size_t i = 0; i < in.rank(); ++i)
        a.offsets[i] = std::max<int64_t>(0, std::min(a.offsets[i], in.shape[i] - src.shape[i]));
    } else if ((op.kind == OpKind::AvgPool2d || op.kind == OpKind::MaxPool2d) && in.rank() == 4 &&
               a.kernel.size() == 2 && a.padding.size() == 2) {
      // A window no bigger than its input, padded at most half of it.
      for (size_t d = 0; d < 2; ++d) {
        a.kernel[d] = std::max<int64_t>(1, std::min(a.kernel[d], in.shape[2 + d]));
        a.padding[d] = std::min(a.padding[d], a.kernel[d] / 2);
      }
    } else if (op.kind == OpKind::Slice && a.sizes.size() == in.rank()) {
      for (size_t i = 0; i < in.rank(); ++i) {
        a.sizes[i] = std::min(a.sizes[i], (in.shape[i] - 1) / a.strides[i] + 1);
        a.offsets[i] = std::min(a.offsets[i], in.shape[i] - 1 - (a.sizes[i] - 1) * a.strides[i]);
      }
    }
    std::vector<TensorType> types;
    std::string error;
    if (!inferResultTypes(c, op, types, error))
      return false;
    for (size_t r = 0; r < types.size(); ++r)
      c.values[op.results[r]].type = types[r];
  }
  return true;
}

void replaceUses(Case &c, ValueId from, ValueId to) {
  for (Op &op : c.ops)
    for (ValueId &v : op.operands)
      if (v == from)
        v = to;
  for (ValueId &v : c.outputs)
    if (v == from)
      v = to;
}

/// Turns op `i` into an input defining its result `keep` (the op's other
/// results must be dead; compact() drops them), keeping a proven index range
/// so gathers it feeds stay in bounds.
void makeInput(Case &c, size_t i, ValueId keep) {
  Op &op = c.ops[i];
  InputFill fill;
  Interval r;
  if (knownRange(c, keep, r) && r.lo >= -(1 << 24) && r.hi <= (1 << 24)) {
    fill.kind = FillKind::Range;
    fill.lo = r.lo;
    fill.hi = r.hi;
  }
  op.kind = OpKind::Input;
  op.operands.clear();
  op.attrs = OpAttrs();
  op.attrs.fill = fill;
  op.results = {keep};
  c.values[keep].resultIndex = 0;
}

bool isUsed(const Case &c, ValueId v) {
  if (std::find(c.outputs.begin(), c.outputs.end(), v) != c.outputs.end())
    return true;
  for (const Op &op : c.ops)
    if (std::find(op.operands.begin(), op.operands.end(), v) != op.operands.end())
      return true;
  return false;
}

/// Variants of `e` with one node replaced by a simpler one: an operand of
/// the node, or the constant 0.
void exprVariants(const IndexExpr &e, std::vector<IndexExpr> &out) {
  using E = IndexExpr;
  if (e.kind() == E::Kind::Dim || e.kind() == E::Kind::Const) {
    if (!(e.kind() == E::Kind::Const && e.value() == 0))
      out.push_back(E::constant(0));
    return;
  }
  if (e.kind() == E::Kind::Add) {
    const std::vector<const IndexExpr *> terms = sumTerms(e);
    if (terms.size() > 16) {
      // A long sum shrinks by halves: a variant per term would rebuild the
      // sum once per term (quadratic), and recurse as deep as it is long.
      auto sumOf = [&](size_t from, size_t to) {
        IndexExpr acc = *terms[from];
        for (size_t i = from + 1; i < to; ++i)
          acc = E::add(acc, *terms[i]);
        return acc;
      };
      out.push_back(sumOf(0, terms.size() / 2));
      out.push_back(sumOf(terms.size() / 2, terms.size()));
      return;
    }
  }
  out.push_back(e.lhs());
  if (e.kind() == E::Kind::Add)
    out.push_back(e.rhs());
  std::vector<IndexExpr> sub;
  exprVariants(e.lhs(), sub);
  for (const IndexExpr &l : sub) {
    switch (e.kind()) {
    case E::Kind::Add: out.push_back(E::add(l, e.rhs())); break;
    case E::Kind::Mul: out.push_back(E::mul(l, e.value())); break;
    case E::Kind::FloorDiv: out.push_back(E::floorDiv(l, e.value())); break;
    default: out.push_back(E::mod(l, e.value())); break;
    }
  }
  if (e.kind() == E::Kind::Add) {
    sub.clear();
    exprVariants(e.rhs(), sub);
    for (const IndexExpr &r : sub)
      out.push_back(E::add(e.lhs(), r));
  }
}

IndexExpr substituteConst(const IndexExpr &e, int64_t from, int64_t to) {
  using E = IndexExpr;
  auto v = [&](int64_t x) { return x == from ? to : x; };
  switch (e.kind()) {
  case E::Kind::Dim: return e;
  case E::Kind::Const: return E::constant(e.value());
  case E::Kind::Add: {
    const std::vector<const IndexExpr *> terms = sumTerms(e);
    IndexExpr sum = substituteConst(*terms[0], from, to);
    for (size_t i = 1; i < terms.size(); ++i)
      sum = E::add(sum, substituteConst(*terms[i], from, to));
    return sum;
  }
  case E::Kind::Mul: return E::mul(substituteConst(e.lhs(), from, to), e.value());
  case E::Kind::FloorDiv: return E::floorDiv(substituteConst(e.lhs(), from, to), v(e.value()));
  case E::Kind::Mod: return E::mod(substituteConst(e.lhs(), from, to), v(e.value()));
  }
  return e;
}

/// Replaces dim size `from` by `to` in every declared shape and shape-like
/// attribute (and in index-map divisors, which usually mirror a dim).
void substituteDim(Case &c, int64_t from, int64_t to) {
  auto sub = [&](std::vector<int64_t> &v) { std::replace(v.begin(), v.end(), from, to); };
  for (Op &op : c.ops) {
    if (opCategory(op.kind) == OpCategory::Source)
      sub(c.values[op.results[0]].type.shape);
    sub(op.attrs.shape);
    sub(op.attrs.sizes);
    for (IndexExpr &e : op.attrs.map)
      e = substituteConst(e, from, to);
  }
}

using Edit = std::function<bool(Case &)>;

/// Collects candidates: applies an edit to a copy and keeps the result if
/// it verifies and is smaller.
class Collector {
public:
  explicit Collector(const Case &c) : base_(c), baseSize_(caseSize(c)) {}

  void tryEdit(const Edit &edit) {
    Case cand = base_;
    if (!edit(cand))
      return;
    cand.compact();
    if (cand.outputs.empty() || caseSize(cand) >= baseSize_ || !verifyCase(cand).empty())
      return;
    const uint64_t hash = caseHash(cand);
    if (std::find(seen_.begin(), seen_.end(), hash) != seen_.end())
      return;
    seen_.push_back(hash);
    out_.push_back(std::move(cand));
  }

  std::vector<Case> take() { return std::move(out_); }

private:
  const Case &base_;
  const uint64_t baseSize_;
  /// Hashes of the candidates so far: identical results are offered once.
  std::vector<uint64_t> seen_;
  std::vector<Case> out_;
};

void removalMoves(const Case &c, Collector &col) {
  for (size_t i = 0; c.outputs.size() > 1 && i < c.outputs.size(); ++i)
    col.tryEdit([i](Case &x) {
      x.outputs.erase(x.outputs.begin() + static_cast<std::ptrdiff_t>(i));
      return true;
    });
  // Later ops first: deleting a consumer keeps more of the case intact.
  for (size_t i = c.ops.size(); i-- > 0;) {
    const Op &op = c.ops[i];
    if (op.kind == OpKind::Input)
      continue;
    // Its results read as one of its operands of the same type: each such
    // operand in turn (an insert into a tensor of its own shape keeps what
    // it inserts, or what it inserts into).
    for (size_t which = 0; which < op.operands.size(); ++which)
      col.tryEdit([&, i, which](Case &x) {
        const std::vector<ValueId> ops = x.ops[i].operands;
        bool any = false;
        for (ValueId r : x.ops[i].results) {
          std::vector<ValueId> same;
          for (ValueId o : ops)
            if (x.typeOf(o) == x.typeOf(r))
              same.push_back(o);
          if (same.empty() || (which > 0 && which >= same.size()))
            return false;
          replaceUses(x, r, same[std::min(which, same.size() - 1)]);
          any = true;
        }
        return any;
      });
    std::vector<ValueId> live;
    for (ValueId r : op.results)
      if (op.results.size() == 1 || isUsed(c, r))
        live.push_back(r);
    if (live.size() == 1)
      col.tryEdit([i, keep = live[0]](Case &x) {
        makeInput(x, i, keep);
        return true;
      });
  }
}

/// A link taken out of a chain of views: a reshape reads its operand's
/// operand when that is another view of as many elements, so the chain
/// ends in the same shape with one view fewer (which compact() drops when
/// nothing else reads it); two links that give back their source's type go
/// together.
void viewChainMoves(const Case &c, Collector &col) {
  for (size_t i = 0; i < c.ops.size(); ++i) {
    const Op &reshape = c.ops[i];
    if (reshape.kind != OpKind::Reshape)
      continue;
    const Op &link = c.ops[c.values[reshape.operands[0]].defOp];
    if (!isView(link.kind) || link.operands.empty() ||
        c.typeOf(link.operands[0]).numElements() != c.typeOf(reshape.results[0]).numElements())
      continue;
    col.tryEdit([i, from = link.operands[0]](Case &x) {
      x.ops[i].operands[0] = from;
      return true;
    });
  }
  // Two links that cancel (an unsqueeze and a squeeze, a transpose and its
  // inverse): readers of the second read the first's operand.
  for (const Op &second : c.ops) {
    if (!isView(second.kind) || second.operands.empty())
      continue;
    const Op &first = c.ops[c.values[second.operands[0]].defOp];
    if (!isView(first.kind) || first.operands.empty() ||
        !(c.typeOf(first.operands[0]) == c.typeOf(second.results[0])))
      continue;
    col.tryEdit([source = first.operands[0], result = second.results[0]](Case &x) {
      replaceUses(x, result, source);
      return true;
    });
  }
}

void shapeMoves(const Case &c, Collector &col) {
  std::vector<int64_t> dims;
  for (const Value &v : c.values)
    dims.insert(dims.end(), v.type.shape.begin(), v.type.shape.end());
  std::sort(dims.begin(), dims.end(), std::greater<int64_t>());
  dims.erase(std::unique(dims.begin(), dims.end()), dims.end());
  for (int64_t d : dims) {
    std::vector<int64_t> targets = {1, d / 2, 16};
    for (int64_t to : targets)
      if (to >= 1 && to < d)
        col.tryEdit([d, to](Case &x) {
          substituteDim(x, d, to);
          return reinfer(x);
        });
    // The same with each valid extent strictly inside such a dim scaled to
    // stay strictly inside: a finding about the region outside a valid
    // shape keeps one (the clamp above would make the region the tile).
    for (int64_t to : targets)
      if (to >= 2 && to < d)
        col.tryEdit([d, to](Case &x) {
          auto scale = [&](int64_t &extent, int64_t dim) {
            if (dim == d && extent < d)
              extent = std::clamp<int64_t>(extent * to / d, 1, to - 1);
          };
          for (Op &op : x.ops) {
            if (opCategory(op.kind) == OpCategory::Source) {
              TensorType &t = x.values[op.results[0]].type;
              if (t.valid && t.rank() == 2) {
                scale(t.valid->rows, t.shape[0]);
                scale(t.valid->cols, t.shape[1]);
              }
            } else if (op.kind == OpKind::SetValidShape && x.typeOf(op.operands[0]).rank() == 2) {
              const std::vector<int64_t> &in = x.typeOf(op.operands[0]).shape;
              scale(op.attrs.rows, in[0]);
              scale(op.attrs.cols, in[1]);
            }
          }
          substituteDim(x, d, to);
          return reinfer(x);
        });
  }
  // Drop one unit dim of a source, lowering its rank.
  for (size_t i = 0; i < c.ops.size(); ++i) {
    if (opCategory(c.ops[i].kind) != OpCategory::Source)
      continue;
    const std::vector<int64_t> &shape = c.typeOf(c.ops[i].results[0]).shape;
    for (size_t j = 0; shape.size() > 1 && j < shape.size(); ++j)
      if (shape[j] == 1)
        col.tryEdit([i, j](Case &x) {
          auto &s = x.values[x.ops[i].results[0]].type.shape;
          s.erase(s.begin() + static_cast<std::ptrdiff_t>(j));
          if (x.ops[i].kind == OpKind::Iota && x.ops[i].attrs.axis >= static_cast<int64_t>(j))
            x.ops[i].attrs.axis = std::max<int64_t>(0, x.ops[i].attrs.axis - 1);
          return reinfer(x);
        });
  }
}

void indexMoves(const Case &c, Collector &col) {
  for (size_t i = 0; i < c.ops.size(); ++i) {
    if (c.ops[i].kind != OpKind::IndexMap)
      continue;
    for (size_t j = 0; j < c.ops[i].attrs.map.size(); ++j) {
      std::vector<IndexExpr> variants;
      exprVariants(c.ops[i].attrs.map[j], variants);
      for (const IndexExpr &v : variants)
        col.tryEdit([i, j, v](Case &x) {
          x.ops[i].attrs.map[j] = v;
          return true;
        });
    }
  }
}

void typeMoves(const Case &c, Collector &col) {
  // All float types to f32 and all integer types to i32 at once, then one
  // source or cast at a time.
  auto simplify = [](Case &x, size_t i) {
    Op &op = x.ops[i];
    if (opCategory(op.kind) == OpCategory::Source) {
      DType &t = x.values[op.results[0]].type.dtype;
      t = simplerDType(t);
      if (op.kind == OpKind::Const && t == DType::I32)
        op.attrs.value.i = wrapToWidth(op.attrs.value.i, DType::I32);
      return true;
    }
    if (op.kind == OpKind::Cast)
      op.attrs.dtype = simplerDType(op.attrs.dtype);
    return op.kind == OpKind::Cast;
  };
  col.tryEdit([&](Case &x) {
    for (size_t i = 0; i < x.ops.size(); ++i)
      simplify(x, i);
    return reinfer(x);
  });
  for (size_t i = 0; i < c.ops.size(); ++i) {
    const Op &op = c.ops[i];
    const bool source = opCategory(op.kind) == OpCategory::Source;
    if ((source && dtypeDistance(c.typeOf(op.results[0]).dtype) > 0) ||
        (op.kind == OpKind::Cast && dtypeDistance(op.attrs.dtype) > 0))
      col.tryEdit([&, i](Case &x) { return simplify(x, i) && reinfer(x); });
  }
}

/// The workload ops' simplifications: a concat operand dropped, a pad's
/// widths or a window's stride, padding, dilation and kernel each brought
/// to its plainest value.
template <class Edit> void workloadMoves(const Op &op, const Edit &edit) {
  const OpAttrs &a = op.attrs;
  if (op.kind == OpKind::Concat && op.operands.size() > 2)
    for (size_t k = 0; k < op.operands.size(); ++k)
      edit([k](Op &o) { o.operands.erase(o.operands.begin() + static_cast<std::ptrdiff_t>(k)); });
  auto plain = [&](std::vector<int64_t> OpAttrs::*field, int64_t to) {
    const std::vector<int64_t> &v = a.*field;
    if (std::any_of(v.begin(), v.end(), [to](int64_t x) { return x != to; }))
      edit([field, to](Op &o) { std::fill((o.attrs.*field).begin(), (o.attrs.*field).end(), to); });
  };
  if (op.kind == OpKind::Pad) {
    plain(&OpAttrs::low, 0);
    plain(&OpAttrs::high, 0);
  }
  if (op.kind == OpKind::Conv2d || op.kind == OpKind::AvgPool2d || op.kind == OpKind::MaxPool2d) {
    plain(&OpAttrs::strides, 1);
    plain(&OpAttrs::padding, 0);
    plain(&OpAttrs::dilation, 1);
    plain(&OpAttrs::kernel, 1);
  }
}

void attributeMoves(const Case &c, Collector &col) {
  for (size_t i = 0; i < c.ops.size(); ++i) {
    const Op &op = c.ops[i];
    const OpAttrs &a = op.attrs;
    auto edit = [&](std::function<void(Op &)> f) {
      col.tryEdit([i, f](Case &x) {
        f(x.ops[i]);
        return reinfer(x);
      });
    };
    if (op.kind == OpKind::Input) {
      if (c.typeOf(op.results[0]).valid)
        col.tryEdit([&, i](Case &x) {
          x.values[x.ops[i].results[0]].type.valid.reset();
          return reinfer(x);
        });
      if (a.fill.kind != FillKind::Zeros && a.fill.kind != FillKind::Ones)
        edit([](Op &o) { o.attrs.fill = InputFill{FillKind::Zeros, 0, 0}; });
      if (a.fill.kind == FillKind::Range && a.fill.lo != a.fill.hi)
        edit([](Op &o) { o.attrs.fill.hi = o.attrs.fill.lo; });
      if (a.fill.kind == FillKind::Random || a.fill.kind == FillKind::Iota)
        edit([](Op &o) { o.attrs.fill = InputFill{FillKind::Ones, 0, 0}; });
    }
    if (op.kind == OpKind::SetValidShape) {
      if (a.dynamic)
        edit([](Op &o) { o.attrs.dynamic = false; });
      edit([&c, &op](Op &o) {
        o.attrs.rows = c.typeOf(op.operands[0]).shape[0];
        o.attrs.cols = c.typeOf(op.operands[0]).shape[1];
      });
    }
    if (op.kind == OpKind::Cast && a.rounding != RoundingMode::NearestEven)
      edit([](Op &o) { o.attrs.rounding = RoundingMode::NearestEven; });
    if (op.kind == OpKind::FillPad && a.pad != PadKind::Zero)
      edit([](Op &o) { o.attrs.pad = PadKind::Zero; });
    if (op.kind == OpKind::Slice)
      edit([](Op &o) { std::fill(o.attrs.strides.begin(), o.attrs.strides.end(), 1); });
    if (op.kind == OpKind::TopK && a.k > 1)
      edit([](Op &o) { o.attrs.k = 1; });
    if (op.kind == OpKind::Insert &&
        std::any_of(a.offsets.begin(), a.offsets.end(), [](int64_t o) { return o != 0; }))
      edit([](Op &o) { std::fill(o.attrs.offsets.begin(), o.attrs.offsets.end(), 0); });
    workloadMoves(op, edit);
  }
  if (c.edgeRate > 0)
    col.tryEdit([](Case &x) {
      x.edgeRate = 0;
      return true;
    });
}

/// A chain becomes one kernel; two neighbouring tasks one task; a task one
/// block; scalar stores DMA.
void taskMoves(const Case &c, Collector &col) {
  const std::vector<TaskOps> kernels = taskOps(c);
  if (kernels.empty())
    return;
  col.tryEdit([](Case &x) {
    x.tasks.clear();
    return true;
  });
  for (size_t k = 0; k + 1 < kernels.size(); ++k)
    col.tryEdit([&, k](Case &x) {
      for (size_t i : kernels[k + 1].ops)
        x.ops[i].task = kernels[k].task;
      return true;
    });
  for (const TaskOps &k : kernels) {
    const Task &t = c.tasks[k.task];
    if (t.blocks > 1)
      col.tryEdit([&k](Case &x) {
        x.tasks[k.task].blocks = 1;
        return true;
      });
    if (t.blocks > 2)
      col.tryEdit([&k](Case &x) {
        x.tasks[k.task].blocks = 2;
        return true;
      });
    if (t.store == TaskStore::Scalar)
      col.tryEdit([&k](Case &x) {
        x.tasks[k.task].store = TaskStore::Tile;
        return true;
      });
  }
}

} // namespace

uint64_t caseSize(const Case &c) {
  uint64_t size = 0;
  for (const Op &op : c.ops) {
    size += op.kind == OpKind::Input ? 200 : 1000;
    const OpAttrs &a = op.attrs;
    if (op.kind == OpKind::Input)
      size += fillComplexity(a.fill);
    for (const IndexExpr &e : a.map)
      size += 10 * e.size() + 10 * e.countFloorDivMod();
    size += op.kind == OpKind::Cast && a.rounding != RoundingMode::NearestEven;
    size += op.kind == OpKind::FillPad && a.pad != PadKind::Zero;
    size += op.kind == OpKind::TopK ? static_cast<uint64_t>(a.k) : 0;
    if (op.kind == OpKind::Insert)
      size += static_cast<uint64_t>(
          std::count_if(a.offsets.begin(), a.offsets.end(), [](int64_t o) { return o != 0; }));
    for (int64_t s : a.strides)
      size += static_cast<uint64_t>(s - 1);
    // A pad's widths and a window's padding, dilation and kernel: each
    // step from the plainest value is a little more to read.
    for (const std::vector<int64_t> *v : {&a.low, &a.high, &a.padding})
      for (int64_t x : *v)
        size += static_cast<uint64_t>(x);
    for (const std::vector<int64_t> *v : {&a.dilation, &a.kernel})
      for (int64_t x : *v)
        size += static_cast<uint64_t>(x - 1);
  }
  for (const Value &v : c.values) {
    const TensorType &t = v.type;
    size += static_cast<uint64_t>(t.numElements()) + 20 * t.rank() + 8 * dtypeDistance(t.dtype);
    if (t.valid)
      size += t.valid->dynamic ? 10 : 5;
    // Set-valid-shape results carry their valid shape; a full one is simpler.
    if (t.valid && t.rank() == 2)
      size += static_cast<uint64_t>((t.shape[0] - t.valid->rows) + (t.shape[1] - t.valid->cols));
  }
  // A task is a kernel more, and each block and scalar store more to run.
  for (const TaskOps &k : taskOps(c)) {
    const Task &t = c.tasks[k.task];
    size += 300 + 20 * static_cast<uint64_t>(t.blocks) + (t.store == TaskStore::Scalar ? 10 : 0);
  }
  return size + (c.edgeRate > 0 ? 1 : 0);
}

std::vector<Case> shrinkCandidates(const Case &c) {
  Collector col(c);
  taskMoves(c, col);
  removalMoves(c, col);
  viewChainMoves(c, col);
  shapeMoves(c, col);
  indexMoves(c, col);
  typeMoves(c, col);
  attributeMoves(c, col);
  return col.take();
}

} // namespace npufuzz
