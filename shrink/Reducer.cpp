//===- shrink/Reducer.cpp - Greedy, cached test-case reduction ------------===//
#include "shrink/Reducer.h"

#include "backend/mlir/Pipelines.h"
#include "generators/Shrinks.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <utility>

namespace npufuzz {

std::string pipelineSpec(const std::vector<std::string> &passes) {
  if (passes.empty())
    return "O0";
  std::string spec;
  for (const std::string &p : passes)
    spec += (spec.empty() ? "" : ",") + p;
  return spec;
}

namespace {
using Clock = std::chrono::steady_clock;

class Reducer {
public:
  Reducer(Interestingness &test, const ReduceOptions &options, ReduceResult &result)
      : test_(test), options_(options), result_(result), start_(Clock::now()) {}

  void run(const Candidate &input) {
    result_.before = measure(input, options_.style);
    if (firstInteresting({input}) != 0) {
      // A test that erred or ran out of time says nothing of the input: it
      // is never called "not interesting" for that.
      const bool erred = result_.errors > 0;
      result_.error = result_.interrupted ? "interrupted before the first test"
                      : result_.timedOut  ? "out of time before the first test"
                      : erred ? "the test of the input erred or ran out of time: no verdict on it"
                              : "the input is not interesting";
      result_.reduced = input;
      result_.after = result_.before;
      return;
    }
    current_ = input;
    // Pipeline first: fewer passes make every later case test faster.
    for (bool changed = true; changed && !result_.timedOut && !result_.interrupted;) {
      changed = false;
      if (options_.shortenPipeline && test_.testsPipeline())
        changed |= shortenPipeline();
      changed |= shrinkCase();
    }
    result_.reduced = current_;
    result_.after = measure(current_, options_.style);
    // An interrupted run ends now: the user is waiting, and its best
    // candidate was interesting when it was taken.
    if (!options_.confirm || result_.interrupted)
      return;
    const std::vector<Answer> again = test_.test({current_});
    ++result_.tests;
    result_.confirmed = again.size() == 1 && again[0] == Answer::Interesting;
  }

  double elapsed() const { return std::chrono::duration<double>(Clock::now() - start_).count(); }

private:
  using Key = std::pair<uint64_t, std::string>;
  static Key keyOf(const Candidate &c) { return {caseHash(c.c), c.pipeline}; }

  bool stopRequested() const {
    return options_.stop && options_.stop->load(std::memory_order_relaxed);
  }

  /// The index of the first interesting candidate, or -1 when none is (or
  /// time ran out, or a stop was requested). Tests uncached candidates
  /// `jobs` at a time, in order.
  int firstInteresting(const std::vector<Candidate> &cands) {
    const size_t jobs = std::max(1u, options_.jobs);
    for (size_t i = 0; i < cands.size();) {
      if (stopRequested()) {
        result_.interrupted = true;
        return -1;
      }
      if (options_.maxSeconds > 0 && elapsed() >= options_.maxSeconds) {
        result_.timedOut = true;
        return -1;
      }
      // Collect the next uncached candidates; a cached interesting one ends
      // the scan, since nothing after it can win.
      std::vector<const Candidate *> batch;
      std::vector<Key> keys;
      size_t end = i;
      for (; end < cands.size() && batch.size() < jobs; ++end) {
        Key k = keyOf(cands[end]);
        auto it = cache_.find(k);
        if (it != cache_.end()) {
          ++result_.cacheHits;
          if (it->second == Answer::Interesting) {
            ++end;
            break;
          }
          continue;
        }
        if (std::find(keys.begin(), keys.end(), k) != keys.end())
          continue; // a duplicate within the batch: answered with its twin
        keys.push_back(std::move(k));
        batch.push_back(&cands[end]);
      }
      if (!batch.empty()) {
        std::vector<Candidate> copies;
        for (const Candidate *c : batch)
          copies.push_back(*c);
        const std::vector<Answer> answers = test_.test(copies);
        result_.tests += keys.size();
        // Answers given while stopping are not trusted, nor cached: a SIGINT
        // from the terminal reaches an interestingness command as well, and
        // a script cut short may still exit 0.
        if (stopRequested()) {
          result_.interrupted = true;
          return -1;
        }
        for (size_t b = 0; b < keys.size(); ++b) {
          const Answer a = b < answers.size() ? answers[b] : Answer::Error;
          result_.errors += a == Answer::Error;
          cache_[keys[b]] = a;
        }
      }
      for (size_t k = i; k < end; ++k) {
        auto it = cache_.find(keyOf(cands[k]));
        if (it != cache_.end() && it->second == Answer::Interesting)
          return static_cast<int>(k);
      }
      i = end;
    }
    return -1;
  }

  void note(const std::string &what) {
    if (options_.log)
      options_.log(what);
  }

  /// Greedy over shrinkCandidates to a fixpoint. True when anything changed.
  bool shrinkCase() {
    bool changed = false;
    for (;;) {
      std::vector<Candidate> cands;
      for (Case &c : shrinkCandidates(current_.c))
        cands.push_back({std::move(c), current_.pipeline});
      const int k = firstInteresting(cands);
      if (k < 0)
        return changed;
      current_ = std::move(cands[k]);
      changed = true;
      ++result_.caseSteps;
      const CandidateSize s = measure(current_, options_.style);
      note("case: size " + std::to_string(s.caseSize) + ", " + std::to_string(s.computeOps) +
           " ops, max dim " + std::to_string(s.maxDim));
    }
  }

  /// Drops chunks of pipeline elements, halving the chunk when no removal
  /// of that size stays interesting. True when anything changed.
  bool shortenPipeline() {
    Pipeline p;
    std::string error;
    if (!resolvePipeline(current_.pipeline, options_.style, p, error))
      return false;
    std::vector<std::string> passes = p.passes;
    bool changed = false;
    size_t chunk = (passes.size() + 1) / 2;
    while (!passes.empty() && chunk >= 1) {
      std::vector<Candidate> cands;
      std::vector<std::vector<std::string>> lists;
      for (size_t s = 0; s < passes.size(); s += chunk) {
        std::vector<std::string> kept(passes.begin(), passes.begin() + s);
        kept.insert(kept.end(), passes.begin() + std::min(passes.size(), s + chunk), passes.end());
        cands.push_back({current_.c, pipelineSpec(kept)});
        lists.push_back(std::move(kept));
      }
      const int k = firstInteresting(cands);
      if (k < 0) {
        if (chunk == 1 || result_.timedOut || result_.interrupted)
          break;
        chunk = (chunk + 1) / 2;
        continue;
      }
      passes = std::move(lists[k]);
      current_.pipeline = cands[k].pipeline;
      changed = true;
      ++result_.pipelineSteps;
      chunk = std::min(chunk, std::max<size_t>(1, passes.size() / 2));
      note("pipeline (" + std::to_string(passes.size()) + " passes): " + current_.pipeline);
    }
    return changed;
  }

  Interestingness &test_;
  const ReduceOptions &options_;
  ReduceResult &result_;
  Clock::time_point start_;
  Candidate current_;
  std::map<Key, Answer> cache_;
};
} // namespace

ReduceResult reduce(const Candidate &input, Interestingness &test, const ReduceOptions &options) {
  ReduceResult result;
  Reducer r(test, options, result);
  r.run(input);
  result.seconds = r.elapsed();
  return result;
}

} // namespace npufuzz
