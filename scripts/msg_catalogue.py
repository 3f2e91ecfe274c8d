#!/usr/bin/env python3
"""The message catalogue: every format string with a figure in the program's C.

Issue 39 item 5 ("true sentences"): each message with figures is read for
slips such as "5070 of 0 round trips" (a count and its total from different
variables), units that do not match the figure, singular and plural, percent
against fraction, Gb/s against GB/s. This lists those messages so that the
count comes from a command, not from a grep typed once:

  scripts/msg_catalogue.py            one message a record: place, function,
                                      format, arguments (tab-separated)
  scripts/msg_catalogue.py --count    how many, in all and per folder
  scripts/msg_catalogue.py --lint     every string literal of the program
                                      that breaks a rule (RULES below: a
                                      plural by hand, "N thing(s)"), figure
                                      or not; exit 1 when any
  scripts/msg_catalogue.py --doubts   the messages a mechanical pattern doubts
                                      (DOUBTS below), each to read by hand
  scripts/msg_catalogue.py --covered  how many messages a test checks with a
                                      figure in them (TEST_FILES below), in
                                      all and per file; --covered -v lists
                                      each message "covered" or "open"

A message is a call of a printf-family function or of one of the program's
own printf-like functions (FMT_ARG below: the position of the format) whose
format has a numeric conversion (%d, %zu, %.3f, PRIu64, ...), or whose
arguments format a figure (fc_fmt_figure, fc_fmt_time, fc_fmt_bytes ...)
into a %s. The folders are the Makefile's SRC_DIRS (tests/ and build/ are not
the program's text).
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Function -> index of its format argument (0-based). printf's family, then
# the program's own printf-like functions (those declared with
# __attribute__((format(printf, N, ...))) or taking "const char *fmt, ...").
FMT_ARG = {
    "printf": 0, "fprintf": 1, "dprintf": 1, "sprintf": 1, "snprintf": 2,
    "asprintf": 1, "json_sprintf": 0,
    "fc_log": 1, "fc_err": 0, "fc_warn": 0, "fc_info": 0, "fc_dbg": 0,
    "fc_finding": 2, "fc_table_addf": 2, "topo_recommend": 3,
    "diag_emit_f": 6, "pair_qos_note": 1, "rail_add_finding": 3,
    "open_fail": 2, "APPEND": 0, "emit": 6,
    # ncurses
    "printw": 0, "mvprintw": 2, "wprintw": 1, "mvwprintw": 3,
    # static helpers whose name is shared: resolved by file below
    "set": 3, "note": 1,
}
# Names too common to take everywhere: only in these files.
LOCAL = {"set": {"checks/nccl/env/ncclenv_check.c"}, "note": {"diag/port.c"},
         "open_fail": {"gdr/cuda.c"}, "APPEND": {"matrix/mxan_text.c"},
         "emit": {"diag/rules.c"}}

NUMERIC = re.compile(r"%[-+ #0']*(\*|\d+)?(\.(\*|\d+))?(hh|h|ll|l|z|j|t|L)?[diouxXeEfFgGa]")
PRI = re.compile(r"\bPRI[diouxX](8|16|32|64|MAX|PTR)\b")
FIG_ARG = re.compile(r"\bfc_fmt_\w+\s*\(|\b\w*fmt_(figure|bytes|size|time|gbps|rate|dur)\w*\s*\(")

# Broken rules: "%d port(s)" says neither "1 port" nor "2 ports"; the count
# picks the noun's number (core/util.h fc_s).
RULES = [
    ("plural by hand", re.compile(r"\w\(s\)")),
]
# Doubts (each read by hand; pointers, not verdicts): bytes beside bits, a
# percent of what may be a fraction, a count beside a total.
DOUBTS = [
    ("GB/s (bytes) beside Gb/s", re.compile(r"GB/s")),
    ("'%%' after a %g/%f of a fraction?", re.compile(r"%[-.0-9]*[fg] ?%%")),
    ("'N of M' count and total", re.compile(r"%[-.0-9a-z]*[diuxfgs] of %")),
]


def src_files():
    mk = open(os.path.join(ROOT, "Makefile")).read()
    m = re.search(r"^SRC_DIRS := (.*?)(?<!\\)\n", mk, re.S | re.M)
    dirs = m.group(1).replace("\\\n", " ").split()
    for d in dirs:
        p = os.path.join(ROOT, d)
        for f in sorted(os.listdir(p)):
            if f.endswith(".c"):
                yield os.path.join(d, f)


def literal_end(text, i):
    """The index after the string or character literal that opens at @i."""
    j = i + 1
    while j < len(text) and text[j] != text[i]:
        j += 2 if text[j] == "\\" else 1
    return j + 1


def strip_comments(text):
    """Comments blanked (newlines kept), strings and chars left as they are."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif c in "\"'":
            j = literal_end(text, i)
            out.append(text[i:j])
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)


def split_args(text, start):
    """The arguments of the call whose '(' is at @start: (list, end)."""
    args, depth, i, cur = [], 0, start, []
    n = len(text)
    while i < n:
        c = text[i]
        if c in "\"'":
            j = literal_end(text, i)
            cur.append(text[i:j])
            i = j
            continue
        if c in "([{":
            depth += 1
            if depth > 1:
                cur.append(c)
        elif c in ")]}":
            depth -= 1
            if depth == 0:
                args.append("".join(cur).strip())
                return args, i
            cur.append(c)
        elif c == "," and depth == 1:
            args.append("".join(cur).strip())
            cur = []
        else:
            cur.append(c)
        i += 1
    return None, n


def literal(arg):
    """The format an argument spells: adjacent literals joined, a PRI macro
    or JSON_INTEGER_FORMAT after its "%" as its conversion ("%" PRIu64 ->
    %u); None when the argument is not a literal (a variable format)."""
    parts = re.findall(r'"((?:[^"\\]|\\.)*)"|\b(PRI\w+|JSON_INTEGER_FORMAT)\b|(\S)', arg)
    if not any(p[0] or p[1] for p in parts):
        return None
    s = []
    for lit, pri, other in parts:
        if other and other not in "()":
            # a ternary between formats or a macro: keep the text whole
            return re.sub(r"\s+", " ", arg)
        if pri:  # after its "%" (and flags): PRIu64 is "lu", jansson's is "lld"
            s.append("lld" if pri == "JSON_INTEGER_FORMAT" else pri[3])
        elif lit is not None:
            s.append(lit)
    return "".join(s)


def sentence(fmt):
    """A message says something: a word or a unit beside its figures ("%d B",
    "%.1f GB"; not "%d", "%s/%d" or "0x%x", which build a figure alone)."""
    text = re.sub(r"%[-+ #0.*0-9]*(hh|h|ll|l|z|j|t|L)?[a-zA-Z]", " ", fmt)
    words = [w for w in re.findall(r"[A-Za-z]+", text) if w not in ("x", "n", "t")]
    return len(words) >= 1


def messages():
    call = re.compile(r"\b(" + "|".join(sorted(FMT_ARG, key=len, reverse=True)) + r")\s*\(")
    for path in src_files():
        raw = open(os.path.join(ROOT, path), encoding="utf-8", errors="replace").read()
        text = strip_comments(raw)
        for m in call.finditer(text):
            fn = m.group(1)
            if fn in LOCAL and path not in LOCAL[fn]:
                continue
            before = text[max(0, m.start() - 40):m.start()]
            # a declaration or definition, not a call
            if re.search(r"(void|int|static|json_t \*)\s*$", before):
                continue
            args, _ = split_args(text, m.end() - 1)
            if not args or len(args) <= FMT_ARG[fn]:
                continue
            fmt = literal(args[FMT_ARG[fn]])
            if fmt is None:
                continue
            rest = args[FMT_ARG[fn] + 1:]
            has_fig = NUMERIC.search(fmt) or PRI.search(args[FMT_ARG[fn]]) or \
                any(FIG_ARG.search(a) for a in rest)
            if not has_fig or not sentence(fmt):
                continue
            line = text.count("\n", 0, m.start()) + 1
            yield path, line, fn, fmt, [re.sub(r"\s+", " ", a) for a in rest]


def lint():
    """RULES over every string literal of the program's C (a message with a
    figure or without: "port(s)" is as wrong in either); how many broke one."""
    bad = 0
    for path in src_files():
        text = strip_comments(open(os.path.join(ROOT, path), encoding="utf-8",
                                   errors="replace").read())
        for m in re.finditer(r'"(?:[^"\\\n]|\\.)*"', text):
            for name, rx in RULES:
                if rx.search(m.group(0)):
                    bad += 1
                    line = text.count("\n", 0, m.start()) + 1
                    print(f"{path}:{line}\t{name}\t{m.group(0)}")
    return bad


# What the tests assert: the unit tests' C, the CLI cases and their helpers,
# the expectations written from captures. A message is covered when one of
# them holds a figure with the message's own words on both sides of it (at
# least MIN_CONTEXT characters of the format's literal text next to a
# numeric conversion, the figure itself a digit string): a test that fed the
# message a known figure and checks it printed. A grep of the words alone
# ("bad with") is not a check of the figure and does not count.
TEST_FILES = [("tests/unit", (".c", ".h")), ("tests/cli", (".sh", ".py")),
              ("tests/data", (".expect.json",))]
MIN_CONTEXT = 4
CONV = re.compile(r"%[-+ #0'.*0-9]*(hh|h|ll|l|z|j|t|L)?[a-zA-Z%]")


def test_text():
    """Every test file's text, with regex and shell escapes undone
    ('\\(' -> '(', '.s' kept), joined."""
    out = []
    for d, exts in TEST_FILES:
        for base, _, files in os.walk(os.path.join(ROOT, d)):
            for f in files:
                if f.endswith(exts):
                    t = open(os.path.join(base, f), encoding="utf-8", errors="replace").read()
                    out.append(re.sub(r"\\\\?([][()|.*+?{}$^/%-])", r"\1", t))
    return "\n".join(out)


def unescape(lit):
    return lit.replace('\\"', '"').replace("\\n", "\n").replace("\\t", "\t").replace("%%", "%")


def fmt_tokens(fmt, rest):
    """@fmt as (kind, text): "lit" its fixed text, "num" a numeric
    conversion, "fig" a %s whose argument in @rest is a fc_fmt_* figure with
    its unit, "any" another conversion."""
    toks, i, arg = [], 0, 0
    for m in CONV.finditer(fmt):
        if m.start() > i:
            toks.append(("lit", unescape(fmt[i:m.start()])))
        c = m.group(0)
        a = rest[arg] if arg < len(rest) else ""
        arg += c != "%%" and 1 + c.count("*")
        if c == "%%":
            toks.append(("lit", "%"))
        elif NUMERIC.fullmatch(c):
            toks.append(("num", c))
        elif c.endswith("s") and FIG_ARG.search(a):
            toks.append(("fig", c))
        else:
            toks.append(("any", c))
        i = m.end()
    if i < len(fmt):
        toks.append(("lit", unescape(fmt[i:])))
    return toks


def figure_windows(fmt, rest):
    """Regexes, one per figure of @fmt (fmt_tokens): its words before, the
    figure, its words after (up to 24 characters each side on the figure's
    line, at least MIN_CONTEXT of them in all)."""
    toks, wins = fmt_tokens(fmt, rest), []
    for k, t in enumerate(toks):
        if t[0] not in ("num", "fig"):
            continue
        # The words on the figure's own line: a CLI case greps one line,
        # and a C test spells a newline "\\n", never the character.
        left = toks[k - 1][1].split("\n")[-1][-24:] if k > 0 and toks[k - 1][0] == "lit" else ""
        right = toks[k + 1][1].split("\n")[0][:24] if k + 1 < len(toks) and toks[k + 1][0] == "lit" else ""
        if len(left.strip()) + len(right.strip()) < MIN_CONTEXT:
            continue
        unit = r"( ?[A-Za-z/%]+)?" if t[0] == "fig" else ""
        wins.append(re.escape(left) + r"-?[0-9][0-9.,e+-]*" + unit + re.escape(right))
    return wins


def whole_window(toks):
    """The whole message as one regex on one line, each figure a digit
    string, each other conversion (a name, a word the code picks) any text:
    for a message whose figures have too few words right beside them
    ("%.0f of %.0f %s in %.0f s") but whose sentence, all its fixed words
    together (at least MIN_CONTEXT letters), a test holds whole. (regex,
    its longest fixed piece), or None when the fixed words are fewer."""
    lits = [t[1] for t in toks if t[0] == "lit"]
    if len(re.sub(r"\s", "", "".join(lits))) < MIN_CONTEXT:
        return None
    out = []
    for k, (kind, v) in enumerate(toks):
        if kind == "lit":
            # a test checks the sentence, not the blank lines around it; a
            # C test spells a newline "\\n"
            v = v.lstrip() if k == 0 else v
            v = v.rstrip() if k == len(toks) - 1 else v
            out.append(re.escape(v.replace("\n", "\\n")))
        elif kind == "num":
            out.append(r"-?[0-9][0-9.,e+-]*")
        elif kind == "fig":
            out.append(r"-?[0-9][0-9.,e+-]*( ?[A-Za-z/%]+)?")
        else:
            out.append(r"[^\n]*?")
    key = max((v.strip().replace("\n", "\\n") for v in lits), key=len)
    return "".join(out), key


def whole_found(whole, text):
    """@whole (whole_window) on a line of @text that holds its longest
    fixed piece."""
    rx, key = whole
    i = text.find(key)
    while i >= 0:
        a, b = text.rfind("\n", 0, i) + 1, text.find("\n", i)
        line = text[a:b if b >= 0 else len(text)]
        if re.search(rx, line):
            return True
        i = text.find(key, b if b >= 0 else len(text))
    return False


# A format a ternary picks between literals: cond ? "A %d" : "B %d".
TERNARY = re.compile(r'^[^"]*\?\s*((?:"(?:[^"\\]|\\.)*"\s*)+):\s*((?:"(?:[^"\\]|\\.)*"\s*)+)$', re.S)


def alternatives(fmt):
    """The formats @fmt stands for: both of a ternary's, else @fmt."""
    m = TERNARY.match(fmt)
    return [literal(m.group(1)), literal(m.group(2))] if m else [fmt]


def checked(fmt, rest, text):
    """Whether @text (test_text) holds @fmt with a figure in its place."""
    whole = whole_window(fmt_tokens(fmt, rest))
    return any(re.search(w, text) for w in figure_windows(fmt, rest)) or \
        bool(whole and whole_found(whole, text))


def covered(msgs, verbose):
    text = test_text()
    per, n = {}, 0
    for p, line, fn, fmt, rest in msgs:
        # a ternary's message: each of its formats checked
        ok = all(checked(f, rest, text) for f in alternatives(fmt))
        n += ok
        c = per.setdefault(p, [0, 0])
        c[0] += ok
        c[1] += 1
        if verbose:
            print(f"{'covered' if ok else 'open'}\t{p}:{line}\t{fmt}")
    print(f"{n} of {len(msgs)} messages with figures have a test that checks a figure in them")
    for p in sorted(per, key=lambda q: (per[q][1] - per[q][0], per[q][1]), reverse=True):
        if not verbose:
            print(f"  {p}\t{per[p][0]} of {per[p][1]}")
    return 0


def main(argv):
    msgs = list(messages())
    if "--count" in argv:
        per = {}
        for p, *_ in msgs:
            d = p.split("/")[0] if not p.startswith("checks/") else "/".join(p.split("/")[:2])
            per[d] = per.get(d, 0) + 1
        print(f"{len(msgs)} messages with figures in {len({m[0] for m in msgs})} files")
        for d in sorted(per):
            print(f"  {d}\t{per[d]}")
        return 0
    if "--covered" in argv:
        return covered(msgs, "-v" in argv)
    if "--lint" in argv:
        return 1 if lint() else 0
    if "--doubts" in argv:
        for p, line, fn, fmt, rest in msgs:
            for name, rx in DOUBTS:
                if rx.search(fmt):
                    print(f"{p}:{line}\t{name}\t{fmt}\t{', '.join(rest)}")
        return 0
    for p, line, fn, fmt, rest in msgs:
        print(f"{p}:{line}\t{fn}\t{fmt}\t{', '.join(rest)}")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except BrokenPipeError:
        sys.exit(0)
