//===- tests/reference/NpyTest.cpp - .npy reading and writing -------------===//

#include "ir/Npy.h"
#include "RefTestUtil.h"

#include <rapidcheck/gtest.h>

#include <climits>
#include <cstdio>

using namespace npufuzz;
using namespace npufuzz::test;

namespace {

std::string headerText(const std::string &bytes) {
  const size_t len = size_t(uint8_t(bytes[8])) | size_t(uint8_t(bytes[9])) << 8;
  return bytes.substr(10, len);
}

TEST(Npy, F32Layout) {
  const RefTensor t = floats(ty(DType::F32, {2, 3}), {1, -2, 0.5f, 0, -0.0f, 3});
  const std::string b = encodeNpy(t);
  ASSERT_EQ(b.compare(0, 8, std::string("\x93NUMPY\x01\x00", 8)), 0);
  const std::string h = headerText(b);
  EXPECT_EQ(h.rfind("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", 0), 0u);
  EXPECT_EQ(h.back(), '\n');
  EXPECT_EQ((10 + h.size()) % 64, 0u);
  ASSERT_EQ(b.size(), 10 + h.size() + 24);
  // 1.0f = 0x3F800000, little-endian.
  EXPECT_EQ(b.substr(10 + h.size(), 4), std::string("\x00\x00\x80\x3F", 4));
  // -0.0f keeps its sign bit.
  EXPECT_EQ(b.substr(10 + h.size() + 16, 4), std::string("\x00\x00\x00\x80", 4));
}

TEST(Npy, DescrsAndOneDimShape) {
  EXPECT_NE(headerText(encodeNpy(floats(ty(DType::F16, {5}), {1, 2, 3, 4, 5})))
                .find("'descr': '<f2', 'fortran_order': False, 'shape': (5,), }"),
            std::string::npos);
  EXPECT_NE(headerText(encodeNpy(floats(ty(DType::BF16, {1}), {1}))).find("'<f4'"),
            std::string::npos);
  EXPECT_NE(headerText(encodeNpy(ints(ty(DType::I8, {1}), {1}))).find("'|i1'"), std::string::npos);
  EXPECT_NE(headerText(encodeNpy(ints(ty(DType::I32, {1}), {1}))).find("'<i4'"), std::string::npos);
  EXPECT_NE(headerText(encodeNpy(ints(ty(DType::Index, {1}), {1}))).find("'<i8'"),
            std::string::npos);
  EXPECT_NE(headerText(encodeNpy(ints(ty(DType::I1, {1}), {1}))).find("'|b1'"), std::string::npos);
  // f16 data are the IEEE half bits: 1.0 = 0x3C00.
  const std::string h = encodeNpy(floats(ty(DType::F16, {1}), {1.0f}));
  EXPECT_EQ(h.substr(h.size() - 2), std::string("\x00\x3C", 2));
}

void roundTrip(const RefTensor &t) {
  RefTensor back;
  std::string error;
  ASSERT_TRUE(decodeNpy(encodeNpy(t), t.type.dtype, back, error)) << error;
  EXPECT_EQ(back.type.shape, t.type.shape);
  EXPECT_EQ(back.type.dtype, t.type.dtype);
  EXPECT_EQ(back.defined, std::vector<uint8_t>(t.defined.size(), 1));
  if (t.isFloat())
    expectFloats(back, t.f);
  else
    expectInts(back, t.i);
}

TEST(Npy, RoundTripsEveryDType) {
  roundTrip(floats(ty(DType::F32, {2, 2}), {NAN, -INFINITY, -0.0f, 0x1p-149f}));
  roundTrip(floats(ty(DType::F16, {3}), {65504.0f, 0x1p-24f, -0.0f}));
  roundTrip(floats(ty(DType::BF16, {2}), {1.0078125f, -0x1p-133f}));
  roundTrip(ints(ty(DType::I8, {3}), {-128, 127, -1}));
  roundTrip(ints(ty(DType::I32, {2}), {INT32_MIN, INT32_MAX}));
  roundTrip(ints(ty(DType::I64, {2}), {INT64_MIN, INT64_MAX}));
  roundTrip(ints(ty(DType::Index, {1, 1, 2}), {0, 7}));
  roundTrip(ints(ty(DType::I1, {3}), {1, 0, 1}));
}

TEST(Npy, MaskRoundTrip) {
  RefTensor t = floats(ty(DType::F32, {2, 2}), {1, 2, 3, 4}, {1, 0, 0, 1});
  const std::string m = encodeNpyMask(t);
  EXPECT_NE(headerText(m).find("'|b1'"), std::string::npos);
  RefTensor u = floats(ty(DType::F32, {2, 2}), {1, 2, 3, 4});
  std::string error;
  ASSERT_TRUE(decodeNpyMask(m, u, error)) << error;
  expectDefined(u, {1, 0, 0, 1});
  RefTensor wrongShape = floats(ty(DType::F32, {4}), {1, 2, 3, 4});
  EXPECT_FALSE(decodeNpyMask(m, wrongShape, error));
  EXPECT_NE(error.find("shape"), std::string::npos);
}

TEST(Npy, Files) {
  const std::string dir = testing::TempDir();
  const RefTensor t = ints(ty(DType::I32, {2}), {-5, 9}, {1, 0});
  std::string error;
  ASSERT_TRUE(writeNpy(dir + "/npf_t.npy", t, error)) << error;
  ASSERT_TRUE(writeNpyMask(dir + "/npf_m.npy", t, error)) << error;
  RefTensor back;
  ASSERT_TRUE(readNpy(dir + "/npf_t.npy", DType::I32, back, error)) << error;
  expectInts(back, {-5, 9});
  ASSERT_TRUE(readNpyMask(dir + "/npf_m.npy", back, error)) << error;
  expectDefined(back, {1, 0});
  EXPECT_FALSE(readNpy(dir + "/does_not_exist.npy", DType::I32, back, error));
  EXPECT_NE(error.find("does_not_exist.npy: No such file"), std::string::npos);
  EXPECT_FALSE(readNpyMask(dir + "/does_not_exist.npy", back, error));
  EXPECT_FALSE(writeNpy(dir + "/no_such_dir/x.npy", t, error));
  EXPECT_FALSE(writeNpyMask(dir + "/no_such_dir/x.npy", t, error));
  std::remove((dir + "/npf_t.npy").c_str());
  std::remove((dir + "/npf_m.npy").c_str());
}

/// `encodeNpy`'s bytes with the header dict replaced by `dict`.
std::string withDict(const std::string &dict, const std::string &data) {
  std::string b("\x93NUMPY\x01\x00", 8);
  b.push_back(char(dict.size() & 0xFF));
  b.push_back(char(dict.size() >> 8));
  return b + dict + data;
}

TEST(Npy, MalformedInputsFailCleanly) {
  const std::string four(4, '\0');
  struct Bad {
    std::string bytes;
    DType dtype;
    const char *message;
  };
  const std::vector<Bad> cases = {
      {"", DType::F32, "magic"},
      {"\x93NUMPX\x01\x00\x00\x00", DType::F32, "magic"},
      {std::string("\x93NUMPY\x09\x00\x00\x00", 10), DType::F32, "version"},
      {std::string("\x93NUMPY\x02\x00\x00\x00\x00", 11), DType::F32, "truncated"},
      {std::string("\x93NUMPY\x01\x00\xFF\x00{", 11), DType::F32, "exceeds"},
      {withDict("{'descr': '<f4', 'shape': (1,), }", four), DType::F32, "lacks"},
      {withDict("{'descr': '<f4', 'fortran_order': True, 'shape': (1,), }", four), DType::F32,
       "fortran"},
      {withDict("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), 'x': 1}", four),
       DType::F32, "unknown key"},
      {withDict("{'descr': '<f4', 'fortran_order': False, 'shape': (-1,), }", four), DType::F32,
       "shape"},
      {withDict("{'descr': '<f4', 'fortran_order': Maybe, 'shape': (1,), }", four), DType::F32,
       "True or False"},
      {withDict("{'descr': '<f4' 'fortran_order': False, 'shape': (1,), }", four), DType::F32,
       "expected ','"},
      {withDict("{'descr: '<f4', 'fortran_order': False, 'shape': (1,), }", four), DType::F32,
       "expected ':'"},
      {withDict("['descr']", four), DType::F32, "expected '{'"},
      {withDict("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }", four), DType::I32,
       "descr"},
      {withDict("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", four), DType::F32,
       "data size"},
      {withDict("{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999, 99999999999), }",
                four),
       DType::F32, "overflows"},
      {withDict("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }",
                std::string("\x01\x00\x80\x3F", 4)),
       DType::BF16, "not a bf16"},
      {withDict("{'descr': '|b1', 'fortran_order': False, 'shape': (1,), }", "\x02"), DType::I1,
       "bool"},
  };
  for (const Bad &c : cases) {
    RefTensor out;
    std::string error;
    EXPECT_FALSE(decodeNpy(c.bytes, c.dtype, out, error)) << c.message;
    EXPECT_NE(error.find(c.message), std::string::npos) << error;
  }
  RefTensor t = floats(ty(DType::F32, {1}), {1});
  std::string error;
  EXPECT_FALSE(decodeNpyMask(encodeNpy(t), t, error));
  EXPECT_NE(error.find("|b1"), std::string::npos);
  EXPECT_FALSE(decodeNpyMask(
      withDict("{'descr': '|b1', 'fortran_order': False, 'shape': (1,), }", "\x05"), t, error));
  EXPECT_FALSE(decodeNpyMask("junk", t, error));
  EXPECT_FALSE(decodeNpyMask(
      withDict("{'descr': '|b1', 'fortran_order': False, 'shape': (1,), }", ""), t, error));
}

RC_GTEST_PROP(NpyProps, CorruptedBytesNeverCrash, (size_t cut, size_t at, uint8_t flip)) {
  const std::string good = encodeNpy(ints(ty(DType::I32, {2, 3}), {1, 2, 3, 4, 5, 6}));
  std::string b = good.substr(0, cut % (good.size() + 1));
  if (!b.empty())
    b[at % b.size()] ^= char(flip);
  RefTensor out;
  std::string error;
  if (!decodeNpy(b, DType::I32, out, error))
    RC_ASSERT(!error.empty());
  else
    RC_ASSERT(out.numElements() == int64_t(out.i.size()));
}

} // namespace
