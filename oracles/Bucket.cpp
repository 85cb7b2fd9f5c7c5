//===- oracles/Bucket.cpp - Signatures that share a root cause ------------===//
#include "oracles/Bucket.h"

#include "ir/Hash.h"
#include "oracles/Signature.h"

#include <cctype>
#include <set>

namespace npufuzz {

const char *dtypeClass(DType t) {
  if (t == DType::I1)
    return "bool";
  return isFloat(t) ? "float" : "int";
}

namespace {
std::string joined(const std::set<std::string> &parts) {
  std::string s;
  for (const std::string &p : parts)
    s += (s.empty() ? "" : ",") + p;
  return s;
}
} // namespace

std::string Bucket::id() const { return "bucket-" + hex16(fnv1a(key)); }

Bucket bucketOf(VerdictKind kind, const std::string &pass, const Case &reduced) {
  std::set<std::string> ops, classes;
  for (const Op &op : reduced.ops) {
    if (op.kind == OpKind::Input)
      continue;
    ops.insert(scalarFamily(std::string(opName(op.kind))));
    for (const ValueId v : op.results)
      classes.insert(dtypeClass(reduced.typeOf(v).dtype));
  }
  return bucketOf(kind, pass, ops, classes, "");
}

Bucket bucketOf(VerdictKind kind, const std::string &pass, const std::set<std::string> &families,
                const std::set<std::string> &dtypeClasses, const std::string &skeleton) {
  Bucket b;
  b.key = std::string(verdictName(kind)) + " | " + pass + " | " + joined(families) + " | " +
          joined(dtypeClasses);
  if (!skeleton.empty())
    b.key += " | " + skeleton;
  return b;
}

std::string skeletonId(const std::string &skeleton) { return "skeleton-" + hex16(fnv1a(skeleton)); }

namespace {
/// `prefix` and 16 lower-case hex digits.
bool isHexId(const std::string &text, const std::string &prefix) {
  if (text.size() != prefix.size() + 16 || text.compare(0, prefix.size(), prefix) != 0)
    return false;
  for (size_t i = prefix.size(); i < text.size(); ++i)
    if (!std::isxdigit(static_cast<unsigned char>(text[i])) || std::isupper(text[i]))
      return false;
  return true;
}
} // namespace

bool isBucketId(const std::string &text) { return isHexId(text, "bucket-"); }

bool isSkeletonId(const std::string &text) { return isHexId(text, "skeleton-"); }

} // namespace npufuzz
