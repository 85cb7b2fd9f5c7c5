//===- backend/pto/TraceShim.h - A PTO kernel that records its trace -*- C++ -*-===//
//
// Run-time tracing of ptoas's kernels on pto-isa's CPU simulator, whose
// sync calls are no-ops: C++ compiled between pto-isa's headers and the
// kernel that turns each traced t-op, set_flag, wait_flag and pipe_barrier
// into a call that records the event (backend/KernelTrace.h) and then
// runs pto-isa's own. Loops and runtime valid shapes count as they ran.
//
// Pipes are pto-isa's own table (pto/common/event.hpp, OpPipeEntry: the
// ISA manual's pipe of each instruction), chosen by the tiles' locations
// where an instruction has several (TSTORE from Vec is MTE3, from Acc FIX;
// TMOV Vec->Vec is V, Mat->Left MTE1, ...). An access is the covering byte
// range of a tile's valid region (its location's memory) or of a global
// tensor's shape and strides (GM). The first operand is written, the
// others read: pto-isa's instructions are destination first.
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_BACKEND_PTO_TRACESHIM_H
#define NPUFUZZ_BACKEND_PTO_TRACESHIM_H

#include <string>
#include <vector>

namespace npufuzz {

/// The C++ to put after pto-isa's headers and before the kernels. It
/// declares `::npf_trace::write(const char *dir)`, which writes
/// DIR/trace.txt.
const std::string &traceShim();

/// The part of the shim that does not depend on the kernel, behind its own
/// include guard: the simulator's precompiled header includes it, so a
/// kernel's compile neither parses nor instantiates it again.
const char *traceDefinitions();

/// T-op calls in `kernelCpp` the shim does not trace: names it has no row
/// for, and calls with explicit template arguments (`TLOAD<...>(`), which a
/// function-like macro cannot see. A kernel with any is not analysed.
std::vector<std::string> untracedOps(const std::string &kernelCpp);

} // namespace npufuzz

#endif // NPUFUZZ_BACKEND_PTO_TRACESHIM_H
