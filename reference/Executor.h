//===- reference/Executor.h - The exact reference executor ------*- C++ -*-===//
//
// Evaluates a case with the semantics stated in ir/Case.h, element by
// element, tracking which elements are defined. It is the oracle every
// backend is compared against, so it favors exactness over speed, though it
// stays fast enough to run on every generated case.
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_REFERENCE_EXECUTOR_H
#define NPUFUZZ_REFERENCE_EXECUTOR_H

#include "ir/Case.h"
#include "ir/RefTensor.h"

#include <string>
#include <vector>

namespace npufuzz {

/// What a signed i32, i64 or index add, sub, mul, negation, absolute value
/// or floor division (alone, or in a sum or a matmul) gives when its exact
/// result does not fit its type. The case's semantics wrap. A compiler whose
/// signed overflow is undefined (TVM's LLVM code generation marks such
/// arithmetic nsw, as C does) may give anything there and in whatever reads
/// it: evaluating with each saturating alternate as well tells which
/// elements an overflow decides (oracles/SignedOverflow.h). The Negation
/// alternates saturate only a neg or abs op's overflow (of the minimum),
/// every other wrapping: Inductor's C++ wraps add, sub and mul and leaves
/// negation undefined.
enum class SignedOverflow : uint8_t {
  Wraps,
  GivesMax,
  GivesMin,
  NegationGivesMax,
  NegationGivesMin
};

/// Evaluates every value of the verified case `c`. `inputs` are in the order
/// of the case's input ops and must have their ops' result types. On success
/// `values` is indexed by ValueId; in every value the elements outside its
/// valid shape are undefined and every undefined element holds 0. On failure
/// returns false with a message naming the op.
bool evaluateCase(const Case &c, const std::vector<RefTensor> &inputs,
                  std::vector<RefTensor> &values, std::string &error,
                  SignedOverflow overflow = SignedOverflow::Wraps);

/// The floating-point environment the reference evaluates in, for this
/// process. With `on`, as a CPU whose flush-to-zero and denormals-are-zero
/// modes are set: subnormal operands read as zero of their sign and
/// subnormal results are written as zero. IREE's CPU runtime runs its
/// dispatches so (iree/base/internal/fpu_state.h): what it computes is the
/// case's semantics in that environment, not a wrong value. Off by default:
/// IEEE gradual underflow. (x86-64 only; elsewhere it has no effect.)
/// The inputs runReference makes then hold no f32, bf16 or f16 subnormal
/// (each is a zero of its sign): an arithmetic op reads one as zero, but a
/// move, a select or a conversion in software does not (and an f16 one,
/// normal in f32, is flushed by a software conversion and kept by F16C's),
/// so which a compiler's output shows would depend on how it lowered the
/// op.
void setReferenceFlushesSubnormals(bool on);
bool referenceFlushesSubnormals();

/// Sets the reference's environment for as long as it lives, and then the
/// one it found back, whatever happens in between.
class ReferenceFlushScope {
public:
  explicit ReferenceFlushScope(bool on) : was_(referenceFlushesSubnormals()) {
    setReferenceFlushesSubnormals(on);
  }
  ~ReferenceFlushScope() { setReferenceFlushesSubnormals(was_); }
  ReferenceFlushScope(const ReferenceFlushScope &) = delete;
  ReferenceFlushScope &operator=(const ReferenceFlushScope &) = delete;

private:
  bool was_;
};

/// The result of running the reference on a case.
struct RefRun {
  std::vector<RefTensor> inputs;  ///< in input-op order
  std::vector<RefTensor> outputs; ///< in Case::outputs order
  std::string error;              ///< empty on success
  bool ok() const { return error.empty(); }
};

/// Builds the inputs with makeInputs and evaluates the case.
RefRun runReference(const Case &c);
/// Evaluates the case on the given inputs.
RefRun runReference(const Case &c, const std::vector<RefTensor> &inputs,
                    SignedOverflow overflow = SignedOverflow::Wraps);

} // namespace npufuzz

#endif // NPUFUZZ_REFERENCE_EXECUTOR_H
