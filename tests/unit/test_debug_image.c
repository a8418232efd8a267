/* symbolize/debug_image.c: a separate debug file's image for libdw, its
 * compressed sections inflated (zlib through libdeflate, zstd) to exactly
 * the bytes of the uncompressed file, the unread ones hidden; a file with
 * nothing to inflate, or a lying stream, is given as it is. Inputs: the
 * fuzz seeds (tests/fuzz/corpus/debug_image: one debug file, objcopy'd
 * four ways) and libc6-dbg's libc debug file where it is installed. */
#define _GNU_SOURCE
#include <elfutils/libdw.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../symbolize/elf_zsec.h"

#include "check.h"

#define SEEDS "../fuzz/corpus/debug_image/"

struct sec {
	GElf_Shdr sh;
	Elf_Data *d;
};

static bool section(Elf *e, const char *want, struct sec *s)
{
	size_t shstrndx;
	if (elf_getshdrstrndx(e, &shstrndx))
		return false;
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(e, scn));) {
		const char *nm;
		if (gelf_getshdr(scn, &s->sh) && (nm = elf_strptr(e, shstrndx, s->sh.sh_name)) && !strcmp(nm, want)) {
			s->d = s->sh.sh_type == SHT_NOBITS ? NULL : elf_getdata(scn, NULL);
			return true;
		}
	}
	return false;
}

/* The image of path: every debug section libdw reads holds the plain
 * file's bytes, uncompressed; loclists hidden, the line table hidden
 * without lines; libdw reads its unit's name. */
static void check_image(const char *path, bool lines)
{
	int fd = open(path, O_RDONLY), pfd = open(SEEDS "d_plain", O_RDONLY);
	if (!CHECK(fd >= 0 && pfd >= 0, "open %s and d_plain", path))
		return;
	int img = debug_image__open(fd, lines);
	if (!CHECK(img >= 0, "%s: an image (%d)", path, img))
		goto out;
	Elf *e = elf_begin(img, ELF_C_READ_MMAP, NULL), *pe = elf_begin(pfd, ELF_C_READ_MMAP, NULL);
	static const char *const read[] = { ".debug_info", ".debug_abbrev", ".debug_str", ".debug_aranges",
					    ".debug_rnglists", ".debug_line_str" };
	for (size_t i = 0; i < sizeof(read) / sizeof(read[0]); i++) {
		struct sec s, p;
		if (!CHECK(section(e, read[i], &s) && section(pe, read[i], &p), "%s: %s in both", path, read[i]))
			continue;
		CHECK(!(s.sh.sh_flags & SHF_COMPRESSED) && s.d && p.d && s.d->d_size == p.d->d_size &&
			      !memcmp(s.d->d_buf, p.d->d_buf, p.d->d_size),
		      "%s: %s inflated to the plain file's %zu bytes", path, read[i], p.d ? p.d->d_size : 0);
	}
	struct sec s;
	CHECK(section(e, ".debug_loclists", &s) && s.sh.sh_type == SHT_NOBITS, "%s: loclists hidden", path);
	CHECK(section(e, ".debug_line", &s) && (s.sh.sh_type == SHT_NOBITS) == !lines,
	      "%s: the line table %s", path, lines ? "kept" : "hidden");
	Dwarf *dw = dwarf_begin_elf(e, DWARF_C_READ, NULL);
	Dwarf_Die cu;
	const char *name = dw && dwarf_offdie(dw, 12, &cu) ? dwarf_diename(&cu) : NULL;	/* DWARF 5's first unit */
	CHECK(name && strstr(name, "tiny.c"), "%s: libdw reads the unit's name (%s)", path, name ? name : "none");
	if (lines) {
		Dwarf_Lines *l;
		size_t nl = 0;
		CHECK(dw && dwarf_getsrclines(&cu, &l, &nl) == 0 && nl > 0, "%s: its lines", path);
	}
	dwarf_end(dw);
	elf_end(e);
	elf_end(pe);
	close(img);
out:
	close(fd);
	close(pfd);
}

/* Where the file is better given as it is: a negative errno, no fd. */
static void check_refused(const char *what, const uint8_t *data, size_t size, int want)
{
	int fd = memfd_create("test", MFD_CLOEXEC);
	if (!CHECK(fd >= 0 && write(fd, data, size) == (ssize_t)size, "memfd"))
		return;
	int img = debug_image__open(fd, true);
	CHECK(img == want, "%s: %d, not %d", what, img, want);
	if (img >= 0)
		close(img);
	close(fd);
}

static uint8_t *slurp(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	uint8_t *b = NULL;
	if (f && !fseek(f, 0, SEEK_END) && (*size = (size_t)ftell(f)) && !fseek(f, 0, SEEK_SET) &&
	    (b = malloc(*size)) && fread(b, 1, *size, f) != *size) {
		free(b);
		b = NULL;
	}
	if (f)
		fclose(f);
	return b;
}

/* A stream that says it inflates to more than it does: the whole file is
 * refused (libelf then says what it makes of it), no half image. */
static void check_lie(void)
{
	size_t size;
	uint8_t *b = slurp(SEEDS "d_gz", &size);
	if (!CHECK(b, "read d_gz"))
		return;
	Elf64_Ehdr eh;
	CHECK(zsec__header(b, size, &eh), "d_gz: a 64-bit native ELF");
	for (unsigned i = 0; i < eh.e_shnum; i++) {
		Elf64_Shdr *sh = (Elf64_Shdr *)(b + eh.e_shoff) + i;
		const char *nm = zsec__name(b, size, &eh, sh);
		if (nm && !strcmp(nm, ".debug_info") && (sh->sh_flags & SHF_COMPRESSED)) {
			Elf64_Chdr *ch = (Elf64_Chdr *)(b + sh->sh_offset);
			ch->ch_size += 1;
		}
	}
	check_refused("a stream one byte short of its header", b, size, -EINVAL);
	free(b);
	b = slurp(SEEDS "d_plain", &size);
	if (CHECK(b, "read d_plain"))
		check_refused("nothing compressed", b, size, -ENODATA);
	free(b);
	b = slurp(SEEDS "d_zdebug", &size);
	if (CHECK(b, "read d_zdebug"))
		check_refused("GNU's .zdebug (libdw inflates them)", b, size, -ENODATA);
	free(b);
	static const char text[] = "not an ELF file, but long enough to be the header of one....";
	check_refused("not ELF", (const uint8_t *)text, sizeof(text), -ENODATA);
}

/* libc6-dbg's libc: the real case, where it is installed. */
static void check_libc(void)
{
	char path[512];
	FILE *p = popen("readelf -n /lib/x86_64-linux-gnu/libc.so.6 2>/dev/null | awk '/Build ID/{print $3}'", "r");
	char id[128] = "";
	if (!p || !fgets(id, sizeof(id), p) || strlen(id) < 4) {
		if (p)
			pclose(p);
		printf("skip libc: no build id read\n");
		return;
	}
	pclose(p);
	id[strcspn(id, "\n")] = 0;
	snprintf(path, sizeof(path), "/usr/lib/debug/.build-id/%.2s/%s.debug", id, id + 2);
	int fd = open(path, O_RDONLY);
	if (fd < 0) {
		printf("skip libc: %s not installed (libc6-dbg)\n", path);
		return;
	}
	int img = debug_image__open(fd, false);
	if (CHECK(img >= 0, "%s: an image (%d)", path, img)) {
		/* the original read into memory (libelf inflates in place) */
		Elf *e = elf_begin(img, ELF_C_READ_MMAP, NULL), *o = elf_begin(fd, ELF_C_READ, NULL);
		struct sec s;
		if (CHECK(section(e, ".debug_info", &s), "libc: .debug_info")) {
			for (Elf_Scn *c = NULL; (c = elf_nextscn(o, c));) {
				GElf_Shdr sh;
				size_t k;
				elf_getshdrstrndx(o, &k);
				if (gelf_getshdr(c, &sh) && !strcmp(elf_strptr(o, k, sh.sh_name), ".debug_info")) {
					if (sh.sh_flags & SHF_COMPRESSED)
						elf_compress(c, 0, 0);
					Elf_Data *d = elf_getdata(c, NULL);
					CHECK(d && s.d && d->d_size == s.d->d_size &&
						      !memcmp(d->d_buf, s.d->d_buf, d->d_size),
					      "libc: .debug_info as libelf inflates it (%zu bytes)", d ? d->d_size : 0);
				}
			}
		}
		elf_end(e);
		elf_end(o);
		close(img);
	}
	close(fd);
}

/* The images kept on disk (PPROBE_CACHE_DIR): made at the first open, in
 * debug/, ours alone; the next open of the same file is that file (its
 * inode), byte for byte the image made; a changed file is a new image; a
 * kept file that is not what would be made is made again; a directory
 * others may write is not used; past PPROBE_CACHE_MAX the least recently
 * used goes; none kept with PPROBE_CACHE_DIR empty. */
static int count_images(const char *dir)
{
	char cmd[512];
	snprintf(cmd, sizeof(cmd), "ls %s/debug 2>/dev/null | grep -c '^[0-9a-f]\\{16\\}\\.img$'", dir);
	FILE *p = popen(cmd, "r");
	int n = -1;
	if (p && fscanf(p, "%d", &n) != 1)
		n = -1;
	if (p)
		pclose(p);
	return n;
}

static bool same_bytes(int a, int b)
{
	struct stat sa, sb;
	if (fstat(a, &sa) || fstat(b, &sb) || sa.st_size != sb.st_size)
		return false;
	void *ma = mmap(NULL, (size_t)sa.st_size, PROT_READ, MAP_PRIVATE, a, 0);
	void *mb = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE, b, 0);
	bool same = ma != MAP_FAILED && mb != MAP_FAILED && !memcmp(ma, mb, (size_t)sa.st_size);
	if (ma != MAP_FAILED)
		munmap(ma, (size_t)sa.st_size);
	if (mb != MAP_FAILED)
		munmap(mb, (size_t)sb.st_size);
	return same;
}

static void check_cache(const char *dir)
{
	char src[512], cmd[1024], img_path[512];
	struct stat st, ist;
	snprintf(src, sizeof(src), "%s/d_gz", dir);
	snprintf(cmd, sizeof(cmd), "cp " SEEDS "d_gz %s", src);
	if (!CHECK(system(cmd) == 0, "copy d_gz"))
		return;
	int fd = open(src, O_RDONLY);
	int first = debug_image__open(fd, true);
	CHECK(first >= 0, "an image (%d)", first);
	CHECK_EQ_INT(count_images(dir), 1);
	snprintf(cmd, sizeof(cmd), "%s/debug", dir);
	CHECK(stat(cmd, &st) == 0 && (st.st_mode & 0777) == 0700 && st.st_uid == geteuid(), "debug/ is 0700, ours");
	int again = debug_image__open(fd, true);
	CHECK(again >= 0 && fstat(again, &ist) == 0 && S_ISREG(ist.st_mode) && (ist.st_mode & 0777) == 0600,
	      "the second open: a file of ours, 0600");
	snprintf(cmd, sizeof(cmd), "ls %s/debug/*.img", dir);
	FILE *p = popen(cmd, "r");
	if (p && fgets(img_path, sizeof(img_path), p))
		img_path[strcspn(img_path, "\n")] = 0;
	if (p)
		pclose(p);
	CHECK(stat(img_path, &st) == 0 && st.st_ino == ist.st_ino, "the second open is the kept image");
	CHECK(first >= 0 && again >= 0 && same_bytes(first, again), "the kept image is the image made");
	close(again);
	/* not what would be made (cut short): made again, whole */
	CHECK(truncate(img_path, 4096) == 0, "cut the kept image");
	again = debug_image__open(fd, true);
	CHECK(again >= 0 && first >= 0 && same_bytes(first, again), "a cut image: not used");
	CHECK(stat(img_path, &st) == 0 && fstat(first, &ist) == 0 && st.st_size == ist.st_size,
	      "a cut image: made again whole");
	if (again >= 0)
		close(again);
	/* the file changed: a new image; the older one, used longer ago, goes
	 * past a bound that holds one */
	struct timespec old[2] = { { 1000000000, 0 }, { 1000000000, 0 } };
	utimensat(AT_FDCWD, img_path, old, 0);
	char max[32];
	snprintf(max, sizeof(max), "%lld", (long long)st.st_blocks * 512 + 4096);
	setenv("PPROBE_CACHE_MAX", max, 1);
	struct timespec now[2] = { { 0, UTIME_NOW }, { 0, UTIME_NOW } };
	futimens(fd, now);
	close(fd);
	fd = open(src, O_RDONLY);
	again = debug_image__open(fd, true);
	CHECK(again >= 0, "the changed file: an image");
	CHECK_EQ_INT(count_images(dir), 1);
	CHECK(stat(img_path, &st) != 0, "the least recently used image is gone");
	unsetenv("PPROBE_CACHE_MAX");
	if (again >= 0)
		close(again);
	/* a directory others may write: not used */
	snprintf(cmd, sizeof(cmd), "%s/debug", dir);
	chmod(cmd, 0777);
	again = debug_image__open(fd, false);
	CHECK(again >= 0, "others' dir: an image still");
	CHECK_EQ_INT(count_images(dir), 1);
	chmod(cmd, 0700);
	if (again >= 0)
		close(again);
	/* none asked */
	setenv("PPROBE_CACHE_DIR", "", 1);
	again = debug_image__open(fd, false);
	CHECK(again >= 0, "no cache: an image still");
	CHECK_EQ_INT(count_images(dir), 1);
	setenv("PPROBE_CACHE_DIR", dir, 1);
	if (again >= 0)
		close(again);
	/* the directory removed while the process holds it (its fd found
	 * once): found again, made anew, and the image kept there */
	snprintf(cmd, sizeof(cmd), "rm -rf %s/debug", dir);
	CHECK(system(cmd) == 0, "remove the cache's debug/");
	again = debug_image__open(fd, false);
	CHECK(again >= 0, "a removed cache directory: an image still");
	CHECK_EQ_INT(count_images(dir), 1);
	if (again >= 0)
		close(again);
	if (first >= 0)
		close(first);
	close(fd);
}

int main(void)
{
	elf_version(EV_CURRENT);
	/* images kept in a directory of the test's own, removed at the end */
	char dir[] = "/tmp/pprobe-test-cache.XXXXXX";
	if (!mkdtemp(dir))
		return check_skip("mkdtemp: %s", strerror(errno));
	setenv("PPROBE_CACHE_DIR", dir, 1);
	check_cache(dir);
	for (int lines = 0; lines < 2; lines++) {
		check_image(SEEDS "d_gz", lines);
		check_image(SEEDS "d_zstd", lines);
	}
	check_lie();
	check_libc();
	char rm[128];
	snprintf(rm, sizeof(rm), "rm -rf %s", dir);
	if (system(rm))
		printf("could not remove %s\n", dir);
	return check_summary();
}
