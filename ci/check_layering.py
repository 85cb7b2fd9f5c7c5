#!/usr/bin/env python3
#===- ci/check_layering.py - #includes follow the architecture's arrows ----===#
#
# README: ir <- generators / reference / backend <- oracles <- shrink <-
# driver <- tools. A source file may include its own folder's headers and
# those of folders below it, never a sibling's or one above; bench may use
# every library folder; nothing outside tests/ includes tests/. Run by CTest
# (layering_test); prints each violation as FILE:LINE and exits 1.
#
#===----------------------------------------------------------------------===#
import os
import re
import sys

RANK = {"ir": 0, "generators": 1, "reference": 1, "backend": 1, "oracles": 2,
        "shrink": 3, "driver": 4, "tools": 5, "bench": 6}
INCLUDE = re.compile(r'\s*#\s*include\s+"([^"]+)"')


def violations(root):
    for top, rank in sorted(RANK.items()):
        for folder, _, files in sorted(os.walk(os.path.join(root, top))):
            for name in sorted(files):
                if not name.endswith((".h", ".cpp", ".def")):
                    continue
                path = os.path.join(folder, name)
                with open(path, encoding="utf-8", errors="replace") as f:
                    for number, line in enumerate(f, 1):
                        m = INCLUDE.match(line)
                        if not m:
                            continue
                        target = m.group(1).split("/")[0]
                        if target == top:
                            continue
                        if target == "tests" or RANK.get(target, -1) >= rank:
                            yield "%s:%d: %s/ may not include %s" % (
                                os.path.relpath(path, root), number, top, m.group(1))


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.getcwd()
    found = list(violations(root))
    for v in found:
        print(v)
    if found:
        print("npufuzz: %d #include(s) against the layering of README's Architecture"
              % len(found), file=sys.stderr)
        return 1
    print("layering: every #include follows the arrows")
    return 0


if __name__ == "__main__":
    sys.exit(main())
