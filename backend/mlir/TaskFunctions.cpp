//===- backend/mlir/TaskFunctions.cpp - A chain's tasks as functions -----===//
//
// The affine and tensor styles run each task of a chain (ir/Case.h) as a
// function of its own, called by the entry in an order the graph allows,
// as a runtime launches one kernel after another: what crosses between
// tasks crosses a call, where a compiler's passes see no further than the
// function they run on (fusion, store forwarding) unless an inliner joins
// them. A task's parameters keep the names their values have in the entry,
// so its ops are emitted as they would be there.
//
//===----------------------------------------------------------------------===//
#include "backend/mlir/EmitterBase.h"

#include <algorithm>
#include <set>
#include <utility>

namespace npufuzz {

std::vector<int32_t> EmitterBase::lastReaders() const { return lastReadingTasks(c_); }

std::vector<TaskOps> EmitterBase::taskOrder() {
  std::vector<TaskOps> tasks = taskOps(c_);
  switch (plan.tasks) {
  case TaskOrder::CaseOrder: line("// tasks in the case's order"); return tasks;
  case TaskOrder::LastReady: break;
  }
  line("// tasks: of those whose inputs are ready, the last first");
  return lastReadyTaskOrder(c_);
}

bool EmitterBase::emitCaseOps(TaskHooks &hooks) {
  if (c_.tasks.empty()) {
    for (size_t i = 0; i < c_.ops.size(); ++i)
      emitOp(i);
    return unsupported.empty();
  }
  for (size_t i = 0; i < c_.ops.size(); ++i)
    if (c_.ops[i].kind == OpKind::Input)
      emitOp(i);
  return emitTaskFunctions(hooks);
}

bool EmitterBase::emitTaskFunctions(TaskHooks &hooks) {
  const std::vector<int32_t> taskOf = opTasks(c_);
  const std::vector<int32_t> lastReader = lastReaders();
  auto isSsa = [](const std::string &s) { return !s.empty() && s[0] == '%'; };
  for (const TaskOps &k : taskOrder()) {
    // Its parameters: what its ops read from outside it, and the runtime
    // valid dims its set_validshape ops take, each once.
    std::vector<std::string> params, args, argTypes;
    std::set<std::string> passed;
    auto pass = [&](const std::string &name, const std::string &type) {
      if (!isSsa(name) || !passed.insert(name).second)
        return;
      params.push_back(name + ": " + type);
      args.push_back(name);
      argTypes.push_back(type);
    };
    auto passCrossing = [&](const Crossing &x) {
      pass(x.value, x.type);
      pass(x.rows, "index");
      pass(x.cols, "index");
    };
    std::vector<ValueId> reads;
    for (size_t i : k.ops) {
      const Op &op = c_.ops[i];
      for (ValueId v : op.operands)
        if (taskOf[c_.values[v].defOp] != k.task &&
            std::find(reads.begin(), reads.end(), v) == reads.end()) {
          reads.push_back(v);
          passCrossing(hooks.crossingOf(v));
        }
      if (op.kind == OpKind::SetValidShape && op.attrs.dynamic) {
        pass(validDimArg(i, 0), "index");
        pass(validDimArg(i, 1), "index");
      }
    }
    line("// task " + c_.tasks[k.task].name);
    // What it hands on, and the buffers the entry gives it for them.
    std::vector<ValueId> handed;
    std::vector<std::optional<Crossing>> into;
    for (size_t i : k.ops)
      for (ValueId v : c_.ops[i].results)
        if (lastReader[v] > k.task) {
          handed.push_back(v);
          into.push_back(hooks.handBuffer(v));
          if (into.back())
            pass(into.back()->value, into.back()->type);
        }
    const std::string name = "npf_task" + std::to_string(k.task);
    beginFunction();
    hooks.beginTask(reads);
    for (size_t i : k.ops) {
      emitOp(i);
      if (!unsupported.empty())
        return false;
    }
    // Its results: the values it returns, and every valid bound it
    // computed or was given as SSA; where each lands among them.
    std::vector<std::string> results, resultTypes;
    struct Landing {
      int value = -1, rows = -1, cols = -1;
    };
    std::vector<Landing> landings(handed.size());
    std::vector<Crossing> inside(handed.size());
    for (size_t j = 0; j < handed.size(); ++j) {
      inside[j] = hooks.crossingOf(handed[j]);
      if (const std::optional<Crossing> returned = hooks.handOn(handed[j], into[j])) {
        landings[j].value = static_cast<int>(results.size());
        results.push_back(returned->value);
        resultTypes.push_back(returned->type);
      }
      if (!unsupported.empty())
        return false;
      for (auto [bound, at] : {std::pair{inside[j].rows, &landings[j].rows},
                               std::pair{inside[j].cols, &landings[j].cols}})
        if (isSsa(bound)) {
          *at = static_cast<int>(results.size());
          results.push_back(bound);
          resultTypes.push_back("index");
        }
    }
    hooks.endTask();
    endFunction(name, params, results, resultTypes);
    // The call, its results under fresh names of the entry.
    std::vector<std::string> names;
    for (size_t r = 0; r < results.size(); ++r)
      names.push_back(fresh("r"));
    line((names.empty() ? "" : joined(names) + " = ") + "func.call @" + name + "(" + joined(args) +
         ") : (" + joined(argTypes) + ") -> (" + joined(resultTypes) + ")");
    for (size_t j = 0; j < handed.size(); ++j) {
      Crossing after = into[j] ? *into[j] : inside[j];
      if (landings[j].value >= 0)
        after.value = names[landings[j].value];
      after.rows = landings[j].rows >= 0 ? names[landings[j].rows] : inside[j].rows;
      after.cols = landings[j].cols >= 0 ? names[landings[j].cols] : inside[j].cols;
      hooks.bindCrossing(handed[j], after);
    }
  }
  return true;
}

} // namespace npufuzz
