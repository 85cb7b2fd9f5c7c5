//===- oracles/SumBound.h - How far a reordered float sum may stray -*- C++ -*-===//
//
// A float sum of n terms, added in any order (and its products fused or
// not), differs from the reference's left-to-right sum by at most about
// 2 n u sum|t_k|, u being f32's unit roundoff (2^-24): each partial sum
// rounds once, and an error of one rounding is at most u times what it
// rounds. The bound scales with the terms' magnitudes, not with the sum's
// own, so a sum that cancels is still compared, within what its terms
// allow (Exactness::Reordered). Where the terms' magnitudes add up past
// f32's largest value, some order may overflow: the bound is infinite.
// Terms a compiler reads unrounded from a narrow type
// (ExactnessModel::lowPrecisionHeldWide) each carry up to that type's unit
// roundoff of their own magnitude besides: the bound adds it.
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_ORACLES_SUMBOUND_H
#define NPUFUZZ_ORACLES_SUMBOUND_H

#include "ir/Case.h"
#include "ir/RefTensor.h"

#include <vector>

namespace npufuzz {

struct ExactnessModel;

/// The bound for each element of value `v` of `c`, a reduce_sum, matmul or
/// ReorderedSum op (reduce_mean, avg_pool2d, conv2d),
/// from the reference's `values` (every value of the case, by ValueId):
/// 2 n u sum|t_k| over its n terms, plus the terms' own error under
/// `model`.
std::vector<double> reorderedSumBound(const Case &c, const std::vector<RefTensor> &values,
                                      ValueId v, const ExactnessModel &model);

} // namespace npufuzz

#endif // NPUFUZZ_ORACLES_SUMBOUND_H
