/* The file behind a mapping, as the process that mapped it sees it: the one
 * way the symbolizer (symbolizer.c) and the unwinder (unwind.c) open a
 * mapped ELF file, and the identity both caches key it by. A container's
 * /usr/bin/python3 is not the host's: a file is taken only when it is the
 * mapped one (its build id, else its device and inode), never by its name. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "pprobe/safe_open.h"
#include "sym_internal.h"

void mapped_file__clean_path(const char *path, char *out, size_t size)
{
	static const char del[] = " (deleted)";
	size_t n = strlen(path);

	if (n > sizeof(del) - 1 && !strcmp(path + n - (sizeof(del) - 1), del))
		n -= sizeof(del) - 1;
	snprintf(out, size, "%.*s", (int)n, path);
}

void file_id__from_map(struct file_id *id, pid_t pid, const struct map *m)
{
	memset(id, 0, sizeof(*id));
	if (m->build_id_size) {
		id->build_id_size = m->build_id_size;
		memcpy(id->build_id, m->build_id, m->build_id_size);
	} else if (m->ino) {
		id->maj = m->maj;
		id->min = m->min;
		id->ino = m->ino;
	} else {
		id->pid = pid;	/* nothing tells the file: only this process's view of the path */
	}
}

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const uint8_t *b = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 0x100000001b3ULL;
	return h;
}

uint64_t file_id__hash(const struct file_id *id, const char *path)
{
	uint64_t h = fnv(0xcbf29ce484222325ULL, path, strlen(path));

	h = fnv(h, id->build_id, id->build_id_size);
	h = fnv(h, &id->maj, sizeof(id->maj));
	h = fnv(h, &id->min, sizeof(id->min));
	h = fnv(h, &id->ino, sizeof(id->ino));
	return fnv(h, &id->pid, sizeof(id->pid));
}

bool file_id__equal(const struct file_id *a, const struct file_id *b)
{
	return a->build_id_size == b->build_id_size && !memcmp(a->build_id, b->build_id, a->build_id_size) &&
	       a->maj == b->maj && a->min == b->min && a->ino == b->ino && a->pid == b->pid;
}

/* Is the open file fd the one m maps? Its build id where m carries one,
 * else its inode (and device, where known); true when m says neither. */
static bool is_mapped_file(int fd, const struct stat *st, const struct map *m)
{
	if (m->build_id_size) {
		uint8_t id[MAP_BUILD_ID_MAX];
		int n = elf_fd__build_id(fd, id, sizeof(id));

		return n == m->build_id_size && !memcmp(id, m->build_id, (size_t)n);
	}
	if (m->ino && (uint64_t)st->st_ino != m->ino)
		return false;
	if (m->ino && (m->maj | m->min) && (major(st->st_dev) != m->maj || minor(st->st_dev) != m->min))
		return false;
	return true;
}

/* Open candidate k of mapping m (0: PATH inside the process's root, 1: its
 * map_files link, 2: PATH as we see it) into *name. Returns the fd or -errno. */
static int open_candidate(int k, pid_t pid, const struct map *m, const char *path, char *name, size_t len,
			  struct stat *st)
{
	struct safe_open_rules r = { .root_fd = -1 };
	int fd;

	switch (k) {
	case 0:
		snprintf(name, len, "/proc/%d/root", (int)pid);
		r.root_fd = open(name, O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (r.root_fd < 0)
			return -errno;
		/* symbolic links resolve inside the container's root */
		if (snprintf(name, len, "/proc/%d/root%s", (int)pid, path) >= (int)len) {
			close(r.root_fd);
			return -ENAMETOOLONG;
		}
		r.name = name;
		fd = safe_open(path, &r, st);
		close(r.root_fd);
		return fd;
	case 1:
		/* the mapped file itself, even deleted or replaced */
		snprintf(name, len, "/proc/%d/map_files/%" PRIx64 "-%" PRIx64, (int)pid, m->start, m->end);
		return safe_open(name, &r, st);
	default:
		snprintf(name, len, "%s", path);
		return safe_open(name, &r, st);
	}
}

static void say_unmatched(pid_t pid, const struct map *m, const char *path, int err)
{
	char why[320], id[2 * MAP_BUILD_ID_MAX + 32], who[48] = "";
	int n = 0;

	if (m->build_id_size) {
		n = snprintf(id, sizeof(id), "build id ");
		for (int i = 0; i < m->build_id_size; i++)
			n += snprintf(id + n, sizeof(id) - (size_t)n, "%02x", m->build_id[i]);
	} else {
		snprintf(id, sizeof(id), "inode %" PRIu64, m->ino);
	}
	if (pid > 0)
		snprintf(who, sizeof(who), " by process %d", (int)pid);
	snprintf(why, sizeof(why), "%sthe file mapped%s (%s)%s: its frames are left unnamed",
		 err == -ESTALE ? "not " : "", who, id,
		 err == -ESTALE ? ", which is out of reach (its process gone?)" : " is out of reach (its process gone?)");
	safe_open__note(path, why);
}

/* Files by build id: a path where each was found as we see it. A copy of a
 * program under another name (or the same file deleted once its process
 * is gone) has the same build id; its frames then still come from those
 * bytes (checked again when opened). Process-wide, bounded, one lock. */
#define SEEN_SLOTS 256
static struct {
	uint8_t id[MAP_BUILD_ID_MAX];
	uint8_t size;
	char *path;
} seen[SEEN_SLOTS];
static pthread_mutex_t seen_lock = PTHREAD_MUTEX_INITIALIZER;

static unsigned seen_slot(const struct map *m)
{
	return (unsigned)(fnv(1469598103934665603ull, m->build_id, m->build_id_size) % SEEN_SLOTS);
}

static void seen_note(const struct map *m, const char *path)
{
	if (!m->build_id_size || path[0] != '/' || !strncmp(path, "/proc/", 6))
		return;
	char *copy = strdup(path);
	if (!copy)
		return;
	pthread_mutex_lock(&seen_lock);
	unsigned k = seen_slot(m);
	free(seen[k].path);
	memcpy(seen[k].id, m->build_id, m->build_id_size);
	seen[k].size = m->build_id_size;
	seen[k].path = copy;
	pthread_mutex_unlock(&seen_lock);
}

/* Another path of the same build id, opened and checked: the fd, or -1. */
static int seen_open(const struct map *m, char **opened_path)
{
	char path[PATH_MAX] = "";
	pthread_mutex_lock(&seen_lock);
	unsigned k = seen_slot(m);
	if (seen[k].path && seen[k].size == m->build_id_size && !memcmp(seen[k].id, m->build_id, m->build_id_size))
		snprintf(path, sizeof(path), "%s", seen[k].path);
	pthread_mutex_unlock(&seen_lock);
	if (!path[0])
		return -1;
	struct safe_open_rules r = { .root_fd = -1 };
	struct stat st;
	int fd = safe_open(path, &r, &st);
	if (fd >= 0 && !is_mapped_file(fd, &st, m)) {
		close(fd);
		fd = -1;
	}
	if (fd >= 0 && !(*opened_path = strdup(path))) {
		close(fd);
		fd = -1;
	}
	return fd;
}

int mapped_file__open(pid_t pid, const struct map *m, char **opened_path)
{
	char path[PATH_MAX], name[PATH_MAX + 64];
	int err = -ENOENT;

	*opened_path = NULL;
	mapped_file__clean_path(m->path, path, sizeof(path));
	for (int k = pid > 0 ? 0 : 2; k < 3; k++) {
		struct stat st;
		int fd = open_candidate(k, pid, m, path, name, sizeof(name), &st);

		if (fd < 0)	/* not there, or refused (said): the next way */
			continue;
		if (!is_mapped_file(fd, &st, m)) {
			/* another file under that name: try the next way */
			close(fd);
			err = -ESTALE;
			continue;
		}
		*opened_path = strdup(name);
		if (!*opened_path) {
			close(fd);
			return -ENOMEM;
		}
		/* remembered where we may see it too: checked again when used */
		if (k != 1)
			seen_note(m, path);
		return fd;
	}
	int fd = m->build_id_size ? seen_open(m, opened_path) : -1;
	if (fd >= 0)
		return fd;
	if (m->build_id_size || m->ino)
		say_unmatched(pid, m, path, err);
	return err;
}
