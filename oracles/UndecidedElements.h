//===- oracles/UndecidedElements.h - Elements a compiler's freedom decides -*- C++ -*-===//
//
// Some compilers document a freedom that decides particular elements of
// a case's outputs otherwise than the case's semantics: a signed overflow
// TVM's code generation leaves undefined (oracles/SignedOverflow.h), a
// float x - x TVM's simplifier folds to 0 whatever x holds, a subnormal
// IREE's code keeps where its runtime's environment would flush it. Such elements
// are left uncompared. Each freedom is found the same way: the reference
// evaluates the case again on the same inputs under the alternate the
// compiler may take, and an element that changes is one the freedom
// decides; one that does not (a select that took the other arm) is not.
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_ORACLES_UNDECIDEDELEMENTS_H
#define NPUFUZZ_ORACLES_UNDECIDEDELEMENTS_H

#include "ir/Case.h"
#include "oracles/Exactness.h"
#include "reference/Executor.h"

#include <cstdint>
#include <optional>

namespace npufuzz {

/// Makes undefined (not compared, holding 0) each defined element of
/// `ref`'s outputs that `other` (the same case under an alternate) does
/// not give bit for bit (any NaN matching any NaN; with
/// `subnormalIsItsZero`, a float subnormal or zero matching any other of
/// its sign, as the comparison has them where the reference flushes);
/// returns how many it did. An `other` that failed or does not match in
/// shape changes nothing.
int64_t undefineWhereTheyDiffer(RefRun &ref, const RefRun &other, bool subnormalIsItsZero = false);

/// `c` with every float x - x (a sub of one value from itself) a zero
/// constant of its type, what x - x gives for every finite x: the
/// alternate TVM's fold may take. None when `c` has no such sub.
std::optional<Case> withSelfSubtractionsFolded(const Case &c);

/// Makes undefined every element of `ref`'s outputs that a float x - x
/// (one value subtracted from itself) of an infinite or NaN x decides:
/// TVM's rewrite simplifier folds x - x to 0 for floats by design
/// (src/arith/rewrite_simplify.cc: "models should not encounter NaN in the
/// first place"; apache/tvm#11373), where IEEE gives NaN. `ref` must be a
/// successful run of `c`. TVM folds any two operands it finds structurally
/// equal after inlining (two equal negations of one value, say); only a
/// sub of one value from itself is covered here.
int64_t undefineWhatSelfSubtractionDecides(const Case &c, RefRun &ref);

/// Where the reference flushes subnormals (reference/Executor.h: IREE's
/// runtime sets FTZ and DAZ), makes undefined every element of `ref`'s
/// outputs that IEEE gradual underflow decides otherwise. The environment
/// reaches only the hardware's float arithmetic: a subnormal a select or
/// a move keeps, one a software conversion makes (bf16 casts are integer
/// code), one LLVM folds at compile time, stays a value to what reads it
/// (a cast to i1 of a kept 9e-41 is true, of a flushed one false).
/// Inputs hold none; a constant or an underflowing result may make one.
/// Elements that differ only as a subnormal against the zero of its sign
/// stay compared: the comparison takes either. Only the two whole
/// environments are evaluated: a compiler that mixes them op by op (folds
/// in IEEE, runs flushed) may reach an element both decide alike, which
/// stays compared; generated cases rarely read one subnormal both ways.
/// `ref` must be a successful run of `c`.
int64_t undefineWhatKeptSubnormalsDecide(const Case &c, RefRun &ref);

/// Every freedom of `model` that decides elements, applied to `ref`, and
/// where the reference flushes subnormals, what a kept one decides.
int64_t undefineWhatFreedomsDecide(const Case &c, RefRun &ref, const ExactnessModel &model);
/// Whether `model` has such a freedom, or the reference flushes subnormals.
bool freedomsDecideElements(const ExactnessModel &model);

} // namespace npufuzz

#endif // NPUFUZZ_ORACLES_UNDECIDEDELEMENTS_H
