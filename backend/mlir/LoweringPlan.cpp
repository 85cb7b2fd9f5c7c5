//===- backend/mlir/LoweringPlan.cpp - Seeded lowering variants -----------===//
#include "backend/mlir/LoweringPlan.h"

#include "backend/mlir/MlirEmitter.h"
#include "ir/Prng.h"

#include <vector>

namespace npufuzz {

#define NPF_POINT_BEGIN(Type, field, key, styles)                                                  \
  std::string_view formName(Type form) {                                                           \
    switch (form) {
#define NPF_FORM(Type, Enumerator, name)                                                           \
  case Type::Enumerator: return name;
#define NPF_POINT_END(Type)                                                                        \
  }                                                                                                \
  return "?";                                                                                      \
  }
#include "backend/mlir/LoweringPlan.def"

LoweringPlan LoweringPlan::draw(uint64_t loweringSeed) {
  Prng rng(loweringSeed);
  LoweringPlan plan;
#define NPF_POINT_BEGIN(Type, field, key, styles) plan.field = static_cast<Type>(rng.below(0
#define NPF_FORM(Type, Enumerator, name) +1
#define NPF_POINT_END(Type) ));
#include "backend/mlir/LoweringPlan.def"
  return plan;
}

std::string LoweringPlan::str(MlirStyle style) const {
  const char letter = mlirStyleName(style)[0];
  std::vector<std::string> parts;
#define NPF_POINT_BEGIN(Type, field, key, styles)                                                  \
  if (std::string_view(styles).find(letter) != std::string_view::npos)                             \
    parts.push_back(std::string(key) + "=" + std::string(formName(field)));
#include "backend/mlir/LoweringPlan.def"
  std::string s;
  for (const std::string &p : parts)
    s += (s.empty() ? "" : " ") + p;
  return s;
}

uint64_t loweringSeedOf(uint64_t caseSeed) {
  // An independent stream of the case seed, as input data streams are.
  return Prng::stream(caseSeed, 0x6c6f776572ull /* "lower" */).next();
}

} // namespace npufuzz
