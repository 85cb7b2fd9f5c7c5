//===- reference/InputData.h - Deterministic input data ---------*- C++ -*-===//
//
// The data of a case's inputs derive only from the case: its data seed, edge
// rate, each input's ordinal and fill. Backends and the reference therefore
// see the same inputs for the same case text.
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_REFERENCE_INPUTDATA_H
#define NPUFUZZ_REFERENCE_INPUTDATA_H

#include "ir/Case.h"
#include "ir/RefTensor.h"

#include <vector>

namespace npufuzz {

/// One tensor per input op, in op order. Input ordinal k draws from
/// Prng::stream(c.dataSeed, k), element by element in row-major order.
/// Elements outside an input's valid shape get data too (so the data do not
/// depend on the valid shape) but are undefined.
///
/// Random fill, per element: one draw decides (c.edgeRate) whether the
/// element is an edge value, then one or more draws pick the value.
///   floats: uniform in [-4, 4] rounded (rne) to the dtype; edge values are
///           +0, -0, the smallest and largest subnormals, the smallest
///           normal, +-2^-10, +-max finite and +-max/2 of the dtype. inf and
///           NaN are never produced: they would make most results NaN.
///   i8/i32/i64: uniform in [-8, 8]; edges MIN, MAX, -1.
///   index:  uniform in [0, 8]; edges MIN, MAX, -1.
///   i1:     0 or 1 (no edges).
/// Range(lo, hi) draws uniform integers in [min(lo,hi), max(lo,hi)]. Range,
/// Iota and Ones values are rounded (rne) to float dtypes and wrapped to
/// integer-like ones (i1: low bit).
///
/// Then inputs are related to the ops that read them, each op from
/// Prng::stream(c.dataSeed, 2^40 + the op's index) (a dividend from
/// 2^41 + the op's index). Integer divisions
/// (isIntegerDivision): a random divisor's elements, or those of the random
/// input it is a view, cast, neg or abs of, are a quarter 1 or -1 (at least
/// one of each), a quarter of its zeros a small non-zero value;
/// half of a random dividend's elements become, for their divisor y (an
/// input's, or a computed divisor's as the reference computes it from the
/// inputs so far, in IEEE arithmetic whatever the process's setting) and
/// q in [1, 4], -y*q (exact, mixed signs: half of them), y*q (exact), or a
/// value of the other sign than y that leaves a remainder, each only where
/// the dtype holds it and |y| <= 1024.
/// Ties: where both operands of max, min or a compare are random inputs, a
/// quarter of the first's elements take the second's; where topk's,
/// argmax's, reduce_max's or reduce_min's operand is, a quarter of its
/// elements take their neighbour's along the axis. A gather's range-filled
/// indices are an eighth of them at the ends of the range.
std::vector<RefTensor> makeInputs(const Case &c);

/// The element of binary op `op`'s second operand that result element k
/// (of `result`) reads: k, or for row_expand_* (x[R,C], s[R,1]) its row and
/// for col_expand_* (s[1,C]) its column.
int64_t secondOperandElement(const Op &op, const TensorType &result, int64_t k);

/// Whether `op` is div, row_expand_div or col_expand_div of integers:
/// floor division, whose operands makeInputs relates.
bool isIntegerDivision(const Case &c, const Op &op);

/// The edge values of float dtype `t` that random fills draw (listed above).
std::vector<float> floatEdgeValues(DType t);

} // namespace npufuzz

#endif // NPUFUZZ_REFERENCE_INPUTDATA_H
