//===- driver/CompilerCoverage.h - Lines and branches of the compiler -*- C++ -*-===//
//
// The compiler under test's own coverage (docs/compiler-coverage.md): the
// adapters of inductor, tvm and pytorchsim measure the compiler's packages
// with SlipCover while each case runs and write what it reached to the
// case directory (tools/adapters/compiler_coverage.py). A case's coverage
// travels in its TaskResult; a campaign keeps the union of every case's,
// and how it grew over cases and seconds, in DIR/compiler-coverage.json,
// and its totals in summary.json. A guided campaign steers by it
// (driver/Feedback.h): a case that reached a line or branch no earlier
// case had joins the corpus.
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_DRIVER_COMPILERCOVERAGE_H
#define NPUFUZZ_DRIVER_COMPILERCOVERAGE_H

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace llvm::json {
class Object;
} // namespace llvm::json

namespace npufuzz {

/// What one case reached: files named under their package
/// (`torch/_inductor/scheduler.py`), each with its lines and its branches
/// (SlipCover's taken (from, to) pairs out of a line with more than one exit).
struct CaseCoverage {
  std::string tool; ///< `slipcover 1.1.0`; empty when nothing was measured
  std::string off;  ///< why the adapter could not measure, when it was asked
  std::vector<std::string> packages;
  std::map<std::string, std::vector<int64_t>> lines;
  std::map<std::string, std::vector<std::pair<int64_t, int64_t>>> branches;

  bool measured() const { return !tool.empty(); }
  bool empty() const { return tool.empty() && off.empty(); }
  uint64_t lineCount() const;
  uint64_t branchCount() const;

  /// Reads what an adapter wrote (empty text: not asked). False with
  /// `error` on text that is not the adapter's format.
  static bool parse(const std::string &text, CaseCoverage &out, std::string &error);
  llvm::json::Object toJson() const;
  static bool fromJson(const llvm::json::Object &o, CaseCoverage &out, std::string &error);
};

/// One point of a campaign's growth: after `cases` cases with coverage
/// (in the order they finished) and `seconds` of the campaign's time.
struct CoveragePoint {
  uint64_t cases = 0;
  double seconds = 0;
  uint64_t lines = 0, branches = 0;
};

/// A campaign's coverage without the sets: state "on" once a case was
/// measured, "off" with why, or "not-measured" (no adapter that measures).
struct CoverageSummary {
  std::string state = "not-measured"; ///< "on", "off" or "not-measured"
  std::string tool, off;
  std::vector<std::string> packages;
  uint64_t lines = 0, branches = 0, cases = 0;
  std::vector<CoveragePoint> growth;
};

/// A campaign's coverage of its compiler: the union over its cases.
class CoverageTotals {
public:
  /// Adds a finished case's coverage at `seconds` into the campaign;
  /// returns how many lines and branches no earlier case had reached.
  uint64_t add(const CaseCoverage &c, double seconds);
  /// Adds what the campaign read itself, for cases already added (ptoas's
  /// profiles, read many cases at a time: backend/pto/PtoasCoverage.h):
  /// its lines and branches at `seconds`, counting no case. Its `off` is
  /// the campaign's while nothing was measured; returns what was new.
  uint64_t addRead(const CaseCoverage &c, double seconds);

  uint64_t lineCount() const { return lineCount_; }
  uint64_t branchCount() const { return branchCount_; }
  uint64_t casesMeasured() const { return measured_; }
  const std::string &tool() const { return tool_; }
  /// Why coverage is off (the adapter's reason, or the campaign's); empty
  /// once a case was measured.
  const std::string &off() const { return off_; }
  void setOff(const std::string &why) { off_ = why; }
  const std::vector<std::string> &packages() const { return packages_; }
  const std::vector<CoveragePoint> &growth() const { return growth_; }

  /// Adds another campaign's union (a shard's): the sets are joined and
  /// the cases summed; the growth stays this one's, since two campaigns'
  /// cases and seconds do not line up.
  void absorb(const CoverageTotals &other);
  /// Joins one input of `npufuzz merge` (a campaign directory, named by
  /// `key`, its absolute path) into a merge's totals: its sets are joined,
  /// and its cases replace what an earlier merge of the same input counted,
  /// so a shard merged again as it grows is never counted twice. The
  /// merge's cases are the sum over its inputs; it has no growth curve
  /// (its inputs' cases and seconds do not line up).
  void mergeInput(const std::string &key, const CoverageTotals &input);
  /// Whether a merge's totals hold input `key`.
  bool hasInput(const std::string &key) const { return inputCases_.count(key) != 0; }
  /// Reads DIR/compiler-coverage.json (missing: nothing measured yet).
  bool load(const std::string &campaignDir, std::string &error);
  /// Writes it whole (atomically).
  bool save(const std::string &campaignDir, std::string &error) const;
  /// The totals and growth without the sets.
  CoverageSummary summary() const;

private:
  void noteGrowth(double seconds);
  /// Joins a case's lines and branches (and its tool, the first time);
  /// returns how many were new.
  uint64_t joinCase(const CaseCoverage &c);
  /// Whether `c` was measured; if not, its reason is the campaign's while
  /// no case was measured.
  bool measuredElseNoteOff(const CaseCoverage &c);
  /// Joins `other`'s lines and branches into these; cases are the caller's.
  void joinSets(const CoverageTotals &other);

  std::string tool_, off_;
  std::vector<std::string> packages_;
  std::map<std::string, std::set<int64_t>> lines_;
  std::map<std::string, std::set<std::pair<int64_t, int64_t>>> branches_;
  uint64_t lineCount_ = 0, branchCount_ = 0, measured_ = 0;
  std::vector<CoveragePoint> growth_;
  /// A merge's inputs and the cases each had measured when merged; empty
  /// for a campaign's own totals.
  std::map<std::string, uint64_t> inputCases_;
};

/// summary.json's `compiler_coverage`, and back (report, stats).
llvm::json::Object coverageSummaryJson(const CoverageSummary &s);
CoverageSummary coverageSummaryFromJson(const llvm::json::Object *o);

/// One line for the summary table: the totals, or why coverage is off.
std::string formatCoverageLine(const CoverageSummary &s);

/// An SVG plot of lines and branches over cases (or over seconds).
std::string coveragePlotSvg(const CoverageSummary &s, bool overSeconds);

} // namespace npufuzz

#endif // NPUFUZZ_DRIVER_COMPILERCOVERAGE_H
