//===- tools/npufuzz/MergeCommand.cpp - npufuzz merge -----------------------===//
#include "tools/npufuzz/Commands.h"
#include "tools/npufuzz/ToolOptions.h"

#include "driver/Campaign.h"
#include "driver/CampaignCounts.h"
#include "driver/CompilerCoverage.h"
#include "driver/DirectoryLock.h"
#include "driver/Findings.h"
#include "driver/GuidedCorpus.h"
#include "ir/FileText.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include "llvm/Support/raw_ostream.h"

namespace npufuzz::tool {

cl::SubCommand &MergeCommand() {
  static cl::SubCommand c("merge", "Combine campaign directories (e.g. of shards)");
  return c;
}

namespace {
cl::opt<std::string> outDir("o", cl::desc("Merged directory"), cl::value_desc("DIR"), cl::Required,
                            cl::sub(MergeCommand()), cl::cat(category()));
cl::list<std::string> inputs(cl::Positional, cl::desc("<campaign dir>..."), cl::OneOrMore,
                             cl::sub(MergeCommand()), cl::cat(category()));
} // namespace

int runMerge() {
  for (const std::string &dir : inputs)
    if (!checkPath("<campaign dir>", dir, PathKind::Directory))
      return kExitError;
  std::error_code ec;
  if (llvm::sys::fs::exists(outDir) && !llvm::sys::fs::is_directory(outDir))
    return fail("-o " + outDir + ": exists and is not a directory");
  if (!llvm::sys::fs::is_directory(outDir) && (ec = llvm::sys::fs::create_directories(outDir)))
    return fail("cannot create " + outDir + ": " + ec.message());
  // A campaign's directory is its own: merged findings would mix with its
  // state, and a campaign resumed there would count them as its own.
  if (llvm::sys::fs::exists(outDir + "/campaign.json") ||
      llvm::sys::fs::exists(outDir + "/state.json"))
    return fail("-o " + outDir + " holds a campaign; merge into a new directory");
  // Its own counts and coverage would be added to themselves.
  for (const std::string &dir : inputs)
    if (llvm::sys::fs::equivalent(dir, outDir.getValue()))
      return fail("cannot merge " + dir + " into itself (-o " + outDir + ")");
  DirectoryLock lock;
  std::string error;
  if (!lock.acquire(outDir, "merge", error))
    return fail(error);
  // The merged counts, by input: an earlier merge's here, replaced by a
  // directory merged again (never added twice), all of one campaign
  // (shards of it): findings of another pipeline or style would be listed
  // under a repro line that does not reproduce them.
  std::map<std::string, CampaignCounts> merged = readMergedInputs(outDir);
  CampaignCounts campaign;
  std::string firstDir = merged.empty() ? std::string() : outDir.getValue();
  for (const auto &[path, counts] : merged)
    campaign.add(counts);
  // The seeds each input of this merge ran: one case counted by two of
  // them (a copy of a shard, named beside it) would be counted twice.
  std::vector<std::pair<std::string, SeedRange>> ran;
  // The compiler's own coverage: what an earlier merge here joined, and
  // each input's (driver/CompilerCoverage.h).
  CoverageTotals mergedCoverage;
  if (!mergedCoverage.load(outDir, error))
    return fail(error);
  auto joinCoverageOf = [&](const std::string &path) {
    CoverageTotals inputCoverage;
    if (!inputCoverage.load(path, error))
      return false;
    mergedCoverage.mergeInput(path, inputCoverage);
    return true;
  };
  for (const std::string &dir : inputs) {
    CampaignCounts one;
    if (!readCampaignCounts(dir, one, error))
      return fail(error);
    std::string why;
    if (!sameCampaign(campaign, one, why))
      return fail("cannot merge " + dir + " with " + firstDir + ": they ran different campaigns (" +
                  why + ")");
    if (one.seeds) {
      for (const auto &[other, seeds] : ran)
        if (const std::optional<uint64_t> seed = sharedSeed(seeds, *one.seeds))
          return fail("cannot merge " + dir + " with " + other + ": both ran seed " +
                      std::to_string(*seed) +
                      " (the same shard twice, or overlapping seed ranges); merge each once");
      ran.emplace_back(dir, *one.seeds);
    }
    if (firstDir.empty() && !one.campaign.empty())
      firstDir = dir;
    campaign.add(one);
    llvm::SmallString<256> absolute(dir);
    llvm::sys::fs::make_absolute(absolute);
    llvm::sys::path::remove_dots(absolute, true);
    merged[std::string(absolute)] = one;
    if (!joinCoverageOf(std::string(absolute)))
      return fail(error);
  }
  // Inputs an earlier merge here counted but whose coverage it did not
  // keep (merged before merge joined coverage): read where they still are.
  for (const auto &[path, counts] : merged)
    if (!mergedCoverage.hasInput(path) && llvm::sys::fs::is_directory(path) &&
        !joinCoverageOf(path))
      return fail(error);
  const size_t n = mergeFindings(outDir, inputs, error);
  // Guided shards' corpora, kept together (driver/GuidedCorpus.h).
  std::string corpusError;
  if (!mergeCorpora(outDir, inputs, corpusError))
    return fail("cannot merge the corpora: " + corpusError);
  std::string writeError;
  if (!mergedCoverage.save(outDir, writeError) ||
      !writeFileAtomically(outDir + "/summary.json",
                           mergedSummaryJson(merged, mergedCoverage.summary()), writeError))
    return fail("cannot write " + writeError);
  if (!error.empty())
    fail(error);
  const std::vector<BucketSummary> buckets = bucketsOf(scanFindings(outDir));
  llvm::outs() << n << " distinct signatures in " << buckets.size() << " root-cause buckets in "
               << outDir << "\n";
  for (const BucketSummary &b : buckets) {
    llvm::outs() << "  " << b.id << "  " << (b.key.empty() ? "(not reduced)" : b.key) << ":";
    for (const std::string &sig : b.signatures)
      llvm::outs() << " " << sig;
    llvm::outs() << "\n";
  }
  return error.empty() ? kExitOk : kExitError;
}

} // namespace npufuzz::tool
