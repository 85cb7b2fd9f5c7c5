#===- ci/python-env.sh - A pinned virtual environment, made once ----------===#
#
# Sourced by ci/install-torch.sh and ci/install-iree.sh. `python_env WHAT
# DIR CHECK PACKAGE...` makes the virtual environment DIR from
# $NPUFUZZ_BASE_PYTHON (default python3 on PATH) with the pinned PACKAGEs
# from PyPI, unless it is there already and CHECK (a command run with the
# environment's python as $PYTHON) passes, and prints its python. The stamp
# is written last: an install that was cut off starts again. Only the
# python's path goes to stdout; what the tools say goes to stderr.
#
#===----------------------------------------------------------------------===#

python_env() {
  local what=$1 venv=$2 check=$3
  shift 3
  local base=${NPUFUZZ_BASE_PYTHON:-python3}
  PYTHON=$venv/bin/python
  if ! { [ -f "$venv/.npufuzz-ready" ] && eval "$check"; }; then
    command -v "$base" >/dev/null 2>&1 || {
      echo "npufuzz: no $base to make the $what environment from (set NPUFUZZ_BASE_PYTHON)" >&2
      exit 2
    }
    echo "npufuzz: installing $* from PyPI into $venv (once)" >&2
    rm -rf "$venv"
    mkdir -p "$(dirname "$venv")"
    "$base" -m venv "$venv" >&2
    "$venv/bin/pip" install --quiet "$@" >&2
    eval "$check" || {
      echo "npufuzz: $what was installed into $venv but does not work" >&2
      exit 2
    }
    touch "$venv/.npufuzz-ready"
  fi
  echo "$PYTHON"
}
