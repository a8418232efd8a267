/* tracefs discovery, file access, event lists, error_log. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <mntent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "tracefs.h"

#ifndef TRACEFS_MAGIC
#define TRACEFS_MAGIC 0x74726163
#endif
#ifndef DEBUGFS_MAGIC
#define DEBUGFS_MAGIC 0x64626720
#endif

static char tracefs_root_buf[PATH_MAX];
static const char *tracefs_root_cached;
static int tracefs_root_err;
static int tracefs_override;

void tracefs__set_root(const char *root)
{
	if (root) {
		snprintf(tracefs_root_buf, sizeof(tracefs_root_buf), "%s", root);
		tracefs_root_cached = tracefs_root_buf;
		tracefs_override = 1;
	} else {
		tracefs_root_cached = NULL;
		tracefs_override = 0;
	}
	tracefs_root_err = 0;
}

/* A directory that is a usable tracefs: has an events/ directory. */
static int tracefs_usable(const char *dir)
{
	char p[PATH_MAX];
	struct stat st;

	if (snprintf(p, sizeof(p), "%s/events", dir) >= (int)sizeof(p))
		return -ENAMETOOLONG;
	if (stat(p, &st) < 0)
		return -errno;
	if (!S_ISDIR(st.st_mode))
		return -ENOTDIR;
	if (access(p, R_OK | X_OK) < 0)
		return -errno;
	return 0;
}

static int tracefs_discover(void)
{
	static const char *const candidates[] = {
		"/sys/kernel/tracing", "/sys/kernel/debug/tracing",
	};
	int err = -ENOENT;

	for (size_t i = 0; i < sizeof(candidates) / sizeof(candidates[0]); i++) {
		struct statfs sf;

		if (statfs(candidates[i], &sf) < 0 || sf.f_type != TRACEFS_MAGIC)
			continue;
		err = tracefs_usable(candidates[i]);
		if (!err) {
			snprintf(tracefs_root_buf, sizeof(tracefs_root_buf), "%s", candidates[i]);
			return 0;
		}
	}
	FILE *f = setmntent("/proc/mounts", "r");
	if (f) {
		struct mntent *m;
		while ((m = getmntent(f))) {
			if (strcmp(m->mnt_type, "tracefs"))
				continue;
			int e = tracefs_usable(m->mnt_dir);
			if (!e) {
				snprintf(tracefs_root_buf, sizeof(tracefs_root_buf), "%s", m->mnt_dir);
				endmntent(f);
				return 0;
			}
			err = e;
		}
		endmntent(f);
	}
	if (err == -EACCES || err == -EPERM)
		return err;
	/* Not mounted anywhere: mount it where the kernel expects it. */
	if (geteuid() != 0)
		return -ENOENT;
	if (mount("nodev", "/sys/kernel/tracing", "tracefs", 0, NULL) < 0) {
		/* Kernels without /sys/kernel/tracing: under debugfs. */
		struct statfs sf;
		if (statfs("/sys/kernel/debug", &sf) == 0 && sf.f_type != DEBUGFS_MAGIC)
			mount("nodev", "/sys/kernel/debug", "debugfs", 0, NULL);
		if (mount("nodev", "/sys/kernel/debug/tracing", "tracefs", 0, NULL) < 0)
			return -ENOENT;
		snprintf(tracefs_root_buf, sizeof(tracefs_root_buf), "/sys/kernel/debug/tracing");
	} else {
		snprintf(tracefs_root_buf, sizeof(tracefs_root_buf), "/sys/kernel/tracing");
	}
	return tracefs_usable(tracefs_root_buf);
}

const char *tracefs__root(void)
{
	if (tracefs_root_cached)
		return tracefs_root_cached;
	if (tracefs_root_err) {
		errno = -tracefs_root_err;
		return NULL;
	}
	int err = tracefs_discover();
	if (err) {
		tracefs_root_err = err;
		errno = -err;
		return NULL;
	}
	tracefs_root_cached = tracefs_root_buf;
	return tracefs_root_cached;
}

int tracefs__strerror(int err, char *buf, size_t len)
{
	if (err < 0)
		err = -err;
	switch (err) {
	case ENOENT:
		if (geteuid() != 0)
			return snprintf(buf, len,
				"tracefs is not mounted and only root can mount it: run as root, or "
				"'mount -t tracefs nodev /sys/kernel/tracing' once as root");
		return snprintf(buf, len,
			"tracefs is not mounted and mounting it on /sys/kernel/tracing failed "
			"(kernel without CONFIG_TRACING/CONFIG_FTRACE?)");
	case EACCES:
	case EPERM:
		return snprintf(buf, len,
			"tracefs is mounted but not accessible to this user (%s): run as root, or "
			"remount it with 'mount -o remount,mode=755 /sys/kernel/tracing' and give the "
			"user read access to events/",
			tracefs_root_cached ? tracefs_root_cached : "/sys/kernel/tracing");
	default:
		return snprintf(buf, len, "tracefs: %s", strerror(err));
	}
}

int tracefs__path(char *buf, size_t len, const char *rel)
{
	const char *root = tracefs__root();
	if (!root)
		return -errno;
	if ((size_t)snprintf(buf, len, "%s/%s", root, rel) >= len)
		return -ENAMETOOLONG;
	return 0;
}

char *tracefs__read_file(const char *rel, size_t *lenp)
{
	char path[PATH_MAX];
	int err = tracefs__path(path, sizeof(path), rel);
	char *buf = NULL;
	size_t len = 0, cap = 0;
	int fd = -1;

	if (err)
		goto err;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		goto err;
	}
	for (;;) {
		if (cap - len < 4096) {
			cap = cap ? cap * 2 : 8192;
			char *n = realloc(buf, cap);
			if (!n) {
				err = -ENOMEM;
				goto err;
			}
			buf = n;
		}
		ssize_t r = read(fd, buf + len, cap - len - 1);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			err = -errno;
			goto err;
		}
		if (r == 0)
			break;
		len += r;
	}
	close(fd);
	buf[len] = 0;
	if (lenp)
		*lenp = len;
	return buf;
err:
	if (fd >= 0)
		close(fd);
	free(buf);
	errno = -err;
	return NULL;
}

int tracefs__write_file(const char *rel, const char *data, int append)
{
	char path[PATH_MAX];
	int err = tracefs__path(path, sizeof(path), rel);
	if (err)
		return err;
	int fd = open(path, O_WRONLY | O_CLOEXEC | (append ? O_APPEND : O_TRUNC));
	if (fd < 0)
		return -errno;
	size_t len = strlen(data);
	ssize_t w = write(fd, data, len);
	err = w < 0 ? -errno : (size_t)w != len ? -EIO : 0;
	close(fd);
	return err;
}

int tracefs__event_id(const char *sys, const char *name)
{
	char rel[PATH_MAX];

	if (strchr(sys, '/') || strchr(name, '/') || !strcmp(sys, "..") || !strcmp(name, ".."))
		return -EINVAL;
	if ((size_t)snprintf(rel, sizeof(rel), "events/%s/%s/id", sys, name) >= sizeof(rel))
		return -ENAMETOOLONG;
	char *s = tracefs__read_file(rel, NULL);
	if (!s)
		return -errno;
	char *end;
	long id = strtol(s, &end, 10);
	int ok = end != s && id > 0 && id <= INT_MAX;
	free(s);
	return ok ? (int)id : -EINVAL;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void tracefs__free_events(char **events, int nr)
{
	if (!events)
		return;
	for (int i = 0; i < nr; i++)
		free(events[i]);
	free(events);
}

int tracefs__list_events(char ***out)
{
	char *text = tracefs__read_file("available_events", NULL);
	char **v = NULL;
	int nr = 0, cap = 0, err;

	*out = NULL;
	if (!text)
		return -errno;
	for (char *line = text, *next; *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = 0;
		else
			next = line + strlen(line);
		if (!*line || !strchr(line, ':'))
			continue;
		if (nr == cap) {
			cap = cap ? cap * 2 : 1024;
			char **n = realloc(v, cap * sizeof(*v));
			if (!n) {
				err = -ENOMEM;
				goto err;
			}
			v = n;
		}
		if (!(v[nr] = strdup(line))) {
			err = -ENOMEM;
			goto err;
		}
		nr++;
	}
	free(text);
	qsort(v, nr, sizeof(*v), cmp_str);
	/* available_events can repeat nothing, but be safe: dedupe. */
	int w = 0;
	for (int i = 0; i < nr; i++) {
		if (w && !strcmp(v[w - 1], v[i])) {
			free(v[i]);
			continue;
		}
		v[w++] = v[i];
	}
	*out = v;
	return w;
err:
	free(text);
	tracefs__free_events(v, nr);
	return err;
}

char *tracefs__error_log(void)
{
	return tracefs__read_file("error_log", NULL);
}

int tracefs__clear_error_log(void)
{
	return tracefs__write_file("error_log", "", 0);
}
