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
#include <optional>

namespace fs = std::filesystem;

namespace npufuzz {

namespace {

/// Words as fixed-width hex digits (2 a byte), and back.
template <typename Word> std::string hexWords(const std::vector<Word> &words) {
  constexpr unsigned digits = 2 * sizeof(Word);
  std::string s;
  s.reserve(words.size() * digits);
  for (const Word w : words)
    s += llvm::formatv("{0}", llvm::format_hex_no_prefix(w, digits)).str();
  return s;
}

template <typename Word> bool parseHexWords(llvm::StringRef text, std::vector<Word> &out) {
  constexpr unsigned digits = 2 * sizeof(Word);
  if (text.size() % digits)
    return false;
  for (size_t i = 0; i < text.size(); i += digits) {
    Word w = 0;
    if (text.substr(i, digits).getAsInteger(16, w))
      return false;
    out.push_back(w);
  }
  return true;
}

/// The JSON text of a corpus entry, and back (false when it is not one).
std::string corpusEntryText(const CorpusEntry &e) {
  llvm::json::Object o{
      {"index", static_cast<int64_t>(e.index)},
      {"seed", static_cast<int64_t>(e.seed)},
      {"how", e.how},
      {"lowering_seed",
       e.s.loweringSeed ? llvm::json::Value(*e.s.loweringSeed) : llvm::json::Value(nullptr)},
      {"owned_keys", static_cast<int64_t>(e.owned.size())},
      {"choices", hexWords(e.s.choices)},
      // 8 hex digits a key: an entry's file is written for most early cases
      {"keys", hexWords(e.keys)},
      {"case", printCase(e.s.c)},
  };
  std::string s;
  llvm::raw_string_ostream os(s);
  os << llvm::formatv("{0:2}", llvm::json::Value(std::move(o))) << "\n";
  return s;
}

bool parseCorpusEntry(const llvm::json::Value &parsed, CorpusEntry &out, std::string &error) {
  const llvm::json::Object *o = parsed.getAsObject();
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
  if (!parseHexWords(*o->getString("keys"), out.keys)) {
    error = "its keys are not 8-digit hex keys";
    return false;
  }
  TextError textError;
  if (!parseCase(o->getString("case")->str(), out.s.c, textError)) {
    error = "its case does not parse: " + textError.format("case");
    return false;
  }
  return true;
}

} // namespace

void GuidedCorpus::offer(CorpusEntry e) {
  if (e.index >= epochsTaken_ * epoch_)
    pending_.emplace(e.index, std::move(e));
}

bool GuidedCorpus::advance(uint64_t decidedBelow, std::string &error) {
  bool took = false;
  // Epoch t is taken in once all of it ran and epoch t + 1 is decided:
  // the cases of epoch t + 1 were drawn from the corpus before it.
  while ((epochsTaken_ + 2) * epoch_ <= decidedBelow) {
    const uint64_t first = epochsTaken_ * epoch_, end = first + epoch_;
    for (uint64_t i = first; i < end; ++i)
      if (!pending_.count(i) && !doneBefore(i))
        return true; // still running
    for (uint64_t i = first; i < end; ++i) {
      const auto it = pending_.find(i);
      if (it == pending_.end())
        continue;
      CorpusEntry e = std::move(it->second);
      pending_.erase(it);
      takeIn(e);
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

void GuidedCorpus::takeIn(CorpusEntry &e) {
  for (const uint32_t k : e.keys)
    if (++hits_[k] == 1)
      e.owned.push_back(k);
}

bool GuidedCorpus::ready(uint64_t index) const {
  const uint64_t epoch = index / epoch_;
  return epochsTaken_ + 1 >= epoch;
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
    std::string why;
    CorpusEntry e;
    const std::optional<llvm::json::Value> parsed = readJsonFile(file.string(), why);
    if (!parsed || !parseCorpusEntry(*parsed, e, why)) {
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
    takeIn(e);
  reweigh();
  resumedAt_ = next;
  aheadAtStart_ = ahead;
  epochsTaken_ = next / epoch_;
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
