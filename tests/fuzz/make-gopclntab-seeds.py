#!/usr/bin/env python3
"""Writes the seeds of the gopclntab fuzzer (tests/fuzz/corpus/gopclntab/):
a real Go 1.18+ pclntab trimmed to a few dozen functions (their names,
entries and pcsp tables kept), rewritten in each format gopclntab.c reads:
go12 (magic 0xfffffffb), go116 (0xfffffffa), go118 (0xfffffff0), go120
(0xfffffff1, the 1.18 layout); and two small ELF files holding the go118
table, one in a .gopclntab section, one inside .data.rel.ro of a Go
program (a .go.buildinfo section) as external linking leaves it. The
unit test test_gopclntab.c reads them too: every format must give the
same functions. Run from the top of the tree with a go toolchain:
python3 tests/fuzz/make-gopclntab-seeds.py [GO-BINARY]
(default: the program below, built with go 1.18 or later)."""
import os
import struct
import subprocess
import sys
import tempfile

OUT = "tests/fuzz/corpus/gopclntab"
TEXT = 0x401000
PROG = 'package main\n\nimport "fmt"\n\nfunc main() { fmt.Println("hi") }\n'


def sections(elf):
    shoff, = struct.unpack_from("<Q", elf, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", elf, 0x3a)
    hdrs = [struct.unpack_from("<IIQQQQIIQQ", elf, shoff + i * shentsize) for i in range(shnum)]
    stroff = hdrs[shstrndx][4]
    out = {}
    for h in hdrs:
        name = elf[stroff + h[0]:elf.index(b"\0", stroff + h[0])].decode()
        out[name] = h
    return out


def varint(b, off):
    v = shift = 0
    while True:
        c = b[off]
        off += 1
        v |= (c & 0x7f) << shift
        shift += 7
        if not c & 0x80:
            return v, off


def pcvalue_len(b, off):
    """Length of the pc-value table at off: pairs until a 0 value delta past the first."""
    start, first = off, True
    while True:
        uv, off = varint(b, off)
        if uv == 0 and not first:
            return off - start
        _, off = varint(b, off)
        first = False


def read_go118(tab):
    """[(name, entryoff, endoff, pcsp bytes)] of some functions of a 1.18+ table."""
    assert tab[:4] in (b"\xf0\xff\xff\xff", b"\xf1\xff\xff\xff") and tab[7] == 8
    w = struct.unpack_from("<8Q", tab, 8)
    nfunc, names, pctab, pcln = w[0], w[3], w[6], w[7]
    funcs = []
    for i in range(nfunc):
        entry, foff = struct.unpack_from("<II", tab, pcln + 8 * i)
        end, = struct.unpack_from("<I", tab, pcln + 8 * (i + 1))
        rec = pcln + foff
        nameoff, = struct.unpack_from("<i", tab, rec + 4)
        pcsp, = struct.unpack_from("<I", tab, rec + 16)
        name = tab[names + nameoff:tab.index(b"\0", names + nameoff)]
        sp = tab[pctab + pcsp:pctab + pcsp + pcvalue_len(tab, pctab + pcsp)] if pcsp else b""
        funcs.append((name, entry, end, sp))
    keep = funcs[:24] + [f for f in funcs if f[0].startswith(b"main.")] + [f for f in funcs if f[0] == b"runtime.goexit"]
    return sorted(set(keep), key=lambda f: f[1])


def blobs(funcs):
    names, pcs, noff, poff = b"", b"\0", [], []   # pc-value offset 0 means none
    for name, _, _, sp in funcs:
        noff.append(len(names))
        names += name + b"\0"
        poff.append(len(pcs) if sp else 0)
        pcs += sp
    return names, pcs, noff, poff


def go118(funcs, magic):
    """Header of 8 words, names, pc-value tables, functab (uint32 pairs), _func records."""
    names, pcs, noff, poff = blobs(funcs)
    n = len(funcs)
    hdr = 8 + 8 * 8
    names_at, pcs_at = hdr, hdr + len(names)
    pcln_at = (pcs_at + len(pcs) + 7) & ~7
    ftab = (2 * n + 1) * 4
    recs, ft = b"", b""
    for i, (name, entry, end, sp) in enumerate(funcs):
        ft += struct.pack("<II", entry, ftab + len(recs))
        recs += struct.pack("<IiiIIIIII", entry, noff[i], 0, 0, poff[i], 0, 0, 0, 0) + b"\0" * 4
    ft += struct.pack("<I", funcs[-1][2])
    head = struct.pack("<IBBBB8Q", magic, 0, 0, 1, 8, n, 0, TEXT, names_at, 0, 0, pcs_at, pcln_at)
    body = head + names + pcs
    return body + b"\0" * (pcln_at - len(body)) + ft + recs


def go116(funcs):
    """Header of 7 words; functab of absolute pcs; _func starts with an 8-byte entry."""
    names, pcs, noff, poff = blobs(funcs)
    n = len(funcs)
    hdr = 8 + 7 * 8
    names_at, pcs_at = hdr, hdr + len(names)
    pcln_at = (pcs_at + len(pcs) + 7) & ~7
    ftab = (2 * n + 1) * 8
    recs, ft = b"", b""
    for i, (name, entry, end, sp) in enumerate(funcs):
        ft += struct.pack("<QQ", TEXT + entry, ftab + len(recs))
        recs += struct.pack("<QiiIIIIII", TEXT + entry, noff[i], 0, 0, poff[i], 0, 0, 0, 0) + b"\0" * 4
    ft += struct.pack("<Q", TEXT + funcs[-1][2])
    head = struct.pack("<IBBBB7Q", 0xfffffffa, 0, 0, 1, 8, n, 0, names_at, 0, 0, pcs_at, pcln_at)
    body = head + names + pcs
    return body + b"\0" * (pcln_at - len(body)) + ft + recs


def go12(funcs):
    """nfunc, functab of absolute pcs, file table offset; all offsets from the table's start."""
    n = len(funcs)
    ft_at = 16
    recs_at = ft_at + (2 * n + 1) * 8 + 4 + 4
    rec_size = 8 + 8 * 4 + 4
    names_at = recs_at + n * rec_size
    names, pcs, noff, poff = blobs(funcs)
    pcs_at = names_at + len(names)
    ft, recs = b"", b""
    for i, (name, entry, end, sp) in enumerate(funcs):
        ft += struct.pack("<QQ", TEXT + entry, recs_at + i * rec_size)
        pc = pcs_at + poff[i] if poff[i] else 0
        recs += struct.pack("<QiiiiiiiI", TEXT + entry, names_at + noff[i], 0, 0, pc, 0, 0, 0, 0) + b"\0" * 4
    ft += struct.pack("<Q", TEXT + funcs[-1][2]) + struct.pack("<I", 0) + b"\0" * 4
    head = struct.pack("<IBBBBQ", 0xfffffffb, 0, 0, 1, 8, n)
    return head + ft + recs + names + pcs


def elf(table, relro):
    """An ET_EXEC with .text (NOBITS at TEXT), the table (in .gopclntab, or
    after 40 bytes of other data in .data.rel.ro beside a .go.buildinfo) and .shstrtab."""
    shstr = b"\0.text\0.gopclntab\0.data.rel.ro\0.go.buildinfo\0.shstrtab\0"
    nm = lambda s: shstr.index(s.encode() + b"\0")
    data = (b"\x11" * 40 + table) if relro else table
    data_at = 64
    str_at = data_at + len(data)
    shoff = (str_at + len(shstr) + 7) & ~7
    vaddr = 0x4b0000
    shdr = lambda *a: struct.pack("<IIQQQQIIQQ", *a)
    secs = [shdr(0, 0, 0, 0, 0, 0, 0, 0, 0, 0),
            shdr(nm(".text"), 8, 6, TEXT, 0, 0x1000, 0, 0, 16, 0),
            shdr(nm(".data.rel.ro" if relro else ".gopclntab"), 1, 2, vaddr, data_at, len(data), 0, 0, 8, 0)]
    if relro:
        secs.append(shdr(nm(".go.buildinfo"), 1, 3, vaddr + 0x10000, str_at, 0, 0, 0, 16, 0))
    secs.append(shdr(nm(".shstrtab"), 3, 0, 0, str_at, len(shstr), 0, 0, 1, 0))
    eh = b"\x7fELF\x02\x01\x01" + b"\0" * 9 + struct.pack("<HHIQQQIHHHHHH", 2, 62, 1, TEXT, 0, shoff, 0, 64, 56, 0,
                                                          64, len(secs), len(secs) - 1)
    body = eh + data + shstr
    return body + b"\0" * (shoff - len(body)) + b"".join(secs)


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else None
    if not path:
        d = tempfile.mkdtemp()
        open(f"{d}/main.go", "w").write(PROG)
        open(f"{d}/go.mod", "w").write("module seed\n\ngo 1.18\n")
        path = f"{d}/seed"
        subprocess.run(["go", "build", "-ldflags=-s -w", "-o", path, "."], cwd=d, check=True,
                       env=dict(os.environ, CGO_ENABLED="0", GOFLAGS="-mod=mod"))
    b = open(path, "rb").read()
    s = sections(b)[".gopclntab"]
    funcs = read_go118(b[s[4]:s[4] + s[5]])
    os.makedirs(OUT, exist_ok=True)
    out = {"go12": go12(funcs), "go116": go116(funcs), "go118": go118(funcs, 0xfffffff0),
           "go120": go118(funcs, 0xfffffff1)}
    out["elf_section"] = elf(out["go118"], False)
    out["elf_relro"] = elf(out["go118"], True)
    for k, v in out.items():
        assert len(v) < 65536
        open(f"{OUT}/{k}", "wb").write(v)
        print(f"{OUT}/{k}: {len(v)} bytes, {len(funcs)} functions")


main()
