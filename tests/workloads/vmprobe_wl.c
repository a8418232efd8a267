/* Exact kernel work for the kprobe tests in the VM (tests/vm/probe_*.sh).
 * Usage: vmprobe_wl [-w] open N M PATH
 *          N open(PATH, O_RDONLY) that succeed (each closed), then M opens of
 *          PATH.missing that fail with ENOENT: exactly N + M do_sys_openat2 calls
 *        vmprobe_wl [-w] tcp N SIZE
 *          connects to itself over 127.0.0.1 and sends exactly N messages of
 *          SIZE bytes with send(2), each read back by the listening side before
 *          the next: exactly N tcp_sendmsg calls (no other sends)
 *        vmprobe_wl [-w] threads T N PATH
 *          starts T threads (pthread_create checked), all alive together, each
 *          opening PATH N times; exits 7 when every thread and open succeeded
 *        vmprobe_wl [-w] fork C N PATH
 *          forks C children (fork checked), each opening PATH N times; reaps
 *          them and exits 7 when every fork, child and open succeeded
 *   -w: first wait until one byte (or EOF) arrives on stdin, so that a tracer
 *       can attach to the pid (-p) before the work starts.
 * Linked statically: nothing is opened before main. Prints what it did to
 * stdout after the work (stdout is written once, at the end). */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))

static void die(const char *what)
{
	fprintf(stderr, "vmprobe_wl: %s: %s\n", what, strerror(errno));
	exit(1);
}

static NOINLINE long open_missing(const char *path)
{
	int fd = open(path, O_RDONLY);
	if (fd >= 0) {
		close(fd);
		return 0;
	}
	return errno == ENOENT;
}

static NOINLINE long open_once(const char *path)
{
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		return 0;
	close(fd);
	return 1;
}

static NOINLINE int do_opens(long n, long m, const char *path)
{
	/* Small: a frame bigger than record -g's 4 KB stack copy would end the
	 * user stacks of samples taken below it in [truncated]. */
	char missing[512];
	long ok = 0, enoent = 0;
	snprintf(missing, sizeof(missing), "%s.missing", path);
	for (long i = 0; i < n; i++)
		ok += open_once(path);
	for (long i = 0; i < m; i++)
		enoent += open_missing(missing);
	printf("opened %s %ld times, %s failed with ENOENT %ld times\n", path, ok, missing, enoent);
	return ok == n && enoent == m ? 0 : 1;
}

struct opener {
	pthread_t t;
	long n, ok;
	const char *path;
};

static pthread_barrier_t all_started;

static void *open_thread(void *arg)
{
	struct opener *o = arg;
	/* All T threads exist at once: T distinct tids. */
	pthread_barrier_wait(&all_started);
	for (long i = 0; i < o->n; i++)
		o->ok += open_once(o->path);
	return NULL;
}

static NOINLINE int thread_opens(long t, long n, const char *path)
{
	struct opener *o = calloc(t, sizeof(*o));
	long ok = 0;
	int err;
	if (!o || t <= 0 || pthread_barrier_init(&all_started, NULL, t))
		die("threads");
	for (long i = 0; i < t; i++) {
		o[i].n = n;
		o[i].path = path;
		if ((err = pthread_create(&o[i].t, NULL, open_thread, &o[i]))) {
			errno = err;
			die("pthread_create");
		}
	}
	for (long i = 0; i < t; i++) {
		if ((err = pthread_join(o[i].t, NULL))) {
			errno = err;
			die("pthread_join");
		}
		ok += o[i].ok;
	}
	free(o);
	printf("%ld threads opened %s %ld times\n", t, path, ok);
	return ok == t * n ? 7 : 1;
}

static NOINLINE int fork_opens(long c, long n, const char *path)
{
	long ok = 0;
	for (long i = 0; i < c; i++) {
		pid_t p = fork();
		if (p < 0)
			die("fork");
		if (p == 0) {
			long k = 0;
			for (long j = 0; j < n; j++)
				k += open_once(path);
			_exit(k == n ? 0 : 1);
		}
	}
	for (long i = 0; i < c; i++) {
		int st;
		if (wait(&st) < 0)
			die("wait");
		ok += WIFEXITED(st) && WEXITSTATUS(st) == 0;
	}
	printf("%ld children of %ld opened %s %ld times each\n", ok, c, path, n);
	return ok == c ? 7 : 1;
}

static NOINLINE void send_message(int fd, const char *buf, size_t size)
{
	ssize_t w = send(fd, buf, size, MSG_NOSIGNAL);
	if (w != (ssize_t)size)
		die("send");
}

static NOINLINE void recv_message(int fd, char *buf, size_t size)
{
	size_t got = 0;
	while (got < size) {
		ssize_t r = recv(fd, buf + got, size - got, 0);
		if (r <= 0) {
			errno = r ? errno : EPIPE;
			die("recv");
		}
		got += r;
	}
}

static NOINLINE int send_messages(long n, size_t size)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t alen = sizeof(a);
	char *buf = calloc(1, size), *in = malloc(size);
	int one = 1;
	int l = socket(AF_INET, SOCK_STREAM, 0), c, s;
	if (!buf || !in || l < 0)
		die("socket");
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(l, (struct sockaddr *)&a, sizeof(a)) || listen(l, 1) ||
	    getsockname(l, (struct sockaddr *)&a, &alen))
		die("listen on 127.0.0.1");
	c = socket(AF_INET, SOCK_STREAM, 0);
	if (c < 0 || connect(c, (struct sockaddr *)&a, sizeof(a)))
		die("connect to 127.0.0.1");
	s = accept(l, NULL, NULL);
	if (s < 0)
		die("accept");
	setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	for (long i = 0; i < n; i++) {
		memset(buf, 'a' + i % 26, size);
		send_message(c, buf, size);
		recv_message(s, in, size);
		if (memcmp(buf, in, size)) {
			fprintf(stderr, "vmprobe_wl: message %ld garbled\n", i);
			return 1;
		}
	}
	close(c);
	close(s);
	close(l);
	free(buf);
	free(in);
	printf("sent %ld messages of %zu bytes to 127.0.0.1:%d\n", n, size, ntohs(a.sin_port));
	return 0;
}

int main(int argc, char **argv)
{
	int i = 1;
	if (i < argc && !strcmp(argv[i], "-w")) {
		char b;
		i++;
		while (read(0, &b, 1) < 0 && errno == EINTR)
			;
	}
	int rc = 2;
	if (argc - i == 4 && !strcmp(argv[i], "open"))
		rc = do_opens(atol(argv[i + 1]), atol(argv[i + 2]), argv[i + 3]);
	else if (argc - i == 3 && !strcmp(argv[i], "tcp") && atol(argv[i + 2]) > 0)
		rc = send_messages(atol(argv[i + 1]), atol(argv[i + 2]));
	else if (argc - i == 4 && !strcmp(argv[i], "threads"))
		rc = thread_opens(atol(argv[i + 1]), atol(argv[i + 2]), argv[i + 3]);
	else if (argc - i == 4 && !strcmp(argv[i], "fork"))
		rc = fork_opens(atol(argv[i + 1]), atol(argv[i + 2]), argv[i + 3]);
	else
		fprintf(stderr, "usage: vmprobe_wl [-w] open N M PATH | tcp N SIZE | threads T N PATH | fork C N PATH\n");
	/* Not a tail call: main stays on the stack under the work. */
	fflush(stdout);
	return rc;
}
