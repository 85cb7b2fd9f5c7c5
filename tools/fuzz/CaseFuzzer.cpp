//===- tools/fuzz/CaseFuzzer.cpp - libFuzzer target: cases ----------------===//
//
// Bytes decode to a valid case (generators/FuzzInput.h). Without MLIR
// (NPUFUZZ_FUZZ_COMPILER unset) the target checks the generator, text,
// reference and shrink invariants; with it, it also compiles the case at O0
// in process and compares with the reference. A violation prints the case as
// .npf on stderr and aborts, so libFuzzer keeps the input; `npufuzz
// from-bytes INPUT` turns it into the same .npf.
//
//===----------------------------------------------------------------------===//
#include "generators/FuzzInput.h"
#include "generators/Shrinks.h"
#include "ir/Text.h"
#include "ir/Verifier.h"
#include "reference/Executor.h"

#ifdef NPUFUZZ_FUZZ_COMPILER
#include "oracles/CaseRunner.h"
#endif

#include <cstdio>
#include <cstdlib>

namespace {
[[noreturn]] void violation(const npufuzz::Case &c, const std::string &what) {
  std::fprintf(stderr, "npufuzz case fuzzer: %s\n%s", what.c_str(), npufuzz::printCase(c).c_str());
  std::abort();
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  using namespace npufuzz;
  const Case c = caseFromBytes(data, size);
  if (const std::string problem = verifyCase(c); !problem.empty())
    violation(c, "generated case does not verify: " + problem);
  const std::string text = printCase(c);
  Case reparsed;
  TextError error;
  if (!parseCase(text, reparsed, error) || printCase(reparsed) != text)
    violation(c, "text does not round-trip");
  const RefRun ref = runReference(c);
  if (!ref.ok())
    violation(c, "reference failed: " + ref.error);
  const uint64_t size0 = caseSize(c);
  for (const Case &s : shrinkCandidates(c))
    if (!verifyCase(s).empty() || caseSize(s) >= size0)
      violation(s, "shrink candidate invalid or not smaller");
#ifdef NPUFUZZ_FUZZ_COMPILER
  static MlirJit jit;
  const CaseOutcome out = runCase(c, jit, RunConfig());
  if (out.verdict != VerdictKind::Ok && out.verdict != VerdictKind::Unsupported)
    violation(c, std::string(verdictName(out.verdict)) + ": " + out.summary);
#endif
  return 0;
}
