//===- oracles/OpBlame.h - The first op a black-box backend gets wrong -*- C++ -*-===//
//
// A failure names the op where it showed, which is often not the op that
// went wrong: a cast that overflows shows up as a wrong relu, max or add
// downstream, and a tile whose valid shape was never set as an assertion,
// a wrong value or an uninitialised read in whichever op reads it next. A
// toolchain npufuzz cannot bisect by passes (ptoas + pto-isa, torch, an
// external command) is run again on cut programs of the case, whose outputs
// are all their values:
//   - for a case that failed with a wrong value, the whole case so cut
//     (one run). When some output of the case is a wrong value there, of
//     the ops it depends on, those whose result differs from the reference
//     while their operands agree (or differ only in the sign of a zero, and
//     the result otherwise) are candidates; the one blamed has the output's
//     kind of difference (a -0 that a later op turns into a right 0
//     explains nothing), and is the nearest the output among those. On a
//     backend that runs externally, a result still holding the output fill
//     where the reference defines another value was never written: it is
//     undefined, not a wrong value. A backend that cannot hold every value
//     at once (PTO's 192 KiB vector buffer) is given, output by output, the
//     case cut to the ops that output depends on (every input kept, so
//     their data stay), until one shows a wrong value;
//   - otherwise, on a backend that runs externally, the prefixes of the
//     case, bisected by whether they fail other than by a wrong value (an
//     assertion, a crash, an output left unwritten, a write outside a
//     region): the first op whose prefix so fails, every prefix before it
//     running clean, is blamed, so a consumer that asserts on an input
//     already wrong blames the producer. Its result is undefined. (A wrong
//     value does not count there: a -0 of a known simulator quirk early in
//     the program explains no assertion after it. It does for a memory
//     error, which is caught wherever it is noticed and not where memory
//     was corrupted, and with one heap layout not at all: the prefix
//     through the op that corrupts shows it as a grossly wrong value (not
//     a zero's sign, a NaN or a rounding step), and the prefix before the
//     op blamed runs once more afresh.) A kind of op the
//     campaign's failures were already traced to (RunConfig::culpritOps)
//     picks the first cut: when the case's first op of that kind is the
//     one, two runs decide.
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_ORACLES_OPBLAME_H
#define NPUFUZZ_ORACLES_OPBLAME_H

#include "oracles/CaseRunner.h"

#include <cstdint>
#include <string>

namespace npufuzz {

/// The difference of a blamed op's result that is no wrong value: the
/// program's prefix up to it failed otherwise.
inline constexpr const char *kUndefinedResult = "undefined";

struct OpBlame {
  bool found = false;
  size_t opIndex = 0;
  std::string op;         ///< its kind (opName)
  std::string difference; ///< the kind of its first wrong element, or kUndefinedResult
  std::string detail;     ///< "%5 = cast ...: <first mismatch>"
  /// The kernel ops that computed its first wrong element, where the
  /// backend tells (oracles/StoredBy.h).
  std::string computedBy;
  unsigned runs = 0; ///< cut programs run
  /// Not found because, of the values the wrong output depends on, an
  /// input's copy differs: the loads or stores went wrong, whatever op
  /// also did.
  bool inputFirst = false;
};

/// How the case to blame failed: with a wrong value, by a memory error (a
/// segfault or glibc's heap check, caught wherever it was noticed), or
/// otherwise (an assertion, an uninitialised read, a write outside a
/// region).
enum class Symptom : uint8_t { WrongValue, MemoryError, Other };

/// Blames the op of `c`, which failed with `symptom`, that `config`'s
/// backend first gets wrong. On the wrong-value path, an op whose
/// signature is in `config.knownSignatures` is blamed only when no other op
/// can be. Not found when the cut programs do not run (the backend cannot
/// express them, or fails otherwise), when none fails, or when what first
/// goes wrong is an input (a load or store, not an op, to blame).
OpBlame blameOp(const Case &c, MlirJit &jit, const RunConfig &config,
                Symptom symptom = Symptom::WrongValue);

/// `c` returning every value its ops define, in order: what op blame runs
/// to see each op's result, and what a reduced finding runs to see whether
/// a later op only showed a failure an earlier one already had.
Case everyValueReturned(const Case &c);

/// The name a root cause gives the op of `opName` that went wrong with a
/// result of difference `difference`: a wrong value is its arithmetic
/// family (scalarFamily: tmul, trowexpandmul and tcolexpandmul multiply
/// alike); an undefined result is its shape form (row_expand_*,
/// col_expand_*, reduce_*, elementwise, view, or the op itself), since what
/// a toolchain gets wrong there is how the op's result tile is shaped, the
/// same whichever arithmetic the op applies.
std::string blamedOpName(const std::string &opName, const std::string &difference);

} // namespace npufuzz

#endif // NPUFUZZ_ORACLES_OPBLAME_H
