//===- ir/Npy.cpp - NumPy .npy files of reference tensors ----------===//
//
// Bytes are assembled and parsed explicitly (shifts, no memcpy of integers)
// so the files are little-endian on any host. The header parser accepts the
// dict numpy writes, in any key order, and bounds-checks everything.
//
//===----------------------------------------------------------------------===//

#include "ir/Npy.h"

#include "ir/FileText.h"

#include <cstring>
#include <sstream>

namespace npufuzz {
namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicLen = 6;

unsigned itemSize(DType t) { return t == DType::BF16 ? 4 : byteSize(t); }

void putLE(std::string &out, uint64_t v, unsigned bytes) {
  for (unsigned b = 0; b < bytes; ++b)
    out.push_back(static_cast<char>((v >> (8 * b)) & 0xFF));
}

uint64_t getLE(const std::string &in, size_t pos, unsigned bytes) {
  uint64_t v = 0;
  for (unsigned b = 0; b < bytes; ++b)
    v |= uint64_t(static_cast<unsigned char>(in[pos + b])) << (8 * b);
  return v;
}

/// Magic, version 1.0, header length, and the header dict padded with spaces
/// and a newline so the data start at a multiple of 64 bytes.
std::string header(const std::string &descr, const std::vector<int64_t> &shape) {
  std::string dict = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': (";
  for (size_t d = 0; d < shape.size(); ++d)
    dict += std::to_string(shape[d]) + (shape.size() == 1 ? "," : d + 1 < shape.size() ? ", " : "");
  dict += "), }";
  const size_t fixed = kMagicLen + 2 + 2;
  size_t total = fixed + dict.size() + 1;
  dict.append((64 - total % 64) % 64, ' ');
  dict.push_back('\n');
  std::string out(kMagic, kMagicLen);
  out.push_back('\x01');
  out.push_back('\x00');
  putLE(out, dict.size(), 2);
  return out + dict;
}

/// A minimal parser of the header dict: string keys, string / bool / int
/// tuple values.
class DictParser {
public:
  explicit DictParser(const std::string &s) : s_(s) {}

  bool parse(std::string &descr, bool &fortran, std::vector<int64_t> &shape, std::string &error) {
    bool haveDescr = false, haveFortran = false, haveShape = false;
    skip();
    if (!eat('{'))
      return fail("expected '{'", error);
    while (true) {
      skip();
      if (eat('}'))
        break;
      std::string key;
      if (!string(key))
        return fail("expected a quoted key", error);
      skip();
      if (!eat(':'))
        return fail("expected ':'", error);
      skip();
      if (key == "descr") {
        if (!string(descr))
          return fail("descr must be a string", error);
        haveDescr = true;
      } else if (key == "fortran_order") {
        if (word("True"))
          fortran = true;
        else if (word("False"))
          fortran = false;
        else
          return fail("fortran_order must be True or False", error);
        haveFortran = true;
      } else if (key == "shape") {
        if (!tuple(shape))
          return fail("shape must be a tuple of non-negative integers", error);
        haveShape = true;
      } else {
        return fail("unknown key '" + key + "'", error);
      }
      skip();
      if (eat(','))
        continue;
      skip();
      if (eat('}'))
        break;
      return fail("expected ',' or '}'", error);
    }
    if (!haveDescr || !haveFortran || !haveShape)
      return fail("header lacks descr, fortran_order or shape", error);
    return true;
  }

private:
  bool fail(const std::string &m, std::string &error) {
    error = "npy header: " + m + " at offset " + std::to_string(p_);
    return false;
  }
  void skip() {
    while (p_ < s_.size() && (s_[p_] == ' ' || s_[p_] == '\n' || s_[p_] == '\t'))
      ++p_;
  }
  bool eat(char c) {
    if (p_ < s_.size() && s_[p_] == c) {
      ++p_;
      return true;
    }
    return false;
  }
  bool word(const char *w) {
    const size_t n = std::strlen(w);
    if (s_.compare(p_, n, w) != 0)
      return false;
    p_ += n;
    return true;
  }
  bool string(std::string &out) {
    if (p_ >= s_.size() || (s_[p_] != '\'' && s_[p_] != '"'))
      return false;
    const char q = s_[p_++];
    const size_t end = s_.find(q, p_);
    if (end == std::string::npos)
      return false;
    out = s_.substr(p_, end - p_);
    p_ = end + 1;
    return true;
  }
  bool tuple(std::vector<int64_t> &out) {
    out.clear();
    if (!eat('('))
      return false;
    while (true) {
      skip();
      if (eat(')'))
        return true;
      if (p_ >= s_.size() || s_[p_] < '0' || s_[p_] > '9')
        return false;
      int64_t v = 0;
      while (p_ < s_.size() && s_[p_] >= '0' && s_[p_] <= '9') {
        if (v > (INT64_MAX - 9) / 10)
          return false;
        v = v * 10 + (s_[p_++] - '0');
      }
      out.push_back(v);
      skip();
      if (eat(')'))
        return true;
      if (!eat(','))
        return false;
    }
  }

  const std::string &s_;
  size_t p_ = 0;
};

/// Validates the preamble and header; on success `dataPos` is where the
/// elements start and `count` their number.
bool parseHeader(const std::string &bytes, std::string &descr, std::vector<int64_t> &shape,
                 size_t &dataPos, int64_t &count, std::string &error) {
  if (bytes.size() < kMagicLen + 4 || bytes.compare(0, kMagicLen, kMagic, kMagicLen) != 0) {
    error = "not an npy file (bad magic)";
    return false;
  }
  const unsigned major = static_cast<unsigned char>(bytes[6]);
  unsigned lenBytes;
  if (major == 1)
    lenBytes = 2;
  else if (major == 2 || major == 3)
    lenBytes = 4;
  else {
    error = "unsupported npy version " + std::to_string(major);
    return false;
  }
  if (bytes.size() < 8 + lenBytes) {
    error = "truncated npy preamble";
    return false;
  }
  const uint64_t len = getLE(bytes, 8, lenBytes);
  if (len > bytes.size() - 8 - lenBytes) {
    error = "npy header length exceeds the file";
    return false;
  }
  const std::string dict = bytes.substr(8 + lenBytes, size_t(len));
  bool fortran = false;
  if (!DictParser(dict).parse(descr, fortran, shape, error))
    return false;
  if (fortran) {
    error = "fortran_order arrays are not supported";
    return false;
  }
  dataPos = 8 + lenBytes + size_t(len);
  count = 1;
  for (int64_t d : shape) {
    if (d != 0 && count > INT64_MAX / d) {
      error = "npy shape overflows";
      return false;
    }
    count *= d;
  }
  return true;
}

bool checkSize(const std::string &bytes, size_t dataPos, int64_t count, unsigned item,
               std::string &error) {
  const uint64_t avail = bytes.size() - dataPos;
  if (uint64_t(count) > avail / item || uint64_t(count) * item != avail) {
    error = "npy data size " + std::to_string(avail) + " does not match " + std::to_string(count) +
            " elements of " + std::to_string(item) + " bytes";
    return false;
  }
  return true;
}

/// Whole or not at all (a full disk leaves no truncated .npy), and never
/// into a FIFO, a device or a directory at `path`: a FIFO would block with
/// no reader. Not synced to disk: case directories are written anew for
/// every case a campaign runs, and `npufuzz ref` can simply be run again.
bool writeFile(const std::string &path, const std::string &bytes, std::string &error) {
  if (writeRegularFile(path, bytes, error, /*durable=*/false))
    return true;
  error = "cannot write " + error;
  return false;
}

bool readFile(const std::string &path, std::string &bytes, std::string &error) {
  return readFileBytes(path, bytes, error);
}

} // namespace

std::string encodeNpy(const RefTensor &t) {
  const DType dt = t.type.dtype;
  std::string out = header(std::string(npyDescr(dt)), t.type.shape);
  const int64_t n = t.numElements();
  const unsigned item = itemSize(dt);
  out.reserve(out.size() + size_t(n) * item);
  for (int64_t k = 0; k < n; ++k) {
    if (dt == DType::F16)
      putLE(out, floatToF16Bits(t.f[k], RoundingMode::NearestEven), 2);
    else if (t.isFloat())
      putLE(out, floatBits(t.f[k]), 4);
    else
      putLE(out, uint64_t(t.i[k]), item);
  }
  return out;
}

std::string encodeNpyMask(const RefTensor &t) {
  std::string out = header("|b1", t.type.shape);
  for (uint8_t d : t.defined)
    out.push_back(d ? '\x01' : '\x00');
  return out;
}

bool decodeNpy(const std::string &bytes, DType dtype, RefTensor &out, std::string &error) {
  std::string descr;
  std::vector<int64_t> shape;
  size_t pos;
  int64_t count;
  if (!parseHeader(bytes, descr, shape, pos, count, error))
    return false;
  if (descr != npyDescr(dtype)) {
    error = "npy descr '" + descr + "' does not hold " + std::string(dtypeName(dtype)) +
            " (expected '" + std::string(npyDescr(dtype)) + "')";
    return false;
  }
  const unsigned item = itemSize(dtype);
  if (!checkSize(bytes, pos, count, item, error))
    return false;
  TensorType type;
  type.dtype = dtype;
  type.shape = shape;
  RefTensor t = RefTensor::zeros(type);
  for (int64_t k = 0; k < count; ++k, pos += item) {
    const uint64_t raw = getLE(bytes, pos, item);
    if (dtype == DType::F16) {
      t.f[k] = f16BitsToFloat(uint16_t(raw));
    } else if (t.isFloat()) {
      const float v = bitsToFloat(uint32_t(raw));
      if (dtype == DType::BF16 && (raw & 0xFFFF) != 0) {
        error = "element " + std::to_string(k) + " is not a bf16 value";
        return false;
      }
      t.f[k] = v;
    } else if (dtype == DType::I1) {
      if (raw > 1) {
        error = "element " + std::to_string(k) + " is not a bool (0/1)";
        return false;
      }
      t.i[k] = int64_t(raw);
    } else {
      // Sign-extend from the item width.
      const unsigned shift = 64 - 8 * item;
      t.i[k] = static_cast<int64_t>(raw << shift) >> shift;
    }
  }
  std::fill(t.defined.begin(), t.defined.end(), uint8_t(1));
  out = std::move(t);
  return true;
}

bool decodeNpyMask(const std::string &bytes, RefTensor &t, std::string &error) {
  std::string descr;
  std::vector<int64_t> shape;
  size_t pos;
  int64_t count;
  if (!parseHeader(bytes, descr, shape, pos, count, error))
    return false;
  if (descr != "|b1") {
    error = "npy mask descr '" + descr + "' is not '|b1'";
    return false;
  }
  if (shape != t.type.shape) {
    error = "npy mask shape does not match the tensor's";
    return false;
  }
  if (!checkSize(bytes, pos, count, 1, error))
    return false;
  std::vector<uint8_t> mask(static_cast<size_t>(count));
  for (int64_t k = 0; k < count; ++k) {
    const unsigned char b = static_cast<unsigned char>(bytes[pos + size_t(k)]);
    if (b > 1) {
      error = "mask element " + std::to_string(k) + " is not a bool (0/1)";
      return false;
    }
    mask[k] = b;
  }
  t.defined = std::move(mask);
  return true;
}

bool writeNpy(const std::string &path, const RefTensor &t, std::string &error) {
  return writeFile(path, encodeNpy(t), error);
}

bool writeNpyMask(const std::string &path, const RefTensor &t, std::string &error) {
  return writeFile(path, encodeNpyMask(t), error);
}

bool readNpy(const std::string &path, DType dtype, RefTensor &out, std::string &error) {
  std::string bytes;
  return readFile(path, bytes, error) && decodeNpy(bytes, dtype, out, error);
}

bool readNpyMask(const std::string &path, RefTensor &t, std::string &error) {
  std::string bytes;
  return readFile(path, bytes, error) && decodeNpyMask(bytes, t, error);
}

} // namespace npufuzz
