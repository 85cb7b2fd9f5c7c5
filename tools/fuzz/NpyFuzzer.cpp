//===- tools/fuzz/NpyFuzzer.cpp - libFuzzer target: protocol outputs -----===//
//
// External toolchains hand their outputs back as .npy files; the reader must
// turn any bytes into a tensor or an error, never a crash. An accepted file
// re-encodes to bytes that decode to the same tensor.
//
//===----------------------------------------------------------------------===//
#include "ir/DType.h"
#include "ir/Npy.h"

#include <cstdlib>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  using namespace npufuzz;
  if (size == 0)
    return 0;
  // The first byte picks the dtype the protocol expects for this output.
  const DType dtype = static_cast<DType>(data[0] % kNumDTypes);
  const std::string bytes(reinterpret_cast<const char *>(data + 1), size - 1);
  RefTensor t;
  std::string error;
  if (!decodeNpy(bytes, dtype, t, error)) {
    if (error.empty())
      std::abort(); // a refusal must say why
    return 0;
  }
  RefTensor again;
  if (!decodeNpy(encodeNpy(t), dtype, again, error) || again.type != t.type || again.i != t.i ||
      again.f.size() != t.f.size())
    std::abort();
  return 0;
}
