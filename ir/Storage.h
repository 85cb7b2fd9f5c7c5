//===- ir/Storage.h - Reference tensors <-> memory layout -*- C++ -*-===//
//
// Converts between the reference's value form (floats, int64s, defined mask)
// and the bytes compiled kernels read and write (ir/TensorData.h).
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_IR_STORAGE_H
#define NPUFUZZ_IR_STORAGE_H

#include "ir/RefTensor.h"
#include "ir/TensorData.h"

namespace npufuzz {

/// The bytes of `t` (undefined elements are stored as their value, 0).
TensorData toTensorData(const RefTensor &t);
/// The bytes of each tensor (e.g. a reference run's inputs for a kernel).
std::vector<TensorData> toTensorData(const std::vector<RefTensor> &ts);
/// The values in `d`, all marked defined.
RefTensor fromTensorData(const TensorData &d);

} // namespace npufuzz

#endif // NPUFUZZ_IR_STORAGE_H
