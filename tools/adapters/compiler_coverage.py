"""The lines and branches of the compiler under test that a campaign's cases
reach (docs/compiler-coverage.md).

An adapter asked for it (NPUFUZZ_COMPILER_COVERAGE=on, which `npufuzz fuzz`
sets in its workers) measures the compiler's own packages with SlipCover
(branch coverage, PyPI's slipcover) and, after each case, writes
DIR/compiler-coverage.json:

  {"tool": "slipcover 1.1.0", "packages": ["torch/_inductor"],
   "files": {"torch/_inductor/scheduler.py": {"lines": [..], "branches": [[from, to], ..]}}}

or, when it cannot measure, {"off": "why"}. A case's lines and branches are
those this adapter process reached for the first time while the case ran:
SlipCover removes a probe once it fired, which is what keeps it cheap, so a
line is reported once per process. A campaign's union is exact; a case that
reports a line first in its campaign is the first case to reach it.

Only the packages named are instrumented, when they are imported: the
measurement is set up before the adapter imports the compiler. npufuzz's
own code, torch's runtime and the program's data stay out. The benchmark
beside NNSmith (bench/nnsmith_beside.sh) measures NNSmith with this class.
"""
import importlib.util
import json
import os
import sys

ENVIRONMENT_VARIABLE = "NPUFUZZ_COMPILER_COVERAGE"
FILE = "compiler-coverage.json"
# The release npufuzz measures with (ci/install-torch.sh installs it).
PINNED = "1.1.0"


def asked():
    return os.environ.get(ENVIRONMENT_VARIABLE) == "on"


def package_directory(module, below=""):
    """Where `module` is installed, found without importing it (which
    would import it before it could be instrumented); None when missing."""
    try:
        spec = importlib.util.find_spec(module)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.origin:
        return None
    return os.path.join(os.path.dirname(spec.origin), below) if below else os.path.dirname(
        spec.origin)


class CompilerCoverage:
    """The coverage of `packages`, a list of (name, directory): name is how
    files are reported (`torch/_inductor/scheduler.py`), directory where
    the package is installed. Made before the package is imported."""

    def __init__(self, packages):
        self.packages = [(name, os.path.realpath(d)) for name, d in packages if d]
        self.off = None
        self.sci = None
        self._reported = {}
        # Not asked: nothing is measured and nothing written.
        self.asked = asked()
        if not self.asked:
            return
        if not self.packages:
            self.off = "the compiler's package is not installed"
            return
        try:
            import slipcover
            from slipcover import version
        except ImportError:
            self.off = ("slipcover is not installed in %s (pip install slipcover==%s; "
                        "ci/install-torch.sh installs it)" % (sys.prefix, PINNED))
            return
        self.tool = "slipcover " + version.__version__
        # immediate: a probe disables itself in the bytecode the first
        # time it fires. The default counts probes and removes them in
        # sweeps over every function of the instrumented modules and every
        # frame, which cost Inductor 25 % more a case against 9 % here
        # (docs/benchmarks.md#the-compilers-coverage-what-it-costs).
        self.sci = slipcover.Slipcover(branch=True, immediate=True)
        # Instruments the packages' modules as they are imported, from
        # their source (branch coverage needs the source's AST).
        self._imports = slipcover.ImportManager(
            self.sci, slipcover.FileMatcher(sources=[d for _, d in self.packages]))
        self._imports.__enter__()

    def _name(self, path):
        path = os.path.realpath(path)
        for name, d in self.packages:
            if path.startswith(d + os.sep):
                return name + "/" + os.path.relpath(path, d).replace(os.sep, "/")
        return None

    def take(self):
        """What was reached first since the last take, as the JSON object
        the file holds."""
        if self.sci is None:
            return {"off": self.off}
        sci = self.sci
        fresh_by_path = {}
        with sci.lock:  # SlipCover's own: its probes fill newly_seen
            for seen in (sci.all_seen, sci.newly_seen):
                for path, reached in seen.items():
                    fresh = reached - self._reported.get(path, set())
                    if fresh:
                        fresh_by_path.setdefault(path, set()).update(fresh)
            # Only the files with something new: the others' lines are not read.
            code_lines = {p: set(sci.code_lines.get(p, ())) for p in fresh_by_path}
        files = {}
        for path, fresh in fresh_by_path.items():
            self._reported.setdefault(path, set()).update(fresh)
            name = self._name(path)
            if name is None:
                continue
            # As SlipCover's own report: a line counts where it holds code
            # (not an annotation alone); a branch is a (from, to) pair.
            lines = sorted(x for x in fresh
                           if not isinstance(x, tuple) and x in code_lines[path])
            branches = sorted(x for x in fresh if isinstance(x, tuple))
            files[name] = {"lines": lines, "branches": [list(b) for b in branches]}
        return {"tool": self.tool, "packages": [name for name, _ in self.packages],
                "files": dict(sorted(files.items()))}

    def write(self, case_dir):
        """DIR/compiler-coverage.json of the case just run."""
        if not self.asked:
            return
        with open(os.path.join(case_dir, FILE), "w") as f:
            json.dump(self.take(), f, separators=(",", ":"))
