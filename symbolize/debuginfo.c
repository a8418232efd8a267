/* Finding separate debug information for an object:
 *   1. /usr/lib/debug/.build-id/xx/yyyy.debug (build-id)
 *   2. .gnu_debuglink: same directory, .debug/, /usr/lib/debug/DIR (CRC or build-id checked)
 *   3. debuginfod, only when DEBUGINFOD_URLS is set
 * and decompressing MiniDebugInfo (.gnu_debugdata: an xz-compressed ELF with a .symtab). */
#include <pthread.h>
#include <elfutils/debuginfod.h>
#include <elfutils/libdwelf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <lzma.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pprobe/lazylib.h"
#include "pprobe/safe_open.h"
#include "sym_internal.h"

/* Overridable for tests: PPROBE_DEBUG_DIR replaces /usr/lib/debug. */
static const char *debug_root(void)
{
	const char *d = getenv("PPROBE_DEBUG_DIR");

	return d && *d ? d : "/usr/lib/debug";
}

static bool has_dwarf(Elf *elf)
{
	GElf_Shdr sh;

	return (elf_file__section(elf, ".debug_info", &sh) && sh.sh_type == SHT_PROGBITS) ||
	       (elf_file__section(elf, ".zdebug_info", &sh) && sh.sh_type == SHT_PROGBITS);
}

static bool same_file(const char *a, const char *b)
{
	struct stat sa, sb;

	return !stat(a, &sa) && !stat(b, &sb) && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

static bool build_id_is(const char *path, const uint8_t *id, size_t size)
{
	uint8_t have[MAP_BUILD_ID_MAX];
	int n = elf_file__build_id(path, have, sizeof(have));

	return n > 0 && (size_t)n == size && !memcmp(have, id, size);
}

static bool crc_is(const char *path, uint32_t want)
{
	char buf[16384];	/* on the stack: unwinding threads may ask at once */
	uint32_t crc = 0;
	ssize_t n;
	int fd = safe_open_file(path);

	if (fd < 0)
		return false;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		crc = lzma_crc32((const uint8_t *)buf, (size_t)n, crc);
	close(fd);
	return n == 0 && crc == want;
}

static char *try_debuglink(const char *dir, const char *sub, const char *name, const char *self,
			   const uint8_t *id, size_t idsize, uint32_t crc)
{
	char p[PATH_MAX];

	if ((size_t)snprintf(p, sizeof(p), "%s%s/%s", dir, sub, name) >= sizeof(p))
		return NULL;
	if (access(p, R_OK) || same_file(p, self))
		return NULL;
	/* a build-id, when both have one, is the stronger check */
	if (idsize) {
		uint8_t have[MAP_BUILD_ID_MAX];
		int n = elf_file__build_id(p, have, sizeof(have));

		if (n > 0)
			return (size_t)n == idsize && !memcmp(have, id, idsize) ? strdup(p) : NULL;
	}
	return crc_is(p, crc) ? strdup(p) : NULL;
}

/* libdebuginfod, loaded at the first fetch (it brings libcurl and its TLS
 * stack: pprobe/lazylib.h). */
#define DEBUGINFOD_FNS(X) X(debuginfod_begin) X(debuginfod_end) X(debuginfod_find_debuginfo) \
	X(debuginfod_set_progressfn)
static struct {
	DEBUGINFOD_FNS(LAZYLIB_PTR)
} dfd;
static const char *const dfd_names[] = { DEBUGINFOD_FNS(LAZYLIB_NAME) };
static struct lazylib debuginfod = LAZYLIB_INIT("libdebuginfod.so.1", dfd_names, dfd);

/* When debuginfod may run, and what cancels a fetch (debuginfo.h). */
static struct {
	bool later;
	bool (*cancel)(void *arg);
	void *arg;
	long max;		/* bytes an answer may have (the fetch under way) */
	bool too_big;		/* the fetch under way passed max */
} dbgd;

/* What one debuginfod answer may be, checked here as it arrives: 4 GiB (a
 * debug file is the size of a program's DWARF; a server that sends without
 * end is cut), or PPROBE_DEBUGINFOD_MAXSIZE, or DEBUGINFOD_MAXSIZE where
 * smaller (libdebuginfod checks that one only against a Content-Length). */
#define DEBUGINFOD_MAX_BYTES (4LL << 30)

static long long env_size(const char *name)
{
	const char *v = getenv(name);
	long long n = v ? strtoll(v, NULL, 10) : 0;
	return n > 0 ? n : 0;
}

void debuginfo__debuginfod(bool now, bool (*cancel)(void *arg), void *arg)
{
	dbgd.later = !now;
	dbgd.cancel = cancel;
	dbgd.arg = arg;
}

bool debuginfo__debuginfod_now(void)
{
	return !dbgd.later;
}

static bool debuginfod_wanted(size_t idsize)
{
	const char *urls = getenv("DEBUGINFOD_URLS");
	return urls && *urls && idsize;
}

/* libdebuginfod calls this about once a second while it waits on a server
 * (its transfer loop waits at most 1 s at a time): non-zero cancels. */
static int debuginfod_progress(debuginfod_client *c, long done, long total)
{
	(void)c;
	if (done > dbgd.max || total > dbgd.max) {
		dbgd.too_big = true;
		return 1;
	}
	return dbgd.cancel && dbgd.cancel(dbgd.arg);
}

char *debuginfo__fetch(const uint8_t *id, size_t idsize)
{
	debuginfod_client *c;
	char *path = NULL;
	int fd;

	if (!debuginfod_wanted(idsize) || dbgd.later)
		return NULL;
	/* one fetch at a time: dbgd is the one under way's */
	static pthread_mutex_t fetching = PTHREAD_MUTEX_INITIALIZER;
	if (!lazylib__load(&debuginfod)) {
		safe_open__note("debuginfod", debuginfod.why);
		return NULL;
	}
	pthread_mutex_lock(&fetching);
	c = LAZYLIB_CALL(dfd, debuginfod_begin)();
	if (!c) {
		pthread_mutex_unlock(&fetching);
		return NULL;
	}
	LAZYLIB_CALL(dfd, debuginfod_set_progressfn)(c, debuginfod_progress);
	long long own = env_size("PPROBE_DEBUGINFOD_MAXSIZE"), lib = env_size("DEBUGINFOD_MAXSIZE");
	long long max = own ? own : DEBUGINFOD_MAX_BYTES;
	const char *which = own ? "PPROBE_DEBUGINFOD_MAXSIZE" : "pprobe's; PPROBE_DEBUGINFOD_MAXSIZE sets it";
	if (lib && lib < max) {
		max = lib;
		which = "DEBUGINFOD_MAXSIZE";
	}
	dbgd.max = (long)max;
	dbgd.too_big = false;
	fd = LAZYLIB_CALL(dfd, debuginfod_find_debuginfo)(c, id, (int)idsize, &path);
	LAZYLIB_CALL(dfd, debuginfod_end)(c);
	if (dbgd.too_big || fd == -EFBIG) {
		char what[2 * 64 + 16], why[96];
		int n = snprintf(what, sizeof(what), "debuginfod ");
		for (size_t i = 0; i < idsize && i < 64; i++)
			n += snprintf(what + n, sizeof(what) - (size_t)n, "%02x", id[i]);
		snprintf(why, sizeof(why), "an answer over %ld bytes (the cap: %s)", dbgd.max, which);
		safe_open__note(what, why);
	}
	pthread_mutex_unlock(&fetching);
	if (fd < 0)
		return NULL;
	close(fd);
	return path;
}

/* The directory PATH is in: "" for a file in /, "." for a bare name (where
 * the file's own name was taken for its directory: the debuglink of
 * -x prog was looked for as prog/prog.debug). */
static void dir_of(const char *path, char *dir, size_t len)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		snprintf(dir, len, ".");
	else
		snprintf(dir, len, "%.*s", (int)(slash - path), path);
}

char *debuginfo__find(const char *path, const char *map_path, void *elfp,
		      const uint8_t *build_id, size_t build_id_size, const char **how)
{
	Elf *elf = elfp;
	char p[PATH_MAX], dir[PATH_MAX], mapdir[PATH_MAX];
	const char *root = debug_root(), *link;
	GElf_Word crc = 0;
	char *found;
	size_t i;
	int n;

	*how = NULL;
	if (has_dwarf(elf)) {
		*how = "self";
		return NULL;
	}
	if (build_id_size) {
		n = snprintf(p, sizeof(p), "%s/.build-id/%02x/", root, build_id[0]);
		for (i = 1; i < build_id_size && n < (int)sizeof(p) - 3; i++)
			n += snprintf(p + n, sizeof(p) - n, "%02x", build_id[i]);
		snprintf(p + n, sizeof(p) - n, ".debug");
		if (!access(p, R_OK) && build_id_is(p, build_id, build_id_size) && !same_file(p, path)) {
			*how = "build-id";
			return strdup(p);
		}
	}
	link = dwelf_elf_gnu_debuglink(elf, &crc);
	if (link && !strchr(link, '/')) {
		dir_of(path, dir, sizeof(dir));
		dir_of(map_path, mapdir, sizeof(mapdir));
		/* map_files/ links have no useful directory: use the mapped path's */
		const char *d = strstr(path, "/map_files/") ? mapdir : dir;
		char rootdir[PATH_MAX + 64], absdir[PATH_MAX];

		/* /usr/lib/debug mirrors absolute directories: a relative
		 * one (-x ./prog, -x prog) is made absolute first */
		if (mapdir[0] != '/' && realpath(mapdir, absdir))
			snprintf(mapdir, sizeof(mapdir), "%s", absdir);
		snprintf(rootdir, sizeof(rootdir), "%s%s", root, mapdir);
		if ((found = try_debuglink(d, "", link, path, build_id, build_id_size, crc)) ||
		    (found = try_debuglink(d, "/.debug", link, path, build_id, build_id_size, crc)) ||
		    (found = try_debuglink(rootdir, "", link, path, build_id, build_id_size, crc))) {
			*how = "debuglink";
			return found;
		}
	}
	if (dbgd.later && debuginfod_wanted(build_id_size)) {
		*how = "debuginfod-later";
		return NULL;
	}
	found = debuginfo__fetch(build_id, build_id_size);
	if (found)
		*how = "debuginfod";
	return found;
}

void *debuginfo__minidebuginfo(void *elfp, uint64_t file_size, const char *path, size_t *size)
{
	Elf *elf = elfp;
	Elf_Scn *scn;
	GElf_Shdr sh;
	Elf_Data *d = NULL;
	lzma_stream strm = LZMA_STREAM_INIT;
	uint8_t *out = NULL, *grown;
	size_t cap;
	lzma_ret ret;

	if ((scn = elf_file__section(elf, ".gnu_debugdata", &sh)) && sh.sh_type == SHT_PROGBITS)
		d = elf_rawdata(scn, NULL);
	if (!d || !d->d_size)
		return NULL;
	if (lzma_stream_decoder(&strm, UINT64_MAX, LZMA_CONCATENATED) != LZMA_OK)
		return NULL;
	cap = d->d_size * 4 + 4096;
	out = malloc(cap);
	if (!out)
		goto err;
	strm.next_in = d->d_buf;
	strm.avail_in = d->d_size;
	strm.next_out = out;
	strm.avail_out = cap;
	for (;;) {
		ret = lzma_code(&strm, strm.avail_in ? LZMA_RUN : LZMA_FINISH);
		if (ret == LZMA_STREAM_END)
			break;
		if (ret != LZMA_OK)
			goto err;
		if (!strm.avail_out) {
			if (cap * 2 > elf_file__decompressed_cap(file_size)) {
				char why[128];

				snprintf(why, sizeof(why), ".gnu_debugdata inflates past the cap of %llu bytes",
					 (unsigned long long)elf_file__decompressed_cap(file_size));
				safe_open__note(path, why);
				goto err;
			}
			grown = realloc(out, cap * 2);
			if (!grown)
				goto err;
			out = grown;
			strm.next_out = out + cap;
			strm.avail_out = cap;
			cap *= 2;
		}
	}
	*size = cap - strm.avail_out;
	lzma_end(&strm);
	return out;
err:
	lzma_end(&strm);
	free(out);
	return NULL;
}
