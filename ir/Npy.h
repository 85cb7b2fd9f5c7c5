//===- ir/Npy.h - NumPy .npy files of reference tensors --*- C++ -*-===//
//
// Reads and writes the .npy format (version 1.0, little-endian, C order) so
// reference values, inputs and definedness masks can be inspected with numpy.
//
// Element encodings: f32 '<f4', f16 '<f2' (IEEE half bits), i8 '|i1',
// i32 '<i4', i64 and index '<i8', i1 '|b1'. numpy has no bfloat16, so bf16
// is written as '<f4' holding the (exactly representable) values; reading
// bf16 checks that every value is representable in bf16.
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_IR_NPY_H
#define NPUFUZZ_IR_NPY_H

#include "ir/RefTensor.h"

#include <string>

namespace npufuzz {

/// The .npy bytes of `t`'s element values (definedness is not included).
std::string encodeNpy(const RefTensor &t);
/// The .npy bytes of `t`'s definedness mask as '|b1' of `t`'s shape.
std::string encodeNpyMask(const RefTensor &t);

/// Parses .npy bytes as a tensor of `dtype`: the file's shape, no valid
/// shape, every element defined. Never crashes on malformed bytes: returns
/// false with a message instead.
bool decodeNpy(const std::string &bytes, DType dtype, RefTensor &out, std::string &error);
/// Parses a '|b1' mask into `t.defined`; its shape must be `t`'s shape.
bool decodeNpyMask(const std::string &bytes, RefTensor &t, std::string &error);

/// File versions of the above; I/O failures are reported in `error`.
bool writeNpy(const std::string &path, const RefTensor &t, std::string &error);
bool writeNpyMask(const std::string &path, const RefTensor &t, std::string &error);
bool readNpy(const std::string &path, DType dtype, RefTensor &out, std::string &error);
bool readNpyMask(const std::string &path, RefTensor &t, std::string &error);

} // namespace npufuzz

#endif // NPUFUZZ_IR_NPY_H
