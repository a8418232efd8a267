#!/usr/bin/env python3
"""Writes the seed corpora of tests/fuzz/corpus/ that are built rather than
copied: perf ring records (ring/), tracepoint format + record pairs
(tp_format/, formats read from this machine's tracefs), probe text, event
specs, filters, folded stacks. Run as root from the top of the tree with
tracefs mounted: python3 tests/fuzz/make-seeds.py. The ELF seeds are
tests/fuzz/elf/tiny_O0 and tiny_O2 (see tests/fuzz/README.md)."""
import os
import shutil
import subprocess
import struct

C = "tests/fuzz/corpus"
TRACEFS = "/sys/kernel/tracing/events"


def put(target, name, data):
    os.makedirs(f"{C}/{target}", exist_ok=True)
    with open(f"{C}/{target}/{name}", "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())


def kcache(text_lines):
    """symbolize/kallsyms.c's per-boot cache form, key "" (what fuzz_kallsyms
    reads its input as): header, sorted 16-byte entries, names."""
    ents, names = {}, b""
    for l in text_lines:
        f = l.split()
        if len(f) == 3 and f[1] in (b"t", b"T", b"w", b"W"):
            ents.setdefault(int(f[0], 16), f[2])
    out, pool = b"", b""
    for a in sorted(ents):
        out += struct.pack("<QIHBB", a, len(pool), 0, 1 if ents[a] in (b"_etext", b"_einittext") else 0, 0)
        pool += ents[a] + b"\0"
    return b"PPKSYM1\0" + bytes(40) + struct.pack("<QQ", len(ents), len(pool)) + out + pool


# ---- ring: mode byte, start byte, then records ----
SAMPLE, MMAP2, COMM, LOST, EXIT = 9, 10, 3, 2, 4


def rec(typ, body, misc=0):
    return struct.pack("<IHH", typ, misc, 8 + len(body)) + body


def sample(mode, ip, pid, tid, t, cpu, period, chain=(), raw=b"", regs=None, stack=b""):
    b = struct.pack("<QQIIQQQ", 77, ip, pid, tid, t, cpu, period)  # id ip tid time cpu period
    if mode & 8:  # addr, id, stream_id lie between time and cpu
        b = struct.pack("<QQIIQQQQQQ", 77, ip, pid, tid, t, 0xdead, 77, 5, cpu, period)
    if mode & 1:
        b += struct.pack("<Q", len(chain)) + b"".join(struct.pack("<Q", c) for c in chain)
    if mode & 2:
        b += struct.pack("<I", len(raw)) + raw
        b += b"\0" * ((-(4 + len(raw))) % 8)
    if mode & 4:
        n = bin(0xff0fff if mode & 16 else 0x1c0).count("1")
        b += struct.pack("<Q", 2) + b"".join(struct.pack("<Q", 0x7ffc0000 + i) for i in range(n))
        b += struct.pack("<Q", len(stack)) + stack + (struct.pack("<Q", len(stack) // 2) if stack else b"")
    return rec(SAMPLE, b)


def id_trailer(pid, tid, t, cpu):
    return struct.pack("<IIQQQ", pid, tid, t, cpu, 77)  # tid time cpu identifier


KERNEL, USER = 0xffffffffffffff80, 0xfffffffffffffe00
for mode in (0, 1, 3, 5, 21, 33, 39, 8):
    recs = sample(mode, 0x401136, 100, 101, 1000, 0, 1, chain=(KERNEL, 0xffffffff81000000, USER, 0x401136, 0x401200),
                  raw=b"\x3c\x01\x00\x00" + b"A" * 12, stack=bytes(range(64)))
    recs += rec(COMM, struct.pack("<II", 100, 101) + b"wl_record\0\0\0\0\0\0\0" + id_trailer(100, 101, 999, 0))
    recs += rec(MMAP2, struct.pack("<IIQQQIIQQII", 100, 100, 0x400000, 0x1000, 0, 8, 1, 1234, 0, 5, 2)
                + b"/usr/bin/wl\0\0\0\0\0" + id_trailer(100, 100, 998, 0))
    recs += rec(LOST, struct.pack("<QQ", 77, 3) + id_trailer(0, 0, 1001, 0))
    recs += sample(mode, 0x401140, 100, 102, 1002, 1, 1, chain=(USER, 0x401140))
    for start in (0, 5):
        put("ring", f"mode{mode}_start{start}", bytes([mode, start]) + recs)

# ---- tp_format: system byte, format text, NUL, record ----
SYSTEMS = ["sched", "syscalls", "uprobes", "kprobes", "probe_libc", "irq", "ftrace", "pprobe_1"]
records = {}
for ev in ("sched/sched_switch", "sched/sched_process_exec", "sched/sched_wakeup", "syscalls/sys_enter_openat",
           "syscalls/sys_exit_read", "irq/irq_handler_entry", "kmem/kmalloc", "timer/hrtimer_start",
           "signal/signal_generate", "block/block_rq_issue", "net/net_dev_xmit", "workqueue/workqueue_execute_start"):
    path = f"{TRACEFS}/{ev}/format"
    if not os.path.exists(path):
        continue
    text = open(path, "rb").read()
    sys = ev.split("/")[0]
    sb = SYSTEMS.index(sys) if sys in SYSTEMS else 0
    # a record: the fixed part patterned, a __data_loc pointing at "hello"
    size = 0
    locs = []
    for line in text.decode().splitlines():
        if "offset:" in line:
            f = dict(kv.split(":", 1) for kv in line.strip().split("\t")[1:] if ":" in kv)
            off, sz = int(f["offset"].rstrip(";")), int(f["size"].rstrip(";"))
            size = max(size, off + sz)
            if "__data_loc" in line:
                locs.append(off)
    body = bytearray((i * 7) & 0xff for i in range(size))
    tail = b"hello\0\0\0"
    for off in locs:
        body[off:off + 4] = struct.pack("<HH", size, len(tail))
    put("tp_format", ev.replace("/", "_"), bytes([sb]) + text + b"\0" + bytes(body) + tail)
    records[ev.replace("/", "_")] = (sb, bytes(body) + tail)
# the same records after the real format, print fmt and all (first byte's top
# bit; the next byte indexes the format seeds in name order, as the target does)
for i, name in enumerate(sorted(records)):
    sb, r = records[name]
    put("tp_format", f"real_{name}", bytes([0x80 | sb, i]) + r)

# ---- trace_filter: filters against sched_switch (no NUL), and with a format ----
for i, flt in enumerate(["prev_pid > 0 && next_comm ~ \"bash*\"", "common_pid == 1 || CPU == 0",
                         "next_prio < 100 && !(prev_state & 1)", "comm == bash", "prevpid == 3",
                         "(prev_pid != 0x10 && next_pid >= 2) || next_comm == 'x\\'y'"]):
    put("trace_filter", f"filter{i}", flt)
fmt = f"{TRACEFS}/syscalls/sys_enter_openat/format"
if os.path.exists(fmt):
    put("trace_filter", "openat", open(fmt, "rb").read() + b"\0filename ~ \"/etc/*\" && flags & 0x40 && dfd == -100")

# ---- event_spec: mode byte (1: -x tiny_O2, 2: counting), spec ----
for i, (m, s) in enumerate([(0, "cycles"), (0, "task-clock:u"), (0, "sched:sched_switch"), (0, "sched:sched_wak*"),
                            (0, "{cpu-clock,task-clock}:u"), (0, "r1a8"), (0, "L1-dcache-load-misses"),
                            (0, "cpu-clock/period=1000,name=foo/"), (2, "software/cpu-clock/"),
                            (0, "cpu-clock/call-graph=dwarf,stack-size=4096,max-stack=8/p"),
                            (1, "probe:area"), (1, "probe:area%return"), (1, "sdt_tiny:hit"),
                            (0, "uprobe:libc.so.6:malloc"), (0, "uretprobe:libc.so.6:free"), (0, "kprobe:do_sys_open"),
                            (0, "syscalls:sys_enter_openat,sched:sched_process_exec"), (2, "page-faults,minor-faults:k"),
                            (0, "breakpoint/bp_addr=0x1000,bp_type=2,bp_len=4/"), (0, "tracepoint/sched:sched_switch/")]):
    put("event_spec", f"spec{i}", bytes([m]) + s.encode())

# ---- probe_def: --add definitions, uprobe_events lines, -e probe forms ----
for i, s in enumerate(["area a->x b.name:string label:string", "myev=area:3 w h", "probe_tiny:hit=tiny.c:30",
                       "area%return $retval", "area;*tiny_table*", "tiny.c:25 $params", "0x1139 %di:u64 +8(%sp):s32",
                       "p:probe_tiny/area /usr/bin/tiny:0x1139 a=%di:x64 n=+0(%si):string",
                       "r:probe_tiny/area__return /usr/bin/tiny:0x1139 arg1=$retval:s32",
                       "p:kprobes/vfs_read vfs_read+0 file=%di:x64", "-:probe/x",
                       "uprobe:/bin/true:main", "uretprobe:libc.so.6:malloc+4", "sdt:/usr/bin/tiny:tiny:hit",
                       "sdt_tiny:hit", "probe:area:3", "kprobe:do_sys_open+4", "usdt:/a:b:c:d"]):
    put("probe_def", f"def{i}", s)

# ---- fetch_args: binary byte (0: -O0, 1: -O2, |2: no inlines), point, args ----
for i, (m, s) in enumerate([(0, "area\na->x\nb.name:string\nlabel:string\n$params"), (1, "area\n$vars\nb.flags\n*a"),
                            (0, "main%return\n$retval"), (1, "area%return\n$retval:s32"),
                            (0, "area\n+8(%sp):u32\n@tiny_global\n\\7\n$stack2\n$comm\ntiny_table[1]:s64\nb.flags:b3@0/32"),
                            (1, "clamp\nv\nlo\nhi"), (3, "area:2\nw\nh"), (0, "tiny.c:36\nb\na->name:string"),
                            (0, "noargs\n$params\n$vars"), (1, "main;*area*\nargc\nargv[0]:string\nx=a.x"),
                            (0, "0x1139\n%di\n%si:x32")]):
    put("fetch_args", f"args{i}", bytes([m]) + s.encode())

# ---- folded stacks: mode byte, folded text ----
# a real profile: pprobe record -g -F 499 -o real.folded -- build/tests/workloads/wl_record threads 2 1
real = open("real.folded", "rb").read() if os.path.exists("real.folded") else b""
fg = [b"app;main;parse;std::map<K, V&>::find 120\napp;main;parse 40\napp;main;compute;heavy_loop 700\n"
      b"app;main;compute;memcpy_[k] 80\napp;start_thread;worker;do_syscall_64_[k] 150\n",
      b"a;c 3\r\na;d 1.\na;;f 2\na;g;; 4\na;h 1 3\njunk\n\n x 5\n", b"a;b 1.5e3\nb;<&>\"' 7\n", real]
for i, t in enumerate(fg):
    for m in (0, 0x17, 0xa2):
        put("flamegraph", f"folded{i}_m{m:x}", bytes([m]) + t)
put("folded_diff", "diff0", b"\x00x;y 10\nx;0xdeadbeef 3\nx;0xAB 4\nz 1.5\njunk\n---\nx;y 30\nx;0x1 6\nw 4\nx;y 2\n")
put("folded_diff", "diff1", b"\x07app;main;parse 160\napp;gone 50\n---\napp.orig;main;parse 100\napp;new 30\n")
put("folded_diff", "diff2", b"\x0a" + real + b"---\n" + real.replace(b"spin_units", b"spin"))

# ---- copied from the system: kallsyms, maps; the ELF seeds ----
lines = open("/proc/kallsyms", "rb").read().splitlines()
put("kallsyms", "head", b"\n".join(lines[:40]) + b"\n")
put("kallsyms", "cache", kcache(lines[:40] + [l for l in lines if b" _etext" in l]))
mods = [l for l in lines if l.endswith(b"]")]
put("kallsyms", "modules", b"\n".join(mods[:40] + [l for l in lines if b" _etext" in l or b" _stext" in l]) + b"\n")
put("maps", "self", open("/proc/self/maps", "rb").read())
put("maps", "odd", b"00400000-00401000 r-xp 00000000 08:01 1234 /tmp/a file (deleted)\n"
    b"7fff0000-7fff1000 rw-s 00000000 00:00 0\nffffffffff600000-ffffffffff601000 --xp 00000000 00:00 0 [vsyscall]\n"
    b"00500000-00400000 r--p 00000000 08:01 1 /backwards\nnot a line\n")
os.makedirs(f"{C}/usdt", exist_ok=True)
for b in ("tiny_O0", "tiny_O2"):
    shutil.copy(f"tests/fuzz/elf/{b}", f"{C}/usdt/{b}")
# the inspector's seeds beside tiny_O0/O2 (which are its regression inputs):
# compressed DWARF, and no DWARF at all (-F from ELF symbols)
os.makedirs(f"{C}/inspect", exist_ok=True)
subprocess.run(["objcopy", "--compress-debug-sections=zlib", "tests/fuzz/elf/tiny_O0", f"{C}/inspect/tiny_O0_zdebug"],
               check=True)
subprocess.run(["strip", "--strip-debug", "-o", f"{C}/inspect/tiny_O2_nodebug", "tests/fuzz/elf/tiny_O2"], check=True)

# ---- jitdump: built records (every kind, both byte orders, a cut tail), and
# the head of a real one from CPython 3.13's -X perf_jit where it is here ----
def jd_header(e="<", pid=1234, size=40):
    return struct.pack(e + "IIIIIIQQ", 0x4A695444, 1, size, 62, 0, pid, 1, 0) + b"\0" * (size - 40)


def jd_rec(kind, body, e="<"):
    return struct.pack(e + "IIQ", kind, 16 + len(body), 2) + body


def jd_load(addr, size, name, idx, e="<"):
    code = b"\xc3" * min(size, 16)
    return jd_rec(0, struct.pack(e + "IIQQQQ", 1234, 1234, addr, addr, size, idx) + name + b"\0" + code, e)


def jd_move(old, new, size, idx, e="<"):
    return jd_rec(1, struct.pack(e + "IIQQQQQ", 1234, 1234, new, old, new, size, idx), e)


loads = jd_load(0x7f0000001000, 64, b"py::fib:/tmp/w.py", 1) + jd_load(0x7f0000001040, 32, b"JS:*spinLoop w.js:2", 2)
put("jitdump", "loads", jd_header() + loads)
put("jitdump", "kinds", jd_header(size=48) + loads + jd_move(0x7f0000001000, 0x7f0000002000, 64, 1)
    + jd_rec(2, struct.pack("<QQ", 0x7f0000002000, 1) + struct.pack("<QII", 0x7f0000002000, 3, 0) + b"w.py\0")
    + jd_rec(4, struct.pack("<QQQ", 8, 8, 0) + b"\0" * 8) + jd_rec(3, b"") + jd_load(0x1000, 1, b"after close", 3))
put("jitdump", "swapped", jd_header(">") + jd_load(0x7f0000001000, 64, b"java::Main.work", 1, ">"))
put("jitdump", "cut", (jd_header() + loads)[:-20])
pys = sorted(p for p in __import__("glob").glob(os.path.expanduser("~/.pyenv/versions/3.13*/bin/python3.13")))
if pys:
    subprocess.run(["rm", "-f", "/tmp/jit-seed.dump"])
    r = subprocess.run([pys[-1], "-X", "perf_jit", "-c",
                        "import os\ndef fib(n): return n if n < 2 else fib(n-1) + fib(n-2)\nfib(12)\n"
                        "print(os.getpid())"], check=True, capture_output=True, text=True)
    dump = f"/tmp/jit-{r.stdout.strip()}.dump"
    data = open(dump, "rb").read()
    os.unlink(dump)
    off, keep = 40, 40
    while off + 16 <= len(data) and off < 6000:    # whole records, about 6 KB
        off += struct.unpack_from("<I", data, off + 4)[0]
        keep = off
    put("jitdump", "cpython313", data[:keep])

# ---- perfmap: JIT perf map lines (CPython -X perf, node, a long name, odd ones) ----
put("perfmap", "lines", b"7f0000001000 40 py::fib:/tmp/w.py\n7f0000001040 20 py::<module>:/tmp/w.py\n"
    b"7f0000002000 100 LazyCompile:*round /tmp/a.js:3:15\n")
put("perfmap", "odd", b"7f0000001000 0 zero\nzz 10 bad\n7f0000003000 10\n7f0000004000 10 tab\tname\r\n"
    b"ffffffffffffffff 10 wrap\n7f0000005000 10 no newline at the end")
put("perfmap", "long", b"7f0000001000 40 " + b"x" * (70 << 10) + b"\n7f0000002000 40 after\n")

# ---- pprof: a real profile (gzip and raw), a minimal one, hostile counts ----
# pprobe record -g -F 499 -o real.pb.gz -- build/tests/workloads/wl_record threads 2 1
import gzip
if os.path.exists("real.pb.gz"):
    put("pprof", "real_gz", open("real.pb.gz", "rb").read())
    put("pprof", "real_raw", gzip.decompress(open("real.pb.gz", "rb").read()))
def pb_len(field, b):
    n, v = bytearray(), len(b)
    while True:
        n.append((v & 0x7f) | (0x80 if v > 0x7f else 0))
        v >>= 7
        if not v:
            break
    return bytes([field << 3 | 2]) + bytes(n) + b
strings = b"".join(pb_len(6, s) for s in (b"", b"samples", b"count", b"main", b"app"))
put("pprof", "minimal", pb_len(1, b"\x08\x01\x10\x02") + pb_len(2, b"\x0a\x01\x01\x12\x01\x05")
    + pb_len(4, b"\x08\x01\x22\x02\x08\x01") + pb_len(5, b"\x08\x01\x10\x03") + strings)
put("pprof", "empty_strings", gzip.compress(b"\x32\x00" * 4096))

# ---- profile_in: the files report, flamegraph and diff read (folded, pprof) ----
put("profile_in", "folded", b"app;main;parse 40\napp;main;compute;heavy_loop 700\napp-12/13;main 3\n"
    b"wl/7;start_thread;worker_[k] 2\napp;ma\0in;foo 5\njunk\n\na;b 1 2\n")
put("profile_in", "real_folded", real[:300])
for f in ("real_gz", "minimal"):
    if os.path.exists(f"{C}/pprof/{f}"):
        put("profile_in", f + "_pprof" if f == "minimal" else "real_pprof_gz", open(f"{C}/pprof/{f}", "rb").read())
