//===- oracles/Bucket.h - Signatures that share a root cause ----*- C++ -*-===//
//
// One root cause can still give several signatures: a pass that gets
// maximumf wrong shows up in a max and in a reduce_max, a crash in two
// stacks. Their reduced repros agree, though. A bucket groups signatures
// whose reduced repros have the same verdict kind, the same blamed pass,
// the same minimal op pattern (the scalar families of the ops that remain
// and that the failure needs, inputs aside), the same dtype classes (float,
// int, bool) of those ops' results, and the same skeleton of the IR given to
// the blamed pass, reduced to what the pass miscompiles (ops erased while
// verify-pipeline still blames it; backend/mlir/IrSkeleton.h): two bugs of
// one pass need different IR. A signature not reduced is a bucket of its own.
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_ORACLES_BUCKET_H
#define NPUFUZZ_ORACLES_BUCKET_H

#include "ir/Case.h"
#include "oracles/Verdict.h"

#include <set>
#include <string>

namespace npufuzz {

struct Bucket {
  /// "verdict | pass | ops | dtype classes", then " | skeleton" when there
  /// is one.
  std::string key;
  /// "bucket-" and 16 hex digits of the key's hash: what lists of known
  /// findings may name.
  std::string id() const;
};

/// The bucket of a signature of kind `kind` blamed on `pass`, reduced to
/// `reduced`, every op of which counts.
Bucket bucketOf(VerdictKind kind, const std::string &pass, const Case &reduced);
/// The bucket of a failure of kind `kind` blamed on `pass` that needs ops of
/// `families` with results of `dtypeClasses`, in IR of `skeleton` (may be
/// empty).
Bucket bucketOf(VerdictKind kind, const std::string &pass, const std::set<std::string> &families,
                const std::set<std::string> &dtypeClasses, const std::string &skeleton);

/// The dtype class of `t`: "float", "int" or "bool".
const char *dtypeClass(DType t);

/// "skeleton-" and 16 hex digits of an IR skeleton's hash: what a list of
/// known findings pairs with a signature id.
std::string skeletonId(const std::string &skeleton);
/// True for a skeleton id (as skeletonId() prints it).
bool isSkeletonId(const std::string &text);

/// True for a bucket id (as id() prints it).
bool isBucketId(const std::string &text);

} // namespace npufuzz

#endif // NPUFUZZ_ORACLES_BUCKET_H
