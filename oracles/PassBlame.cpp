//===- oracles/PassBlame.cpp - The first pass after which results go wrong ===//
#include "oracles/PassBlame.h"

#include "backend/mlir/MlirEmitter.h"
#include "ir/Storage.h"
#include "oracles/Differential.h"

#include "llvm/Support/xxhash.h"

#include <map>

namespace npufuzz {

namespace {
/// Blames pass k-1 when prefix k is the first to fail `judge`.
template <typename Judge> PassBlame scanPrefixes(const Pipeline &pipeline, Judge judge) {
  PassBlame b;
  for (size_t k = 1; k <= pipeline.passes.size(); ++k) {
    std::string detail;
    const VerdictKind v = judge(pipeline.prefix(k), detail);
    if (v == VerdictKind::Ok)
      continue;
    // A tool that could not run says nothing of pass k-1: the scan stops
    // with that verdict, which no caller takes for a blame.
    b.found = true;
    b.passIndex = static_cast<int>(pipeline.passElement(k - 1));
    b.passName = pipeline.passes[k - 1];
    b.verdict = v;
    b.detail = detail;
    return b;
  }
  return b;
}
} // namespace

const std::vector<std::string> &scalarizingWitness() {
  static const std::vector<std::string> kWitness = {
      "lower-affine", "convert-vector-to-scf{full-unroll=true target-rank=0}", "lower-affine",
      "convert-scf-to-cf"};
  return kWitness;
}

namespace {
/// The tail element that miscompiles what the first `passes` produce, by
/// the scalarizing witness; -1 when the witness does not make it right.
/// `judge(passes, tail)` runs the first `passes` passes, then `tail`.
template <typename Judge>
int blameTailElement(const Pipeline &pipeline, size_t passes, Judge judge) {
  const std::vector<std::string> rest = pipeline.loweringAndTail();
  auto witnessedAt = [&](size_t j) {
    std::vector<std::string> tail(rest.begin(), rest.begin() + j);
    tail.insert(tail.end(), scalarizingWitness().begin(), scalarizingWitness().end());
    tail.insert(tail.end(), rest.begin() + j, rest.end());
    return judge(passes, tail);
  };
  if (witnessedAt(0) != VerdictKind::Ok)
    return -1;
  for (size_t j = 1; j <= rest.size(); ++j)
    switch (witnessedAt(j)) {
    case VerdictKind::Ok: continue;
    case VerdictKind::Mismatch: return static_cast<int>(j - 1);
    default:
      // The witness did not fit there (a pass failed on what the tail had
      // made of the IR): no evidence either way.
      return -1;
    }
  return -1; // right at every point: the failure did not repeat
}
} // namespace

PassBlame blameCasePass(const Case &c, MlirJit &jit, const Pipeline &pipeline,
                        const MlirEmitOptions &emit, const JitOptions &options) {
  return blameCasePass(c, runReference(c), jit, pipeline, emit, options);
}

PassBlame blameCasePass(const Case &c, const RefRun &ref, MlirJit &jit, const Pipeline &pipeline,
                        const MlirEmitOptions &emit, const JitOptions &options) {
  MlirKernel kernel;
  std::string unsupported;
  if (!ref.ok() || !emitMlir(c, emit, kernel, unsupported))
    return PassBlame();
  const std::vector<TensorData> inputs = toTensorData(ref.inputs);
  const std::vector<TensorType> outputTypes = c.outputTypes();
  auto judge = [&](const std::vector<std::string> &elements, std::string &detail) {
    const BackendRun run = jit.run(kernel, elements, inputs, outputTypes, options);
    const Judgement j = judgeRun(c, ref, run);
    detail = j.summary;
    return j.verdict;
  };
  // With no pass at all the case already fails: no pass is to blame, but
  // the tail may be.
  std::string detail;
  const VerdictKind tailOnly = judge(pipeline.prefix(0), detail);
  PassBlame b;
  if (tailOnly == VerdictKind::Ok) {
    b = scanPrefixes(pipeline, judge);
    if (!b.found || b.verdict != VerdictKind::Mismatch)
      return b;
  } else if (tailOnly != VerdictKind::Mismatch) {
    return b;
  }
  // passIndex is the blamed pass's element; the passes before it run too.
  const size_t passesRun =
      b.found ? static_cast<size_t>(b.passIndex) + 1 - pipeline.passElement(0) : 0;
  const int element = blameTailElement(
      pipeline, passesRun, [&](size_t passes, const std::vector<std::string> &tail) {
        std::vector<std::string> e = pipeline.before;
        e.insert(e.end(), pipeline.passes.begin(), pipeline.passes.begin() + passes);
        e.insert(e.end(), tail.begin(), tail.end());
        std::string detail;
        return judge(e, detail);
      });
  if (element >= 0) {
    b.miscompiledBy = pipeline.loweringAndTail()[element];
    b.miscompiledByIndex = element;
  }
  return b;
}

PassBlame blameModulePass(const MlirJit::EntryDriver &driver, MlirJit &jit,
                          const Pipeline &pipeline, const ModuleTransform &transform,
                          const std::vector<std::vector<TensorData>> &datasets,
                          const JitOptions &options, std::string &error) {
  const std::vector<std::string> rest = pipeline.loweringAndTail();
  std::vector<std::vector<TensorData>> expected = datasets;
  const BackendRun tailOnly =
      jit.executeEach(driver.text, rest, driver.function, expected, options);
  if (!tailOnly.ok()) {
    error = "the module does not run with the lowering tail alone: " + tailOnly.message;
    return PassBlame();
  }
  // The first `passes` passes by `transform`, then `tail` in process, on
  // every data set. The prefixes are judged in order, so the IR after the
  // last one is kept and only the new passes run on it: a scan over N
  // passes runs each pass once, not N(N+1)/2 times.
  size_t cachedPasses = 0;
  std::string cachedText = driver.text;
  // What each IR already executed gave, by a 128-bit hash of the IR and
  // its tail: a pass that left the IR as it was cannot be to blame, and the
  // same IR on the same data gives what it gave. (Most passes of a long
  // pipeline change nothing; their executions were its cost.)
  std::map<std::pair<uint64_t, uint64_t>, std::pair<VerdictKind, std::string>> judged;
  auto judgeWith = [&](size_t passes, const std::vector<std::string> &tail, std::string &detail) {
    if (passes < cachedPasses) {
      cachedPasses = 0;
      cachedText = driver.text;
    }
    if (passes > cachedPasses) {
      const std::vector<std::string> added(pipeline.passes.begin() + cachedPasses,
                                           pipeline.passes.begin() + passes);
      const BackendRun transformed = transform(cachedText, added);
      if (!transformed.ok()) {
        detail = transformed.message.substr(0, transformed.message.find('\n'));
        return verdictOf(transformed.status);
      }
      cachedText = transformed.mlir;
      cachedPasses = passes;
    }
    std::string keyText = cachedText;
    for (const std::string &element : tail)
      keyText += '\0' + element;
    const llvm::XXH128_hash_t h = llvm::xxh3_128bits(
        llvm::ArrayRef(reinterpret_cast<const uint8_t *>(keyText.data()), keyText.size()));
    const std::pair<uint64_t, uint64_t> key{h.high64, h.low64};
    if (const auto it = judged.find(key); it != judged.end()) {
      detail = it->second.second;
      return it->second.first;
    }
    const VerdictKind v = [&] {
      std::vector<std::vector<TensorData>> got = datasets;
      const BackendRun run = jit.executeEach(cachedText, tail, driver.function, got, options);
      if (!run.ok()) {
        detail = run.message.substr(0, run.message.find('\n'));
        return verdictOf(run.status);
      }
      for (size_t d = 0; d < got.size(); ++d)
        for (size_t i = 0; i < got[d].size(); ++i) {
          const Comparison cmp =
              compareOutput(fromTensorData(expected[d][i]), got[d][i], Exactness::Approx);
          if (!cmp.match) {
            detail = "data set " + std::to_string(d) + ", buffer " + std::to_string(i) + ": " +
                     std::to_string(cmp.mismatches) + " of " + std::to_string(cmp.compared) +
                     " elements differ; first " + cmp.firstMismatch;
            return VerdictKind::Mismatch;
          }
        }
      return VerdictKind::Ok;
    }();
    judged[key] = {v, detail};
    return v;
  };
  // A module's pipeline runs at the entry: `before` is empty, and a prefix's
  // elements are its passes and the rest.
  PassBlame b =
      scanPrefixes(pipeline, [&](const std::vector<std::string> &elements, std::string &detail) {
        return judgeWith(elements.size() - rest.size() - pipeline.before.size(), rest, detail);
      });
  if (!b.found || b.verdict != VerdictKind::Mismatch)
    return b;
  const size_t passesRun = static_cast<size_t>(b.passIndex) + 1 - pipeline.passElement(0);
  const int element = blameTailElement(pipeline, passesRun,
                                       [&](size_t passes, const std::vector<std::string> &tail) {
                                         std::string detail;
                                         return judgeWith(passes, tail, detail);
                                       });
  if (element >= 0) {
    b.miscompiledBy = rest[element];
    b.miscompiledByIndex = element;
  }
  return b;
}

} // namespace npufuzz
