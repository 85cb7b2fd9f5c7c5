//===- driver/Feedback.h - What a case reached, as keys ---------*- C++ -*-===//
//
// The feedback a guided campaign steers by, all of it read without
// instrumenting the compiler: the forms and op-to-op edges of the IR each
// user pass was given (backend/mlir/IrFeedback.h), which passes changed
// it, what passes warned (numbers dropped), and the case's own features
// and their pairs (valid shapes, edge-value fills, views, ranks, masks that
// end inside their buffer: generators/Features.h); and, where the adapter
// measures it, every line and branch of the compiler's own code the case
// reached (driver/CompilerCoverage.h). A case that brings a key no earlier
// case had reached something new.
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_DRIVER_FEEDBACK_H
#define NPUFUZZ_DRIVER_FEEDBACK_H

#include "backend/BackendRun.h"
#include "driver/CompilerCoverage.h"
#include "ir/Case.h"

#include <cstdint>
#include <vector>

namespace npufuzz {

/// The feedback keys of `c`'s run `run`, and of the compiler's lines and
/// branches it reached (`coverage`), sorted and distinct.
std::vector<uint32_t> caseFeedback(const Case &c, const BackendRun &run,
                                   const CaseCoverage &coverage);

} // namespace npufuzz

#endif // NPUFUZZ_DRIVER_FEEDBACK_H
