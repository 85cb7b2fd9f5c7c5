#!/usr/bin/env bash
#===- ci/install-torch.sh - torch and TVM from PyPI, in a virtual environment ===#
#
# --backend torch, inductor and tvm run the user's torch (and TVM); this
# installs the ones npufuzz is tested with, pinned, from PyPI into a virtual
# environment outside the clone, and prints its python on the last line:
#
#   export NPUFUZZ_PYTHON=$(bash ci/install-torch.sh)
#
# torch 2.15.0: PyPI's current release, the Inductor users of torch.compile
# run today. Apache TVM 0.27 (apache-tvm) goes into the same environment:
# its Relax frontend imports the program torch.export made of the case, so
# it needs torch beside it. On x86_64 PyPI's torch is a CUDA build whose
# nvidia-* wheels `import torch` needs even on a CPU: the environment is
# several GB and takes minutes to install once (docs/toolchains.md#torch);
# it is kept in the cache and reused, so a second run takes a second.
#
# Environment: NPUFUZZ_CACHE (default ~/.cache/npufuzz), NPUFUZZ_BASE_PYTHON
# (the interpreter the environment is made from; default python3 on PATH,
# which must be 3.9 to 3.13).
#
#===----------------------------------------------------------------------===#
set -euo pipefail

TORCH=2.15.0
NUMPY=2.4.6
TVM=0.27.0.post1
TVM_FFI=0.1.15.post2
ML_DTYPES=0.6.0
# SlipCover measures the compiler's own coverage in the adapters
# (docs/compiler-coverage.md).
SLIPCOVER=1.1.0
CACHE=${NPUFUZZ_CACHE:-$HOME/.cache/npufuzz}
. "$(dirname "$0")/python-env.sh"

python_env "torch $TORCH and TVM $TVM" "$CACHE/torch-$TORCH" \
  '"$PYTHON" -c "import numpy, torch, tvm; assert torch.__version__.startswith(\"$TORCH\")" 2>/dev/null' \
  "torch==$TORCH" "numpy==$NUMPY" "apache-tvm==$TVM" "apache-tvm-ffi==$TVM_FFI" "ml_dtypes==$ML_DTYPES" \
  "slipcover==$SLIPCOVER" >/dev/null
# Added to an environment made before it was pinned, without making the
# environment again.
if ! "$PYTHON" -c "import slipcover.version as v; assert v.__version__ == \"$SLIPCOVER\"" 2>/dev/null; then
  echo "npufuzz: installing slipcover $SLIPCOVER from PyPI into $CACHE/torch-$TORCH" >&2
  "$CACHE/torch-$TORCH/bin/pip" install --quiet "slipcover==$SLIPCOVER" >&2 || {
    echo "npufuzz: cannot install slipcover $SLIPCOVER into $CACHE/torch-$TORCH" >&2
    exit 2
  }
fi
echo "$PYTHON"
