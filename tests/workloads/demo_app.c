/* The demo workload: a toy "server" with a visible shape. It parses requests
 * (string work), compresses responses (arithmetic), computes a checksum, and
 * writes logs (syscalls), in roughly 40/30/15/15 proportions. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static volatile double fsink;
static volatile unsigned long usink;

__attribute__((noinline)) static int tokenize(char *buf)
{
	int n = 0;
	for (char *p = strtok(buf, " &="); p; p = strtok(NULL, " &="))
		n += (int)strlen(p);
	return n;
}

__attribute__((noinline)) static void parse_request(int i)
{
	char buf[512];
	for (int k = 0; k < 40; k++) {
		snprintf(buf, sizeof(buf), "GET /item?id=%d&user=%d&session=%x HTTP/1.1", i, k, i * k);
		usink += (unsigned long)tokenize(buf);
	}
}

__attribute__((noinline)) static void compress_block(int i)
{
	double acc = 0;
	for (int k = 1; k < 6000; k++)
		acc += sin(k * 0.001 + i) * cos(k * 0.002);
	fsink += acc;
}

__attribute__((noinline)) static unsigned long checksum(const unsigned char *p, size_t n)
{
	unsigned long h = 5381;
	for (size_t k = 0; k < n; k++)
		h = h * 33 + p[k];
	return h;
}

__attribute__((noinline)) static void write_log(int fd, int i)
{
	char line[64];
	int len = snprintf(line, sizeof(line), "request %d done\n", i);
	for (int k = 0; k < 30; k++)
		if (write(fd, line, (size_t)len) < 0)
			break;
}

__attribute__((noinline)) static void handle_request(int fd, int i, unsigned char *blob, size_t n)
{
	parse_request(i);
	compress_block(i);
	usink += checksum(blob, n);
	write_log(fd, i);
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 2.0;
	int fd = open("/dev/null", O_WRONLY);
	size_t n = 24 * 1024;
	unsigned char *blob = malloc(n);
	for (size_t k = 0; k < n; k++)
		blob[k] = (unsigned char)(k * 7);
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	double end = ts.tv_sec + ts.tv_nsec / 1e9 + secs;
	int i = 0;
	for (;;) {
		handle_request(fd, i++, blob, n);
		clock_gettime(CLOCK_MONOTONIC, &ts);
		if (ts.tv_sec + ts.tv_nsec / 1e9 >= end)
			break;
	}
	printf("demo: handled %d requests\n", i);
	free(blob);
	close(fd);
	return 0;
}
