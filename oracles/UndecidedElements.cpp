//===- oracles/UndecidedElements.cpp - Elements a compiler's freedom decides ===//
#include "oracles/UndecidedElements.h"

#include "oracles/SignedOverflow.h"

#include "ir/DType.h"

#include <cmath>
#include <cstring>

namespace npufuzz {

int64_t undefineWhereTheyDiffer(RefRun &ref, const RefRun &other, bool subnormalIsItsZero) {
  // The alternates evaluate what the case does, so they fail where it
  // does not only if the reference itself is wrong.
  if (!other.ok() || other.outputs.size() != ref.outputs.size())
    return 0;
  int64_t undefined = 0;
  for (size_t k = 0; k < ref.outputs.size(); ++k) {
    RefTensor &mine = ref.outputs[k];
    const RefTensor &theirs = other.outputs[k];
    if (theirs.type != mine.type || theirs.defined.size() != mine.defined.size())
      continue;
    for (size_t e = 0; e < mine.defined.size(); ++e) {
      if (!mine.defined[e])
        continue;
      // Bit for bit, but any NaN is a NaN, as the comparison has it
      // (oracles/Compare.h): its payload is no value.
      const float tiny = mine.isFloat() ? smallestNormal(mine.type.dtype) : 0.0f;
      const bool same =
          theirs.defined[e] &&
          (mine.isFloat() ? std::memcmp(&mine.f[e], &theirs.f[e], sizeof(float)) == 0 ||
                                (std::isnan(mine.f[e]) && std::isnan(theirs.f[e])) ||
                                (subnormalIsItsZero && std::fabs(mine.f[e]) < tiny &&
                                 std::fabs(theirs.f[e]) < tiny &&
                                 std::signbit(mine.f[e]) == std::signbit(theirs.f[e]))
                          : mine.i[e] == theirs.i[e]);
      if (same)
        continue;
      // Undefined elements hold 0 (reference/Executor.h).
      mine.defined[e] = 0;
      if (mine.isFloat())
        mine.f[e] = 0;
      else
        mine.i[e] = 0;
      ++undefined;
    }
  }
  return undefined;
}

std::optional<Case> withSelfSubtractionsFolded(const Case &c) {
  Case folded = c;
  bool any = false;
  for (Op &op : folded.ops)
    if (op.kind == OpKind::Sub && op.operands.size() == 2 && op.operands[0] == op.operands[1] &&
        isFloat(folded.typeOf(op.results[0]).dtype)) {
      op.kind = OpKind::Const;
      op.operands.clear();
      op.attrs = OpAttrs();
      any = true;
    }
  if (!any)
    return std::nullopt;
  return folded;
}

int64_t undefineWhatSelfSubtractionDecides(const Case &c, RefRun &ref) {
  if (!ref.ok())
    return 0;
  const std::optional<Case> folded = withSelfSubtractionsFolded(c);
  if (!folded)
    return 0;
  return undefineWhereTheyDiffer(ref, runReference(*folded, ref.inputs));
}

int64_t undefineWhatKeptSubnormalsDecide(const Case &c, RefRun &ref) {
  if (!ref.ok() || !referenceFlushesSubnormals())
    return 0;
  // The same inputs (none subnormal) in IEEE's environment.
  RefRun ieee;
  {
    const ReferenceFlushScope environment(false);
    ieee = runReference(c, ref.inputs);
  }
  return undefineWhereTheyDiffer(ref, ieee, /*subnormalIsItsZero=*/true);
}

bool freedomsDecideElements(const ExactnessModel &model) {
  return model.signedOverflowUndefined || model.negationOverflowUndefined ||
         model.selfSubtractionFolded || referenceFlushesSubnormals();
}

int64_t undefineWhatFreedomsDecide(const Case &c, RefRun &ref, const ExactnessModel &model) {
  int64_t undefined = 0;
  if (model.signedOverflowUndefined)
    undefined += undefineWhatSignedOverflowDecides(c, ref);
  else if (model.negationOverflowUndefined)
    undefined += undefineWhatNegationOverflowDecides(c, ref);
  if (model.selfSubtractionFolded)
    undefined += undefineWhatSelfSubtractionDecides(c, ref);
  undefined += undefineWhatKeptSubnormalsDecide(c, ref);
  return undefined;
}

} // namespace npufuzz
