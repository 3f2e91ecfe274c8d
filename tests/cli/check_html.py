#!/usr/bin/env python3
"""Checks a `fabcheck report --html` page: the inline SVG heat map has one
cell per ordered pair, cells of the suspect's pairs are bad and red, the
others green, the suspect's labels are marked, the findings name it, and the
page loads nothing from elsewhere. Usage: check_html.py FILE NODES SUSPECT
(SUSPECT "-" for none) [--relative]. With --relative (measured figures that
vary, as on a loaded virtual rack, where a suspect is bad with most of its
peers but not always all): every cell away from the suspect is good, there
are bad cells and all involve the suspect, and each is redder than every cell
away from it. Prints "ok" or what is wrong."""
import re
import sys
import xml.etree.ElementTree as ET

path, nodes, suspect = sys.argv[1], int(sys.argv[2]), sys.argv[3]
relative = "--relative" in sys.argv[4:]
html = open(path, encoding="utf-8").read()
errors = []
if re.search(r'(src|href)\s*=\s*"(https?:)?//', html) or "<script" in html:
    errors.append("the page is not self-contained")
m = re.search(r"<svg .*?</svg>", html, re.S)
if not m:
    print("no inline svg")
    sys.exit(0)
ns = "{http://www.w3.org/2000/svg}"
svg = ET.fromstring(m.group(0))
cells = [r for r in svg.iter(ns + "rect") if "cell" in r.get("class", "").split()]
if len(cells) != nodes * (nodes - 1):
    errors.append("%d cells, want %d" % (len(cells), nodes * (nodes - 1)))
for c in cells:
    fill = c.get("fill", "")
    if not re.match(r"^#[0-9a-f]{6}$", fill):
        errors.append("cell fill %r" % fill)
        continue
    r, g = int(fill[1:3], 16), int(fill[3:5], 16)
    involved = suspect in (c.get("data-a"), c.get("data-b"))
    cls = c.get("class").split()
    c.set("redness", str(r - g))
    if involved and not relative and not ("bad" in cls and r > g + 40):
        errors.append("%s-%s should be bad and red: %s %s" % (c.get("data-a"), c.get("data-b"), cls, fill))
    if not involved and not ("ok" in cls and (relative or g > r)):
        errors.append("%s-%s should be ok and green: %s %s" % (c.get("data-a"), c.get("data-b"), cls, fill))
    if c.find(ns + "title") is None:
        errors.append("cell without a title")
if relative:
    away = lambda c: suspect not in (c.get("data-a"), c.get("data-b"))
    bad = [int(c.get("redness")) for c in cells if "bad" in c.get("class")]
    good = [int(c.get("redness")) for c in cells if away(c)]
    if not bad:
        errors.append("no bad cell")
    elif any(away(c) for c in cells if "bad" in c.get("class")):
        errors.append("a bad cell away from " + suspect)
    elif good and min(bad) <= max(good):
        errors.append("a bad cell is not redder than every cell away from %s (%d <= %d)" % (suspect, min(bad), max(good)))
marked = sorted({t.text for t in svg.iter(ns + "text") if "suspect" in t.get("class", "")})
want = [] if suspect == "-" else [suspect]
if marked != want:
    errors.append("suspect labels %s, want %s" % (marked, want))
findings = re.search(r'<ul id="findings">(.*?)</ul>', html, re.S)
if not findings or (suspect != "-" and "suspect node " + suspect not in findings.group(1)):
    errors.append("the findings do not name " + suspect)
print("ok" if not errors else "; ".join(errors[:5]))
