//===- ir/NumberText.cpp - Exact number <-> text --------------------------===//
#include "ir/NumberText.h"

#include <charconv>
#include <cmath>
#include <limits>

namespace npufuzz {

namespace {
template <typename T> std::string toText(T v) {
  if (std::isnan(v))
    return "nan";
  if (std::isinf(v))
    return v < 0 ? "-inf" : "inf";
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof(buf), v);
  return std::string(buf, res.ptr);
}

template <typename T> bool fromText(std::string_view s, T &v) {
  if (s == "nan") {
    v = std::numeric_limits<T>::quiet_NaN();
    return true;
  }
  if (s == "inf" || s == "-inf") {
    v = s[0] == '-' ? -std::numeric_limits<T>::infinity() : std::numeric_limits<T>::infinity();
    return true;
  }
  if (s.empty())
    return false;
  auto res = std::from_chars(s.data(), s.data() + s.size(), v);
  return res.ec == std::errc() && res.ptr == s.data() + s.size();
}
} // namespace

std::string floatToText(float v) { return toText(v); }
std::string doubleToText(double v) { return toText(v); }
bool textToFloat(std::string_view s, float &v) { return fromText(s, v); }
bool textToDouble(std::string_view s, double &v) { return fromText(s, v); }

bool textToInt(std::string_view s, int64_t &v) {
  if (s.empty())
    return false;
  auto res = std::from_chars(s.data(), s.data() + s.size(), v);
  return res.ec == std::errc() && res.ptr == s.data() + s.size();
}

bool textToUInt(std::string_view s, uint64_t &v) {
  if (s.empty() || s[0] == '-')
    return false;
  auto res = std::from_chars(s.data(), s.data() + s.size(), v);
  return res.ec == std::errc() && res.ptr == s.data() + s.size();
}

} // namespace npufuzz
