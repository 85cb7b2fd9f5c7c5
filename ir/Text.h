//===- ir/Text.h - The .npf text format -------------------------*- C++ -*-===//
//
// Human-readable, versioned text of a case. Example:
//
//   npufuzz-case 1
//   generator seed=7 policy="default"
//   data seed=7 edge_rate=0.05
//   %0 = input {fill=rand} : f32[16,256]
//   %1 = input {fill=range(0,7)} : i64[16,1]
//   %2 = row_expand_mul %0, %1 : f32[16,256]
//   return %2
//
// print(parse(text)) == text for printed text, and parse(print(c)) == c.
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_IR_TEXT_H
#define NPUFUZZ_IR_TEXT_H

#include "ir/Case.h"

#include <string>

namespace npufuzz {

std::string printCase(const Case &c);

/// A parse or verification error with a 1-based position in the text.
struct TextError {
  int line = 0;
  int col = 0;
  std::string message;
  /// `file:line:col: message`.
  std::string format(const std::string &file) const;
};

/// Parses and verifies a case. Never throws or aborts on any input.
bool parseCase(const std::string &text, Case &out, TextError &error);

/// Reads and parses a file; I/O errors are reported at line 0. The file's
/// text goes to `text` when given (its comments, e.g. an expect line).
bool parseCaseFile(const std::string &path, Case &out, TextError &error,
                   std::string *text = nullptr);

} // namespace npufuzz

#endif // NPUFUZZ_IR_TEXT_H
