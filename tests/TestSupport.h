//===- tests/TestSupport.h - Helpers shared by the test binaries -*- C++ -*-===//
#ifndef NPUFUZZ_TESTS_TESTSUPPORT_H
#define NPUFUZZ_TESTS_TESTSUPPORT_H

#include "ir/Text.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

namespace npufuzz::testing {

/// The source tree (CTest sets NPUFUZZ_SOURCE_DIR).
inline std::string sourceDir() {
  const char *dir = std::getenv("NPUFUZZ_SOURCE_DIR");
  return dir ? dir : ".";
}

/// The `.npf` files of a corpus folder (e.g. "corpus/seeds"), sorted.
inline std::vector<std::string> corpusFiles(const std::string &folder) {
  std::vector<std::string> files;
  for (const auto &e : std::filesystem::directory_iterator(sourceDir() + "/" + folder))
    if (e.path().extension() == ".npf")
      files.push_back(e.path().string());
  std::sort(files.begin(), files.end());
  return files;
}

/// Parses case text, failing the test with the located error if it does not
/// parse.
inline Case parseOrFail(const std::string &text) {
  Case c;
  TextError error;
  EXPECT_TRUE(parseCase(text, c, error)) << error.format("case");
  return c;
}

/// Reduced from 30 signatures of one root cause: convert-vector-to-llvm
/// stores a vector<16xi1> bit-packed (2 bytes) into a byte-per-element
/// memref<17xi1>, whose other bytes keep a temporary's fill.
/// kExposingPasses (super-vectorize and unroll) only make the store
/// in-bounds.
inline const char *const kI1Store = R"(npufuzz-case 1
generator seed=1 policy="default"
data seed=1 edge_rate=0
%0 = input {fill=zeros} : f32[1,17]
%1 = ne %0, %0 : i1[1,17]
return %1
)";
inline const char *const kExposingPasses =
    "func.func(affine-super-vectorize{virtual-vector-size=16}),"
    "func.func(affine-loop-unroll{unroll-factor=2})";

} // namespace npufuzz::testing

#endif // NPUFUZZ_TESTS_TESTSUPPORT_H
