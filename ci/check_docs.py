#!/usr/bin/env python3
#===- ci/check_docs.py - Every subcommand and verdict is documented ------===#
#
# Subcommands come from the code: the Command table of
# tools/npufuzz/main.cpp names each subcommand's accessor (FuzzCommand), whose
# definition under tools/npufuzz/ gives its name (cl::SubCommand c("fuzz",
# ...)); a top-level entry point of main.cpp (`if (seedRequested()) return
# runSeed();`) adds the option its predicate reads (`--seed`). Each needs a
# row in the table of README's "## Commands" section and in the command
# table of docs/commands.md.
#
# Verdicts come from oracles/Verdict.def: each NPUFUZZ_VERDICT(Kind, "name")
# row needs a row in the verdict table of docs/verdicts.md.
#
# A row that names no subcommand or verdict of the code is reported too.
# Run by CTest (docs_test); prints each problem and exits 1.
#
#===----------------------------------------------------------------------===#
import glob
import os
import re
import sys

MAIN = "tools/npufuzz/main.cpp"
TOOL_SOURCES = "tools/npufuzz/*.cpp"
VERDICTS = "oracles/Verdict.def"
README = "README.md"
COMMANDS_DOC = "docs/commands.md"
VERDICTS_DOC = "docs/verdicts.md"


def read(root, path):
    with open(os.path.join(root, path), encoding="utf-8") as f:
        return f.read()


def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


def subcommands(root, problems):
    """The names npufuzz dispatches on, read from main.cpp and the files of
    its subcommands: 'fuzz', 'verify-pipeline', ..., and '--seed'."""
    main = strip_comments(read(root, MAIN))
    files = [strip_comments(read(root, os.path.relpath(p, root)))
             for p in sorted(glob.glob(os.path.join(root, TOOL_SOURCES)))]
    sources = "\n".join(files)
    names = []
    table = re.search(r"\bCommand\s+\w+\s*\[\s*\]\s*=\s*\{(.*?)\};", main, re.S)
    if not table:
        problems.append("%s: no `Command ...[] = {...};` table of subcommands found" % MAIN)
        return names
    for accessor, _ in re.findall(r"\{\s*(\w+)\s*,\s*(\w+)\s*\}", table.group(1)):
        m = re.search(r"cl::SubCommand\s*&\s*%s\s*\(\s*\)\s*\{[^}]*?"
                      r"cl::SubCommand\s+\w+\s*\(\s*\"([^\"]+)\"" % re.escape(accessor),
                      sources, re.S)
        if m:
            names.append(m.group(1))
        else:
            problems.append("%s: cannot find the name of subcommand %s() under tools/npufuzz/"
                            % (MAIN, accessor))
    # Top-level entry points: `if (pred()) return runX();`; the option is
    # the one pred() reads (`return seed.getNumOccurrences() > 0;`),
    # declared in the file that defines pred().
    for pred in re.findall(r"if\s*\(\s*(\w+)\s*\(\s*\)\s*\)\s*return\s+run\w*\s*\(", main):
        opt = None
        for text in files:
            m = re.search(r"\b%s\s*\(\s*\)\s*\{\s*return\s+(\w+)\s*\.\s*getNumOccurrences"
                          % re.escape(pred), text)
            if m:
                opt = re.search(r"\b%s\s*\(\s*\"([\w-]+)\"" % re.escape(m.group(1)), text)
                break
        if opt:
            names.append("--" + opt.group(1))
        else:
            problems.append("%s: cannot find the option that %s() reads under tools/npufuzz/"
                            % (MAIN, pred))
    if not names:
        problems.append("%s: no subcommands found" % MAIN)
    return names


def verdicts(root, problems):
    """Every verdict's name as printed: 'ok', 'uninitialized-read', ..."""
    text = strip_comments(read(root, VERDICTS))
    names = re.findall(r"\bNPUFUZZ_VERDICT\s*\(\s*\w+\s*,\s*\"([^\"]+)\"\s*\)", text)
    if not names:
        problems.append("%s: no NPUFUZZ_VERDICT(Kind, \"name\") rows found" % VERDICTS)
    return names


def cells(line):
    return [c.strip() for c in re.split(r"(?<!\\)\|", line.strip().strip("|"))]


def tables(text):
    """Markdown tables of `text` as (header cells, rows of cells)."""
    out, block = [], []
    for line in text.splitlines() + [""]:
        if line.lstrip().startswith("|"):
            block.append(cells(line))
            continue
        if len(block) >= 2 and all(re.fullmatch(r":?-+:?", c) for c in block[1]):
            out.append((block[0], block[2:]))
        block = []
    return out


def section(text, heading):
    """The text of a `## heading` section, up to the next heading of its level."""
    m = re.search(r"^##\s+%s\s*$(.*?)(?=^##\s|\Z)" % re.escape(heading), text, re.M | re.S)
    return m.group(1) if m else None


def first_cells(text, header):
    """The first cells of every table in `text` whose first header is `header`."""
    return [row[0] for head, rows in tables(text) if head and head[0].lower() == header
            for row in rows if row]


def command_rows(text):
    """Subcommand names in the first column of the command tables of `text`."""
    names = set()
    for cell in first_cells(text, "command"):
        m = re.match(r"`npufuzz\s+(--[\w-]+|[a-z][\w-]*)", cell)
        if m:
            names.add(m.group(1))
    return names


def check_rows(where, code, documented, what, source, problems):
    for name in code:
        if name not in documented:
            problems.append("%s: no row for %s `%s` (%s)" % (where, what, name, source))
    for name in sorted(documented - set(code)):
        problems.append("%s: a row for %s `%s`, which %s does not have"
                        % (where, what, name, source))


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.getcwd()
    problems = []
    commands = subcommands(root, problems)
    names = verdicts(root, problems)

    readme = section(read(root, README), "Commands")
    if readme is None:
        problems.append("%s: no `## Commands` section" % README)
    else:
        check_rows(README + " (## Commands)", commands, command_rows(readme), "subcommand",
                   MAIN, problems)
    check_rows(COMMANDS_DOC, commands, command_rows(read(root, COMMANDS_DOC)), "subcommand",
               MAIN, problems)

    documented = set()
    for cell in first_cells(read(root, VERDICTS_DOC), "verdict"):
        documented.add(cell.strip("`* "))
    check_rows(VERDICTS_DOC, names, documented, "verdict", VERDICTS, problems)

    for p in problems:
        print(p)
    if problems:
        print("npufuzz: %d subcommand(s) or verdict(s) missing from the docs or out of date"
              % len(problems), file=sys.stderr)
        return 1
    print("docs: %d subcommands in README and %s, %d verdicts in %s"
          % (len(commands), COMMANDS_DOC, len(names), VERDICTS_DOC))
    return 0


if __name__ == "__main__":
    sys.exit(main())
