//===- ir/Case.cpp - The tile-program case model --------------------------===//
#include "ir/Case.h"

#include "ir/Hash.h"
#include "ir/Text.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <set>

namespace npufuzz {

namespace {
struct OpInfo {
  OpKind kind;
  std::string_view name;
  OpCategory category;
  unsigned operands, results;
  OpKind base;
  uint32_t weight;
  unsigned traits;
};

using namespace op_trait;
constexpr OpInfo kOpInfos[] = {
#define NPF_OP(Enum, Name, Cat, Operands, Results, Base, Weight, Traits)                           \
  {OpKind::Enum, Name, OpCategory::Cat, Operands, Results, OpKind::Base, Weight, Traits},
#include "ir/Ops.def"
};

constexpr bool inEnumOrder() {
  for (size_t i = 0; i < sizeof(kOpInfos) / sizeof(kOpInfos[0]); ++i)
    if (static_cast<size_t>(kOpInfos[i].kind) != i)
      return false;
  return true;
}
static_assert(inEnumOrder(), "kOpInfos is indexed by OpKind");

const OpInfo &info(OpKind k) { return kOpInfos[static_cast<int>(k)]; }
} // namespace

int numOpKinds() { return static_cast<int>(sizeof(kOpInfos) / sizeof(kOpInfos[0])); }

std::string_view opName(OpKind k) { return info(k).name; }

std::optional<OpKind> parseOpName(std::string_view s) {
  for (const OpInfo &i : kOpInfos)
    if (i.name == s)
      return i.kind;
  return std::nullopt;
}

unsigned opOperandCount(OpKind k) { return info(k).operands; }
unsigned opResultCount(OpKind k) { return info(k).results; }
uint32_t opDefaultWeight(OpKind k) { return info(k).weight; }
unsigned opTraits(OpKind k) { return info(k).traits; }

OpCategory opCategory(OpKind k) { return info(k).category; }

bool isElementwise(OpKind k) {
  switch (opCategory(k)) {
  case OpCategory::Unary:
  case OpCategory::Binary:
  case OpCategory::Compare:
  case OpCategory::RowExpand:
  case OpCategory::ColExpand: return true;
  case OpCategory::Source:
  case OpCategory::View: return false;
  case OpCategory::Other: break;
  }
  switch (k) {
  case OpKind::Select:
  case OpKind::MaskedFill:
  case OpKind::Cast: return true;
  case OpKind::ReduceSum:
  case OpKind::ReduceMax:
  case OpKind::ReduceMin:
  case OpKind::ArgMax:
  case OpKind::TopK:
  case OpKind::Matmul:
  case OpKind::Gather:
  case OpKind::SetValidShape:
  case OpKind::FillPad:
  case OpKind::Insert:
  case OpKind::Concat:
  case OpKind::Pad:
  case OpKind::ReduceMean:
  case OpKind::AvgPool2d:
  case OpKind::MaxPool2d:
  case OpKind::Addmm:
  case OpKind::Conv2d:
#define NPF_HANDLED_CATEGORY Other
#include "ir/OpCasesOutside.def"
    return false;
  }
  return false; // unreachable: every OpKind is a case above
}

bool isView(OpKind k) { return opCategory(k) == OpCategory::View; }

OpKind expandBaseOp(OpKind k) { return info(k).base; }

bool elementwiseAcceptsDType(OpKind k, DType t) {
  const OpKind base = expandBaseOp(k);
  if (hasTrait(base, FloatOnly))
    return isFloat(t);
  if (hasTrait(base, IntLikeOnly))
    return isIntLike(t);
  if (hasTrait(base, AnyDType))
    return true;
  return isFloat(t) || isInteger(t);
}

int64_t TensorType::numElements() const {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

std::string TensorType::str() const {
  std::string s(dtypeName(dtype));
  s += '[';
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i)
      s += ',';
    s += std::to_string(shape[i]);
  }
  s += ']';
  if (valid) {
    s += "{valid=" + std::to_string(valid->rows) + "x" + std::to_string(valid->cols);
    if (valid->dynamic)
      s += ",dyn";
    s += '}';
  }
  return s;
}

bool Scalar::operator==(const Scalar &o) const {
  // Bitwise on the float so that NaN == NaN and -0 != +0: equality of case
  // text, not of numbers.
  return i == o.i && std::memcmp(&f, &o.f, sizeof(float)) == 0;
}

std::string_view fillName(FillKind f) {
  switch (f) {
  case FillKind::Random: return "rand";
  case FillKind::Zeros: return "zeros";
  case FillKind::Ones: return "ones";
  case FillKind::Range: return "range";
  case FillKind::Iota: return "iota";
  }
  return "?";
}

std::string_view padName(PadKind p) {
  switch (p) {
  case PadKind::Zero: return "zero";
  case PadKind::Min: return "min";
  case PadKind::Max: return "max";
  }
  return "?";
}

int32_t Case::addOp(OpKind kind, std::vector<ValueId> operands, OpAttrs attrs,
                    std::vector<TensorType> resultTypes) {
  Op op;
  op.kind = kind;
  op.operands = std::move(operands);
  op.attrs = std::move(attrs);
  const int32_t opIndex = static_cast<int32_t>(ops.size());
  for (size_t i = 0; i < resultTypes.size(); ++i) {
    Value v;
    v.type = std::move(resultTypes[i]);
    v.defOp = opIndex;
    v.resultIndex = static_cast<int32_t>(i);
    op.results.push_back(static_cast<ValueId>(values.size()));
    values.push_back(std::move(v));
  }
  ops.push_back(std::move(op));
  return opIndex;
}

void Case::compact(std::vector<size_t> *keptOps) {
  // Liveness, backwards: an op is live if any result is an output or is used
  // by a live op. Inputs stay (they define the kernel signature) only if live.
  std::vector<char> liveValue(values.size(), 0);
  for (ValueId v : outputs)
    if (v >= 0 && static_cast<size_t>(v) < values.size())
      liveValue[v] = 1;
  std::vector<char> liveOp(ops.size(), 0);
  for (size_t i = ops.size(); i-- > 0;) {
    for (ValueId r : ops[i].results)
      if (liveValue[r])
        liveOp[i] = 1;
    if (liveOp[i])
      for (ValueId o : ops[i].operands)
        liveValue[o] = 1;
  }
  std::vector<ValueId> remap(values.size(), -1);
  if (keptOps)
    keptOps->clear();
  std::vector<Op> newOps;
  std::vector<Value> newValues;
  for (size_t i = 0; i < ops.size(); ++i) {
    if (!liveOp[i])
      continue;
    Op op = ops[i];
    for (ValueId &o : op.operands)
      o = remap[o];
    if (keptOps)
      keptOps->push_back(i);
    const int32_t newIndex = static_cast<int32_t>(newOps.size());
    for (ValueId &r : op.results) {
      Value v = values[r];
      v.defOp = newIndex;
      remap[r] = static_cast<ValueId>(newValues.size());
      r = remap[r];
      newValues.push_back(std::move(v));
    }
    newOps.push_back(std::move(op));
  }
  std::vector<ValueId> newOutputs;
  for (ValueId v : outputs)
    if (remap[v] >= 0 &&
        std::find(newOutputs.begin(), newOutputs.end(), remap[v]) == newOutputs.end())
      newOutputs.push_back(remap[v]);
  ops = std::move(newOps);
  values = std::move(newValues);
  outputs = std::move(newOutputs);
}

size_t Case::numComputeOps() const {
  return static_cast<size_t>(
      std::count_if(ops.begin(), ops.end(), [](const Op &op) { return op.kind != OpKind::Input; }));
}

std::vector<TensorType> Case::outputTypes() const {
  std::vector<TensorType> types;
  for (ValueId v : outputs)
    types.push_back(typeOf(v));
  return types;
}

std::string_view taskStoreName(TaskStore s) {
  switch (s) {
  case TaskStore::Tile: return "tile";
  case TaskStore::Scalar: return "scalar";
  }
  return "?";
}

std::vector<int32_t> opTasks(const Case &c) {
  std::vector<int32_t> tasks(c.ops.size(), -1);
  if (c.tasks.empty())
    return tasks;
  int32_t current = -1;
  for (size_t i = 0; i < c.ops.size(); ++i) {
    if (c.ops[i].kind == OpKind::Input)
      continue;
    // (An index past the tasks, which the verifier refuses, is no task.)
    if (c.ops[i].task >= 0 && static_cast<size_t>(c.ops[i].task) < c.tasks.size())
      current = c.ops[i].task;
    tasks[i] = current;
  }
  // Compute ops before every op with a task are the first such op's.
  const auto first = std::find_if(tasks.begin(), tasks.end(), [](int32_t t) { return t >= 0; });
  const int32_t firstTask = first == tasks.end() ? 0 : *first;
  for (size_t i = 0; i < c.ops.size() && (first == tasks.end() || tasks.begin() + i < first); ++i)
    if (c.ops[i].kind != OpKind::Input)
      tasks[i] = firstTask;
  return tasks;
}

std::vector<TaskOps> taskOps(const Case &c) {
  std::vector<TaskOps> out;
  const std::vector<int32_t> tasks = opTasks(c);
  for (size_t i = 0; i < c.ops.size(); ++i) {
    if (tasks[i] < 0)
      continue;
    if (out.empty() || out.back().task != tasks[i])
      out.push_back({tasks[i], {}});
    out.back().ops.push_back(i);
  }
  return out;
}

std::vector<int32_t> lastReadingTasks(const Case &c) {
  const std::vector<int32_t> taskOf = opTasks(c);
  std::vector<int32_t> lastReader(c.values.size(), -1);
  for (size_t i = 0; i < c.ops.size(); ++i)
    for (ValueId v : c.ops[i].operands)
      lastReader[v] = std::max(lastReader[v], taskOf[i]);
  for (ValueId v : c.outputs)
    lastReader[v] = std::numeric_limits<int32_t>::max();
  return lastReader;
}

TaskBoundary taskBoundary(const Case &c, const TaskOps &k) {
  const std::vector<int32_t> taskOf = opTasks(c);
  const std::vector<int32_t> lastReader = lastReadingTasks(c);
  TaskBoundary b;
  for (size_t i : k.ops)
    for (ValueId v : c.ops[i].operands)
      if (taskOf[c.values[v].defOp] != k.task &&
          std::find(b.reads.begin(), b.reads.end(), v) == b.reads.end())
        b.reads.push_back(v);
  for (size_t i : k.ops)
    for (ValueId v : c.ops[i].results)
      if (lastReader[v] > k.task)
        b.handsOn.push_back(v);
  return b;
}

Case taskAsCase(const Case &c, const TaskOps &k, const TaskBoundary &boundary) {
  Case t;
  std::vector<ValueId> to(c.values.size(), -1);
  for (ValueId v : boundary.reads) {
    OpAttrs attrs;
    to[v] = t.result(t.addOp(OpKind::Input, {}, attrs, {c.typeOf(v)}));
    t.values[to[v]].name = c.values[v].name;
  }
  for (size_t i : k.ops) {
    const Op &op = c.ops[i];
    std::vector<ValueId> operands;
    for (ValueId v : op.operands)
      operands.push_back(to[v]);
    std::vector<TensorType> types;
    for (ValueId v : op.results)
      types.push_back(c.typeOf(v));
    const int32_t at = t.addOp(op.kind, operands, op.attrs, types);
    for (size_t r = 0; r < op.results.size(); ++r) {
      to[op.results[r]] = t.result(at, static_cast<unsigned>(r));
      t.values[to[op.results[r]]].name = c.values[op.results[r]].name;
    }
  }
  for (ValueId v : boundary.handsOn)
    t.outputs.push_back(to[v]);
  return t;
}

std::vector<TaskOps> lastReadyTaskOrder(const Case &c) {
  const std::vector<TaskOps> tasks = taskOps(c);
  const std::vector<int32_t> taskOf = opTasks(c);
  // needs[k]: the tasks whose values task k reads.
  std::vector<std::set<int32_t>> needs(tasks.size());
  for (size_t k = 0; k < tasks.size(); ++k)
    for (size_t i : tasks[k].ops)
      for (ValueId v : c.ops[i].operands)
        if (const int32_t w = taskOf[c.values[v].defOp]; w >= 0 && w != tasks[k].task)
          needs[k].insert(w);
  std::vector<TaskOps> order;
  std::set<int32_t> done;
  std::vector<bool> taken(tasks.size(), false);
  while (order.size() < tasks.size()) {
    size_t pick = tasks.size();
    for (size_t k = 0; k < tasks.size(); ++k)
      if (!taken[k] && std::includes(done.begin(), done.end(), needs[k].begin(), needs[k].end()))
        pick = k;
    taken[pick] = true;
    done.insert(tasks[pick].task);
    order.push_back(tasks[pick]);
  }
  return order;
}

uint64_t caseHash(const Case &c) { return fnv1a(printCase(c)); }

namespace {
/// Whether operand `k` of `op` is where a model's weight goes.
bool weightOperand(const Op &op, size_t k) {
  return (op.kind == OpKind::Matmul && k == 1) || (op.kind == OpKind::Addmm && k != 1) ||
         (op.kind == OpKind::Conv2d && k == 1);
}

/// Whether every use of `v` is a weight operand, or a transpose whose
/// every use is (`throughTranspose`), and `v` is used and not returned.
bool onlyWeight(const Case &c, ValueId v, bool throughTranspose) {
  if (std::find(c.outputs.begin(), c.outputs.end(), v) != c.outputs.end())
    return false;
  bool used = false;
  for (const Op &op : c.ops)
    for (size_t k = 0; k < op.operands.size(); ++k) {
      if (op.operands[k] != v)
        continue;
      used = true;
      if (!weightOperand(op, k) && !(throughTranspose && op.kind == OpKind::Transpose &&
                                     onlyWeight(c, op.results[0], false)))
        return false;
    }
  return used;
}
} // namespace

std::vector<size_t> weightInputs(const Case &c) {
  std::vector<size_t> weights;
  size_t position = 0;
  for (const Op &op : c.ops) {
    if (op.kind != OpKind::Input)
      continue;
    if (onlyWeight(c, op.results[0], /*throughTranspose=*/true))
      weights.push_back(position);
    ++position;
  }
  return weights;
}

} // namespace npufuzz
