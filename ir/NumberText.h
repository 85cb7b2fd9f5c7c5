//===- ir/NumberText.h - Exact number <-> text ------------------*- C++ -*-===//
//
// Shortest round-trip text for floats (std::to_chars), so that printing and
// parsing a case preserves every bit, including -0, inf and NaN.
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_IR_NUMBERTEXT_H
#define NPUFUZZ_IR_NUMBERTEXT_H

#include <cstdint>
#include <string>
#include <string_view>

namespace npufuzz {

/// `1.5`, `-0`, `inf`, `-inf`, `nan` (NaN payloads are not preserved: every
/// NaN prints as `nan` and reads back as the default quiet NaN).
std::string floatToText(float v);
std::string doubleToText(double v);
bool textToFloat(std::string_view s, float &v);
bool textToDouble(std::string_view s, double &v);
/// Decimal integer with optional '-'; false on overflow or junk.
bool textToInt(std::string_view s, int64_t &v);
bool textToUInt(std::string_view s, uint64_t &v);

} // namespace npufuzz

#endif // NPUFUZZ_IR_NUMBERTEXT_H
