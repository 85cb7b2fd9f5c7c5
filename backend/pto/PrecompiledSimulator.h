//===- backend/pto/PrecompiledSimulator.h - pto-isa built once -*- C++ -*-===//
//
// Compiling a case's kernel against pto-isa's header-only CPU simulator is
// the cost of a pto case. What does not depend on the kernel is built once
// per toolchain and shared by every case and process:
//
//   prelude.h.pch   pto-inst.hpp precompiled, with the header's own inline
//                   functions and template instantiations compiled into it
//                   (-fpch-codegen, -fpch-instantiate-templates), so a case
//                   neither re-parses nor re-generates them
//   libpto-sim.so   that code, which each kernel links against
//
// A case then compiles only its kernel and harness: about half the time of
// a plain precompiled header (bench/PtoBench.cpp).
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_BACKEND_PTO_PRECOMPILEDSIMULATOR_H
#define NPUFUZZ_BACKEND_PTO_PRECOMPILEDSIMULATOR_H

#include <string>
#include <vector>

namespace npufuzz {

struct PtoToolchain;

struct PrecompiledSimulator {
  std::string header;  ///< the prelude.h.pch to pass with -include-pch
  std::string library; ///< libpto-sim.so, linked into every kernel
};

/// The flags every compile against pto-isa uses: its documented
/// CPU-simulation macros, C++20, position-independent code (the kernel
/// links a shared object), no optimisation (compiling is the cost of a case,
/// and line numbers stay exact for an assert or a memory checker).
std::vector<std::string> simulatorFlags(const PtoToolchain &t);

/// Finds or builds the precompiled simulator for `t` under `parent`
/// (a directory keyed by the compiler binary, pto-isa and the flags). Built
/// under temporary names and renamed into place, the header last, so that
/// concurrent processes never use a partial one.
bool precompiledSimulator(const PtoToolchain &t, const std::string &parent,
                          PrecompiledSimulator &out, std::string &error);

/// The command that compiles a case's harness (which includes kernel.cpp
/// from `kernelDir`) and links it into `binary`. For a memory checker, with
/// line tables for it to name lines (they cost about a tenth more) and the
/// kernel's uninitialised locals left for it to see; otherwise they hold a
/// pattern, the same in every run.
std::vector<std::string> kernelCompileCommand(const PtoToolchain &t,
                                              const PrecompiledSimulator &sim,
                                              const std::string &kernelDir,
                                              const std::string &harness, const std::string &binary,
                                              bool forMemcheck);

} // namespace npufuzz

#endif // NPUFUZZ_BACKEND_PTO_PRECOMPILEDSIMULATOR_H
