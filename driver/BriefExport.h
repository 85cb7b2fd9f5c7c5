//===- driver/BriefExport.h - A finding in the few lines a maintainer reads -*- C++ -*-===//
//
// `npufuzz export --as torch|tvm` writes what a compiler's tracker takes: the
// case's program, its inputs written out (small ones as literals, larger
// ones as one embedded array), the compiled call beside torch eager, one
// comparison with the tolerance the compiler promises, the versions
// printed, exit 1 when they differ. It judges against eager, not against
// npufuzz's reference: what eager itself cannot decide (an order of ties, a
// value eager computes otherwise) is the checking harness's job
// (`--as torch-harness|tvm-harness`, driver/Export.h).
//
// The tolerance: an integer, or any value under Inductor's strict
// pointwise numerics, bit for bit; a float otherwise within
// torch.testing.assert_close's default tolerance for its dtype (what
// Inductor's own tests accept of its default numerics, low-precision
// casts elided). A finding that differs only in the sign of a zero
// compares signs too.
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_DRIVER_BRIEFEXPORT_H
#define NPUFUZZ_DRIVER_BRIEFEXPORT_H

#include "driver/Export.h"

#include <string>

namespace npufuzz {

/// The brief script of the verified case `c` as `form` (torch or tvm), run
/// as `how` says; false with the reason when the case has no PyTorch
/// program or the reference cannot make its inputs.
bool briefScript(const Case &c, const Expectation &how, ExportForm form, const ExportSource &source,
                 std::string &out, std::string &error);

} // namespace npufuzz

#endif // NPUFUZZ_DRIVER_BRIEFEXPORT_H
