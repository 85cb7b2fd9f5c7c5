//===- generators/FuzzInput.h - Cases from fuzzer bytes --------*- C++ -*-===//
//
// Coverage-guided fuzzers (libFuzzer, AFL++) mutate bytes; this decodes any
// byte string into a valid case: the first bytes pick the generation seed,
// the next ones nudge the policy (op count, rank, pattern and valid-shape
// rates). Every input decodes; the case records the seed and policy, so a
// crashing input converts to an ordinary .npf repro.
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_GENERATORS_FUZZINPUT_H
#define NPUFUZZ_GENERATORS_FUZZINPUT_H

#include "ir/Case.h"

#include <cstddef>
#include <cstdint>

namespace npufuzz {

Case caseFromBytes(const uint8_t *data, size_t size);

} // namespace npufuzz

#endif // NPUFUZZ_GENERATORS_FUZZINPUT_H
