//===- tests/oracles/TraceBuilders.h - Kernel trace events by hand -*- C++ -*-===//
//
// The trace events the trace oracles' tests write out by hand
// (backend/KernelTrace.h).
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_TESTS_ORACLES_TRACEBUILDERS_H
#define NPUFUZZ_TESTS_ORACLES_TRACEBUILDERS_H

#include "backend/KernelTrace.h"

#include <string>
#include <utility>
#include <vector>

namespace npufuzz::test {

/// An instruction on `pipe` with its accesses, at `line` of its kernel.
inline TraceEvent instr(const std::string &name, Pipe pipe, std::vector<MemoryAccess> accesses,
                        int line = 0) {
  TraceEvent e;
  e.name = name;
  e.pipe = pipe;
  e.accesses = std::move(accesses);
  e.line = line;
  return e;
}

} // namespace npufuzz::test

#endif // NPUFUZZ_TESTS_ORACLES_TRACEBUILDERS_H
