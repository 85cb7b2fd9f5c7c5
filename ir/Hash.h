//===- ir/Hash.h - The one string hash of the project ----------*- C++ -*-===//
//
// 64-bit FNV-1a: case identities, signature ids, and choices that must be
// the same on every machine (which kernels memcheck watches) all hash text
// with it.
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_IR_HASH_H
#define NPUFUZZ_IR_HASH_H

#include <cstdint>
#include <string_view>

namespace npufuzz {

inline uint64_t fnv1a(std::string_view text) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (const unsigned char ch : text) {
    h ^= ch;
    h *= 0x100000001b3ull;
  }
  return h;
}

} // namespace npufuzz

#endif // NPUFUZZ_IR_HASH_H
