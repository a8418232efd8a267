/* A binary as the unwinder meets it: the input is the file behind a
 * mapping of a process (a memfd), and samples whose pc lies in it are
 * unwound by both backends, over a stack whose words point back into it.
 * This reaches what no parser fuzzer does: the unwinder's own mapping of
 * the file (ufile_map.c: compressed sections inflated or hidden), its
 * program and section headers, libdw's module set-up and CFI (.eh_frame,
 * .debug_frame, a separate debug file's), Go's root functions and the
 * steps past frames without CFI.
 * Seeds (corpus/unwind) are s.c (a leaf, its caller, main as entry) built
 * by gcc -O2 -nostartfiles -e main: with .eh_frame (s_eh, and stripped),
 * with only a zlib-compressed .debug_frame (-g -gz
 * -fno-asynchronous-unwind-tables: s_gz; objcopy
 * --compress-debug-sections=zlib-gnu: s_zdebug), an object file (s.o), and
 * tests/fuzz/elf/tiny_O2. */
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <pprobe/maps.h>
#include <pprobe/unwind.h>

#include "fuzz.h"

#define BASE 0x400000ull
#define STACK 0x7ff000000000ull
#define STACK_BYTES 512

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz_isolate();
	return 0;
}

static uint64_t word_at(const uint8_t *data, size_t size, size_t off)
{
	uint64_t v = 0;
	if (size >= 8 && off <= size - 8)
		memcpy(&v, data + off, 8);
	return v;
}

static void unwind_at(enum unwind_backend b, const struct maps *maps, const uint64_t *pcs, int npcs,
		      const uint8_t *stack)
{
	struct unwinder *u = unwinder__new(b);
	if (!u)
		abort();
	unwinder__set_live_stack(u, false);
	for (int i = 0; i < npcs; i++) {
		struct unwind_regs r = { .valid = 0 };
		r.r[UNWIND_REG_IP] = pcs[i];
		r.r[UNWIND_REG_SP] = STACK + 8 * (uint64_t)(i % 4);
		r.r[UNWIND_REG_BP] = STACK + 64;
		r.r[3] = BASE;
		r.valid = 1u << UNWIND_REG_IP | 1u << UNWIND_REG_SP | 1u << UNWIND_REG_BP | 1u << 3;
		struct unwind_stack st = { .sp = STACK, .data = stack, .size = STACK_BYTES };
		uint64_t ips[64];
		struct unwind_result res;
		int n = unwinder__unwind(u, getpid(), maps, &r, &st, ips, 64, &res);
		if (n < 1 || n > 64 || res.nr != n)
			abort();
	}
	unwinder__delete(u);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64];
	struct stat sb;
	if (size < 64)
		return 0;
	int fd = fuzz_memfd(data, size, path, sizeof(path));
	if (fd < 0 || fstat(fd, &sb))
		abort();
	uint64_t len = (size + 4095) & ~4095ull;
	struct map m = {
		.start = BASE, .end = BASE + len, .prot = PROT_READ | PROT_EXEC, .flags = MAP_PRIVATE,
		.maj = major(sb.st_dev), .min = minor(sb.st_dev), .ino = sb.st_ino, .path = path,
	};
	struct map s = {
		.start = STACK, .end = STACK + 4096, .prot = PROT_READ | PROT_WRITE, .flags = MAP_PRIVATE,
		.path = "[stack]",
	};
	struct maps *maps = maps__new();
	if (!maps || maps__insert(maps, &m) || maps__insert(maps, &s))
		abort();

	/* pcs: the ELF entry point, and offsets spread over the file */
	uint64_t pcs[6];
	int n = 0;
	uint64_t entry = word_at(data, size, 24);
	if (entry >= BASE && entry < BASE + len)
		pcs[n++] = entry;
	for (int k = 1; n < 6; k++)
		pcs[n++] = BASE + (uint64_t)size * (uint64_t)k / 6;
	/* the stack: words from the file made into addresses in the mapping,
	 * with stack addresses among them (frame pointers) */
	uint8_t stack[STACK_BYTES];
	for (int i = 0; i < STACK_BYTES / 8; i++) {
		uint64_t w = word_at(data, size, (size_t)(i * 40) % size);
		w = i % 5 == 4 ? STACK + (w % STACK_BYTES & ~7ull) : BASE + w % len;
		memcpy(stack + 8 * i, &w, 8);
	}
	unwind_at(UNWIND_LIBDW, maps, pcs, n, stack);
	unwind_at(UNWIND_LIBUNWIND, maps, pcs, n, stack);
	maps__delete(maps);
	close(fd);
	return 0;
}
