#!/usr/bin/env python3
"""Checks a screenshot (PNG) of the HTML report: not blank, and showing the
heat map's colours: at least MIN_RED red cell pixels and MIN_GREEN green ones.
A small PNG reader on the standard library (8-bit RGB/RGBA, no interlace).
Usage: check_png.py FILE MIN_RED MIN_GREEN. Prints "ok ..." or what is wrong."""
import struct
import sys
import zlib

path, min_red, min_green = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
data = open(path, "rb").read()
if data[:8] != b"\x89PNG\r\n\x1a\n":
    print("not a PNG")
    sys.exit(0)
pos, idat, hdr = 8, b"", None
while pos < len(data):
    ln, kind = struct.unpack(">I4s", data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + ln]
    if kind == b"IHDR":
        hdr = struct.unpack(">IIBBBBB", body)
    elif kind == b"IDAT":
        idat += body
    pos += 12 + ln
w, h, depth, ctype, _, _, interlace = hdr
if depth != 8 or ctype not in (2, 6) or interlace:
    print("unsupported PNG: depth %d colour type %d interlace %d" % (depth, ctype, interlace))
    sys.exit(0)
bpp = 3 if ctype == 2 else 4
raw, stride = zlib.decompress(idat), w * bpp
prev, rows, i = bytearray(stride), [], 0
for y in range(h):
    f, line = raw[i], bytearray(raw[i + 1:i + 1 + stride])
    i += 1 + stride
    for x in range(stride):
        a = line[x - bpp] if x >= bpp else 0
        b, c = prev[x], prev[x - bpp] if x >= bpp else 0
        if f == 1:
            line[x] = (line[x] + a) & 255
        elif f == 2:
            line[x] = (line[x] + b) & 255
        elif f == 3:
            line[x] = (line[x] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    rows.append(line)
    prev = line
red = green = nonwhite = 0
for line in rows:
    for x in range(0, stride, bpp):
        r, g, b = line[x], line[x + 1], line[x + 2]
        if r < 245 or g < 245 or b < 245:
            nonwhite += 1
        if r > 180 and g < 130 and b < 110:
            red += 1
        if g > 120 and r < 100 and b < 120:
            green += 1
share = nonwhite / float(w * h)
if share < 0.01:
    print("blank: %.3f%% of the pixels are not white" % (100 * share))
elif red < min_red or green < min_green:
    print("heat map colours missing: %d red, %d green pixels" % (red, green))
else:
    print("ok %dx%d, %d red, %d green pixels" % (w, h, red, green))
