//===- tests/driver/SignatureTest.cpp - Normalised failure identities -----===//
#include "oracles/Signature.h"
#include "backend/pto/Memcheck.h"
#include "driver/CaseTask.h"
#include "oracles/Metamorphic.h"

#include <gtest/gtest.h>

using namespace npufuzz;

TEST(Signature, NormalizationStripsWhatVaries) {
  // LLVM's crash handler's lines name no bug: a dump of them alone names
  // nothing, and a real line beside them is the one taken.
  const std::string dump = "PLEASE submit a bug report to https://github.com/llvm/llvm-project/"
                           "issues/ and include the crash backtrace.\nStack dump:\n0.\tProgram "
                           "arguments: npufuzz run x.npf\n #0 0x00007f64224b8786 "
                           "llvm::sys::PrintStackTrace(llvm::raw_ostream&, int)\n";
  EXPECT_EQ(normalizeMessage(dump), "");
  // The same without llvm-symbolizer: the dump's header and bare frames.
  EXPECT_EQ(normalizeMessage("Stack dump without symbol names (ensure you have llvm-symbolizer in "
                             "your PATH or set the environment var `LLVM_SYMBOLIZER_PATH` to point "
                             "to it):\n0  npufuzz 0x000055ecd615573b\n1  libLLVM.so.22.1 "
                             "0x00007f64224b6001 llvm::sys::RunSignalHandlers() + 49\n"),
            "");
  EXPECT_EQ(normalizeMessage(dump + "LLVM ERROR: out of registers\n"),
            "LLVM ERROR: out of registers");
  EXPECT_EQ(normalizeMessage("loc(\"-\":16:11): 'vector.transfer_write' op should not have "
                             "broadcast dimensions\nnote: %19 = ..."),
            "loc(\"-\":N:N): 'vector.transfer_write' op should not have broadcast dimensions");
  EXPECT_EQ(normalizeMessage("/tmp/npufuzz-e8a.mlir:31:11: error: use of %tmp19 at 0x7ffd1234"),
            "<tmp>:N:N: error: use of %v at 0x?");
  // Two occurrences of one bug with other numbers and names: one signature.
  Signature a{VerdictKind::VerifierError, "func.func(cse)", "",
              normalizeMessage("x.mlir:3:4: error: operand #2 of %a3 does not dominate")};
  Signature b{VerdictKind::VerifierError, "func.func(cse)", "",
              normalizeMessage("x.mlir:9:1: error: operand #0 of %b12 does not dominate")};
  EXPECT_EQ(a.id(), b.id());
  Signature c = a;
  c.pass = "func.func(canonicalize)";
  EXPECT_NE(a.id(), c.id());
  EXPECT_EQ(a.id().rfind("verifier-error-", 0), 0u);
}

TEST(Signature, CrashLocationReadsLlvmStackDumps) {
  const std::string dump =
      "Stack dump:\n"
      "0.\tProgram arguments: npufuzz\n"
      "#0 0x00007f llvm::sys::PrintStackTrace(llvm::raw_ostream&, int) (libLLVM.so+0x1)\n"
      "#1 0x00007f llvm::sys::RunSignalHandlers() (libLLVM.so+0x2)\n"
      "#2 0x00007f (libc.so.6+0x3c050)\n"
      "#3 0x00007f (anonymous namespace)::CrashPass::runOnOperation() (plugin.so+0x4)\n"
      "#4 0x00007f mlir::detail::OpToOpPassAdaptor::run(mlir::Pass*) (libMLIR.so+0x5)\n"
      "#5 0x00007f mlir::PassManager::run(mlir::Operation*) (libMLIR.so+0x6)\n"
      "#6 0x00007f main (npufuzz+0x7)\n";
  // Infrastructure (signal handlers, adaptors, the pass manager) names no
  // culprit.
  EXPECT_EQ(crashLocation(dump), "(anonymous namespace)::CrashPass::runOnOperation()");
}

// A black-box toolchain's wrong results of one op are separate findings
// when they differ in kind; with a blamed pass, the pass tells them apart
// and the kind stays out (MLIR findings keep their identities).
TEST(Signature, MismatchesWithoutABlamedPassAreSplitByTheKindOfDifference) {
  ChildOutcome o;
  o.end = ChildOutcome::End::Returned;
  TaskResult t;
  t.verdict = VerdictKind::Mismatch;
  t.where = "max";
  t.difference = "signed-zero";
  o.payload = t.toJson();
  const Signature zero = reportOf(o).signature;
  t.difference = "nan";
  o.payload = t.toJson();
  const Signature nan = reportOf(o).signature;
  EXPECT_NE(zero.id(), nan.id());
  EXPECT_EQ(zero.text(), "mismatch |  | max | signed-zero");

  t.passName = "func.func(arith-expand)";
  o.payload = t.toJson();
  const Signature blamedNan = reportOf(o).signature;
  t.difference = "signed-zero";
  o.payload = t.toJson();
  EXPECT_EQ(reportOf(o).signature.id(), blamedNan.id());
  EXPECT_EQ(blamedNan.text(), "mismatch | func.func(arith-expand) | max | ");

  // Blamed on a pass, a result only rounded wrong is the pass's rounding,
  // whichever op's result landed on a case it rounds wrong.
  t.difference = "rounding";
  t.onlyRounding = true;
  o.payload = t.toJson();
  EXPECT_EQ(reportOf(o).signature.text(), "mismatch | func.func(arith-expand) | rounding | ");
  t.where = "mul";
  o.payload = t.toJson();
  EXPECT_EQ(reportOf(o).signature.text(), "mismatch | func.func(arith-expand) | rounding | ");
  // Without a pass the op and the class of difference name it, as before.
  t.passName.clear();
  o.payload = t.toJson();
  EXPECT_EQ(reportOf(o).signature.text(), "mismatch |  | mul | rounding");
}

// memcheck's headline is the signature, its numbers (lines, pids) dropped.
TEST(Signature, AMemcheckReportIsKeyedByItsHeadline) {
  ChildOutcome o;
  o.end = ChildOutcome::End::Returned;
  TaskResult t;
  t.verdict = VerdictKind::UninitializedRead;
  // valgrind's own report follows the headline, as it prints it.
  t.message = "memcheck: Conditional jump or move depends on uninitialised value(s) in "
              "pto::TAdd_Impl, reached from kernel.cpp:23\n"
              "==5895== Conditional jump or move depends on uninitialised value(s)\n"
              "==5895==    at 0x110902: void pto::TAdd_Impl<...>(...) (TAdd.hpp:64)\n"
              "==5895== \n==5895== Exit program on first error (--exit-on-first-error=yes)\n";
  o.payload = t.toJson();
  const Signature a = reportOf(o).signature;
  t.message = "memcheck: Conditional jump or move depends on uninitialised value(s) in "
              "pto::TAdd_Impl, reached from kernel.cpp:57\n==77== at 0x2: ...";
  o.payload = t.toJson();
  EXPECT_EQ(reportOf(o).signature.id(), a.id());
  EXPECT_NE(a.text().find("pto::TAdd_Impl"), std::string::npos) << a.text();
  // Another instruction is another finding.
  t.message = "memcheck: Conditional jump or move depends on uninitialised value(s) in "
              "pto::TRowExpandMul_Impl, reached from kernel.cpp:23\n"
              "==9== Exit program on first error (--exit-on-first-error=yes)\n";
  o.payload = t.toJson();
  EXPECT_NE(reportOf(o).signature.id(), a.id());
}

// valgrind's report as it reads on two machines: the kernel's file with or
// without the directory the compiler ran in, and inlined frames (TADD is a
// macro over TADD_IMPL) between the kernel and the instruction's code.
TEST(Signature, TheMemcheckHeadlineNamesTheInstructionAndTheKernelLine) {
  for (const std::string file : {"kernel.cpp", "npufuzz-pto-vNvqmM/kernel.cpp"}) {
    const std::string report =
        "==29100== Conditional jump or move depends on uninitialised value(s)\n"
        "==29100==    at 0x110912: void pto::cpu::parallel_for_1d<pto::TAdd_Impl<pto::Tile<"
        "(pto::TileType)0, float, 2, 32> >(unsigned long)::{lambda(unsigned long)#1}>(unsigned "
        "long) (parallel.hpp:57)\n"
        "==29100==    by 0x11084F: void pto::TAdd_Impl<pto::Tile<(pto::TileType)0, float, 2, "
        "32> >(float*, unsigned int) (TAdd.hpp:26)\n"
        "==29100==    by 0x10DD48: TADD_IMPL<pto::Tile<(pto::TileType)0, float, 2, 32> > "
        "(TAdd.hpp:74)\n"
        "==29100==    by 0x10DD48: TADD<pto::Tile<(pto::TileType)0, float, 2, 32> > "
        "(pto_instr.hpp:182)\n"
        "==29100==    by 0x10DD48: npf_kernel(float*, float*) (" +
        file +
        ":24)\n"
        "==29100==    by 0x10F8BF: main (harness.cpp:42)\n"
        "==29100== \n"
        "==29100== Exit program on first error (--exit-on-first-error=yes)\n";
    EXPECT_EQ(memcheckHeadline(report),
              "memcheck: Conditional jump or move depends on uninitialised value(s) in TADD, "
              "reached from kernel.cpp:24")
        << file;
  }
}

// An f16 kernel as valgrind prints it: its demangler does not know
// _Float16 (DF16_), so the kernel and the instruction stay mangled. The
// headline must name them as for any other dtype.
TEST(Signature, TheMemcheckHeadlineOfAnF16KernelNamesItsInstructionAndLine) {
  const std::string report =
      "==31000== Conditional jump or move depends on uninitialised value(s)\n"
      "==31000==    at 0x110912: "
      "_ZN3pto9TAdd_ImplINS_4TileILNS_8TileTypeE0EDF16_Li2ELi32EEEEEvPDF16_j "
      "(TAdd.hpp:26)\n"
      "==31000==    by 0x10DD48: _Z4TADDIN3pto4TileILNS0_8TileTypeE0EDF16_Li2ELi32EEEEvRT_S5_S5_ "
      "(pto_instr.hpp:182)\n"
      "==31000==    by 0x10DD48: _Z10npf_kernelPDF16_S_ (kernel.cpp:31)\n"
      "==31000==    by 0x10F8BF: main (harness.cpp:42)\n"
      "==31000== \n";
  EXPECT_EQ(memcheckHeadline(report),
            "memcheck: Conditional jump or move depends on uninitialised value(s) in TADD, "
            "reached from kernel.cpp:31");
}

// Two runs of a kernel that reads uninitialised memory differ in values
// from one occurrence to the next; its signature must not.
TEST(Signature, ANondeterministicOutputIsKeyedByItsOpNotItsValues) {
  ChildOutcome o;
  o.end = ChildOutcome::End::Returned;
  TaskResult t;
  t.verdict = VerdictKind::Nondeterministic;
  t.where = "ne";
  t.summary = "two identical runs differ: output 0 (%1): 2 of 17 elements differ; first [0,16]: "
              "expected 0, got 1";
  o.payload = t.toJson();
  const Signature a = reportOf(o).signature;
  t.summary = "two identical runs differ: output 0 (%1): 1 of 17 elements differ; first [0,3]: "
              "expected nan, got -inf";
  o.payload = t.toJson();
  EXPECT_EQ(reportOf(o).signature.id(), a.id());
  EXPECT_EQ(a.text(), "nondeterministic |  | ne | ");
}

// A worker that died in a pass left its mark on stderr, first: the crash is
// named by that pass and the signal; the mark itself is not the message.
TEST(Signature, ACrashIsNamedByTheStageItsMarkGives) {
  ChildOutcome o;
  o.end = ChildOutcome::End::Signalled;
  o.signal = 11;
  o.stderrText = "npufuzz: died while running pass 2: func.func(affine-loop-fusion)\n"
                 "PLEASE submit a bug report to https://github.com/llvm/llvm-project/issues/\n"
                 "Stack dump:\n"
                 " #0 0x00007f mlir::Operation::print(llvm::raw_ostream&) (libMLIR.so+0x1)\n";
  const CaseReport r = reportOf(o);
  EXPECT_EQ(r.result.verdict, VerdictKind::Crash);
  EXPECT_EQ(r.result.passIndex, 2);
  EXPECT_EQ(r.signature.text(), "crash | func.func(affine-loop-fusion) | memory error | ");

  // The same memory error caught by glibc's heap checks is the same finding;
  // another abort (a fatal error) keeps its signal and message.
  o.signal = 6;
  o.stderrText = "npufuzz: died while running pass 2: func.func(affine-loop-fusion)\n"
                 "free(): double free detected in tcache 2\n";
  EXPECT_EQ(reportOf(o).signature.id(), r.signature.id());
  o.stderrText = "npufuzz: died while running pass 2: func.func(affine-loop-fusion)\n"
                 "LLVM ERROR: out of range\n";
  EXPECT_EQ(reportOf(o).signature.where, "signal 6");

  // In the compiled kernel: no symbols, no pass; the stage names it.
  o.stderrText = "npufuzz: died while executing the kernel\n";
  EXPECT_EQ(reportOf(o).signature.where, "kernel");
}

// A loop one past its bound reads past one buffer in one case, writes past
// another in the next, and writes outside an output's valid region in a
// third: one root of the pass, each case's access kept as its symptom.
// Without a blamed pass each access is its own finding.
TEST(Signature, EveryBadAccessOfOnePassIsOneRoot) {
  ChildOutcome o;
  o.end = ChildOutcome::End::Returned;
  auto signatureOf = [&](VerdictKind verdict, const std::string &where, const std::string &pass,
                         std::string *symptom = nullptr) {
    TaskResult t;
    t.verdict = verdict;
    t.where = where;
    t.passName = pass;
    o.payload = t.toJson();
    const CaseReport r = reportOf(o);
    if (symptom)
      *symptom = r.result.symptom;
    EXPECT_EQ(r.result.verdict, verdict) << "the case's own verdict stays";
    return r.signature;
  };
  const std::string pass = "func.func(npufuzz-bug-loop-overrun)";
  std::string symptom;
  const Signature read = signatureOf(VerdictKind::OutOfBoundsRead, "memref.load", pass, &symptom);
  EXPECT_EQ(read.text(), "mismatch | " + pass + " | bad access | ");
  EXPECT_EQ(symptom, "out-of-bounds-read in memref.load");
  EXPECT_EQ(signatureOf(VerdictKind::OutOfBoundsWrite, "memref.store", pass).id(), read.id());
  EXPECT_EQ(signatureOf(VerdictKind::OutOfRegionWrite, "", pass, &symptom).id(), read.id());
  EXPECT_EQ(symptom, "out-of-region-write");
  // Outputs that change with the padding: a read outside a valid shape.
  EXPECT_EQ(signatureOf(VerdictKind::UninitializedRead, kPaddingVariant, pass, &symptom).id(),
            read.id());
  EXPECT_EQ(symptom, "uninitialized-read in " + std::string(kPaddingVariant));
  // Another uninitialised read of the pass is its wrong value's, not an access.
  EXPECT_NE(signatureOf(VerdictKind::UninitializedRead, "add", pass).id(), read.id());
  // A kernel that faults is its crash's, whatever the signal was.
  EXPECT_NE(signatureOf(VerdictKind::Crash, "kernel", pass).id(), read.id());
  // Another pass is another root; a wrong value is not an access.
  EXPECT_NE(signatureOf(VerdictKind::OutOfBoundsRead, "memref.load", "func.func(other)").id(),
            read.id());
  EXPECT_NE(signatureOf(VerdictKind::Mismatch, "add", pass).id(), read.id());
  // No pass (a black-box toolchain, or a kernel not yet blamed): the access.
  EXPECT_EQ(signatureOf(VerdictKind::OutOfBoundsRead, "memref.load", "").text(),
            "out-of-bounds-read |  | memref.load | ");
  EXPECT_EQ(signatureOf(VerdictKind::Crash, "kernel", "").where, "kernel");
}

TEST(Signature, ARootCauseAcceptsWhatItDoesNotNeed) {
  EXPECT_EQ(passWithoutOptions("func.func(arith-expand{include-bf16=true})"),
            "func.func(arith-expand)");
  EXPECT_EQ(passWithoutOptions("func.func(affine-loop-unroll{unroll-factor=2 x={1,2}})"),
            "func.func(affine-loop-unroll)");
  EXPECT_EQ(passWithoutOptions("canonicalize"), "canonicalize");
  const Signature seen{VerdictKind::Mismatch, "func.func(arith-expand{include-bf16=true})",
                       "max/min", ""};
  // A generalised target: any op, the pass with any options.
  const Signature root{VerdictKind::Mismatch, "func.func(arith-expand)", kAnyOp, ""};
  EXPECT_TRUE(sameRootCause(root, seen));
  EXPECT_TRUE(sameRootCause(seen, seen));
  // A target that needs its op family or its options keeps them.
  Signature other = seen;
  other.where = "add";
  EXPECT_FALSE(sameRootCause(seen, other));
  Signature plain = seen;
  plain.pass = "func.func(arith-expand)";
  EXPECT_FALSE(sameRootCause(seen, plain));
  // Neither accepts another verdict, pass or message.
  Signature crash = seen;
  crash.kind = VerdictKind::Crash;
  EXPECT_FALSE(sameRootCause(root, crash));
  Signature cse = seen;
  cse.pass = "func.func(cse)";
  EXPECT_FALSE(sameRootCause(root, cse));
  Signature message = seen;
  message.message = "sign of zero";
  EXPECT_FALSE(sameRootCause(root, message));
}

TEST(Signature, ItsTextReadsBack) {
  const Signature s{VerdictKind::VerifierError, "func.func(cse)", "",
                    "'x' op a | b | c, with the separator in it"};
  const std::optional<Signature> back = parseSignatureText(s.text());
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->id(), s.id());
  EXPECT_EQ(back->message, s.message);
  const Signature empty{VerdictKind::Mismatch, "", kAnyOp, ""};
  ASSERT_TRUE(parseSignatureText(empty.text()).has_value());
  EXPECT_EQ(parseSignatureText(empty.text())->id(), empty.id());
  EXPECT_FALSE(parseSignatureText("mismatch | no where").has_value());
  EXPECT_FALSE(parseSignatureText("not-a-verdict | p | w | m").has_value());
}

TEST(Signature, ClampIsInTheMaxMinFamily) {
  // It lowers to maximumf and minimumf: a pass that gets those wrong gets it wrong.
  EXPECT_EQ(scalarFamily("clamp"), "max/min");
  EXPECT_EQ(scalarFamily("row_expand_min"), "max/min");
}

TEST(Signature, AWrongNumberIsOneClassWhateverItsMagnitude) {
  EXPECT_EQ(differenceClass("value"), "value");
  EXPECT_EQ(differenceClass("extreme"), "value");
  EXPECT_EQ(differenceClass("infinity"), "value");
  // Behaviours of their own stay apart.
  EXPECT_EQ(differenceClass("signed-zero"), "signed-zero");
  EXPECT_EQ(differenceClass("nan"), "nan");
  EXPECT_EQ(differenceClass("rounding"), "rounding");
}

// One step off is rounding only where the op rounds: a float result, or an
// integer cast's or division's; an exact integer op one off is wrong.
TEST(Signature, OneStepOffIsRoundingOnlyWhereTheOpRounds) {
  EXPECT_EQ(resultDifference("mul", DType::F32, "rounding"), "rounding");
  EXPECT_EQ(resultDifference("mul", DType::I32, "rounding"), "value");
  EXPECT_EQ(resultDifference("topk", DType::I64, "rounding"), "value");
  EXPECT_EQ(resultDifference("cast", DType::I32, "rounding"), "rounding");
  EXPECT_EQ(resultDifference("row_expand_div", DType::I8, "rounding"), "rounding");
  EXPECT_EQ(resultDifference("mul", DType::I32, "signed-zero"), "signed-zero");
  EXPECT_EQ(resultDifference("add", DType::I32, "extreme"), "extreme");
}
