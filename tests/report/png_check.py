#!/usr/bin/env python3
"""Checks that a PNG screenshot is a rendering, not a blank page: decodes it (stdlib zlib only),
then requires enough distinct colours, enough non-white pixels and, optionally, pixels of one
exact colour (a chart's fill: the SVG plots were drawn).

usage: png_check.py FILE.png [--colour RRGGBB --min-pixels N]
"""
import struct
import sys
import zlib

MIN_COLOURS = 32           # text anti-aliasing alone gives more; a blank page has 1
MIN_INK_SHARE = 0.01       # of the pixels, not white


def read_png(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG file")
    pos, idat, header = 8, b"", None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    width, height, depth, colour_type, _, _, interlace = header
    channels = {2: 3, 6: 4, 0: 1, 4: 2}.get(colour_type)
    if depth != 8 or channels is None or interlace != 0:
        raise ValueError(f"unsupported PNG: depth {depth}, colour type {colour_type}")
    raw = zlib.decompress(idat)
    stride = width * channels
    rows, previous = [], bytearray(stride)
    for y in range(height):
        kind = raw[y * (stride + 1)]
        row = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        if kind == 1:
            for i in range(channels, stride):
                row[i] = (row[i] + row[i - channels]) & 0xFF
        elif kind == 2:
            row = bytearray((a + b) & 0xFF for a, b in zip(row, previous))
        elif kind == 3:
            for i in range(stride):
                left = row[i - channels] if i >= channels else 0
                row[i] = (row[i] + ((left + previous[i]) >> 1)) & 0xFF
        elif kind == 4:
            for i in range(stride):
                a = row[i - channels] if i >= channels else 0
                b = previous[i]
                c = previous[i - channels] if i >= channels else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                row[i] = (row[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 0xFF
        rows.append(bytes(row))
        previous = row
    return width, height, channels, rows


def main():
    args = sys.argv[1:]
    path = args[0]
    colour = bytes.fromhex(args[args.index("--colour") + 1]) if "--colour" in args else None
    min_pixels = int(args[args.index("--min-pixels") + 1]) if "--min-pixels" in args else 1
    width, height, channels, rows = read_png(path)
    colours, ink, exact = set(), 0, 0
    for row in rows:
        for x in range(0, len(row), channels):
            pixel = row[x:x + 3]
            colours.add(pixel)
            if pixel != b"\xff\xff\xff":
                ink += 1
            if colour is not None and pixel == colour:
                exact += 1
    share = ink / float(width * height)
    print(f"{path}: {width}x{height}, {len(colours)} colours, {share:.1%} not white"
          + (f", {exact} pixels of #{colour.hex()}" if colour else ""))
    failures = []
    if len(colours) < MIN_COLOURS:
        failures.append(f"only {len(colours)} colours: a blank rendering?")
    if share < MIN_INK_SHARE:
        failures.append(f"only {share:.2%} of the pixels are not white")
    if colour is not None and exact < min_pixels:
        failures.append(f"fewer than {min_pixels} pixels of #{colour.hex()}: no chart drawn?")
    for failure in failures:
        print("FAIL: " + failure)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
