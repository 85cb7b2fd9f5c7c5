//===- oracles/SignedOverflow.cpp - Elements a signed overflow decides ----===//
#include "oracles/SignedOverflow.h"

#include <cstring>

namespace npufuzz {

namespace {
/// True when `c` has an op that can overflow in a type whose overflow the
/// alternates change: most cases have none, and are evaluated once.
bool mayOverflowSigned(const Case &c) {
  for (const Op &op : c.ops)
    for (ValueId r : op.results) {
      const DType t = c.typeOf(r).dtype;
      if (t == DType::I32 || t == DType::I64 || t == DType::Index)
        return true;
    }
  return false;
}
} // namespace

int64_t undefineWhatSignedOverflowDecides(const Case &c, RefRun &ref) {
  if (!ref.ok() || !mayOverflowSigned(c))
    return 0;
  int64_t undefined = 0;
  for (SignedOverflow alternate : {SignedOverflow::GivesMax, SignedOverflow::GivesMin}) {
    const RefRun other = runReference(c, ref.inputs, alternate);
    // The alternates evaluate what the case does, so they fail where it
    // does not only if the reference itself is wrong.
    if (!other.ok() || other.outputs.size() != ref.outputs.size())
      continue;
    for (size_t k = 0; k < ref.outputs.size(); ++k) {
      RefTensor &mine = ref.outputs[k];
      const RefTensor &theirs = other.outputs[k];
      if (theirs.type != mine.type || theirs.defined.size() != mine.defined.size())
        continue;
      for (size_t e = 0; e < mine.defined.size(); ++e) {
        if (!mine.defined[e])
          continue;
        const bool same =
            theirs.defined[e] &&
            (mine.isFloat() ? std::memcmp(&mine.f[e], &theirs.f[e], sizeof(float)) == 0
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
  }
  return undefined;
}

} // namespace npufuzz
