//===- driver/RootClassifier.cpp - Failing cases filed under a known root -===//
#include "driver/RootClassifier.h"

#include "ir/Hash.h"

namespace npufuzz {

std::optional<Classification> RootClassifier::decided(const std::string &key,
                                                      unsigned agreeing) const {
  const auto it = seen_.find(key);
  if (it == seen_.end() || it->second.split || it->second.agreeing < agreeing)
    return std::nullopt;
  return it->second.root;
}

std::optional<Classification> RootClassifier::classify(const Fingerprint &fingerprint,
                                                       uint64_t seed) const {
  // Which cases are sampled depends on the seed alone, not on the order
  // cases finish in; hashed so that seeds in a row spread over the classes.
  if (fingerprint.empty() || fnv1a(std::to_string(seed)) % kSampleEvery == 0)
    return std::nullopt;
  if (std::optional<Classification> root =
          decided("signature:" + fingerprint.signatureId, kAgreeingSignature))
    return root;
  return decided("verdict:" + fingerprint.verdict, kAgreeingVerdict);
}

void RootClassifier::learn(const std::string &key, const Classification &root) {
  auto [it, fresh] = seen_.try_emplace(key);
  Seen &s = it->second;
  if (fresh)
    s.root = root;
  // A failure that did not repeat fresh says the fingerprint is not a
  // root's: never decided.
  if (root.findingId.empty() || s.root.findingId != root.findingId)
    s.split = true;
  ++s.agreeing;
}

void RootClassifier::confirmed(const Fingerprint &fingerprint, const Classification &root) {
  if (fingerprint.empty())
    return;
  learn("signature:" + fingerprint.signatureId, root);
  learn("verdict:" + fingerprint.verdict, root);
}

} // namespace npufuzz
