#!/usr/bin/env python3
#===- ci/check_format.py - Every source is formatted by .clang-format ------===#
#
# Usage: check_format.py CLANG_FORMAT ROOT. Runs clang-format --dry-run on
# every .h/.cpp of the project's folders (not build trees or third-party
# files) and exits 1 with clang-format's diagnostics when one would change.
# Run by CTest (format_test); `CLANG_FORMAT -i FILE` fixes a file.
#
#===----------------------------------------------------------------------===#
import os
import subprocess
import sys

FOLDERS = ["ir", "generators", "reference", "backend", "oracles", "shrink", "driver", "tools",
           "bench", "tests"]


def sources(root):
    for top in FOLDERS:
        for folder, dirs, files in sorted(os.walk(os.path.join(root, top))):
            dirs.sort()
            for name in sorted(files):
                if name.endswith((".h", ".cpp")):
                    yield os.path.join(folder, name)


def main():
    if len(sys.argv) != 3:
        print("usage: check_format.py CLANG_FORMAT ROOT", file=sys.stderr)
        return 2
    clang_format, root = sys.argv[1], sys.argv[2]
    files = list(sources(root))
    if not files:
        print("check_format.py: no sources under %s" % root, file=sys.stderr)
        return 2
    bad = []
    for i in range(0, len(files), 50):
        chunk = files[i:i + 50]
        r = subprocess.run([clang_format, "--dry-run", "-Werror", "--style=file"] + chunk,
                           capture_output=True, text=True)
        if r.returncode != 0:
            sys.stderr.write(r.stderr[:20000])
            bad.append(chunk)
    if bad:
        print("check_format.py: files differ from .clang-format; fix with %s -i FILE"
              % clang_format, file=sys.stderr)
        return 1
    print("check_format.py: %d files formatted" % len(files))
    return 0


if __name__ == "__main__":
    sys.exit(main())
