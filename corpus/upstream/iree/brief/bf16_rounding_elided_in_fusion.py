"""IREE (llvm-cpu) and the program's semantics disagree on @kernel: exits 1 when they do.

d = truncf(a - b) to bf16, then a != d. For a = 1.0, b = 2**-10: bf16(0.9990234375) is 1.0,
so a != d is false (b = 0.5 gives true). IREE fuses the two generics and drops the rounding."""
import sys
try:
    import numpy as np
    from iree import compiler, runtime
    from iree.compiler.version import VERSION
except ImportError as e:  # the machine's fault, not the bug's
    sys.exit(print("a module it needs is not installed (%s)" % e) or 2)

MLIR = r'''#m = affine_map<(d0) -> (d0)>
func.func @kernel(%x: tensor<2xi16>, %y: tensor<2xi16>) -> tensor<2xi8> {
  %a = arith.bitcast %x : tensor<2xi16> to tensor<2xbf16>
  %b = arith.bitcast %y : tensor<2xi16> to tensor<2xbf16>
  %e = tensor.empty() : tensor<2xbf16>
  %d = linalg.generic {indexing_maps = [#m, #m, #m], iterator_types = ["parallel"]} ins(%a, %b : tensor<2xbf16>, tensor<2xbf16>) outs(%e : tensor<2xbf16>) {
  ^bb0(%p: bf16, %q: bf16, %o: bf16):
    %s = arith.subf %p, %q : bf16
    linalg.yield %s : bf16
  } -> tensor<2xbf16>
  %e1 = tensor.empty() : tensor<2xi8>
  %c = linalg.generic {indexing_maps = [#m, #m, #m], iterator_types = ["parallel"]} ins(%a, %d : tensor<2xbf16>, tensor<2xbf16>) outs(%e1 : tensor<2xi8>) {
  ^bb0(%p: bf16, %t: bf16, %o: i8):
    %ne = arith.cmpf une, %p, %t : bf16
    %ne8 = arith.extui %ne : i1 to i8
    linalg.yield %ne8 : i8
  } -> tensor<2xi8>
  return %c : tensor<2xi8>
}
'''
FLAGS = ["--iree-hal-target-device=local", "--iree-hal-local-target-device-backends=llvm-cpu"]
print("iree", VERSION)
x = [np.array([0x3F80, 0x3F80], np.uint16), np.array([0x3A80, 0x3F00], np.uint16)]  # a = 1, 1; b = 2**-10, 0.5
want = np.array([0, 1], np.int8)
vm = runtime.load_vm_flatbuffer(compiler.compile_str(MLIR, extra_args=FLAGS), driver="local-sync")
got = vm.kernel(*x).to_host()
print("IREE:", got.tolist(), "expected:", want.tolist())
sys.exit(0 if np.array_equal(got, want) else 1)
