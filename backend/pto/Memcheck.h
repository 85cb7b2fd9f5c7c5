//===- backend/pto/Memcheck.h - valgrind memcheck's verdict on a kernel -*- C++ -*-===//
//
// A share of pto kernels runs under valgrind memcheck: seed 002's class, a
// tile whose valid shape is read before it is set, often gives right
// answers in the CPU simulator and garbage on silicon.
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_BACKEND_PTO_MEMCHECK_H
#define NPUFUZZ_BACKEND_PTO_MEMCHECK_H

#include <string>
#include <vector>

namespace npufuzz {

/// memcheck stops at the first error with this exit status; a harness
/// never exits with it (it returns 0 or 2).
constexpr int kMemcheckErrorStatus = 86;

/// The command prefix that runs a program under memcheck.
std::vector<std::string> memcheckCommand(const std::string &valgrind);

/// memcheck's first error as one line: what it is, the PTO instruction the
/// kernel was in (the frame npf_kernel called, often the inlined `TADD`,
/// template arguments dropped), and the line of kernel.cpp, e.g.
/// "memcheck: Conditional jump or move depends on uninitialised value(s) in
/// TADD, reached from kernel.cpp:24".
std::string memcheckHeadline(const std::string &stderrText);

} // namespace npufuzz

#endif // NPUFUZZ_BACKEND_PTO_MEMCHECK_H
