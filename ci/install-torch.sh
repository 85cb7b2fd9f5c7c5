#!/usr/bin/env bash
#===- ci/install-torch.sh - torch 2 from PyPI, in a virtual environment ----===#
#
# --backend torch and --backend inductor run the user's torch; this installs
# the one npufuzz is tested with, pinned, from PyPI into a virtual
# environment outside the clone, and prints its python on the last line:
#
#   export NPUFUZZ_PYTHON=$(bash ci/install-torch.sh)
#
# torch 2.8.0: the release PyTorchSim pins, so Inductor's scheduler, fusion
# and view handling are the ones its users ship. On x86_64 PyPI's torch is a
# CUDA build whose nvidia-* wheels `import torch` needs even on a CPU: the
# environment is about 6.5 GB and takes about 2 minutes to install once
# (docs/toolchains.md#torch); it is kept in the cache and reused, so a
# second run takes a second.
#
# Environment: NPUFUZZ_CACHE (default ~/.cache/npufuzz), NPUFUZZ_BASE_PYTHON
# (the interpreter the environment is made from; default python3 on PATH,
# which must be 3.9 to 3.13).
#
#===----------------------------------------------------------------------===#
set -euo pipefail

TORCH=2.8.0
NUMPY=2.2.6
CACHE=${NPUFUZZ_CACHE:-$HOME/.cache/npufuzz}
. "$(dirname "$0")/python-env.sh"

python_env "torch $TORCH" "$CACHE/torch-$TORCH" \
  '"$PYTHON" -c "import numpy, torch; assert torch.__version__.startswith(\"$TORCH\")" 2>/dev/null' \
  "torch==$TORCH" "numpy==$NUMPY"
