//===- backend/pto/SimplerBackend.h - ptoas's kernels on simpler's runtime -*- C++ -*-===//
//
// --backend simpler: a case's kernels through ptoas, as --backend pto makes
// them, run as tasks of simpler's runtime on its a2a3sim platform (the
// user's simpler, found as Toolchains.def's "simpler": a Python that
// imports it). SimplerSources.h writes the task wrappers, the
// orchestration and simpler.json; tools/adapters/simpler_run.py builds them
// with simpler's own KernelCompiler, runs them through its Worker and
// writes the outputs back. simpler's sim models no data cache and records
// no GM access, so this backend has no trace: the cache-coherency and race
// oracles stay with --backend pto's harness, and this one checks values.
//
// How a run ends:
//   ptoas rejects the kernel or dies       as --backend pto (compile-error,
//                                          crashed)
//   simpler's compiler rejects a task      contract-gap: ptoas's C++ and
//                                          simpler's pinned pto-isa disagree
//   the adapter cannot run at all          environment (its message)
//   the runtime raises                     runtime-error
//   the simulator dies                     crashed
//   it exits 0                             the outputs, compared
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_BACKEND_PTO_SIMPLERBACKEND_H
#define NPUFUZZ_BACKEND_PTO_SIMPLERBACKEND_H

#include "backend/BackendRun.h"
#include "backend/pto/PtoBackend.h"
#include "ir/Case.h"
#include "ir/TensorData.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace npufuzz {

/// The adapter --backend simpler runs: $NPUFUZZ_SIMPLER_ADAPTER, else the
/// source tree's tools/adapters/simpler_run.py.
std::string defaultSimplerAdapter();

/// What the backend needs besides ptoas and simpler's Python, which
/// setUpSimplerToolchain (backend/toolchains) finds: the adapter. False
/// with what to do otherwise.
bool checkSimplerToolchain(const PtoToolchain &t, std::string &error);

/// Runs `c` with `inputs` (in input-op order) on simpler; outputs, and the
/// GM tensors between tasks, start as `poison`-filled buffers.
BackendRun runSimpler(const PtoToolchain &t, const Case &c, const std::vector<TensorData> &inputs,
                      uint32_t poison);

/// What a finding keeps: ptoPrograms, and the sources simpler runs.
std::map<std::string, std::string> simplerPrograms(const PtoToolchain &t, const Case &c);

} // namespace npufuzz

#endif // NPUFUZZ_BACKEND_PTO_SIMPLERBACKEND_H
