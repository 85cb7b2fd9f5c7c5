//===- oracles/Exactness.h - How exactly a value can be compared -*- C++ -*-===//
//
// Which values a backend must reproduce bit for bit. IEEE basic operations
// (+ - * / sqrt, conversions, min/max, ...) are exactly rounded, so their
// results must match exactly. Transcendental functions may differ by a few
// ULP between the reference and a compiler's libm or polynomial, so values
// downstream of them are Approx. A discontinuous op (compare, float->int
// cast, argmax, topk indices, widening casts) applied to an Approx value
// can flip, a sum of many terms (reduce_sum, matmul) or of two terms that
// share an ancestor (x - silu(x)) can cancel and turn ULPs of input error
// into any relative error, and one singular at zero
// (sqrt, rsqrt, log, div) turns them into NaN or infinities; all make the
// result Unstable, and Unstable values are not compared.
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_ORACLES_EXACTNESS_H
#define NPUFUZZ_ORACLES_EXACTNESS_H

#include "backend/BackendKind.h"
#include "backend/BackendRun.h"
#include "backend/CompilerSwitches.h"
#include "ir/Case.h"

#include <string_view>
#include <vector>

namespace npufuzz {

/// Reordered: a float sum a backend may add in any order (reduce_sum,
/// matmul of exact terms, ExactnessModel::floatSumsReassociated), compared
/// within a bound on the sum of its terms' magnitudes (oracles/SumBound.h);
/// what is computed from it is Unstable.
enum class Exactness : uint8_t { Exact, Approx, Reordered, Unstable };
std::string_view exactnessName(Exactness e);

/// True for ops whose float result is not exactly rounded in the reference's
/// sense (exp, log, tanh, erf, sigmoid, silu, rsqrt).
bool isApproximateOp(OpKind k);

/// What a compiler may do to values beyond the case's semantics, by op
/// class: each is a documented freedom of a backend, never a bug.
struct ExactnessModel {
  /// A computed f16/bf16 value may be held in f32 by the op that reads it,
  /// when a compiler fuses the two (Inductor elides the round-trip through
  /// the narrow type, explicit casts included: torch/_inductor/config.py,
  /// emulate_precision_casts). What arithmetic makes of such a value is
  /// then within an ULP or so of the reference, not bit for bit: Approx;
  /// through a transcendental or an op singular at zero, which amplify
  /// that, Unstable. A sum of such values (reduce_sum, matmul) may cancel:
  /// it is Reordered, its bound widened by the terms' own rounding
  /// (oracles/SumBound.h). A compare, an argmax or topk's indices, or a
  /// float->int cast of one can flip where the unrounded value crosses
  /// what the rounded one did not: Unstable.
  bool lowPrecisionHeldWide = false;
  /// A float sum of three or more terms (reduce_sum, matmul) may be
  /// computed in any order: split into partial sums across vector lanes
  /// or tiles, products fused into the additions (IREE's llvm-cpu
  /// reassociates reductions: --iree-llvmcpu-reassociate-fp-reductions,
  /// on by default). Such a sum is Reordered: its error is bounded by the
  /// magnitudes of its terms, not by its own (it may cancel). Two terms
  /// commute exactly.
  bool floatSumsReassociated = false;
  /// An f32 product read by an add or sub may be contracted into one fused
  /// multiply-add, rounded once (IREE's llvm-cpu targets allow FP op
  /// fusion, and FMA exists on the host CPU): the sum is Approx. A bf16 or
  /// f16 product is rounded to its type explicitly before the add, so
  /// there it is not allowed.
  bool productsContracted = false;
  /// A signed i32/i64 add, sub, mul, negation or floor division that
  /// overflows is undefined, as in C, not wrapped: TVM's LLVM code
  /// generation emits them nsw (src/target/llvm/codegen_llvm.cc, for
  /// int types of 32 bits or more) and its simplifier assumes none. Every
  /// element such an overflow decides is left uncompared
  /// (oracles/SignedOverflow.h).
  bool signedOverflowUndefined = false;
  /// The negation of an i32/i64 minimum by a neg or abs op is undefined,
  /// every other signed overflow wrapping: Inductor's C++ leaves it so on
  /// purpose (pytorch/pytorch#191132 wraps add, sub and mul only). Every
  /// element it decides is left uncompared (oracles/SignedOverflow.h).
  bool negationOverflowUndefined = false;
  /// A float x - x (one value subtracted from itself) may give 0 where x
  /// is infinite or NaN: TVM's rewrite simplifier folds it by design
  /// (oracles/UndecidedElements.h). What it decides is left uncompared.
  bool selfSubtractionFolded = false;
  /// A float division by a constant may be a multiplication by the
  /// constant's reciprocal, rounded to the type first (Inductor's lowering
  /// does so for every constant divisor: torch/_inductor/lowering.py,
  /// div_prim, "Replace divide by constant with multiply by reciprocal"):
  /// the quotient is Approx.
  bool constantDivisorsAsReciprocal = false;
};

/// The freedoms a run was made under, as its backend set them.
ExactnessModel freedomsOfRun(const BackendRun &run);

/// Marks `run` as made under `freedoms` too (the freedoms it already says
/// it was made under stay), which freedomsOfRun reads back.
void markFreedoms(BackendRun &run, const ExactnessModel &freedoms);

/// The documented freedoms of `backend`'s compiler (none for npufuzz's own
/// lowerings and the simulators), with its switches in `states` (none:
/// each at its default): Inductor under strict pointwise numerics keeps
/// every low-precision cast.
ExactnessModel freedomsOf(BackendKind backend, const SwitchStates &states = {});

/// The exactness of every value, indexed by ValueId.
std::vector<Exactness> classifyValues(const Case &c, const ExactnessModel &model = {});

/// How many approximate results' errors each value compounds, indexed by
/// ValueId: relative errors add when values are multiplied or divided, so
/// exp(x) * exp(x) may be off by twice what exp may (a simulator's f16 exp
/// 3 ULP off squares to 7). A transcendental's result, or any Approx value
/// of `exactness` that no product made, counts 1; a product or quotient
/// (mul, div and the row and column expanding ones) the sum of its
/// operands', at most kMaxApproximations; every other op the most of its
/// operands'. An Approx value is compared within this many times the
/// tolerance of one, which Compare caps (oracles/Compare.h).
constexpr unsigned kMaxApproximations = 64;
std::vector<unsigned> approximationCounts(const Case &c, const std::vector<Exactness> &exactness);

/// For each value of `c`, whether it was computed (by an op that makes new
/// values, possibly moved since by views, inserts or fills), not an input
/// or a constant only moved: a compiler that holds narrow floats wide
/// (ExactnessModel::lowPrecisionHeldWide) can skip a rounding only of a
/// value it computed.
std::vector<bool> computedValues(const Case &c);

} // namespace npufuzz

#endif // NPUFUZZ_ORACLES_EXACTNESS_H
