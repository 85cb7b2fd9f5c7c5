//===- oracles/DataSets.h - Input data for a function of any MLIR -*- C++ -*-===//
//
// verify-pipeline drives functions nobody generated, so one data set is not
// enough: a pass that turns maximumf into maxnumf or saturates a truncf is
// right on small random values and wrong on NaN or inf. The data sets:
//   first  small random values (seed `seed`);
//   then   edge sweeps, as many as the longest list of edge values among
//          the buffers' dtypes: element k of buffer b in sweep s is edge
//          value (s + k + 7b) mod n, so every element, a scalar's too, takes
//          every value. Floats: +-0, +-inf, NaN, +-1, +-2, +-0.5, +-2^-10,
//          the largest finite, smallest normal and subnormal magnitudes of
//          the dtype; integers: 0, +-1, the extremes of the width and their
//          neighbours, +-2^k;
//   last   random values with a third of the elements edge values.
// Index buffers hold small non-negative values in every set: they are
// sizes and subscripts, and an extreme one only makes every run fault.
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_ORACLES_DATASETS_H
#define NPUFUZZ_ORACLES_DATASETS_H

#include "ir/TensorData.h"

#include <cstdint>
#include <vector>

namespace npufuzz {

/// The data sets above, each with one buffer per type of `buffers`.
std::vector<std::vector<TensorData>> verificationDataSets(const std::vector<TensorType> &buffers,
                                                          uint64_t seed);

} // namespace npufuzz

#endif // NPUFUZZ_ORACLES_DATASETS_H
