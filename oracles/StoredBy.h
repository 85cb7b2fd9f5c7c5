//===- oracles/StoredBy.h - The code that computed a wrong element -*- C++ -*-===//
//
// A wrong value's signature names the op of the case it showed in, and,
// where the backend shows its kernels' data paths (DmaTrace::Dma::
// computedBy, PyTorchSim's), the kernel ops that computed the element: two
// lowering bugs of one op are two roots, and a bug of the DMAs around a
// right computation is not one of the computation's.
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_ORACLES_STOREDBY_H
#define NPUFUZZ_ORACLES_STOREDBY_H

#include "backend/DmaTrace.h"

#include <cstdint>
#include <set>
#include <string>
#include <vector>

namespace npufuzz {

/// What joins a signature's where and the kernel ops that computed the
/// element.
inline constexpr const char *kComputedBy = " computed by ";

/// What the last DMA that stored element `element` (row-major in its
/// shape) of the program's output `output` says computed it; empty when
/// no DMA of the trace stored it or the backend does not tell.
std::string storedElementComputedBy(const DmaTrace &trace, size_t output, int64_t element);

/// `where` with the kernel ops that computed the wrong element, as a
/// signature's where keeps them: `ne computed by arith.cmpf one f32`.
std::string withComputedBy(const std::string &where, const std::string &computedBy);

/// Whether the kernel ops a signature's `where` names (withComputedBy)
/// include each of `ops` (`arith.extsi i1>i8`; an op without its type or
/// predicate, `arith.cmpf one`, names it with any, and a conversion by its
/// source type, `arith.uitofp i32`, with any result).
bool computedWith(const std::string &where, const std::vector<std::string> &ops);

/// A known list's `VERDICT computed-by OP, OP` line names a root by the
/// kernel ops on its wrong element's data path; a known set keeps it as
/// "computed-by VERDICT OP, OP" (driver/Report.h).
inline constexpr const char *kComputedByWord = "computed-by";

/// The ops of a `computed-by` line's rest (`arith.extsi i1>i8, arith.cmpf
/// one`): split at ", ", each op's words single-spaced; empty when an op is
/// empty or holds a comma.
std::vector<std::string> opsOfLine(const std::string &text);

/// Whether a wrong value is known by the kernel ops that computed it: a
/// `computed-by` entry of `known` of its verdict whose ops are all on its
/// data path (computedWith), the mechanism of a root such as a bool
/// widened by `arith.extsi i1>i8`, whatever op of the case showed it.
bool knownByComputation(const std::string &signatureText, const std::set<std::string> &known);

/// Whether a finding is known without reducing it: `known` lists its
/// signature id alone, or the kernel ops of its root's mechanism
/// (knownByComputation). A line qualified by a skeleton or a pattern needs
/// the reduced case.
bool knownUnreduced(const std::string &id, const std::string &signatureText,
                    const std::set<std::string> &known);

} // namespace npufuzz

#endif // NPUFUZZ_ORACLES_STOREDBY_H
