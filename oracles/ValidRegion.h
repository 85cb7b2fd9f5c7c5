//===- oracles/ValidRegion.h - Outputs keep what lies outside their valid shape -*- C++ -*-===//
//
// The valid-region contract (ir/Case.h): a kernel leaves the elements of an
// output outside its valid shape as they were. The harness fills every
// output before the run, so an element there that no longer holds the fill
// was written: an `out-of-region-write`.
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_ORACLES_VALIDREGION_H
#define NPUFUZZ_ORACLES_VALIDREGION_H

#include "ir/TensorData.h"

#include <cstdint>
#include <optional>
#include <string>

namespace npufuzz {

/// The first element of `output` outside its type's valid shape that does
/// not hold `fill` (the 32-bit pattern repeated from the buffer's start), as
/// `element [3, 17] outside valid 3x16 (2 written)`; nothing when the type
/// has no valid shape or every such element holds the fill.
std::optional<std::string> writeOutsideValidRegion(const TensorData &output, uint32_t fill);

/// Whether element `k` (row-major) of `t` holds `fill`, the 32-bit pattern
/// repeated from the buffer's start.
bool holdsFill(const TensorData &t, int64_t k, uint32_t fill);

} // namespace npufuzz

#endif // NPUFUZZ_ORACLES_VALIDREGION_H
