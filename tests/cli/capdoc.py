#!/usr/bin/env python3
"""doc/capture.md's Files table against what `fabcheck capture` writes.

usage: capdoc.py DOC SOURCE... -- CAPTURE...

Prints one line per disagreement (nothing when they agree):
* a file or link a CAPTURE holds, or a path its manifest lists as not read,
  that no row of the table names;
* a row that names a file no CAPTURE holds: for a `cmd/` row whose command
  needs an RDMA device (none here), the command's tool must be one a SOURCE
  runs (its name as a C string literal) and the row's file name must be the
  one the capture gives that command: the words joined by '_', each byte
  outside [A-Za-z0-9.+-] as '-' (core/bundle.c fc_bundle_cmd_name).

A row's first cell holds its names in backquotes: `IF`, `DEV`, `N`, `P`,
`BDF` stand for a word of a name, `*` for any part of a path component,
`...` for the rest of a name, `{a,b}` for either; a name that ends in '/*'
stands for the files under it.
"""
import json
import os
import re
import sys

WORD = r"[A-Za-z0-9.+-]+"


def name_rule(cmd):
    return "_".join(re.sub(r"[^A-Za-z0-9.+-]", "-", w) for w in cmd.split())


def pattern(name):
    out, i = "", 0
    while i < len(name):
        m = re.match(r"\{([^}]*)\}", name[i:])
        if m:
            out += "(" + "|".join(re.escape(a) for a in m.group(1).split(",")) + ")"
            i += m.end()
        elif name.startswith("...", i):
            out += ".*"
            i += 3
        elif name[i] == "*":
            out += "[^/]*"
            i += 1
        elif re.match(r"(IF|DEV|BDF|N|P)(?![A-Za-z])", name[i:]) and (
                i == 0 or not name[i - 1].isalpha()):
            m = re.match(r"IF|DEV|BDF|N|P", name[i:])
            out += WORD
            i += m.end()
        else:
            out += re.escape(name[i])
            i += 1
    if name.endswith("/*"):
        out = out[: -len("[^/]*")] + ".+"
    return re.compile(out + "$")


def rows(doc):
    text = open(doc, encoding="utf-8").read()
    table = text.split("## Files", 1)[1].split("\n## ", 1)[0]
    for line in table.splitlines():
        cells = line.split(" | ")
        if not line.startswith("| `") or len(cells) < 2:
            continue
        names = re.findall(r"`([^`]+)`", cells[0])
        cmds = re.findall(r"`([^`]+)`", cells[1])
        yield names, cmds


def written(capture):
    """Every file and link in the capture, and every path its manifest lists
    as not read."""
    man = json.load(open(os.path.join(capture, "manifest.json")))
    paths = {n["path"] for n in man.get("not_read", []) if n.get("path")}
    for top, dirs, files in os.walk(capture):
        for f in files + [d for d in dirs if os.path.islink(os.path.join(top, d))]:
            paths.add(os.path.relpath(os.path.join(top, f), capture))
    return paths


def main():
    args = sys.argv[1:]
    cut = args.index("--")
    doc, sources, captures = args[0], args[1:cut], args[cut + 1:]
    code = "".join(open(s, encoding="utf-8").read() for s in sources)
    table = list(rows(doc))
    pats = [(n, pattern(n)) for names, _ in table for n in names]
    paths = set().union(*(written(c) for c in captures))
    for p in sorted(paths):
        if not any(r.match(p) for _, r in pats):
            print(f"{p}: written by capture, named by no row of {doc}")
    for names, cmds in table:
        for n in names:
            if any(pattern(n).match(p) for p in paths):
                continue
            # '...' goes on from the row's first name: the same command's
            cont = n.startswith("...") and names[0].startswith("cmd/")
            if not n.startswith("cmd/") and not cont:
                print(f"{n}: a row of {doc}, but no capture holds it")
                continue
            tool = next((c.split()[0] for c in cmds if f'"{c.split()[0]}"' in code), None)
            if not tool:
                print(f"{n}: a row of {doc} whose command the capture does not run")
            elif not cont and not re.match(re.escape("cmd/" + name_rule(tool)) + r"([_-]|$)", n):
                print(f"{n}: the capture names '{tool} ...' cmd/{name_rule(tool)}..., "
                      f"not {n}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
