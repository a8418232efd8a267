/* pprobe/safe_open.h: files a traced program controls are opened without
 * blocking (a FIFO), without following a link where the name is ours,
 * regular, of an allowed owner, under a size cap; refusals listed once each;
 * a container's paths resolved inside its root. On the real filesystem. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pprobe/safe_open.h"

#include "check.h"

static char dir[64];

static const char *at(const char *name)
{
	static char buf[4][128];
	static int k;
	k = (k + 1) % 4;
	snprintf(buf[k], sizeof(buf[k]), "%s/%s", dir, name);
	return buf[k];
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

struct seen {
	int n;
	char why[8][160];
	char path[8][128];
};

static void collect(void *arg, const char *path, const char *why)
{
	struct seen *s = arg;
	if (s->n < 8) {
		snprintf(s->path[s->n], sizeof(s->path[0]), "%s", path);
		snprintf(s->why[s->n], sizeof(s->why[0]), "%s", why);
	}
	s->n++;
}

int main(void)
{
	struct stat st;
	int fd;

	snprintf(dir, sizeof(dir), "/tmp/pprobe-safe-open.XXXXXX");
	if (!mkdtemp(dir))
		return check_skip("no temporary directory: %s", strerror(errno));
	alarm(20);	/* a blocking open would hang the test: fail it instead */
	safe_open__reset();

	/* a regular file opens, with its stat, and blocks nothing after */
	write_file(at("map"), "1000 10 f\n");
	fd = safe_open(at("map"), NULL, &st);
	CHECK(fd >= 0 && S_ISREG(st.st_mode) && st.st_size == 10, "regular file: fd %d size %lld", fd,
	      (long long)st.st_size);
	if (fd >= 0) {
		CHECK(!(fcntl(fd, F_GETFL) & O_NONBLOCK), "O_NONBLOCK cleared on a regular file");
		CHECK(fcntl(fd, F_GETFD) & FD_CLOEXEC, "close-on-exec");
		close(fd);
	}
	CHECK_EQ_INT(safe_open(at("missing"), NULL, NULL), -ENOENT);

	/* a FIFO nobody writes: refused at once, not waited on */
	CHECK(mkfifo(at("fifo"), 0644) == 0, "mkfifo: %s", strerror(errno));
	CHECK_EQ_INT(safe_open(at("fifo"), NULL, NULL), -EPERM);
	/* a directory */
	CHECK_EQ_INT(safe_open(dir, NULL, NULL), -EPERM);

	/* a link: followed by default (the target's own path), refused where the
	 * last name is ours to choose */
	CHECK(symlink(at("map"), at("link")) == 0, "symlink: %s", strerror(errno));
	fd = safe_open(at("link"), NULL, NULL);
	CHECK(fd >= 0, "link followed by default");
	if (fd >= 0)
		close(fd);
	struct safe_open_rules nofollow = { .nofollow = true, .root_fd = -1 };
	CHECK_EQ_INT(safe_open(at("link"), &nofollow, NULL), -EPERM);

	/* owners: the file's must be one of the list */
	struct safe_open_rules owners = { .root_fd = -1, .nr_owners = 1, .owners = { 12345 } };
	CHECK_EQ_INT(safe_open(at("map"), &owners, NULL), -EPERM);
	owners.owners[owners.nr_owners++] = geteuid();
	fd = safe_open(at("map"), &owners, NULL);
	CHECK(fd >= 0, "owned by one of the list: %d", fd);
	if (fd >= 0)
		close(fd);

	/* size cap */
	write_file(at("big"), "0123456789abcdef");
	struct safe_open_rules small = { .root_fd = -1, .max_size = 15 };
	CHECK_EQ_INT(safe_open(at("big"), &small, NULL), -EPERM);
	small.max_size = 16;
	fd = safe_open(at("big"), &small, NULL);
	CHECK(fd >= 0, "at the cap: opened");
	if (fd >= 0)
		close(fd);

	/* inside a root: an absolute link resolves in it, not on the host */
	mkdir(at("root"), 0755);
	mkdir(at("root/tmp"), 0755);
	mkdir(at("root/etc"), 0755);
	write_file(at("root/etc/hostname"), "container\n");
	CHECK(symlink("/etc/hostname", at("root/tmp/perf-1.map")) == 0, "symlink: %s", strerror(errno));
	int root = open(at("root"), O_PATH | O_DIRECTORY | O_CLOEXEC);
	struct safe_open_rules in_root = { .root_fd = root };
	fd = safe_open("/tmp/perf-1.map", &in_root, &st);
	CHECK(fd >= 0 && st.st_size == 10, "in-root link resolved in the root (size %lld, host's differs)",
	      (long long)st.st_size);
	if (fd >= 0)
		close(fd);
	in_root.nofollow = true;
	in_root.name = "/proc/1/root/tmp/perf-1.map";
	CHECK_EQ_INT(safe_open("/tmp/perf-1.map", &in_root, NULL), -EPERM);
	close(root);

	/* each refusal listed once, with its reason, under the name given */
	CHECK_EQ_INT(safe_open(at("fifo"), NULL, NULL), -EPERM);	/* again: not listed twice */
	struct seen s = { 0 };
	size_t dropped = 9;
	size_t n = safe_open__refusals(collect, &s, &dropped);
	CHECK(n == 6 && s.n == 6 && dropped == 0, "refusals: %zu listed, %d seen, %zu dropped", n, s.n, dropped);
	CHECK(!strcmp(s.path[0], at("fifo")) && !strcmp(s.why[0], "a FIFO"), "first: %s: %s", s.path[0], s.why[0]);
	CHECK(!strcmp(s.why[1], "a directory"), "second: %s", s.why[1]);
	CHECK(!strcmp(s.why[2], "a symbolic link"), "third: %s", s.why[2]);
	CHECK(strstr(s.why[3], "owned by uid") != NULL, "fourth: %s", s.why[3]);
	CHECK(strstr(s.why[4], "over the cap of 15") != NULL, "fifth: %s", s.why[4]);
	CHECK(!strcmp(s.path[5], "/proc/1/root/tmp/perf-1.map"), "sixth named as given: %s", s.path[5]);
	safe_open__reset();
	CHECK_EQ_INT((int)safe_open__refusals(NULL, NULL, NULL), 0);

	/* the decompression cap: 1 GiB, or 16 times a bigger file */
	CHECK_EQ_U64(elf_file__decompressed_cap(4096), 1ULL << 30);
	CHECK_EQ_U64(elf_file__decompressed_cap(1ULL << 30), 16ULL << 30);

	unlink(at("root/tmp/perf-1.map"));
	unlink(at("root/etc/hostname"));
	rmdir(at("root/tmp"));
	rmdir(at("root/etc"));
	rmdir(at("root"));
	unlink(at("link"));
	unlink(at("fifo"));
	unlink(at("map"));
	unlink(at("big"));
	rmdir(dir);
	return check_summary();
}
