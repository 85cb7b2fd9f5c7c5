//===- backend/pto/PtoasCoverage.cpp - The lines and branches ptoas reached ---===//
#include "backend/pto/PtoasCoverage.h"

#include "backend/external/CommandProcess.h"
#include "backend/external/ExternalBackend.h"
#include "ir/FileText.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <unistd.h>
#include <vector>

namespace fs = std::filesystem;

namespace npufuzz {
namespace {

constexpr const char *kProfileFile = "ptoas.profraw";
/// A read's own directory, beside the campaign's profiles.
constexpr const char *kReadingPrefix = "ptoas-reading-";
constexpr const char *kNotInstrumented =
    "ptoas wrote no profile: it is not built with clang's source-based coverage "
    "(-fprofile-instr-generate -fcoverage-mapping; docs/toolchains.md#ptoas-with-coverage)";

/// The LLVM tools that read the profile: Debian's LLVM 22 first (what
/// ci/install-deps.sh installs), then unversioned ones on PATH. A profile
/// is read by the tools of the clang that wrote it, or of a newer one.
std::string findLlvmTool(const std::string &name) {
  for (const std::string &candidate : {name + "-22", "/usr/lib/llvm-22/bin/" + name, name}) {
    const std::string path = resolveProgram(candidate);
    if (path.find('/') != std::string::npos && ::access(path.c_str(), X_OK) == 0)
      return path;
  }
  return {};
}

/// The first line of a command's error output, for an `off` reason.
std::string firstLine(const std::string &text) {
  const size_t start = text.find_first_not_of("\n ");
  if (start == std::string::npos)
    return "no message";
  return text.substr(start, text.find('\n', start) - start);
}

std::string jsonString(const std::string &s) {
  std::string out = "\"";
  for (const unsigned char ch : s) {
    if (ch == '"' || ch == '\\') {
      out += '\\';
      out += static_cast<char>(ch);
    } else if (ch < 0x20) {
      static const char *hex = "0123456789abcdef";
      out += "\\u00";
      out += hex[ch >> 4];
      out += hex[ch & 15];
    } else {
      out += static_cast<char>(ch);
    }
  }
  return out + "\"";
}

std::string offJson(const std::string &why) { return "{\"off\":" + jsonString(why) + "}"; }

/// Where ptoas was built from: the CMAKE_HOME_DIRECTORY of the first
/// CMakeCache.txt in a directory above the binary. Its files are the ones
/// measured; LLVM's and the system's headers, whose templates ptoas
/// instantiates, are not ptoas's code.
std::string sourceRootOf(const std::string &ptoas, std::string &why) {
  std::error_code ec;
  fs::path dir = fs::canonical(resolveProgram(ptoas), ec).parent_path();
  if (ec) {
    why = "cannot find ptoas's binary " + ptoas;
    return {};
  }
  for (int up = 0; up < 6 && !dir.empty() && dir != dir.root_path();
       ++up, dir = dir.parent_path()) {
    std::ifstream cache(dir / "CMakeCache.txt");
    for (std::string line; cache && std::getline(cache, line);)
      if (line.rfind("CMAKE_HOME_DIRECTORY:INTERNAL=", 0) == 0)
        return fs::weakly_canonical(line.substr(line.find('=') + 1), ec).string();
  }
  why = "cannot tell which sources are ptoas's: no CMakeCache.txt in a directory above " + ptoas +
        " (run the ptoas of its build directory)";
  return {};
}

/// sourceRootOf, found once for each ptoas this process runs: the root,
/// or empty with why.
const std::pair<std::string, std::string> &cachedSourceRoot(const std::string &ptoas) {
  static std::map<std::string, std::pair<std::string, std::string>> roots;
  if (!roots.count(ptoas)) {
    std::string why;
    std::string root = sourceRootOf(ptoas, why);
    roots[ptoas] = {std::move(root), std::move(why)};
  }
  return roots[ptoas];
}

/// What this process measures with, found once.
struct Tools {
  std::string profdata, cov, version, off;
};

const Tools &tools() {
  static const Tools found = [] {
    Tools t;
    t.profdata = findLlvmTool("llvm-profdata");
    t.cov = findLlvmTool("llvm-cov");
    if (t.profdata.empty() || t.cov.empty()) {
      t.off = "llvm-profdata or llvm-cov is not installed (Debian's llvm-22, which "
              "ci/install-deps.sh installs, has both)";
      return t;
    }
    std::error_code tmpError;
    std::string dir = (fs::temp_directory_path(tmpError) / "npufuzz-llvm-cov-XXXXXX").string();
    if (tmpError || !::mkdtemp(dir.data())) {
      t.off = "cannot make a temporary directory to ask llvm-cov its version";
      return t;
    }
    ExternalToolchain limits;
    limits.timeoutSeconds = 30;
    const std::string out = dir + "/out", err = dir + "/err";
    const CommandEnd end = runCommand(limits, {t.cov, "--version"}, out, err);
    std::string text, readError;
    readFileBytes(out, text, readError);
    std::error_code ec;
    fs::remove_all(dir, ec);
    const size_t at = text.find("LLVM version ");
    if (end.kind != CommandEnd::Kind::Exited || end.exitCode != 0 || at == std::string::npos) {
      t.off = t.cov + " --version failed: " + firstLine(end.stderrText);
      return t;
    }
    t.version = "llvm-cov " + firstLine(text.substr(at + 13));
    return t;
  }();
  return found;
}

/// What this process reported before, by file: a line or branch is
/// reported once, by the first case that reached it, as the adapters do.
struct Reported {
  std::map<std::string, std::set<int64_t>> lines;
  std::map<std::string, std::set<std::pair<int64_t, int64_t>>> branches;
};

Reported &reported() {
  static Reported r;
  return r;
}

int64_t number(const std::string &s, size_t from, size_t to) {
  return std::strtoll(s.substr(from, to - from).c_str(), nullptr, 10);
}

/// Moves the profile `from` into `dir` under a name no other process or
/// run has (a placeholder made by mkstemps, then the profile moved over it
/// whole, so that a reader never sees half of one); false when it cannot.
bool moveProfileInto(const std::string &dir, const std::string &from) {
  std::error_code ec;
  std::string to = dir + "/XXXXXX.profraw";
  const int fd = ::mkstemps(to.data(), 8);
  if (fd < 0)
    return false;
  ::close(fd);
  fs::rename(from, to, ec);
  if (ec)
    fs::remove(to, ec);
  return !ec;
}

} // namespace

/// The raw profiles of one instrumented binary have one layout (LLVM's
/// raw format, version 10: a header of 16 words, the binary's ids, a record
/// per function, then the counters, then the names), and differ in their
/// counters alone, besides addresses the loader chose. Summing the
/// counters of many runs into the first's file gives what llvm-profdata
/// would merge from all of them (without MC/DC bitmaps, which are refused), at the cost of reading
/// them: llvm-profdata takes about 0.4 s a file, and a batch has 16. False (nothing written) for
/// any other layout or a mix of binaries: then llvm-profdata reads them all.
bool sumRawProfiles(const std::vector<std::string> &files, const std::string &out) {
  constexpr uint64_t kMagic = 0xff6c70726f667281ull, kVersion = 10,
                     kByteCoverage = 1ull << 60; // a byte a counter, 0 when it ran
  constexpr size_t kHeaderWords = 16;
  // Header words: 2 the binary ids' size, 3 records, 4 padding before the
  // counters, 5 counters, 7 the MC/DC bitmaps' bytes, 12 an address the
  // loader chose (11, like 10, is relative, yet left out too), 15 the last
  // value kind (a record's size follows from it).
  std::string base, error;
  if (!readFileBytes(files.front(), base, error))
    return false;
  const auto header = [](const std::string &bytes, size_t word) {
    uint64_t v = 0;
    std::memcpy(&v, bytes.data() + 8 * word, 8);
    return v;
  };
  if (base.size() < 8 * kHeaderWords || header(base, 0) != kMagic ||
      (header(base, 1) & 0xffffffffull) != kVersion || header(base, 15) > 16)
    return false;
  // Every size must fit the file, so that no sum below can wrap; MC/DC
  // bitmaps are not summed, so profiles that have them are merged by
  // llvm-profdata.
  for (const size_t w : {2, 3, 4, 5, 6, 8, 9})
    if (header(base, w) > base.size())
      return false;
  if (header(base, 7) != 0)
    return false;
  const bool bytes = (header(base, 1) & kByteCoverage) != 0;
  const uint64_t recordSize = (6 * 8 + 4 + 2 * (header(base, 15) + 1) + 4 + 7) / 8 * 8;
  const uint64_t records = 8 * kHeaderWords + header(base, 2);
  const uint64_t counters = records + header(base, 3) * recordSize + header(base, 4);
  const uint64_t width = bytes ? 1 : 8, count = header(base, 5);
  // Words 6 to 9: padding after the counters, the bitmap and its padding,
  // the names' size.
  const uint64_t names =
      counters + count * width + header(base, 6) + header(base, 7) + header(base, 8);
  if (header(base, 3) > base.size() / recordSize || count > base.size() / width ||
      names > base.size() || header(base, 9) > base.size() - names)
    return false;
  // The layout checked: the records' counters add up to the header's.
  uint64_t listed = 0;
  for (uint64_t r = 0; r < header(base, 3); ++r) {
    uint32_t n = 0;
    std::memcpy(&n, base.data() + records + r * recordSize + 6 * 8, 4);
    listed += n;
  }
  if (listed != count)
    return false;
  // The others: their header, ids and counters alone (a tenth of a file:
  // the names are most of it).
  const uint64_t ids = header(base, 2);
  if (ids == 0)
    return false; // no build id to tell the binary by
  std::string head(8 * kHeaderWords + ids, '\0'), theirs(count * width, '\0');
  for (size_t f = 1; f < files.size(); ++f) {
    std::ifstream in(files[f], std::ios::binary);
    in.read(head.data(), static_cast<std::streamsize>(head.size()));
    in.seekg(static_cast<std::streamoff>(counters));
    in.read(theirs.data(), static_cast<std::streamsize>(theirs.size()));
    in.seekg(0, std::ios::end);
    // The same binary: its size, its build id, and its header but for the
    // loader's addresses.
    if (!in || static_cast<uint64_t>(in.tellg()) != base.size() ||
        head.compare(8 * kHeaderWords, ids, base, 8 * kHeaderWords, ids) != 0)
      return false;
    for (size_t w = 0; w < kHeaderWords; ++w)
      if (w != 11 && w != 12 && header(head, w) != header(base, w))
        return false;
    for (uint64_t c = 0; c < count; ++c) {
      char *mine = base.data() + counters + c * width;
      const char *other = theirs.data() + c * width;
      if (bytes) {
        *mine = static_cast<char>(
            std::min(static_cast<unsigned char>(*mine), static_cast<unsigned char>(*other)));
      } else {
        uint64_t a = 0, b = 0;
        std::memcpy(&a, mine, 8);
        std::memcpy(&b, other, 8);
        a += b;
        std::memcpy(mine, &a, 8);
      }
    }
  }
  std::ofstream o(out, std::ios::binary);
  o.write(base.data(), static_cast<std::streamsize>(base.size()));
  return static_cast<bool>(o.flush());
}

std::string ptoasProfileFile(const std::string &dir) { return dir + "/" + kProfileFile; }

std::pair<std::string, std::string> ptoasProfileVariable(const std::string &dir) {
  return {"LLVM_PROFILE_FILE", ptoasProfileFile(dir)};
}

std::string ptoasProfilesDir(const std::string &batchDir) { return batchDir + "/ptoas-profiles"; }

std::string takePtoasProfile(const std::string &ptoas, const std::string &dir,
                             const std::string &profilesDir, unsigned timeoutSeconds) {
  std::error_code ec;
  if (!fs::exists(ptoasProfileFile(dir), ec))
    return offJson(kNotInstrumented);
  if (profilesDir.empty())
    return ptoasCoverage(ptoas, {ptoasProfileFile(dir)}, dir, timeoutSeconds);
  // What would make the campaign's read fail is said by the case now, so
  // that the campaign says coverage is off and why.
  const Tools &t = tools();
  if (!t.off.empty())
    return offJson(t.off);
  if (const auto &[root, why] = cachedSourceRoot(ptoas); root.empty())
    return offJson(why);
  fs::create_directories(profilesDir, ec);
  if (!moveProfileInto(profilesDir, ptoasProfileFile(dir)))
    return offJson("cannot keep ptoas's profile in " + profilesDir);
  return "{\"tool\":" + jsonString(t.version) + ",\"packages\":[\"ptoas\"],\"files\":{}}";
}

std::string readPtoasProfiles(const std::string &ptoas, const std::string &profilesDir,
                              unsigned timeoutSeconds) {
  std::error_code ec;
  const fs::path parent = fs::path(profilesDir).parent_path();
  // What waits, and what a read that was killed left beside it (one read
  // runs at a time, so no other read holds those).
  std::vector<fs::path> waiting;
  for (fs::directory_iterator it(parent, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (it->path() != fs::path(profilesDir) && name.rfind(kReadingPrefix, 0) != 0)
      continue;
    std::error_code inner;
    for (fs::directory_iterator p(it->path(), inner), pend; !inner && p != pend; p.increment(inner))
      if (p->path().extension() == ".profraw")
        waiting.push_back(p->path());
  }
  if (waiting.empty())
    return {};
  std::sort(waiting.begin(), waiting.end());
  // Moved out first: a profile a worker moves in meanwhile waits for the
  // next read.
  std::string reading = (parent / (std::string(kReadingPrefix) + "XXXXXX")).string();
  if (!::mkdtemp(reading.data()))
    return offJson("cannot make a directory beside " + profilesDir);
  std::vector<std::string> profiles;
  for (const fs::path &from : waiting) {
    const fs::path to = fs::path(reading) / (std::to_string(profiles.size()) + ".profraw");
    fs::rename(from, to, ec);
    if (!ec)
      profiles.push_back(to.string());
  }
  std::string json = ptoasCoverage(ptoas, profiles, reading, timeoutSeconds);
  if (json.rfind("{\"off\":", 0) == 0) {
    // Not read (a tool that failed or timed out): they wait for the next
    // read rather than being lost.
    for (const std::string &p : profiles)
      moveProfileInto(profilesDir, p);
  }
  for (fs::directory_iterator it(parent, ec), end; !ec && it != end; it.increment(ec))
    if (it->path().filename().string().rfind(kReadingPrefix, 0) == 0 &&
        it->path() != fs::path(reading)) {
      std::error_code inner;
      fs::remove_all(it->path(), inner); // a killed read's, emptied above
    }
  fs::remove_all(reading, ec);
  return json;
}

std::string ptoasCoverage(const std::string &ptoas, const std::vector<std::string> &profiles,
                          const std::string &dir, unsigned timeoutSeconds) {
  std::vector<std::string> written;
  std::error_code ec;
  for (const std::string &p : profiles)
    if (fs::exists(p, ec))
      written.push_back(p);
  if (written.empty())
    return offJson(kNotInstrumented);
  const Tools &t = tools();
  if (!t.off.empty())
    return offJson(t.off);
  const auto &[root, rootWhy] = cachedSourceRoot(ptoas);
  if (root.empty())
    return offJson(rootWhy);

  ExternalToolchain limits;
  limits.timeoutSeconds = timeoutSeconds;
  const std::string indexed = dir + "/ptoas.profdata", lcov = dir + "/ptoas.lcov";
  // One unreadable profile (a ptoas killed while writing it) does not
  // cost the others.
  std::vector<std::string> merge = {t.profdata,           "merge", "-sparse",
                                    "--failure-mode=all", "-o",    indexed};
  const std::string summed = dir + "/summed.profraw";
  if (written.size() > 1 && sumRawProfiles(written, summed))
    merge.push_back(summed);
  else
    merge.insert(merge.end(), written.begin(), written.end());
  CommandEnd end = runCommand(limits, merge, dir + "/profdata.out", dir + "/profdata.err");
  if (end.kind != CommandEnd::Kind::Exited || end.exitCode != 0)
    return offJson("llvm-profdata cannot read ptoas's profile: " + firstLine(end.stderrText));
  // lcov: the smallest of llvm-cov's exports that has both lines and
  // branches. Functions and macro expansions are left out: a line is a
  // line of its file either way.
  end = runCommand(limits,
                   {t.cov, "export", "-format=lcov", "-skip-functions", "-skip-expansions",
                    "-instr-profile=" + indexed, resolveProgram(ptoas)},
                   lcov, dir + "/cov.err");
  if (end.kind != CommandEnd::Kind::Exited || end.exitCode != 0)
    return offJson("llvm-cov cannot export ptoas's coverage: " + firstLine(end.stderrText));

  // SF:file, DA:line,count[,checksum], BRDA:line,block,branch,taken
  // ('-' when the condition was never evaluated), end_of_record.
  std::map<std::string, std::pair<std::set<int64_t>, std::set<std::pair<int64_t, int64_t>>>> fresh;
  Reported &seen = reported();
  std::ifstream in(lcov);
  std::string name;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("SF:", 0) == 0) {
      const std::string path = fs::path(line.substr(3)).lexically_normal().string();
      name = path.rfind(root + "/", 0) == 0 ? "ptoas/" + path.substr(root.size() + 1) : "";
    } else if (name.empty()) {
      continue;
    } else if (line.rfind("DA:", 0) == 0) {
      const size_t comma = line.find(',');
      if (comma == std::string::npos || line.compare(comma + 1, 2, "0,") == 0 ||
          line.substr(comma + 1) == "0")
        continue;
      const int64_t at = number(line, 3, comma);
      if (seen.lines[name].insert(at).second)
        fresh[name].first.insert(at);
    } else if (line.rfind("BRDA:", 0) == 0) {
      // A branch is an outcome taken: its line, and llvm-cov's number for
      // it among the outcomes of that line's conditions (a condition's
      // true and false outcomes are two numbers; its block is implied).
      std::vector<size_t> commas;
      for (size_t at = line.find(','); at != std::string::npos; at = line.find(',', at + 1))
        commas.push_back(at);
      if (commas.size() != 3)
        continue;
      const std::string taken = line.substr(commas[2] + 1);
      if (taken == "-" || taken == "0")
        continue;
      const std::pair<int64_t, int64_t> b{number(line, 5, commas[0]),
                                          number(line, commas[1] + 1, commas[2])};
      if (seen.branches[name].insert(b).second)
        fresh[name].second.insert(b);
    }
  }
  std::string json = "{\"tool\":" + jsonString(t.version) + ",\"packages\":[\"ptoas\"],\"files\":{";
  bool firstFile = true;
  for (const auto &[file, reached] : fresh) {
    const auto &[lines, branches] = reached;
    json += (firstFile ? "" : ",") + jsonString(file) + ":{\"lines\":[";
    firstFile = false;
    bool first = true;
    for (const int64_t l : lines) {
      json += (first ? "" : ",") + std::to_string(l);
      first = false;
    }
    json += "],\"branches\":[";
    first = true;
    for (const auto &[from, to] : branches) {
      json += (first ? "[" : ",[") + std::to_string(from) + "," + std::to_string(to) + "]";
      first = false;
    }
    json += "]}";
  }
  return json + "}}";
}

} // namespace npufuzz
