//===- backend/pto/Memcheck.cpp - valgrind memcheck's verdict on a kernel -===//
#include "backend/pto/Memcheck.h"

#include <algorithm>
#include <cctype>
#include <sstream>

namespace npufuzz {

namespace {
/// The unqualified name an Itanium-mangled symbol starts with
/// ("_Z4TADDI..." is TADD, "_ZN3pto9TAdd_ImplI..." is TAdd_Impl); empty
/// when `name` is not mangled. valgrind leaves a symbol mangled when its
/// demangler does not know a type in it, as _Float16 (DF16_) in every f16
/// kernel: without this, every f16 finding would lose its op and line.
std::string mangledName(const std::string &name) {
  if (name.rfind("_Z", 0) != 0)
    return "";
  size_t at = 2;
  const bool nested = at < name.size() && name[at] == 'N';
  at += nested;
  std::string last;
  while (at < name.size() && std::isdigit(static_cast<unsigned char>(name[at]))) {
    size_t length = 0;
    while (at < name.size() && std::isdigit(static_cast<unsigned char>(name[at])))
      length = length * 10 + static_cast<size_t>(name[at++] - '0');
    if (length == 0 || at + length > name.size())
      return "";
    last = name.substr(at, length);
    at += length;
    if (!nested)
      break;
  }
  return last;
}

/// A frame of the kernel: `npf_kernel(`, or a chain's `npf_task<N>(`, as
/// a demangled (perhaps namespaced) or a mangled name.
bool isKernelFrame(const std::string &frame) {
  for (std::string name : {mangledName(frame), frame.substr(0, frame.find('('))}) {
    name = name.substr(name.rfind(':') == std::string::npos ? 0 : name.rfind(':') + 1);
    if (name == "npf_kernel" || (name.rfind("npf_task", 0) == 0 && name.size() > 8 &&
                                 name.find_first_not_of("0123456789", 8) == std::string::npos))
      return true;
  }
  return false;
}

/// A function name without its template arguments, parameters and return
/// type: what stays the same across kernels of other dtypes and shapes.
std::string bareFunction(std::string name) {
  if (const std::string mangled = mangledName(name); !mangled.empty())
    return mangled;
  int depth = 0;
  std::string out;
  for (const char ch : name) {
    if (ch == '<')
      ++depth;
    else if (ch == '>')
      depth = std::max(0, depth - 1);
    else if (ch == '(' && depth == 0)
      break;
    else if (depth == 0)
      out += ch;
  }
  if (const size_t space = out.rfind(' '); space != std::string::npos)
    out = out.substr(space + 1);
  return out;
}

} // namespace

std::string memcheckHeadline(const std::string &err) {
  std::istringstream in(err);
  std::string line, what;
  std::vector<std::string> frames;
  for (; std::getline(in, line);) {
    // "==123== Conditional jump or move depends on uninitialised value(s)",
    // then "==123==    at 0x...: function (file:line)", "   by 0x...".
    const size_t mark = line.find("== ");
    if (mark == std::string::npos)
      continue;
    const size_t start = line.find_first_not_of(' ', mark + 2);
    const std::string body = start == std::string::npos ? std::string() : line.substr(start);
    const bool frame = body.rfind("at 0x", 0) == 0 || body.rfind("by 0x", 0) == 0;
    if (what.empty()) {
      if (!frame && !body.empty())
        what = body;
      continue;
    }
    if (!frame)
      break; // the end of the first error's stack
    if (body.find(": ") == std::string::npos)
      continue;
    frames.push_back(body.substr(body.find(": ") + 2));
  }
  std::string out = "memcheck: " + (what.empty() ? std::string("an error") : what);
  for (size_t k = 0; k < frames.size(); ++k) {
    if (!isKernelFrame(frames[k]))
      continue;
    if (k > 0)
      out += " in " + bareFunction(frames[k - 1].substr(0, frames[k - 1].rfind(" (")));
    // "(kernel.cpp:24)", or with the directory the compiler ran from
    // ("(npufuzz-pto-vNvqmM/kernel.cpp:24)"): the name and line only.
    const size_t file = frames[k].rfind("kernel.cpp:");
    if (file != std::string::npos)
      out += ", reached from " + frames[k].substr(file, frames[k].find(')', file) - file);
    break;
  }
  return out;
}

std::vector<std::string> memcheckCommand(const std::string &valgrind) {
  return {valgrind,
          "--tool=memcheck",
          "-q",
          "--leak-check=no",
          "--exit-on-first-error=yes",
          "--error-exitcode=" + std::to_string(kMemcheckErrorStatus)};
}

} // namespace npufuzz
