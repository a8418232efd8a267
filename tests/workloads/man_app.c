/* The ./app (also ./server, ./bench) of the man pages' EXAMPLES, which
 * tests/e2e/man_examples.sh runs as written: a server-shaped program with
 * the functions the examples name (handle_request, parse, handle with a
 * request's path and a length), busy and sleeping by turns, on two
 * threads and in a forked child, for SECS seconds (argv[1], default 1). */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct req {
	const char *path;
	int method;
};

static volatile unsigned long sink;
static double secs = 1;

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

__attribute__((noinline)) int parse(const char *line)
{
	int n = 0;
	for (int k = 0; k < 200; k++)
		for (const char *p = line; *p; p++)
			n += *p == '/' ? 3 : 1;
	sink += (unsigned long)n;
	return n;
}

__attribute__((noinline)) int handle(struct req *req, int len)
{
	return parse(req->path) + len * 2 + req->method;
}

__attribute__((noinline)) int handle_request(int i)
{
	static const char *const paths[] = { "/index.html", "/api/v1/users", "/favicon.ico" };
	struct req r = { paths[i % 3], i % 4 };
	return handle(&r, (int)strlen(r.path));
}

static void serve(void)
{
	double end = now() + secs;
	for (int i = 0; now() < end; i++) {
		sink += (unsigned long)handle_request(i);
		if (i % 50 == 0)
			usleep(1000);	/* off CPU by turns */
	}
}

static void *worker(void *arg)
{
	serve();
	return arg;
}

int main(int argc, char **argv)
{
	if (argc > 1)
		secs = atof(argv[1]);
	pthread_t t;
	pthread_create(&t, NULL, worker, NULL);
	pid_t child = fork();
	if (child == 0) {
		serve();
		_exit(0);
	}
	serve();
	pthread_join(t, NULL);
	waitpid(child, NULL, 0);
	printf("served\n");
	return 0;
}
