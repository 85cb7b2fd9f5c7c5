//===- driver/GuidedCorpus.cpp - Cases that reached something new ---------===//
#include "driver/GuidedCorpus.h"
#include "driver/JsonFile.h"

#include "ir/FileText.h"
#include "ir/Text.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <filesystem>

namespace fs = std::filesystem;

namespace npufuzz {

namespace {

std::string hexWords(const std::vector<uint64_t> &words) {
  std::string s;
  s.reserve(words.size() * 16);
  for (const uint64_t w : words)
    s += llvm::formatv("{0}", llvm::format_hex_no_prefix(w, 16)).str();
  return s;
}

bool parseHexWords(llvm::StringRef text, std::vector<uint64_t> &out) {
  if (text.size() % 16)
    return false;
  for (size_t i = 0; i < text.size(); i += 16) {
    uint64_t w = 0;
    if (text.substr(i, 16).getAsInteger(16, w))
      return false;
    out.push_back(w);
  }
  return true;
}

} // namespace

std::string corpusEntryText(const CorpusEntry &e) {
  std::string keys; // 8 hex digits a key: an entry's file is written for most early cases
  keys.reserve(e.keys.size() * 8);
  for (const uint32_t k : e.keys)
    keys += llvm::formatv("{0}", llvm::format_hex_no_prefix(k, 8)).str();
  llvm::json::Object o{
      {"index", static_cast<int64_t>(e.index)},
      {"seed", static_cast<int64_t>(e.seed)},
      {"how", e.how},
      {"lowering_seed",
       e.s.loweringSeed ? llvm::json::Value(*e.s.loweringSeed) : llvm::json::Value(nullptr)},
      {"owned_keys", static_cast<int64_t>(e.owned.size())},
      {"choices", hexWords(e.s.choices)},
      {"keys", std::move(keys)},
      {"case", printCase(e.s.c)},
  };
  std::string s;
  llvm::raw_string_ostream os(s);
  os << llvm::formatv("{0:2}", llvm::json::Value(std::move(o))) << "\n";
  return s;
}

bool parseCorpusEntry(const std::string &text, CorpusEntry &out, std::string &error) {
  auto parsed = llvm::json::parse(text);
  if (!parsed) {
    error = llvm::toString(parsed.takeError());
    return false;
  }
  const llvm::json::Object *o = parsed->getAsObject();
  if (!o || !o->getInteger("index") || !o->getInteger("seed") || !o->getString("case") ||
      !o->getString("choices") || !o->getString("keys")) {
    error = "not a corpus entry (index, seed, case, choices and keys are required)";
    return false;
  }
  out.index = static_cast<uint64_t>(*o->getInteger("index"));
  out.seed = static_cast<uint64_t>(*o->getInteger("seed"));
  out.how = o->getString("how").value_or("").str();
  if (const llvm::json::Value *l = o->get("lowering_seed"); l && l->getAsUINT64())
    out.s.loweringSeed = *l->getAsUINT64();
  if (!parseHexWords(*o->getString("choices"), out.s.choices)) {
    error = "its choices are not 16-digit hex words";
    return false;
  }
  const llvm::StringRef keys = *o->getString("keys");
  for (size_t i = 0; i < keys.size(); i += 8) {
    uint32_t k = 0;
    if (keys.size() % 8 || keys.substr(i, 8).getAsInteger(16, k)) {
      error = "its keys are not 8-digit hex keys";
      return false;
    }
    out.keys.push_back(k);
  }
  TextError textError;
  if (!parseCase(o->getString("case")->str(), out.s.c, textError)) {
    error = "its case does not parse: " + textError.format("case");
    return false;
  }
  return true;
}

void GuidedCorpus::offer(CorpusEntry e) {
  if (e.index >= epochsTaken_ * kGuidanceEpoch)
    pending_.emplace(e.index, std::move(e));
}

bool GuidedCorpus::advance(uint64_t decidedBelow, std::string &error) {
  bool took = false;
  // Epoch t is taken in once all of it ran and epoch t + 1 is decided:
  // the cases of epoch t + 1 were drawn from the corpus before it.
  while ((epochsTaken_ + 2) * kGuidanceEpoch <= decidedBelow) {
    const uint64_t first = epochsTaken_ * kGuidanceEpoch, end = first + kGuidanceEpoch;
    for (uint64_t i = first; i < end; ++i)
      if (!pending_.count(i) && !doneBefore(i))
        return true; // still running
    for (uint64_t i = first; i < end; ++i) {
      const auto it = pending_.find(i);
      if (it == pending_.end())
        continue;
      CorpusEntry e = std::move(it->second);
      pending_.erase(it);
      for (const uint32_t k : e.keys)
        if (++hits_[k] == 1)
          e.owned.push_back(k);
      if (e.owned.empty())
        continue;
      if (!dir_.empty() &&
          !writeRegularFile((fs::path(dir_) / (std::to_string(e.seed) + ".json")).string(),
                            corpusEntryText(e), error, /*durable=*/false))
        return false;
      entries_.push_back(std::move(e));
    }
    ++epochsTaken_;
    took = true;
  }
  if (took)
    reweigh();
  return true;
}

void GuidedCorpus::reweigh() {
  for (CorpusEntry &e : entries_) {
    // Fixed point, summed in the entry's own key order: the same on every
    // machine.
    uint64_t r = 0;
    for (const uint32_t k : e.owned)
      r += (uint64_t(1) << 20) / hits_.at(k);
    e.rarity = r;
  }
}

bool GuidedCorpus::ready(uint64_t index) const {
  const uint64_t epoch = index / kGuidanceEpoch;
  return epochsTaken_ + 1 >= epoch || epoch == 0;
}

const CorpusEntry *GuidedCorpus::pick(Prng &rng) {
  if (entries_.empty())
    return nullptr;
  std::vector<uint32_t> weights;
  weights.reserve(entries_.size());
  // Rare over common, little picked over much, small over large: a case
  // costs about its size to run, as do its mutants (AFL favours small,
  // fast inputs for that reason; a size, unlike a time, is the same on
  // every machine).
  for (const CorpusEntry &e : entries_)
    weights.push_back(static_cast<uint32_t>(std::min<uint64_t>(
        1 + e.rarity * 8 / ((1 + e.picked) * (8 + e.s.c.ops.size())), UINT32_MAX / 65536)));
  CorpusEntry &e = entries_[rng.weighted(weights)];
  ++e.picked;
  return &e;
}

bool GuidedCorpus::open(const std::string &campaignDir, uint64_t next,
                        const std::set<uint64_t> &ahead, std::string &error) {
  const fs::path dir = fs::path(campaignDir) / "corpus";
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) {
    error = "cannot create " + dir.string() + ": " + ec.message();
    return false;
  }
  std::vector<fs::path> files;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    if (it->path().extension() == ".json" && it->path().filename().string()[0] != '.')
      files.push_back(it->path());
  for (const fs::path &file : files) {
    std::string text, why;
    CorpusEntry e;
    if (!readFileBytes(file.string(), text, why, 64u << 20) || !parseCorpusEntry(text, e, why)) {
      error = file.string() + ": " + why + "; move it out of the corpus";
      return false;
    }
    entries_.push_back(std::move(e));
  }
  // In order of index (merged shards: of seed among one index), whatever
  // order the names sort in; each key owned by the first entry to reach it.
  std::sort(entries_.begin(), entries_.end(), [](const CorpusEntry &a, const CorpusEntry &b) {
    return a.index != b.index ? a.index < b.index : a.seed < b.seed;
  });
  for (CorpusEntry &e : entries_)
    for (const uint32_t k : e.keys)
      if (++hits_[k] == 1)
        e.owned.push_back(k);
  reweigh();
  resumedAt_ = next;
  aheadAtStart_ = ahead;
  epochsTaken_ = next / kGuidanceEpoch;
  dir_ = dir.string();
  return true;
}

bool mergeCorpora(const std::string &outDir, const std::vector<std::string> &inputs,
                  std::string &error) {
  std::error_code ec;
  for (const std::string &in : inputs) {
    const fs::path from = fs::path(in) / "corpus";
    if (!fs::is_directory(from, ec))
      continue;
    const fs::path to = fs::path(outDir) / "corpus";
    fs::create_directories(to, ec);
    if (ec) {
      error = "cannot create " + to.string() + ": " + ec.message();
      return false;
    }
    for (fs::directory_iterator it(from, ec), end; !ec && it != end; it.increment(ec)) {
      if (it->path().extension() != ".json")
        continue;
      std::string text, why;
      if (!readFileBytes(it->path().string(), text, why, 64u << 20) ||
          !writeRegularFile((to / it->path().filename()).string(), text, why, false)) {
        error = why;
        return false;
      }
    }
  }
  return true;
}

} // namespace npufuzz
