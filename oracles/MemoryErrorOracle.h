//===- oracles/MemoryErrorOracle.h - Memory errors named and blamed -*- C++ -*-===//
//
// A kernel that reads or writes outside its buffers shows as a wrong value,
// one that depends on the poison (a read of a redzone), a changed redzone,
// or a crash. Whichever it showed as, a bounds-checked run of the case
// (JitOptions::boundsCheck) names the first access outside its memref:
// the verdict becomes `out-of-bounds-read` or `-write`, named by the
// access's op, and is blamed on the first pass after which a bounds-checked
// run stops at one. A changed redzone no check names, and a write outside
// an output's valid region, are blamed on the first pass after which the
// case does the same.
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_ORACLES_MEMORYERRORORACLE_H
#define NPUFUZZ_ORACLES_MEMORYERRORORACLE_H

#include "oracles/Oracle.h"

#include <optional>
#include <string>

namespace npufuzz {

/// What naming a memory error found.
struct MemoryErrorBlame {
  VerdictKind verdict = VerdictKind::Ok; ///< Ok: nothing named
  std::string where;                     ///< the access's op
  std::string summary;                   ///< the access, its index and bounds
  std::string passName;                  ///< empty: the tail alone, or no prefix
  int passIndex = -1;

  /// What it names, in `v`: an out-of-bounds verdict with its access
  /// (the run's own summary kept after it), and the pass. Nothing when it
  /// named nothing.
  void applyTo(CaseVerdict &v) const;

  /// As JSON text, to come back from the child it was found in; text that
  /// is not such JSON reads as nothing named.
  std::string toJson() const;
  static MemoryErrorBlame fromJson(const std::string &text);
};

/// Runs `c` bounds-checked under `config`; when an access leaves its memref,
/// also each prefix of `pipeline`'s passes, for the first after which one
/// does. In this process: callers isolate it.
MemoryErrorBlame nameOutOfBounds(const Case &c, MlirJit &jit, const RunConfig &config,
                                 const Pipeline &pipeline);

/// The first prefix of `pipeline`'s passes under which `c` gets `verdict`:
/// its last pass's name and pipeline element, in `blame`. In this process.
void blameFirstPassWith(const Case &c, MlirJit &jit, const RunConfig &config,
                        const Pipeline &pipeline, VerdictKind verdict, MemoryErrorBlame &blame);

/// Whether `v` is out-of-bounds-read or -write.
bool isOutOfBounds(VerdictKind v);

/// Whether a case judged `v` may be a memory error a bounds-checked run can
/// name.
bool mayBeOutOfBounds(VerdictKind v);

class MemoryErrorOracle : public Oracle {
public:
  const char *name() const override { return "memory-error"; }
  void check(OracleContext &ctx, CaseVerdict &verdict) const override;
};

} // namespace npufuzz

#endif // NPUFUZZ_ORACLES_MEMORYERRORORACLE_H
