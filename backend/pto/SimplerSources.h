//===- backend/pto/SimplerSources.h - A case as simpler's task graph -*- C++ -*-===//
//
// simpler (hw-native-sys/simpler) is the runtime PyPTO's kernels run on: an
// orchestration function submits tasks, each an AICore kernel on a number
// of SPMD blocks, and the runtime orders them by the GM tensors they share
// (its tensormap). These are the sources that run a case's ptoas kernels on
// it, as --backend simpler does (SimplerBackend.h):
//
//   taskP.cpp          per task, simpler's `kernel_entry(args)`: it includes
//                      ptoas's kernel.cpp unchanged and calls the task's
//                      function (`npf_taskK`, or `npf_kernel` for a case
//                      that is one kernel) on its block, as npufuzz's own
//                      harness does (KernelHarness.h): the tiles store into
//                      the block's stage, and the block writes its share of
//                      each value it hands on into the value's GM tensor,
//                      with scalar stores flushed by dcci and dsb;
//   orchestration.cpp  `aicpu_orchestration_entry`: a task per task, in
//                      the order the harness would run them, each on its
//                      blocks (`launch_spec.set_block_num`);
//   simpler.json       what tools/adapters/simpler_run.py needs to build and
//                      run them: the GM tensors (argK.bin, or poison.bin's
//                      pattern), the tasks' signatures, what to write back.
//
// Every GM tensor is a byte tensor (UINT8): the kernels take pointers, and
// the element type is ptoas's to know.
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_BACKEND_PTO_SIMPLERSOURCES_H
#define NPUFUZZ_BACKEND_PTO_SIMPLERSOURCES_H

#include "backend/pto/KernelHarness.h"

#include <map>
#include <string>

namespace npufuzz {

/// simpler's AICore kernels take at most this many tensors
/// (CORE_MAX_TENSOR_ARGS in its task_interface/arg_direction.h).
constexpr size_t kSimplerMaxTaskTensors = 32;
/// Nor its orchestrations more than this many (CHIP_MAX_TENSOR_ARGS).
constexpr size_t kSimplerMaxChipTensors = 256;

/// File name to text, for a case whose kernel arguments are `b`. False,
/// with `reason`, when simpler cannot take the case.
bool simplerSources(const KernelBuffers &b, std::map<std::string, std::string> &files,
                    std::string &reason);

} // namespace npufuzz

#endif // NPUFUZZ_BACKEND_PTO_SIMPLERSOURCES_H
