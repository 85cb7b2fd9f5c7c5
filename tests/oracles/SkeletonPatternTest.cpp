//===- tests/oracles/SkeletonPatternTest.cpp - The IR a known bug needs ----===//
#include "oracles/SkeletonPattern.h"

#include <gtest/gtest.h>

using namespace npufuzz;

namespace {
// The reduced skeleton of affine-loop-fusion's sibling-reduction bug beside
// a fillpad's copy nest (affine O2, seed 51819), and the one it was listed
// with first.
const char *kBesideACopyNest =
    "func.func{memref.alloc affine.for{affine.load(d) affine.store(d)} "
    "affine.for{affine.for{affine.load(d)} affine.store(d)} affine.for{affine.load(d)} "
    "memref.copy memref.dealloc}";
const char *kSiblingReduction = "affine.for{affine.for{affine.load(d)} affine.store(d)} "
                                "affine.for{affine.load(d)}";
} // namespace

TEST(SkeletonPattern, ThePatternIsFoundWhateverTheReductionKeptBesideIt) {
  EXPECT_TRUE(skeletonIncludes(kBesideACopyNest, kSiblingReduction));
  EXPECT_TRUE(skeletonIncludes(kBesideACopyNest, kBesideACopyNest));
  // At any depth, and in any order within a block.
  EXPECT_TRUE(skeletonIncludes(kBesideACopyNest, "affine.for{affine.load(d)}"));
  EXPECT_TRUE(skeletonIncludes("func.func{affine.for{affine.store(d) affine.load(div)}}",
                               "affine.for{affine.load(div) affine.store(d)}"));
}

TEST(SkeletonPattern, OtherIrIsNotTheKnownBug) {
  // A strided subscript where the bug needs a floordiv/mod one.
  EXPECT_FALSE(skeletonIncludes("func.func{affine.for{affine.load(d*c) affine.store(d)}}",
                                "affine.for{affine.load(div)}"));
  // The load outside the loop it must be in.
  EXPECT_FALSE(skeletonIncludes("func.func{affine.load(div) affine.for{affine.store(d)}}",
                                "affine.for{affine.load(div)}"));
  // One op of the skeleton matches one op of the pattern, not two.
  EXPECT_FALSE(skeletonIncludes("func.func{affine.for{affine.load(d)}}",
                                "affine.for{affine.load(d)} affine.for{affine.load(d)}"));
  // A step mark is part of the name.
  EXPECT_FALSE(skeletonIncludes("func.func{affine.for[step]{affine.load(d)}}",
                                "affine.for{affine.load(d)}"));
}

TEST(SkeletonPattern, WhatIsNotASkeletonIsTold) {
  EXPECT_TRUE(isSkeletonText(kBesideACopyNest));
  EXPECT_TRUE(isSkeletonText("scf.if{affine.load(d)}{memref.copy}"));
  for (const char *bad : {"", "affine.for{", "affine.for}", "a  b", " a", "a{}}", "{a}"})
    EXPECT_FALSE(isSkeletonText(bad)) << bad;
  EXPECT_FALSE(skeletonIncludes(kBesideACopyNest, "affine.for{"));
}
