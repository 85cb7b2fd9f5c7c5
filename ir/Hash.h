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
#include <string>
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

/// 16 lowercase hex digits of `h`: how ids print a hash.
inline std::string hex16(uint64_t h) {
  static const char *digits = "0123456789abcdef";
  std::string hex;
  for (int i = 15; i >= 0; --i)
    hex += digits[(h >> (4 * i)) & 15];
  return hex;
}

} // namespace npufuzz

#endif // NPUFUZZ_IR_HASH_H
