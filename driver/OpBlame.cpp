//===- driver/OpBlame.cpp - The first op a black-box backend gets wrong ---===//
#include "driver/OpBlame.h"

#include "ir/Text.h"

#include <map>

namespace npufuzz {

OpBlame blameOp(const Case &c, MlirJit &jit, const RunConfig &config) {
  OpBlame blame;
  Case probe = c;
  probe.outputs.clear();
  for (const Op &op : c.ops)
    for (const ValueId v : op.results)
      probe.outputs.push_back(v);
  const CaseOutcome out = runCase(probe, jit, config);
  if (out.verdict != VerdictKind::Mismatch ||
      out.comparisons.size() != probe.outputs.size())
    return blame;
  std::map<ValueId, const Comparison *> byValue;
  for (size_t k = 0; k < probe.outputs.size(); ++k)
    byValue[probe.outputs[k]] = &out.comparisons[k];
  for (size_t i = 0; i < c.ops.size(); ++i) {
    const Op &op = c.ops[i];
    const Comparison *wrong = nullptr;
    for (const ValueId v : op.results)
      if (!byValue.at(v)->match && !wrong)
        wrong = byValue.at(v);
    if (!wrong)
      continue;
    bool operandsAgree = true;
    for (const ValueId v : op.operands)
      operandsAgree = operandsAgree && byValue.at(v)->match;
    if (!operandsAgree || op.kind == OpKind::Input)
      return blame; // not an op to blame: the stores or loads disagree
    blame.found = true;
    blame.opIndex = i;
    blame.op = std::string(opName(op.kind));
    blame.difference = wrong->difference;
    blame.detail = "%" + std::to_string(op.results[0]) + " = " + blame.op + ": " +
                   wrong->firstMismatch;
    return blame;
  }
  return blame;
}

} // namespace npufuzz
