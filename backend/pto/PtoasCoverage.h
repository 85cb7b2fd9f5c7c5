//===- backend/pto/PtoasCoverage.h - The lines and branches ptoas reached -*- C++ -*-===//
//
// ptoas's own coverage, for `npufuzz fuzz --backend pto|simpler`
// (docs/compiler-coverage.md#ptoas). A ptoas built with clang's
// source-based coverage (-fprofile-instr-generate -fcoverage-mapping,
// docs/toolchains.md#ptoas-with-coverage) writes a raw profile when it
// exits, to the file its LLVM_PROFILE_FILE names. Every ptoas run gets one
// in its own directory, so that an instrumented ptoas never leaves
// default.profraw where npufuzz was started. When the compiler's coverage
// is asked for (NPUFUZZ_COMPILER_COVERAGE=on, as the Python adapters read
// it), profiles are turned into the lines and branches of ptoas's sources
// with llvm-profdata and llvm-cov, in the format the adapters write
// (tools/adapters/compiler_coverage.py), which the driver reads
// (driver/CompilerCoverage.h). A campaign reads its cases' profiles many
// at a time.
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_BACKEND_PTO_PTOASCOVERAGE_H
#define NPUFUZZ_BACKEND_PTO_PTOASCOVERAGE_H

#include <string>
#include <utility>
#include <vector>

namespace npufuzz {

/// The variable an instrumented ptoas run in `dir` is given, and the
/// profile it writes there.
std::pair<std::string, std::string> ptoasProfileVariable(const std::string &dir);
std::string ptoasProfileFile(const std::string &dir);

/// Where a campaign keeps its ptoas runs' profiles until it reads them:
/// under its directory for batches (PtoToolchain::batchDir).
std::string ptoasProfilesDir(const std::string &batchDir);

/// After a ptoas run in `dir` that exited, when the compiler's coverage is
/// asked for: what its case reports. `{"off": why}` when ptoas wrote no
/// profile (it is not instrumented). With `profilesDir` (a campaign's),
/// the profile is moved there, to be read with many others
/// (readPtoasProfiles), and the case reports coverage measured and nothing
/// of its own: a read costs about 1.3 s for one profile and 2.5 s for 64,
/// since llvm-cov reads ptoas's whole coverage mapping each time, against
/// about 0.6 s for a case. Without it, the profile is read now.
std::string takePtoasProfile(const std::string &ptoas, const std::string &dir,
                             const std::string &profilesDir, unsigned timeoutSeconds);

/// Reads every profile in `profilesDir` (and those a killed read left
/// beside it) at once, and removes them: what
/// they reached that this process had not reported before, as the
/// adapters' JSON text; empty when there were none; `{"off": why}` when
/// they cannot be read, and then they wait for the next read. One read at
/// a time.
std::string readPtoasProfiles(const std::string &ptoas, const std::string &profilesDir,
                              unsigned timeoutSeconds);

/// What the runs of `profiles` reached together, as readPtoasProfiles
/// says it; `workDir` takes the LLVM tools' files, `timeoutSeconds` limits
/// each.
std::string ptoasCoverage(const std::string &ptoas, const std::vector<std::string> &profiles,
                          const std::string &workDir, unsigned timeoutSeconds);

/// Sums the counters of raw profiles of one instrumented binary into `out`,
/// which llvm-profdata then reads as one run (0.4 s a file less); false,
/// with nothing written, when they are not of one binary or not LLVM's raw
/// format version 10 (then each is read).
bool sumRawProfiles(const std::vector<std::string> &files, const std::string &out);

} // namespace npufuzz

#endif // NPUFUZZ_BACKEND_PTO_PTOASCOVERAGE_H
