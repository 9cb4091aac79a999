#!/usr/bin/env python3
"""Draws the page's icons (public/icons/*.png) with the standard library only: a white "K" on
Kontor's accent blue. `icon-*.png` fill their square with a rounded tile; `maskable-*.png` are
full-bleed with the letter inside the central 80 % circle that a platform's mask keeps.
Run from web/: python3 make-icons.py (the PNGs are committed; run again after a change)."""
import struct
import zlib

ACCENT = (0x1F, 0x5F, 0xA8)
WHITE = (0xFF, 0xFF, 0xFF)

# The letter's strokes in a unit square: the stem and two arms, each a thick segment.
STROKES = [((0.34, 0.24), (0.34, 0.76)), ((0.36, 0.52), (0.68, 0.24)), ((0.44, 0.45), (0.69, 0.76))]
STROKE = 0.075


def distance(p, a, b):
    (px, py), (ax, ay), (bx, by) = p, a, b
    dx, dy = bx - ax, by - ay
    t = max(0.0, min(1.0, ((px - ax) * dx + (py - ay) * dy) / (dx * dx + dy * dy)))
    return ((px - ax - t * dx) ** 2 + (py - ay - t * dy) ** 2) ** 0.5


def pixel(x, y, size, maskable):
    # Sample centre in unit coordinates; the maskable letter shrinks into the safe zone.
    u, v = (x + 0.5) / size, (y + 0.5) / size
    if maskable:
        u, v = 0.5 + (u - 0.5) / 0.8, 0.5 + (v - 0.5) / 0.8
    else:
        radius = 0.18  # the tile's rounded corners
        cx, cy = min(max(u, radius), 1 - radius), min(max(v, radius), 1 - radius)
        if ((u - cx) ** 2 + (v - cy) ** 2) ** 0.5 > radius:
            return (0, 0, 0, 0)
    if any(distance((u, v), a, b) <= STROKE for a, b in STROKES):
        return (*WHITE, 255)
    return (*ACCENT, 255)


def png(size, maskable):
    rows = b"".join(
        b"\x00" + b"".join(bytes(pixel(x, y, size, maskable)) for x in range(size)) for y in range(size)
    )
    chunk = lambda kind, data: struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    header = struct.pack(">IIBBBBB", size, size, 8, 6, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows, 9)) + chunk(b"IEND", b"")


for size in (192, 512):
    for maskable, name in ((False, "icon"), (True, "maskable")):
        with open(f"public/icons/{name}-{size}.png", "wb") as out:
            out.write(png(size, maskable))
