//===- generators/Features.h - Coverage tags of a case ----------*- C++ -*-===//
//
// A case's features are short tags (`op:matmul`, `dtype:bf16`, `rank:5`,
// `view:index_map`, `index:mod`, `valid:dynamic`, `round:rna`, `pad:max`,
// `pattern:swiglu`, ...). Property tests classify by them and campaign
// reports count them, so coverage is stated in one vocabulary.
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_GENERATORS_FEATURES_H
#define NPUFUZZ_GENERATORS_FEATURES_H

#include "ir/Case.h"

#include <string>
#include <vector>

namespace npufuzz {

/// Sorted, deduplicated feature tags of `c`. Tag families:
///   op:NAME, dtype:NAME, rank:N, view:NAME, fill:NAME, round:NAME, pad:NAME,
///   matmul:OPERAND->ACC, index:floordiv, index:mod, index:negative (a
///   negative constant or factor), valid:static, valid:dynamic,
///   dim:tail (a dim above the lane width of 16 that is not a multiple of
///   it), dim:unit (a size-1 dim in a rank >= 3 value), gather:FROM (what
///   produced the indices), pattern:NAME (see PatternKind),
///   view:reshape_of_strided (reshapesANonContiguousView).
std::vector<std::string> caseFeatures(const Case &c);

/// Whether `c` holds a reshape of a value that is not its source's elements
/// in row-major order without gaps: a transpose that moves a dim, a slice
/// that skips elements, a chunk off the leading axis, a broadcast, an index
/// map, or a reshape, squeeze or unsqueeze of one of those. There a
/// compiler's index arithmetic needs floor and mod.
bool reshapesANonContiguousView(const Case &c);

} // namespace npufuzz

#endif // NPUFUZZ_GENERATORS_FEATURES_H
