//===- tools/fuzz/ParserFuzzer.cpp - libFuzzer target: the .npf parser ----===//
//
// Any bytes: parseCase must return (a case or a located error), never crash.
// An accepted case must verify and print to text that parses to the same
// text.
//
//===----------------------------------------------------------------------===//
#include "ir/Text.h"
#include "ir/Verifier.h"

#include <cstdio>
#include <cstdlib>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  using namespace npufuzz;
  Case c;
  TextError error;
  if (!parseCase(std::string(reinterpret_cast<const char *>(data), size), c, error)) {
    if (error.line < 1 || error.message.empty())
      std::abort(); // an error must say where and what
    return 0;
  }
  const std::string printed = printCase(c);
  Case again;
  if (!verifyCase(c).empty() || !parseCase(printed, again, error) || printCase(again) != printed) {
    std::fprintf(stderr, "round-trip failed for:\n%s", printed.c_str());
    std::abort();
  }
  return 0;
}
