//===- driver/BriefExport.h - A finding in the few lines a maintainer reads -*- C++ -*-===//
//
// `npufuzz export --as torch|tvm|iree` writes what a compiler's tracker
// takes: the case's program (for IREE its tensor kernel and iree-compile's
// flags), its inputs written out (small ones as literals, larger ones as
// one embedded array), the compiled call beside torch eager (for IREE,
// which has no eager, beside the expected values, npufuzz's reference),
// one comparison with the tolerance the compiler promises, the versions
// printed, exit 1 when they differ. What eager itself cannot decide (an
// order of ties, a value eager computes otherwise) is the checking
// harness's job (`--as torch-harness|tvm-harness|iree-harness`,
// driver/Export.h).
//
// The tolerance: an integer, or a float the exactness model calls exact
// under the compiler's freedoms (Inductor's strict pointwise numerics
// included), bit for bit (for IREE, a subnormal and the zero of its sign
// are one value: its runtime flushes); any other float within
// torch.testing.assert_close's default tolerance for its dtype. Two zeros
// of other signs differ either way.
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_DRIVER_BRIEFEXPORT_H
#define NPUFUZZ_DRIVER_BRIEFEXPORT_H

#include "backend/CompilerSwitches.h"
#include "driver/Export.h"

#include <string>
#include <vector>

namespace npufuzz {

/// The switches a brief leaves at the compiler's own default: no flag, no
/// disabled pass, no config key of theirs is written. A report leaves out
/// each one the bug does not need (driver/IssueReport.h).
using OmittedSwitches = std::vector<CompilerSwitch>;

/// The brief script of the verified case `c` as `form` (torch or tvm), run
/// as `how` says; false with the reason when the case has no PyTorch
/// program or the reference cannot make its inputs.
bool briefScript(const Case &c, const Expectation &how, ExportForm form, std::string &out,
                 std::string &error, const OmittedSwitches &omitted = {});

/// The brief IREE script of the verified case `c`: its tensor kernel,
/// iree-compile's flags the finding ran with, the inputs and the expected
/// outputs written out (npufuzz's reference on a CPU that flushes
/// subnormals, as IREE's runtime does: IREE has no eager to compare with),
/// the compiled call, one comparison; false with the reason when the case
/// has no tensor kernel.
bool briefIreeScript(const Case &c, const Expectation &how, std::string &out, std::string &error,
                     const OmittedSwitches &omitted = {});

} // namespace npufuzz

#endif // NPUFUZZ_DRIVER_BRIEFEXPORT_H
