/* tracefs through libtracefs: where it is (and mounting it), its files,
 * error_log; the event list and whole-file reads by hand (see below). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <tracefs/tracefs.h>

#include "tracefs.h"
#include "util.h"

static char tracefs_root_buf[PATH_MAX];
static const char *tracefs_root_cached;
static int tracefs_root_err;

void tracefs__set_root(const char *root)
{
	/* libtracefs's files (instances, dynamic events, error_log) follow */
	tracefs_set_tracing_dir((char *)root);
	if (root) {
		snprintf(tracefs_root_buf, sizeof(tracefs_root_buf), "%s", root);
		tracefs_root_cached = tracefs_root_buf;
	} else {
		tracefs_root_cached = NULL;
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

const char *tracefs__root(void)
{
	if (tracefs_root_cached)
		return tracefs_root_cached;
	if (tracefs_root_err) {
		errno = -tracefs_root_err;
		return NULL;
	}
	/* libtracefs: the tracefs in /proc/mounts; if none, as root, mounted on
	 * /sys/kernel/tracing (or debugfs and its tracing/ on old kernels) */
	const char *dir = tracefs_tracing_dir();
	int err = dir ? tracefs_usable(dir) : -ENOENT;
	if (err && err != -EACCES && err != -EPERM)
		err = -ENOENT;	/* not mounted (and not mountable by us) */
	if (err) {
		tracefs_root_err = err;
		if (dir)
			snprintf(tracefs_root_buf, sizeof(tracefs_root_buf), "%s", dir);
		errno = -err;
		return NULL;
	}
	snprintf(tracefs_root_buf, sizeof(tracefs_root_buf), "%s", dir);
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
			"user read access to events/ (tracepoint samples also need "
			"kernel.perf_event_paranoid -1 or CAP_PERFMON)",
			tracefs_root_buf[0] ? tracefs_root_buf : "/sys/kernel/tracing");
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

/* By hand: libtracefs 1.6.4's tracefs_instance_file_read() returns NULL for
 * an empty file (uprobe_events without probes) and a failed read() as a
 * short read, both of which pprobe must tell from an error. */
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
	if (!tracefs__root())
		return -errno;
	errno = 0;
	int w = append ? tracefs_instance_file_append(NULL, rel, data) : tracefs_instance_file_write(NULL, rel, data);
	if (w < 0)
		return errno ? -errno : -EIO;
	return (size_t)w == strlen(data) ? 0 : -EIO;
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

void tracefs__free_events(char **events, int nr)
{
	if (!events)
		return;
	for (int i = 0; i < nr; i++)
		free(events[i]);
	free(events);
}

/* available_events, read once: libtracefs lists events by walking every
 * events/SYS/ directory (tracefs_event_systems, tracefs_system_events). */
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
	/* available_events can repeat nothing, but be safe: dedupe. */
	*out = v;
	return strv__sort_unique(v, (int)nr);
err:
	free(text);
	tracefs__free_events(v, nr);
	return err;
}

char *tracefs__error_log(void)
{
	if (!tracefs__root())
		return NULL;
	char path[PATH_MAX];
	if (tracefs__path(path, sizeof(path), "error_log") == 0 && access(path, F_OK)) {
		errno = ENOENT;	/* a kernel before 5.4 */
		return NULL;
	}
	char *log = tracefs_error_all(NULL);	/* NULL with errno 0: empty */
	if (!log && !errno)
		log = strdup("");
	return log;
}

char *tracefs__error_last(void)
{
	if (!tracefs__root())
		return NULL;
	return tracefs_error_last(NULL);
}

int tracefs__clear_error_log(void)
{
	if (!tracefs__root())
		return -errno;
	return tracefs_error_clear(NULL) ? (errno ? -errno : -EIO) : 0;
}
