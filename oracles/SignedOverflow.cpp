//===- oracles/SignedOverflow.cpp - Elements a signed overflow decides ----===//
#include "oracles/SignedOverflow.h"

#include "oracles/UndecidedElements.h"

#include <algorithm>

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
  for (SignedOverflow alternate : {SignedOverflow::GivesMax, SignedOverflow::GivesMin})
    undefined += undefineWhereTheyDiffer(ref, runReference(c, ref.inputs, alternate));
  return undefined;
}

int64_t undefineWhatNegationOverflowDecides(const Case &c, RefRun &ref) {
  if (!ref.ok() || !mayOverflowSigned(c))
    return 0;
  const bool negates = std::any_of(c.ops.begin(), c.ops.end(), [](const Op &op) {
    return op.kind == OpKind::Neg || op.kind == OpKind::Abs;
  });
  if (!negates)
    return 0;
  int64_t undefined = 0;
  for (SignedOverflow alternate :
       {SignedOverflow::NegationGivesMax, SignedOverflow::NegationGivesMin})
    undefined += undefineWhereTheyDiffer(ref, runReference(c, ref.inputs, alternate));
  return undefined;
}

} // namespace npufuzz
