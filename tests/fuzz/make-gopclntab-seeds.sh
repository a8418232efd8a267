#!/usr/bin/env bash
# Seeds for fuzz_gopclntab, into tests/fuzz/corpus/gopclntab/: small tables
# of each layout gopclntab.c reads (Go 1.2, 1.16, 1.18, 1.20), eight
# functions each with names and pcsp tables (frame 0, 16, back to 0), made
# here from the layout (a pcsp offset of 0 means none: pctab is put one byte
# before the tables); real tables are hundreds of KiB (unit/test_gopclntab
# reads those, and these seeds as the four layouts' check).
set -euo pipefail
cd "$(dirname "$0")/../.."
out=tests/fuzz/corpus/gopclntab
mkdir -p "$out"
python3 - "$out" <<'PY'
import struct, sys
out = sys.argv[1]
N, TEXT, SIZE = 8, 0x401000, 0x40
names = b"".join(b"main.f%d\0" % i for i in range(N))
name_off = [names.index(b"main.f%d\0" % i) for i in range(N)]
pcsp = bytes([2, 4, 32, 20, 31, 4, 0])	# 0 for 4 bytes, 16 for 20, 0 for 4, end
def table(ver):
    w = lambda v: struct.pack("<Q", v)
    u32 = lambda v: struct.pack("<I", v & 0xffffffff)
    magic = {12: 0xfffffffb, 116: 0xfffffffa, 118: 0xfffffff0, 120: 0xfffffff1}[ver]
    hdr = u32(magic) + bytes([0, 0, 1, 8])
    if ver == 12:
        # names and pcsp tables after the functab and the _funcs, offsets from the table
        ft = 16
        funcs = ft + (2 * N + 1) * 8
        fsz = 8 + 16
        names_at = funcs + N * fsz
        pc_at = names_at + len(names)
        t = hdr + w(N)
        for i in range(N):
            t += w(TEXT + i * SIZE) + w(funcs + i * fsz)
        t += w(TEXT + N * SIZE)
        for i in range(N):
            t += w(TEXT + i * SIZE) + u32(names_at + name_off[i]) + u32(0) + u32(0) + u32(pc_at)
        return t + names + pcsp
    words = 7 if ver == 116 else 8
    hsz = 8 + words * 8
    names_at = hsz
    pc_at = names_at + len(names)
    pcln = pc_at + len(pcsp)
    if ver == 116:
        fsz, esz = 8 + 16, 16
        funcs = (N + 1) * esz	# from pcln
        t = hdr + w(N) + w(0) + w(names_at) + w(pc_at) + w(pc_at) + w(pc_at - 1) + w(pcln)
        t += names + pcsp
        for i in range(N):
            t += w(TEXT + i * SIZE) + w(funcs + i * fsz)
        t += w(TEXT + N * SIZE) + w(0)
        for i in range(N):
            t += w(TEXT + i * SIZE) + u32(name_off[i]) + u32(0) + u32(0) + u32(1)	# pcsp: pctab + 1
        return t
    fsz, esz = 44 if ver == 120 else 40, 8
    funcs = (N + 1) * esz
    t = hdr + w(N) + w(0) + w(TEXT) + w(names_at) + w(pc_at) + w(pc_at) + w(pc_at - 1) + w(pcln)
    t += names + pcsp
    for i in range(N):
        t += u32(i * SIZE) + u32(funcs + i * fsz)
    t += u32(N * SIZE) + u32(0)
    for i in range(N):
        f = u32(i * SIZE) + u32(name_off[i]) + u32(0) + u32(0) + u32(1)	# pcsp: pctab + 1
        t += f + bytes(fsz - len(f))
    return t
for ver in (12, 116, 118, 120):
    open("%s/layout-go%d" % (out, ver), "wb").write(table(ver))
PY
ls -l "$out"
