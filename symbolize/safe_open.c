/* pprobe/safe_open.h: opening files the traced program controls without
 * blocking, following its tricks or believing its sizes, and the one list of
 * what was refused. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/openat2.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "pprobe/safe_open.h"
#include "sym_internal.h"

#define MAX_REFUSALS 256

static struct {
	pthread_mutex_t lock;
	char **path, **why;
	size_t n, dropped;
} refused = { .lock = PTHREAD_MUTEX_INITIALIZER };

void safe_open__note(const char *path, const char *why)
{
	pthread_mutex_lock(&refused.lock);
	for (size_t i = 0; i < refused.n; i++)
		if (!strcmp(refused.path[i], path))
			goto out;
	if (refused.n == MAX_REFUSALS) {
		refused.dropped++;
		goto out;
	}
	if (!refused.path) {
		refused.path = calloc(MAX_REFUSALS, sizeof(char *));
		refused.why = calloc(MAX_REFUSALS, sizeof(char *));
	}
	if (refused.path && refused.why) {
		refused.path[refused.n] = strdup(path);
		refused.why[refused.n] = strdup(why);
		if (refused.path[refused.n] && refused.why[refused.n])
			refused.n++;
		else
			refused.dropped++;	/* no memory for the words: counted */
	} else {
		refused.dropped++;
	}
out:
	pthread_mutex_unlock(&refused.lock);
}

size_t safe_open__refusals(void (*fn)(void *arg, const char *path, const char *why), void *arg,
			   size_t *nr_dropped)
{
	pthread_mutex_lock(&refused.lock);
	size_t n = refused.n;
	if (fn)
		for (size_t i = 0; i < n; i++)
			fn(arg, refused.path[i], refused.why[i]);
	if (nr_dropped)
		*nr_dropped = refused.dropped;
	pthread_mutex_unlock(&refused.lock);
	return n;
}

static void say_refused(void *arg, const char *path, const char *why)
{
	fprintf(stderr, "%s: ignored %s: %s\n", (const char *)arg, path, why);
}

void safe_open__say(const char *prog)
{
	size_t dropped = 0;
	safe_open__refusals(say_refused, (void *)prog, &dropped);
	if (dropped)
		fprintf(stderr, "%s: %zu more files the profiled programs control were ignored\n", prog, dropped);
}

void safe_open__reset(void)
{
	pthread_mutex_lock(&refused.lock);
	for (size_t i = 0; i < refused.n; i++) {
		free(refused.path[i]);
		free(refused.why[i]);
	}
	free(refused.path);
	free(refused.why);
	refused.path = refused.why = NULL;
	refused.n = refused.dropped = 0;
	pthread_mutex_unlock(&refused.lock);
}

static int open_in_root(int root_fd, const char *path, int flags)
{
	struct open_how how = {
		.flags = (uint64_t)flags,
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
	};
	while (*path == '/')
		path++;
	long fd = syscall(SYS_openat2, root_fd, path, &how, sizeof(how));
	if (fd < 0 && (errno == ENOSYS || errno == E2BIG))	/* before 5.6 */
		fd = openat(root_fd, path, flags);
	return (int)fd;
}

static const char *file_kind(mode_t m)
{
	if (S_ISFIFO(m))
		return "a FIFO";
	if (S_ISSOCK(m))
		return "a socket";
	if (S_ISCHR(m))
		return "a character device";
	if (S_ISBLK(m))
		return "a block device";
	if (S_ISDIR(m))
		return "a directory";
	return "not a regular file";
}

int safe_open(const char *path, const struct safe_open_rules *r, struct stat *stp)
{
	static const struct safe_open_rules any = { .root_fd = -1 };
	int flags = O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY;
	char why[160];
	struct stat st;
	int fd;

	if (!r)
		r = &any;
	if (r->nofollow)
		flags |= O_NOFOLLOW;
	fd = r->root_fd >= 0 ? open_in_root(r->root_fd, path, flags) : open(path, flags);
	if (fd < 0) {
		int err = errno;
		if (err == ELOOP && r->nofollow) {
			safe_open__note(r->name ? r->name : path, "a symbolic link");
			return -EPERM;
		}
		return -err;
	}
	if (fstat(fd, &st)) {
		int err = errno;
		close(fd);
		return -err;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(why, sizeof(why), "%s", file_kind(st.st_mode));
		goto refuse;
	}
	if (r->nr_owners) {
		int i;
		for (i = 0; i < r->nr_owners && r->owners[i] != st.st_uid; i++)
			;
		if (i == r->nr_owners) {
			snprintf(why, sizeof(why), "owned by uid %u, not by the process's user or root",
				 (unsigned)st.st_uid);
			goto refuse;
		}
	}
	if (r->max_size && (uint64_t)st.st_size > r->max_size) {
		snprintf(why, sizeof(why), "%" PRIu64 " bytes, over the cap of %" PRIu64, (uint64_t)st.st_size,
			 r->max_size);
		goto refuse;
	}
	/* a regular file: reads do not block anyway, but libelf and stdio
	 * should see an ordinary descriptor */
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	if (stp)
		*stp = st;
	return fd;
refuse:
	close(fd);
	safe_open__note(r->name ? r->name : path, why);
	return -EPERM;
}

int safe_open_file(const char *path)
{
	return safe_open(path, NULL, NULL);
}

#define GIB (1ULL << 30)

uint64_t elf_file__decompressed_cap(uint64_t file_size)
{
	uint64_t by_file = file_size > UINT64_MAX / 16 ? UINT64_MAX : file_size * 16;
	return by_file > GIB ? by_file : GIB;
}

bool elf_file__compressed_sane(Elf *elf, uint64_t file_size, char *why, size_t len)
{
	uint64_t cap = elf_file__decompressed_cap(file_size);
	size_t shstrndx;
	Elf_Scn *scn = NULL;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return true;	/* no section names: nothing libdw would inflate */
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		uint64_t claim = 0;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS)
			continue;
		const char *name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (sh.sh_flags & SHF_COMPRESSED) {
			Elf_Data *d = elf_rawdata(scn, NULL);
			if (!d || !d->d_buf)
				continue;
			if (gelf_getclass(elf) == ELFCLASS64 && d->d_size >= sizeof(Elf64_Chdr)) {
				Elf64_Chdr ch;
				memcpy(&ch, d->d_buf, sizeof(ch));
				claim = ch.ch_size;
			} else if (gelf_getclass(elf) == ELFCLASS32 && d->d_size >= sizeof(Elf32_Chdr)) {
				Elf32_Chdr ch;
				memcpy(&ch, d->d_buf, sizeof(ch));
				claim = ch.ch_size;
			}
			/* a file of the other byte order: libelf converts; so do we */
			if (elf_getident(elf, NULL)[EI_DATA] != (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? ELFDATA2LSB
													 : ELFDATA2MSB))
				claim = gelf_getclass(elf) == ELFCLASS64 ? __builtin_bswap64(claim)
									 : __builtin_bswap32((uint32_t)claim);
		} else if (name && !strncmp(name, ".zdebug", 7)) {
			Elf_Data *d = elf_rawdata(scn, NULL);
			const unsigned char *b = d ? d->d_buf : NULL;
			if (!b || d->d_size < 12 || memcmp(b, "ZLIB", 4))
				continue;
			for (int i = 4; i < 12; i++)	/* big-endian size */
				claim = claim << 8 | b[i];
		} else {
			continue;
		}
		if (claim > cap) {
			snprintf(why, len, "compressed section %s claims %" PRIu64 " bytes, over the cap of %" PRIu64,
				 name ? name : "?", claim, cap);
			return false;
		}
	}
	return true;
}
