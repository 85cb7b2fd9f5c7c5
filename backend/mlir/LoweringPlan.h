//===- backend/mlir/LoweringPlan.h - Seeded lowering variants ---*- C++ -*-===//
//
// One form per variant point of LoweringPlan.def, for a whole kernel. Every
// form is exact by construction: it computes what the canonical form
// computes, so the reference judges them all; what changes is the MLIR the
// user's passes are given. A plan is drawn from a lowering seed, which
// findings record and replays repeat; forms are per kernel rather than per
// op so that a case keeps them while it is reduced.
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_BACKEND_MLIR_LOWERINGPLAN_H
#define NPUFUZZ_BACKEND_MLIR_LOWERINGPLAN_H

#include <cstdint>
#include <string>
#include <string_view>

namespace npufuzz {

enum class MlirStyle : uint8_t;

#define NPF_POINT_BEGIN(Type, field, key, styles) enum class Type : uint8_t {
#define NPF_FORM(Type, Enumerator, name) Enumerator,
#define NPF_POINT_END(Type)                                                                        \
  }                                                                                                \
  ;
#include "backend/mlir/LoweringPlan.def"

#define NPF_POINT_BEGIN(Type, field, key, styles) std::string_view formName(Type form);
#include "backend/mlir/LoweringPlan.def"

struct LoweringPlan {
#define NPF_POINT_BEGIN(Type, field, key, styles) Type field = Type(0);
#include "backend/mlir/LoweringPlan.def"

  /// The canonical plan: the first form of every point.
  static LoweringPlan canonical() { return LoweringPlan(); }
  /// The plan a lowering seed draws: each point's form uniformly.
  static LoweringPlan draw(uint64_t loweringSeed);

  /// `index=floordivsi loops=scf.while ...`: the points `style` has.
  std::string str(MlirStyle style) const;
};

/// The lowering seed of the case generated from `caseSeed`: a campaign
/// lowers each case with its own plan, and `npufuzz --seed N` draws the same.
uint64_t loweringSeedOf(uint64_t caseSeed);

} // namespace npufuzz

#endif // NPUFUZZ_BACKEND_MLIR_LOWERINGPLAN_H
