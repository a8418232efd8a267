/* Workload for the fetch-arg translator (tests/unit/test_probe_args.c):
 * known values passed through a struct pointer (char * member, array,
 * bitfields, nested struct), an int, a long, a double, a global, and a
 * function with stack-passed parameters. Built at -O0 and -O2. The test
 * computes the same values (keep the formulas in sync) and reads them back
 * through real uprobes. "PROBE_LINE" marks the line the test probes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct inner {
	long a;
	short b;
};

struct req {
	const char *path;
	int len;
	int codes[4];
	unsigned int kind : 3;
	unsigned int urgent : 1;
	unsigned int prio : 5;
	struct inner in;
	struct req *next;
	char tag[8];
};

int pa_global = 1234;
const char *pa_name = "global-name";
char pa_number[] = "12345";
long pa_counter;
volatile long pa_sink;

__attribute__((noinline)) int handle(struct req *req, int n, long scale, double ratio)
{
	const int limit = 100;
	int sum = 0;

	for (int i = 0; i < 4 && i < limit; i++)
		sum += req->codes[i];
	int total = sum * n + req->len + (int)req->kind + (int)req->prio + (int)req->urgent; /* PROBE_LINE */
	pa_counter += scale;
	pa_sink = (long)strlen(req->path) + req->in.a + req->in.b + req->tag[0] + (req->next ? 1 : 0) +
		  (long)(ratio * 2);
	return total + (int)scale;
}

__attribute__((noinline)) long many(int a1, int a2, int a3, int a4, int a5, int a6, int a7, long a8)
{
	return a1 + 2L * a2 + 3L * a3 + 4L * a4 + 5L * a5 + 6L * a6 + 7L * a7 + 8 * a8;
}

/* A struct passed by value: in two registers (%rdi, %rsi) by the ABI */
__attribute__((noinline)) long take_inner(struct inner in, int k)
{
	return in.a * k + in.b;
}

/* Inlined at span's first instructions: span's entry lies inside it */
static inline int first_code(const struct req *r)
{
	return r->codes[0] * 3;
}

__attribute__((noinline)) int span(struct req *req)
{
	return first_code(req) + req->len;
}

/* A variable-length array: its address is stored in a slot (-O0) */
__attribute__((noinline)) int vla_sum(int n)
{
	int a[n];

	for (int i = 0; i < n; i++)
		a[i] = i * 7 + n;
	pa_sink = n; /* VLA_LINE */
	int s = 0;
	for (int i = 0; i < n; i++)
		s += a[i];
	return s;
}

/* Structs returned in %rax:%rdx and in memory (%rax has its address) */
struct pair {
	long q;
	long r;
};

__attribute__((noinline)) struct pair divmod(long a, long b)
{
	struct pair p = { a / b, a % b };
	return p;
}

struct big {
	long v[5];
};

__attribute__((noinline)) struct big mkbig(long x)
{
	struct big b;
	for (int i = 0; i < 5; i++)
		b.v[i] = x * (i + 1);
	return b;
}

int main(void)
{
	static const char *const paths[3] = { "/index.html", "/a/b/c", "/x" };
	struct req r[3];
	long acc = 0;

	memset(r, 0, sizeof(r));
	for (int i = 0; i < 3; i++) {
		r[i].path = paths[i];
		r[i].len = 11 + i;
		r[i].codes[0] = 10 + i;
		r[i].codes[1] = 20;
		r[i].codes[2] = 30 + i;
		r[i].codes[3] = -40;
		r[i].kind = 5;
		r[i].urgent = i & 1;
		r[i].prio = 17 + i;
		r[i].in.a = -5000000000L - i;
		r[i].in.b = -7;
		r[i].next = i ? &r[i - 1] : NULL;
		snprintf(r[i].tag, sizeof(r[i].tag), "tag%d", i);
		int ret = handle(&r[i], i + 3, 1000L * (i + 1), 0.5 * i);
		printf("handle %d -> %d\n", i, ret);
		acc += many(i, 2, 3, 4, 5, 6, 70 + i, 8000000000L + i);
		acc += take_inner(r[i].in, i + 2) + span(&r[i]) + vla_sum(5 + i);
		struct pair dm = divmod(100 + i, 7);
		struct big bg = mkbig(3 + i);
		acc += dm.q * 1000 + dm.r + bg.v[4];
	}
	printf("many sum %ld\n", acc);
	/* libc's strtol, probed by the test through libc6-dbg's DWARF */
	char *end;
	printf("strtol %ld\n", strtol(pa_number, &end, 13));
	return 0;
}
