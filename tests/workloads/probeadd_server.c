/* A small request handler with known arguments, for pprobe --add and
 * temporary probes with arguments (tests/e2e/probe_add*.sh).
 *
 * probeadd_server [N]: handles N requests (default 6). Request i has
 *   path   = PATHS[i % 3]           len    = strlen(path)
 *   method = i % 4                  port   = 8000 + i
 *   id     = 1000 + i               ver    = {1, i % 2}
 * and handle() returns len * 2 + method. The tests compute the same values. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct version {
	int major, minor;
};

struct request {
	const char *path;
	int method;
	unsigned short port;
	long id;
	struct version ver;
};

static const char *const PATHS[] = { "/index.html", "/api/v1/users", "/favicon.ico" };

int served;			/* a global: @served / served */
static volatile long sink;

__attribute__((noinline)) int handle(struct request *req, int len)
{
	served++;
	sink += req->id + len + (long)strlen(req->path) + req->ver.minor;
	return len * 2 + req->method;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 6;
	long total = 0;
	for (int i = 0; i < n; i++) {
		char buf[64];
		snprintf(buf, sizeof(buf), "%s", PATHS[i % 3]);
		struct request r = { buf, i % 4, (unsigned short)(8000 + i), 1000 + i, { 1, i % 2 } };
		total += handle(&r, (int)strlen(buf));
	}
	printf("served %d total %ld\n", served, total);
	return 0;
}
