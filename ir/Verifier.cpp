//===- ir/Verifier.cpp - Whole-case validation ----------------------------===//
//
// verifyCase re-runs each op's typing rule and adds the whole-program checks:
// SSA order, result bookkeeping, outputs and size limits. knownRange is the
// small value-range analysis that proves gather indices in bounds.
//
//===----------------------------------------------------------------------===//
#include "ir/Verifier.h"

#include <set>

namespace npufuzz {

namespace {

/// knownRange of `val`, the result of the source op `op`.
bool sourceRange(const Value &val, const Op &op, Interval &range) {
  switch (op.kind) {
  case OpKind::Input:
    switch (op.attrs.fill.kind) {
    case FillKind::Range: range = {op.attrs.fill.lo, op.attrs.fill.hi}; return true;
    case FillKind::Zeros: range = {0, 0}; return true;
    case FillKind::Ones: range = {1, 1}; return true;
    case FillKind::Iota:
      range = {0, val.type.numElements() - 1};
      return range.hi <= maxIntValue(val.type.dtype);
    case FillKind::Random: return false;
    }
    return false;
  case OpKind::Const: range = {op.attrs.value.i, op.attrs.value.i}; return true;
  case OpKind::Iota: range = {0, val.type.shape[op.attrs.axis] - 1}; return true;
#define NPF_HANDLED_CATEGORY Source
#include "ir/OpCasesOutside.def"
    return false;
  }
  return false; // unreachable: every OpKind is a case above
}

} // namespace

bool knownRange(const Case &c, ValueId v, Interval &range) {
  if (v < 0 || static_cast<size_t>(v) >= c.values.size())
    return false;
  const Value &val = c.values[v];
  // Data outside a valid shape can be anything a backend left there.
  if (val.type.valid || !isIntLike(val.type.dtype) || val.defOp < 0)
    return false;
  const Op &op = c.ops[val.defOp];
  switch (opCategory(op.kind)) {
  case OpCategory::Source: return sourceRange(val, op, range);
  case OpCategory::View: // every element is one of the source's
    return knownRange(c, op.operands[0], range);
  case OpCategory::Unary:
  case OpCategory::Binary:
  case OpCategory::Compare:
  case OpCategory::RowExpand:
  case OpCategory::ColExpand: return false; // no range is derived through arithmetic
  case OpCategory::Other: break;
  }
  switch (op.kind) {
  case OpKind::TopK:
    if (val.resultIndex != 1)
      return false;
    range = {0, c.values[op.operands[0]].type.shape[op.attrs.axis] - 1};
    return true;
  case OpKind::ArgMax:
    range = {0, c.values[op.operands[0]].type.shape[op.attrs.axis] - 1};
    return true;
  case OpKind::MaxPool2d: { // an index into the input's H x W plane
    if (val.resultIndex != 1)
      return false;
    const std::vector<int64_t> &in = c.values[op.operands[0]].type.shape;
    range = {0, in[2] * in[3] - 1};
    return true;
  }
  case OpKind::Cast:
  case OpKind::ReduceMax:
  case OpKind::ReduceMin:
    if (!knownRange(c, op.operands[0], range))
      return false;
    return range.lo >= minIntValue(val.type.dtype) && range.hi <= maxIntValue(val.type.dtype);
  // No range is derived through these (set_validshape's result has a valid
  // shape, so it never gets here).
  case OpKind::Select:
  case OpKind::MaskedFill:
  case OpKind::ReduceSum:
  case OpKind::Matmul:
  case OpKind::Gather:
  case OpKind::SetValidShape:
  case OpKind::FillPad:
  case OpKind::Insert:
  case OpKind::Concat:
  case OpKind::Pad:
  case OpKind::ReduceMean:
  case OpKind::AvgPool2d:
  case OpKind::Addmm:
  case OpKind::Conv2d:
#define NPF_HANDLED_CATEGORY Other
#include "ir/OpCasesOutside.def"
    return false;
  }
  return false; // unreachable: every OpKind is a case above
}

std::string verifyCase(const Case &c, int *failingOp) {
  if (failingOp)
    *failingOp = -1;
  auto where = [&](size_t i) {
    if (failingOp)
      *failingOp = static_cast<int>(i);
    const Op &op = c.ops[i];
    std::string s = "op " + std::to_string(i) + " (";
    if (!op.results.empty() && op.results[0] >= 0 &&
        static_cast<size_t>(op.results[0]) < c.values.size()) {
      const Value &v = c.values[op.results[0]];
      s += "%" + (v.name.empty() ? std::to_string(op.results[0]) : v.name) + " = ";
    }
    return s + std::string(opName(op.kind)) + "): ";
  };
  if (c.edgeRate < 0.0 || c.edgeRate > 1.0)
    return "edge_rate must be within [0, 1]";
  int64_t total = 0;
  std::set<std::string> names;
  for (size_t i = 0; i < c.ops.size(); ++i) {
    const Op &op = c.ops[i];
    if (static_cast<int>(op.kind) >= numOpKinds())
      return where(i) + "unknown op kind";
    for (ValueId v : op.operands)
      if (v < 0 || static_cast<size_t>(v) >= c.values.size() || c.values[v].defOp < 0 ||
          static_cast<size_t>(c.values[v].defOp) >= i)
        return where(i) + "uses %" + std::to_string(v) + " before it is defined";
    const size_t expected = opResultCount(op.kind);
    if (op.results.size() != expected)
      return where(i) + "must define " + std::to_string(expected) + " result(s)";
    for (size_t r = 0; r < op.results.size(); ++r) {
      ValueId v = op.results[r];
      if (v < 0 || static_cast<size_t>(v) >= c.values.size() ||
          c.values[v].defOp != static_cast<int32_t>(i) ||
          c.values[v].resultIndex != static_cast<int32_t>(r))
        return where(i) + "result bookkeeping is inconsistent";
      if (!c.values[v].name.empty() && !names.insert(c.values[v].name).second)
        return where(i) + "redefines %" + c.values[v].name;
    }
    std::vector<TensorType> types;
    std::string error;
    if (!inferResultTypes(c, op, types, error))
      return where(i) + error;
    for (size_t r = 0; r < types.size(); ++r) {
      const TensorType &declared = c.values[op.results[r]].type;
      if (declared != types[r])
        return where(i) + "declared type " + declared.str() + " but the op produces " +
               types[r].str();
      total += types[r].numElements();
    }
    if (total > kMaxCaseElements)
      return where(i) + "the case has more than " + std::to_string(kMaxCaseElements) + " elements";
  }
  std::set<std::string> taskNames;
  for (const Task &t : c.tasks) {
    if (t.name.empty() || t.name.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTU"
                                                   "VWXYZ0123456789_.-") != std::string::npos)
      return "task name '" + t.name + "' is not an identifier";
    if (!taskNames.insert(t.name).second)
      return "task '" + t.name + "' is named twice";
    if (t.blocks < 1 || t.blocks > kMaxTaskBlocks)
      return "task '" + t.name + "' has " + std::to_string(t.blocks) + " blocks, not 1 to " +
             std::to_string(kMaxTaskBlocks);
  }
  for (size_t i = 0; i < c.ops.size(); ++i) {
    const int32_t t = c.ops[i].task;
    if (t < -1 || (!c.tasks.empty() && t >= static_cast<int32_t>(c.tasks.size())))
      return where(i) + "is in task " + std::to_string(t) + " of " + std::to_string(c.tasks.size());
  }
  // A task's ops are contiguous, and tasks come in order.
  const std::vector<int32_t> tasks = opTasks(c);
  for (size_t i = 0, last = 0; i < c.ops.size(); ++i)
    if (tasks[i] >= 0) {
      if (tasks[i] < tasks[last])
        return where(i) + "is in task '" + c.tasks[tasks[i]].name + "' after an op of task '" +
               c.tasks[tasks[last]].name + "'";
      last = i;
    }
  for (size_t i = 0; i < c.values.size(); ++i)
    if (c.values[i].defOp < 0 || static_cast<size_t>(c.values[i].defOp) >= c.ops.size())
      return "value %" + std::to_string(i) + " has no defining op";
  if (c.outputs.empty())
    return "the case returns nothing";
  std::set<ValueId> seen;
  for (ValueId v : c.outputs) {
    if (v < 0 || static_cast<size_t>(v) >= c.values.size())
      return "return of undefined value %" + std::to_string(v);
    if (!seen.insert(v).second)
      return "value %" + std::to_string(v) + " is returned twice";
  }
  return "";
}

} // namespace npufuzz
