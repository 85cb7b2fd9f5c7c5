//===- shrink/Generalize.cpp - What a failure really needs ----------------===//
#include "shrink/Generalize.h"

#include "backend/mlir/Pipelines.h"
#include "ir/Verifier.h"
#include "oracles/OpBlame.h"
#include "shrink/Reducer.h"

#include <algorithm>
#include <chrono>
#include <optional>

namespace npufuzz {

namespace {

/// How a signature's where names ops: a wrong value by its arithmetic
/// family; an undefined result of a black-box program (op blame) by its
/// shape form (blamedOpName), since what went wrong there is how the result
/// tile was shaped, whatever arithmetic the op applies.
enum class Naming : uint8_t { Arithmetic, ShapeForm };

Naming namingOf(const Signature &s) {
  return s.pass.empty() && s.message == differenceClass(kUndefinedResult) ? Naming::ShapeForm
                                                                          : Naming::Arithmetic;
}

std::string familyOf(OpKind k, Naming naming = Naming::Arithmetic) {
  switch (naming) {
  case Naming::Arithmetic: return scalarFamily(std::string(opName(k)));
  case Naming::ShapeForm: return blamedOpName(std::string(opName(k)), kUndefinedResult);
  }
  return {};
}

/// The categories an elementwise result can be rebuilt in, one a shape
/// form: elementwise, row_expand_*, col_expand_*.
constexpr OpCategory kShapeFormCategories[] = {OpCategory::Binary, OpCategory::RowExpand,
                                               OpCategory::ColExpand};

/// The ops a swap may put in place of an op of category `cat`: elementwise
/// ops with no attributes of their own (clamp's bounds would be made up),
/// and the reductions among themselves.
std::vector<OpKind> swapKinds(const Op &op) {
  std::vector<OpKind> out;
  const OpCategory cat = opCategory(op.kind);
  const bool reduction =
      op.kind == OpKind::ReduceSum || op.kind == OpKind::ReduceMax || op.kind == OpKind::ReduceMin;
  for (int i = 0; i < numOpKinds(); ++i) {
    const OpKind k = static_cast<OpKind>(i);
    if (reduction) {
      if (k == OpKind::ReduceSum || k == OpKind::ReduceMax || k == OpKind::ReduceMin)
        out.push_back(k);
      continue;
    }
    const bool elementwise = cat == OpCategory::Unary || cat == OpCategory::Binary ||
                             cat == OpCategory::Compare || cat == OpCategory::RowExpand ||
                             cat == OpCategory::ColExpand;
    if (!elementwise || opCategory(k) != cat || opOperandCount(k) != op.operands.size() ||
        k == OpKind::Clamp || k == OpKind::Round)
      continue;
    out.push_back(k);
  }
  return out;
}

/// Whether `k` may stand in for `op` in `c`: it takes the op's operand dtypes.
bool accepts(const Case &c, const Op &op, OpKind k) {
  if (!isElementwise(k))
    return true; // a reduction: every reduction takes what another does
  return std::all_of(op.operands.begin(), op.operands.end(),
                     [&](ValueId v) { return elementwiseAcceptsDType(k, c.typeOf(v).dtype); });
}

bool feedsGatherIndex(const Case &c, ValueId v) {
  for (const Op &op : c.ops)
    if (op.kind == OpKind::Gather && op.operands.size() > 1 && op.operands[1] == v)
      return true;
  return false;
}

/// Op `i` of `x` replaced by the ops `put`, which define its results (and
/// fresh inputs of x's values); returns the index of the last of them.
size_t replaceOp(Case &x, size_t i, const std::vector<Op> &put) {
  x.ops.erase(x.ops.begin() + static_cast<std::ptrdiff_t>(i));
  x.ops.insert(x.ops.begin() + static_cast<std::ptrdiff_t>(i), put.begin(), put.end());
  for (size_t k = 0; k < x.ops.size(); ++k)
    for (size_t r = 0; r < x.ops[k].results.size(); ++r) {
      x.values[x.ops[k].results[r]].defOp = static_cast<int32_t>(k);
      x.values[x.ops[k].results[r]].resultIndex = static_cast<int32_t>(r);
    }
  return i + put.size() - 1;
}

/// A new input of `type` in `x`, its op appended to `put` (the ops that
/// will take another op's place).
ValueId freshInput(Case &x, const TensorType &type, std::vector<Op> &put) {
  Value in;
  in.type = type;
  x.values.push_back(in);
  Op source;
  source.kind = OpKind::Input;
  source.results = {static_cast<ValueId>(x.values.size() - 1)};
  put.push_back(source);
  return source.results[0];
}

/// Op `i` of `x` made, for each of its results (topk has two), an
/// elementwise op of a fresh input of the result's type: neg (not for i1),
/// or the input itself for a type neg does not take. The loops over its
/// results stay, without what the op did. Returns the index of the last op
/// put in its place.
size_t substitute(Case &x, size_t i) {
  const Op original = x.ops[i];
  std::vector<Op> put;
  for (const ValueId result : original.results) {
    const TensorType type = x.typeOf(result);
    const OpKind unary = type.dtype == DType::I1 ? OpKind::Not : OpKind::Neg;
    Op op;
    op.results = {result};
    if (!elementwiseAcceptsDType(unary, type.dtype)) {
      op.kind = OpKind::Input;
      put.push_back(op);
      continue;
    }
    op.kind = unary;
    op.operands = {freshInput(x, type, put)};
    put.push_back(op);
  }
  return replaceOp(x, i, put);
}

/// Op `i` of `x` rebuilt as an op of category `cat` with the same result:
/// each operand one of the op's own of the type the category takes (x[R,C]
/// the result's; s[R,1] for a row expand, s[1,C] for a column expand), or a
/// fresh input of it. The kind applies the op's own arithmetic
/// where the category has it (row_expand_mul for mul), else the first the
/// dtype takes. False when the category cannot hold the result (a rank
/// other than 2 for an expand).
bool rebuildIn(Case &x, size_t i, OpCategory cat) {
  const Op original = x.ops[i];
  if (original.results.size() != 1)
    return false;
  const TensorType result = x.typeOf(original.results[0]);
  if (cat != OpCategory::Binary && result.rank() != 2)
    return false;
  std::optional<OpKind> kind;
  for (int k = 0; k < numOpKinds(); ++k) {
    const OpKind candidate = static_cast<OpKind>(k);
    if (opCategory(candidate) != cat || !elementwiseAcceptsDType(candidate, result.dtype))
      continue;
    const bool sameArithmetic = expandBaseOp(candidate) == expandBaseOp(original.kind);
    if (!kind || sameArithmetic)
      kind = candidate;
    if (sameArithmetic)
      break;
  }
  if (!kind)
    return false;
  std::vector<Op> put;
  TensorType second = result;
  second.valid.reset();
  if (cat == OpCategory::RowExpand)
    second.shape[1] = 1;
  if (cat == OpCategory::ColExpand)
    second.shape[0] = 1;
  Op op = original;
  op.kind = *kind;
  op.attrs = {};
  op.operands.clear();
  // An operand of the op's of the type wanted, else a fresh input: every
  // fresh tile takes room a black-box target may not have (PTO's vector
  // buffer), and a variant it cannot run decides nothing.
  auto operandOf = [&](const TensorType &type) {
    for (const ValueId v : original.operands)
      if (x.typeOf(v) == type)
        return v;
    TensorType whole = type;
    whole.valid.reset();
    return freshInput(x, whole, put);
  };
  op.operands.push_back(operandOf(result));
  op.operands.push_back(operandOf(second));
  put.push_back(op);
  replaceOp(x, i, put);
  return true;
}

/// `c` with every op of shape form `form` rebuilt in the `nth` other shape
/// form it can be (rebuildIn), or, with nth < 0, substituted (see
/// substitute()) where the form is not elementwise (a neg is that form);
/// the forms put in go to `putIn`. Nothing when an op has no nth other form
/// or the variant would not be a valid case returning what `c` returns.
std::optional<Case> variantInOtherForm(const Case &c, const std::string &form, int nth,
                                       std::set<std::string> &putIn) {
  Case x = c;
  bool changed = false;
  for (size_t i = 0; i < x.ops.size(); ++i) {
    if (x.ops[i].kind == OpKind::Input || familyOf(x.ops[i].kind, Naming::ShapeForm) != form)
      continue;
    const size_t before = x.ops.size();
    if (nth >= 0) {
      int other = -1;
      bool rebuilt = false;
      for (const OpCategory cat : kShapeFormCategories) {
        Case attempt = x;
        if (!rebuildIn(attempt, i, cat) ||
            familyOf(attempt.ops[i + attempt.ops.size() - before].kind, Naming::ShapeForm) ==
                form ||
            ++other != nth)
          continue;
        x = std::move(attempt);
        rebuilt = true;
        break;
      }
      if (!rebuilt)
        return std::nullopt; // no nth other form: the tries before are all there is
    } else {
      if (form == "elementwise" || std::any_of(x.ops[i].results.begin(), x.ops[i].results.end(),
                                               [&](ValueId r) { return feedsGatherIndex(x, r); }))
        return std::nullopt;
      substitute(x, i);
    }
    const size_t last = i + (x.ops.size() - before);
    for (size_t k = i; k <= last; ++k)
      if (x.ops[k].kind != OpKind::Input)
        putIn.insert(familyOf(x.ops[k].kind, Naming::ShapeForm));
    i = last; // past what was put in the op's place
    changed = true;
  }
  if (!changed || !verifyCase(x).empty())
    return std::nullopt;
  for (const ValueId v : c.outputs) // what the program returns keeps its type
    if (x.typeOf(v) != c.typeOf(v))
      return std::nullopt;
  return x;
}

/// `c` with every op of family `family` swapped for the `nth` kind of
/// another family its slot takes, or, with nth < 0, substituted (see
/// substitute()); the families put in go to `putIn`. Nothing when an op
/// has no nth swap or the variant would not be a valid case.
std::optional<Case> variantWithout(const Case &c, const std::string &family, int nth,
                                   std::set<std::string> &putIn) {
  Case x = c;
  bool changed = false;
  for (size_t i = 0; i < x.ops.size(); ++i) {
    Op &op = x.ops[i];
    if (op.kind == OpKind::Input || familyOf(op.kind) != family)
      continue;
    std::optional<OpKind> swap;
    if (nth >= 0) {
      // The first kind of each other family the slot takes, in table
      // order; the nth of those families.
      std::set<std::string> families;
      for (const OpKind k : swapKinds(op))
        if (familyOf(k) != family && accepts(x, op, k) && families.insert(familyOf(k)).second &&
            static_cast<int>(families.size()) == nth + 1) {
          swap = k;
          break;
        }
    }
    if (swap) {
      op.kind = *swap;
      putIn.insert(familyOf(*swap));
    } else {
      if (nth >= 0)
        return std::nullopt; // no nth swap: the tries before are all there is
      if (std::any_of(op.results.begin(), op.results.end(),
                      [&](ValueId r) { return feedsGatherIndex(x, r); }))
        return std::nullopt;
      const size_t last = substitute(x, i);
      for (size_t k = i; k <= last; ++k)
        if (x.ops[k].kind != OpKind::Input)
          putIn.insert(familyOf(x.ops[k].kind));
      i = last; // past what was put in the op's place
    }
    changed = true;
  }
  if (!changed || !verifyCase(x).empty())
    return std::nullopt;
  return x;
}

/// `c` with its floats made i32 (`toInt`) or its integers f32; i1 and
/// index values, and cases whose casts or constants say otherwise, stay.
std::optional<Case> variantOfOtherClass(const Case &c, bool toInt) {
  Case x = c;
  bool changed = false;
  for (const Op &op : x.ops)
    if (op.kind == OpKind::Cast || op.kind == OpKind::Const || op.kind == OpKind::Iota)
      return std::nullopt;
  for (Value &v : x.values) {
    DType &t = v.type.dtype;
    if (toInt ? isFloat(t) : (t == DType::I8 || t == DType::I32 || t == DType::I64)) {
      t = toInt ? DType::I32 : DType::F32;
      changed = true;
    }
  }
  if (!changed || !verifyCase(x).empty())
    return std::nullopt;
  return x;
}

using Clock = std::chrono::steady_clock;

/// Runs variants and counts the cost.
class Trials {
public:
  Trials(const CandidateRunner &run, GeneralizeCost *cost, VerdictKind target)
      : run_(run), cost_(cost), target_(target) {}
  std::vector<Observation> operator()(const std::vector<Candidate> &batch) {
    if (batch.empty())
      return {};
    const auto start = Clock::now();
    std::vector<Observation> seen = run_(batch);
    if (cost_) {
      cost_->tests += static_cast<unsigned>(batch.size());
      cost_->seconds += std::chrono::duration<double>(Clock::now() - start).count();
      for (const Observation &o : seen)
        if (!o.ran || (o.signature.kind == VerdictKind::Hang && target_ != VerdictKind::Hang))
          cost_->undecided = true;
    }
    return seen;
  }

private:
  const CandidateRunner &run_;
  GeneralizeCost *cost_;
  VerdictKind target_;
};

/// The pipeline of `cand` cut after the last occurrence of `pass` (with any
/// options when `pass` has none), and that occurrence's index; -1 when the
/// pass is not among the user's passes (a tail element, or none).
std::pair<std::vector<std::string>, int> cutAfter(const Candidate &cand, const std::string &pass,
                                                  MlirStyle style, PassStage stage) {
  Pipeline p;
  std::string error;
  if (pass.empty() || !resolvePipeline(cand.pipeline, style, p, error, stage))
    return {{}, -1};
  for (size_t i = p.passes.size(); i-- > 0;)
    if (namesPass(pass, p.passes[i]))
      return {std::vector<std::string>(p.passes.begin(), p.passes.begin() + i + 1),
              static_cast<int>(i)};
  return {{}, -1};
}

/// Whether `o` is the failure of `target`: the same verdict, pass and
/// message, wherever it shows.
bool sameFailure(const Signature &target, const Observation &o) {
  Signature anyWhere = target;
  anyWhere.where = kAnyOp;
  return o.ran && sameRootCause(anyWhere, o.signature);
}

/// Whether the failure of `target` in `cand` goes on without family
/// `family`: with each of two swaps (two other families, so that a bug of
/// one of them is not taken for this one), or the substitution when there
/// is no swap. Each must show first in an op put in the family's place, or
/// in an input's copy (kAnyOp); or, `depth` allowing, in another family
/// that is itself shown not to matter.
/// (That another op of the case fails would not do on its own: it may be
/// another bug of the same pass.)
bool familyIrrelevant(const Candidate &cand, const Signature &target, const std::string &family,
                      Trials &trials, int depth = 1) {
  const Naming naming = namingOf(target);
  auto without = [&](int nth, std::set<std::string> &in) {
    return naming == Naming::ShapeForm ? variantInOtherForm(cand.c, family, nth, in)
                                       : variantWithout(cand.c, family, nth, in);
  };
  // Two swaps to two other families; the substitution where the family's
  // ops have not both.
  std::vector<Candidate> batch;
  std::vector<std::set<std::string>> putIn;
  for (int nth = 0; nth < 2; ++nth) {
    std::set<std::string> in;
    if (std::optional<Case> x = without(nth, in)) {
      batch.push_back({std::move(*x), cand.pipeline});
      putIn.push_back(std::move(in));
    }
  }
  if (batch.size() < 2) {
    batch.clear();
    putIn.clear();
    std::set<std::string> in;
    if (std::optional<Case> x = without(-1, in)) {
      batch.push_back({std::move(*x), cand.pipeline});
      putIn.push_back(std::move(in));
    }
  }
  if (batch.empty())
    return false;
  const std::vector<Observation> seen = trials(batch);
  for (size_t i = 0; i < seen.size(); ++i) {
    if (!sameFailure(target, seen[i]))
      return false;
    const std::string &where = seen[i].signature.where;
    // Shown in an op put in its place, or in an input's copy before any op
    // (kAnyOp): the failure does not need the family.
    if (putIn[i].count(where) || where == kAnyOp)
      continue;
    if (depth > 0 && where != family && !where.empty() &&
        familyIrrelevant(batch[i], target, where, trials, depth - 1))
      continue;
    return false;
  }
  return true;
}

} // namespace

Signature generalizeSignature(const Candidate &failing, const Signature &seen,
                              const CandidateRunner &run, MlirStyle style, PassStage stage,
                              GeneralizeCost *cost) {
  Signature out = seen;
  if (seen.kind != VerdictKind::Mismatch || seen.where.empty() || seen.where == kAnyOp)
    return out;
  Trials trials(run, cost, seen.kind);
  Candidate cand = failing;
  const auto [passes, at] = cutAfter(failing, seen.pass, style, stage);
  if (at >= 0)
    cand.pipeline = pipelineSpec(passes);
  // The options first: the op family is then asked of the general pass.
  if (at >= 0 && passWithoutOptions(seen.pass) != seen.pass) {
    std::vector<std::string> plain = passes;
    plain[at] = passWithoutOptions(seen.pass);
    Signature target = seen;
    target.pass = plain[at];
    const Candidate variant{cand.c, pipelineSpec(plain)};
    const std::vector<Observation> o = trials({variant});
    if (!o.empty() && o[0].ran && sameRootCause(target, o[0].signature)) {
      out.pass = target.pass;
      cand = variant;
    }
  }
  bool anyFamily = false;
  for (const Op &op : cand.c.ops)
    if (op.kind != OpKind::Input && familyOf(op.kind, namingOf(seen)) == seen.where)
      anyFamily = true;
  if (anyFamily && familyIrrelevant(cand, out, seen.where, trials))
    out.where = kAnyOp;
  return out;
}

FailurePattern failurePattern(const Candidate &reduced, const Signature &target,
                              const CandidateRunner &run, MlirStyle style, PassStage stage,
                              GeneralizeCost *cost) {
  FailurePattern out;
  std::set<std::string> families, classes;
  for (const Op &op : reduced.c.ops) {
    if (op.kind == OpKind::Input)
      continue;
    families.insert(familyOf(op.kind, namingOf(target)));
    for (const ValueId v : op.results)
      classes.insert(dtypeClass(reduced.c.typeOf(v).dtype));
  }
  out.dtypeClasses = classes;
  const bool generalises = target.kind == VerdictKind::Mismatch && !target.where.empty();
  if (!generalises) {
    out.families = families;
    return out;
  }
  Trials trials(run, cost, target.kind);
  Candidate cand = reduced;
  if (const auto [passes, at] = cutAfter(reduced, target.pass, style, stage); at >= 0)
    cand.pipeline = pipelineSpec(passes);
  for (const std::string &family : families)
    if (!familyIrrelevant(cand, target, family, trials))
      out.families.insert(family);
  if (out.families.empty())
    out.families.insert(kAnyOp);
  // The dtype class: the same failure with floats made integers, or the
  // reverse, does not need it.
  std::vector<Candidate> batch;
  for (const bool toInt : {true, false})
    if (std::optional<Case> x = variantOfOtherClass(cand.c, toInt))
      batch.push_back({std::move(*x), cand.pipeline});
  Signature anyWhere = target;
  anyWhere.where = kAnyOp;
  for (const Observation &o : trials(batch))
    if (o.ran && sameRootCause(anyWhere, o.signature)) {
      out.dtypeClasses = {"any"};
      break;
    }
  return out;
}

} // namespace npufuzz
