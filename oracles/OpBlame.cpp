//===- oracles/OpBlame.cpp - The first op a black-box backend gets wrong ---===//
#include "oracles/OpBlame.h"

#include "ir/Text.h"
#include "oracles/Signature.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

namespace npufuzz {

OpBlame blameOp(const Case &c, MlirJit &jit, const RunConfig &config) {
  OpBlame blame;
  Case probe = c;
  probe.outputs.clear();
  for (const Op &op : c.ops)
    for (const ValueId v : op.results)
      probe.outputs.push_back(v);
  const CaseOutcome out = runCase(probe, jit, config);
  if (out.verdict != VerdictKind::Mismatch || out.comparisons.size() != probe.outputs.size())
    return blame;
  std::map<ValueId, const Comparison *> byValue;
  for (size_t k = 0; k < probe.outputs.size(); ++k)
    byValue[probe.outputs[k]] = &out.comparisons[k];
  // The first wrong output of the case, and the ops it depends on.
  const Comparison *output = nullptr;
  std::set<ValueId> needed;
  for (const ValueId v : c.outputs)
    if (!byValue.at(v)->match) {
      output = byValue.at(v);
      needed.insert(v);
      break;
    }
  if (!output)
    return blame;
  for (size_t i = c.ops.size(); i-- > 0;)
    if (std::any_of(c.ops[i].results.begin(), c.ops[i].results.end(),
                    [&](ValueId r) { return needed.count(r); }))
      needed.insert(c.ops[i].operands.begin(), c.ops[i].operands.end());
  // Among those, the ops that go wrong themselves. A -0 that a later op
  // turns into a right 0 is one, and explains nothing: prefer one whose
  // difference is the output's kind, then the one nearest the output; and
  // before all, one the campaign does not know (RunConfig::knownSignatures),
  // so that a case failing in a known way and a new one is the new one.
  std::optional<size_t> chosen;
  bool chosenSameKind = false, chosenKnown = true;
  for (size_t i = 0; i < c.ops.size(); ++i) {
    const Op &op = c.ops[i];
    const Comparison *wrong = nullptr;
    for (const ValueId v : op.results)
      if (needed.count(v) && !byValue.at(v)->match && !wrong)
        wrong = byValue.at(v);
    // It goes wrong itself when its operands agree, or differ only in the
    // sign of zeros while its result differs otherwise: relu(-0) = -0 does
    // not explain a cast of it overflowing. (Kinds are not compared beyond
    // that: one ulp of f16 is thousands of f32 ulps after a cast back.)
    if (!wrong || std::any_of(op.operands.begin(), op.operands.end(), [&](ValueId v) {
          const Comparison &operand = *byValue.at(v);
          return !operand.match &&
                 (operand.difference != "signed-zero" || wrong->difference == "signed-zero");
        }))
      continue;
    if (op.kind == OpKind::Input)
      return blame; // not an op to blame: the loads or stores disagree
    const bool sameKind = wrong->difference == output->difference;
    const Signature named{VerdictKind::Mismatch, "", scalarFamily(std::string(opName(op.kind))),
                          std::string(differenceClass(wrong->difference))};
    const bool known = config.knownSignatures.count(named.id()) != 0;
    if (!chosen || (chosenKnown && !known) ||
        (chosenKnown == known && (!chosenSameKind || sameKind))) {
      chosen = i;
      chosenSameKind = sameKind;
      chosenKnown = known;
      blame.difference = wrong->difference;
      blame.detail = "%" + std::to_string(op.results[0]) + " = " + std::string(opName(op.kind)) +
                     ": " + wrong->firstMismatch;
    }
  }
  if (!chosen)
    return blame;
  blame.found = true;
  blame.opIndex = *chosen;
  blame.op = std::string(opName(c.ops[*chosen].kind));
  return blame;
}

} // namespace npufuzz
