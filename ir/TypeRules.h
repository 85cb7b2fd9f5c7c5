//===- ir/TypeRules.h - Shared checks of the typing rules -------*- C++ -*-===//
//
// Internal to ir/: the shape and axis checks that the typing rules of ops and
// of views share.
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_IR_TYPERULES_H
#define NPUFUZZ_IR_TYPERULES_H

#include "ir/Case.h"

#include <string>
#include <vector>

namespace npufuzz {

/// `[2,3]`.
std::string shapeStr(const std::vector<int64_t> &s);
/// Checks rank and per-dim limits of a shape a result would get.
bool checkShape(const std::vector<int64_t> &shape, std::string &error);
bool checkAxis(int64_t axis, unsigned rank, std::string &error);
/// The result type of a view op applied to `src`.
bool inferView(const Case &c, const Op &op, const TensorType &src, TensorType &r,
               std::string &error);

/// The result types of a workload op (concat, pad, reduce_mean, conv2d,
/// avg_pool2d, max_pool2d) of operand types `in` (ir/WorkloadTypes.cpp).
bool inferWorkload(const Op &op, const std::vector<const TensorType *> &in,
                   std::vector<TensorType> &types, std::string &error);

} // namespace npufuzz

#endif // NPUFUZZ_IR_TYPERULES_H
