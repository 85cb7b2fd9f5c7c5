//===- tests/ir/MalformedTextTest.cpp - Bad .npf input gets clear errors --===//
//
// Every malformed input must end in a TextError at the right line and
// column with a message that says what is wrong, never in a crash.
//
//===----------------------------------------------------------------------===//
#include "ir/Text.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

using namespace npufuzz;

namespace {
struct Malformed {
  const char *name;
  std::string text;
  int line, col;
  const char *message; ///< a substring of the expected message
};

const std::string kHead = "npufuzz-case 1\n";
const std::string kGood = kHead + "%0 = input {fill=rand} : f32[4,8]\n"
                                  "%1 = exp %0 : f32[4,8]\n"
                                  "return %1\n";

std::vector<Malformed> cases() {
  return {
      {"empty", "", 1, 1, "empty file"},
      {"only comments", "// nothing\n\n", 1, 1, "empty file"},
      {"no header", "%0 = input : f32[4]\n", 1, 1, "expected 'npufuzz-case 1' header"},
      {"future version", "npufuzz-case 9\n", 1, 15, "unsupported format version 9"},
      {"truncated before return", kHead + "%0 = input {fill=rand} : f32[4,8]\n", 3, 1,
       "missing 'return'"},
      {"truncated mid-line", kHead + "%0 = input {fill=rand} : f32[4,", 2, 32,
       "expected an integer"},
      {"truncated type", kHead + "%0 = input {fill=rand} : f3", 2, 26, "unknown element type 'f3'"},
      {"unknown op", kHead + "%0 = frobnicate : f32[4]\nreturn %0\n", 2, 6,
       "unknown op 'frobnicate'"},
      {"unknown dtype", kHead + "%0 = input {fill=rand} : f31[4]\nreturn %0\n", 2, 26,
       "unknown element type 'f31'"},
      {"huge dim", kHead + "%0 = input {fill=rand} : f32[99999999999]\nreturn %0\n", 2, 30,
       "dimension 99999999999 is outside 1..65536"},
      {"int overflow dim", kHead + "%0 = input : f32[999999999999999999999999]\nreturn %0\n", 2, 18,
       "expected an integer"},
      {"zero dim", kHead + "%0 = input {fill=rand} : f32[0]\nreturn %0\n", 2, 30,
       "dimension 0 is outside"},
      {"rank 7", kHead + "%0 = input : f32[1,1,1,1,1,1,1]\nreturn %0\n", 2, 30, "rank exceeds 6"},
      {"too many elements", kHead + "%0 = input : f32[65536,65536]\nreturn %0\n", 2, 1,
       "more than 4194304 elements"},
      {"wrong operand type", kHead + "%0 = input : i1[4]\n%1 = exp %0 : i1[4]\nreturn %1\n", 3, 1,
       "exp does not take i1"},
      {"undefined operand", kHead + "%1 = exp %0 : f32[4]\nreturn %1\n", 2, 10,
       "use of undefined value %0"},
      {"redefinition", kHead + "%0 = input : f32[4]\n%0 = exp %0 : f32[4]\nreturn %0\n", 3, 1,
       "redefinition of %0"},
      {"missing colon", kHead + "%0 = input {fill=rand} f32[4]\nreturn %0\n", 2, 24,
       "expected ':'"},
      {"bad attribute", kHead + "%0 = input {fill=sometimes} : f32[4]\nreturn %0\n", 2, 13,
       "fill must be rand"},
      {"attribute not taken", kHead + "%0 = input {axis=1} : f32[4]\nreturn %0\n", 2, 13,
       "takes no attribute 'axis'"},
      {"repeated attribute", kHead + "%0 = iota {axis=0, axis=0} : i32[4]\nreturn %0\n", 2, 20,
       "repeated attribute 'axis'"},
      {"unbalanced bracket", kHead + "%0 = input : f32[4]\n%1 = transpose %0 {perm=[0} : f32[4]\n",
       3, 25, "unbalanced bracket: this one is never closed"},
      {"bad map",
       kHead + "%0 = input : f32[8]\n%1 = index_map %0 {map=(d0) -> (d0 mod 0)} : f32[8]\n", 3, 40,
       "in map: mod needs a positive constant"},
      {"map out of bounds",
       kHead +
           "%0 = input : f32[8]\n%1 = index_map %0 {map=(d0) -> (d0 + 1)} : f32[8]\nreturn %1\n",
       3, 1, "ranges over [1, 8], outside source dim 8"},
      {"gather unproven",
       kHead + "%0 = input : f32[8]\n%1 = input : i64[8]\n%2 = gather %0, %1 {axis=0} : "
               "f32[8]\nreturn %2\n",
       4, 1, "not provably within [0, 8)"},
      {"text after return", kGood + "%2 = exp %1 : f32[4,8]\n", 5, 1,
       "nothing may follow 'return'"},
      {"return undefined", kHead + "%0 = input : f32[4]\nreturn %7\n", 3, 8,
       "use of undefined value %7"},
      {"bad utf-8", kHead + "%0 = input : f32[4]\n\xff\xfe\x80 = exp %0 : f32[4]\n", 3, 1,
       "expected a value name"},
      {"nul byte", kHead + std::string("%0 = in\0put : f32[4]\n", 21), 2, 6, "unknown op 'in'"},
      {"bad edge rate", kHead + "data seed=1 edge_rate=2\n", 2, 13, "edge_rate must be a number"},
      {"bad generator seed", kHead + "generator seed=-4\n", 2, 11, "unsigned integer"},
      {"unterminated policy", kHead + "generator seed=1 policy=\"abc\n", 2, 25,
       "unterminated string"},
      {"result count",
       kHead + "%0 = input : f32[4,4]\n%1 = topk %0 {axis=1, k=2} : f32[4,2]\nreturn %1\n", 3, 1,
       "must define 2 result(s)"},
      {"set_validshape too big",
       kHead + "%0 = input : f32[4,4]\n%1 = set_validshape %0 : f32[4,4]{valid=5x4}\nreturn %1\n",
       3, 1, "set_validshape 5x4 needs a rank-2 tile"},
      {"task of no blocks", kHead + "task a blocks=0\n%0 = input : f32[4]\nreturn %0\n", 2, 8,
       "blocks must be an integer in [1, 64]"},
      {"repeated task", kHead + "task a\ntask a\n", 3, 6, "repeated task 'a'"},
      {"unknown task key", kHead + "task a cores=2\n", 2, 8, "unknown task key 'cores'"},
      {"unknown task store", kHead + "task a store=cache\n", 2, 8, "store must be tile or scalar"},
      {"task with no name", kHead + "task\n", 2, 5, "expected a task name"},
      {"value does not fit", kHead + "%0 = const {value=300} : i8[4]\nreturn %0\n", 2, 13,
       "does not fit i8"},
  };
}
} // namespace

TEST(MalformedText, EachErrorNamesLineColumnAndProblem) {
  for (const Malformed &m : cases()) {
    Case c;
    TextError err;
    EXPECT_FALSE(parseCase(m.text, c, err)) << m.name;
    EXPECT_EQ(err.line, m.line) << m.name << ": " << err.format("x");
    EXPECT_EQ(err.col, m.col) << m.name << ": " << err.format("x");
    EXPECT_NE(err.message.find(m.message), std::string::npos)
        << m.name << ": got '" << err.message << "'";
  }
}

TEST(MalformedText, EveryTruncationOfAValidCaseIsAnErrorOrValid) {
  for (size_t n = 0; n <= kGood.size(); ++n) {
    Case c;
    TextError err;
    if (!parseCase(kGood.substr(0, n), c, err)) {
      EXPECT_GE(err.line, 1);
      EXPECT_FALSE(err.message.empty());
    }
  }
}

RC_GTEST_PROP(MalformedText, RandomByteEditsNeverCrash, ()) {
  std::string text = kGood;
  const int edits = *rc::gen::inRange(1, 6);
  for (int i = 0; i < edits; ++i) {
    const size_t at = *rc::gen::inRange<size_t>(0, text.size());
    switch (*rc::gen::inRange(0, 3)) {
    case 0: text[at] = static_cast<char>(*rc::gen::arbitrary<uint8_t>()); break;
    case 1: text.erase(at, 1); break;
    default: text.insert(at, 1, static_cast<char>(*rc::gen::arbitrary<uint8_t>())); break;
    }
  }
  Case c;
  TextError err;
  if (!parseCase(text, c, err)) {
    RC_ASSERT(err.line >= 1);
    RC_ASSERT(!err.message.empty());
  }
}
