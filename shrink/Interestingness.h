//===- shrink/Interestingness.h - Is a candidate still the bug? -*- C++ -*-===//
//
// The reducer's question, asked of a candidate (a case plus the pipeline it
// is compiled with), answered in three states as mlir-reduce does:
// interesting, not interesting, or the test itself erred or timed out (which
// the reducer treats as not interesting, but counts apart).
//
// Two tests: the same failure signature (the candidate runs through a runner
// the driver injects, so that this library needs no process isolation of its
// own), or an external command in the style of C-Reduce (exit 0 means still
// interesting).
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_SHRINK_INTERESTINGNESS_H
#define NPUFUZZ_SHRINK_INTERESTINGNESS_H

#include "backend/mlir/MlirEmitter.h"
#include "ir/Case.h"
#include "oracles/Signature.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace npufuzz {

/// What the reducer varies: the case, and the pipeline spec (O0, O2,
/// random:N or a pass list) it is compiled with.
struct Candidate {
  Case c;
  std::string pipeline = "O0";
};

/// How big a candidate is; the reducer only ever makes every field smaller
/// or equal.
struct CandidateSize {
  uint64_t caseSize = 0; ///< generators/Shrinks.h caseSize
  size_t computeOps = 0;
  int64_t maxDim = 0; ///< the largest dim of any value
  size_t passes = 0;  ///< optimisation elements of the pipeline
};
CandidateSize measure(const Candidate &cand, MlirStyle style);

enum class Answer : uint8_t {
  Interesting,
  NotInteresting,
  Error, ///< the test could not run or timed out: not interesting
};

class Interestingness {
public:
  virtual ~Interestingness() = default;
  /// The answers for `batch`, in its order. Implementations may test the
  /// candidates concurrently; the reducer passes at most `--jobs` at once.
  virtual std::vector<Answer> test(const std::vector<Candidate> &batch) = 0;
  /// Whether a candidate's pipeline takes part in the test (an external
  /// command compiles with its own, so shortening the pipeline is moot).
  virtual bool testsPipeline() const = 0;
};

/// How a candidate ended when run, as the driver's isolated worker saw it.
struct Observation {
  bool ran = false; ///< false: no worker could be started for it
  Signature signature;
  std::string summary;
  /// It ran into a time limit (its worker's, or the backend's own, which
  /// gives a hang verdict): on a busy machine that says more of the machine
  /// than of the candidate.
  bool outOfTime = false;
  double seconds = 0; ///< how long its run took
};

/// Runs a batch of candidates (concurrently, in isolated workers) and
/// returns one observation each, in order.
using CandidateRunner = std::function<std::vector<Observation>(const std::vector<Candidate> &)>;

/// Interesting when the candidate fails with the target's root cause
/// (sameRootCause: a generalised target accepts any op, or any options of
/// its pass). A hang when the target is no hang counts as a timeout (Error):
/// a runner that gives out-of-time candidates a second, longer run
/// (driver/ReduceCommand.h: patientRunner) has already done so.
class SameSignature final : public Interestingness {
public:
  SameSignature(Signature target, CandidateRunner run)
      : target_(std::move(target)), run_(std::move(run)) {}
  std::vector<Answer> test(const std::vector<Candidate> &batch) override;
  bool testsPipeline() const override { return true; }
  const Signature &target() const { return target_; }

private:
  Signature target_;
  CandidateRunner run_;
};

/// Writes each candidate's case text to a temporary `.npf` and runs `argv`
/// with its path appended (no shell). Exit 0 is interesting, any other
/// exit not interesting; a failure to start, exit 126 or 127 (a shell's
/// "cannot execute" and "not found": the test did not run), a death by a
/// signal or a run past `timeoutSeconds` (killed) is an Error. A batch runs
/// concurrently.
class ExternalCommand final : public Interestingness {
public:
  /// `argv[0]` is looked up in PATH when it has no slash; with one, it must
  /// be an executable regular file.
  ExternalCommand(std::vector<std::string> argv, double timeoutSeconds);
  ~ExternalCommand() override;
  /// Empty when the program was found and a temporary directory made.
  const std::string &error() const { return error_; }
  std::vector<Answer> test(const std::vector<Candidate> &batch) override;
  bool testsPipeline() const override { return false; }

  /// How the command judged one candidate, in more words than an Answer:
  /// what a reduction asks of its input before it starts (C-Reduce's
  /// sanity check), so that a test that cannot run, or that the input does
  /// not pass, is the user's error rather than a reduction that finds
  /// nothing.
  struct Judgement {
    Answer answer = Answer::Error;
    /// The command did not run at all: it could not start (error(), a
    /// failed exec) or exited 126 or 127.
    bool cannotRun = false;
    std::string why; ///< empty when interesting
  };
  Judgement judge(const Candidate &cand);

private:
  /// How one run of the command ended.
  struct Ended {
    bool started = false;
    bool timedOut = false;
    int returnCode = -1; ///< llvm::sys::Wait's: -2 for a death by a signal
    std::string error;   ///< why it did not start, or the signal
  };
  std::vector<Ended> run(const std::vector<Candidate> &batch);

  std::vector<std::string> argv_;
  std::string program_, tempDir_, error_;
  double timeoutSeconds_;
};

} // namespace npufuzz

#endif // NPUFUZZ_SHRINK_INTERESTINGNESS_H
