/* pprof__read: profiles encoded here with protobuf-c (gzip'd and raw), and
 * malformed ones (truncated gzip, ids and string indexes that point nowhere,
 * value counts that do not match): every one an error, never a crash.
 * And the round trip: a stack table of this process's own frames (a function
 * with one inlined into it, libc, the kernel's) symbolized for real, encoded
 * by pprof__encode and read back by pprof__read, stack by stack. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "check.h"
#include "pprof.h"
#include "pprobe/maps.h"
#include "pprobe/symbolize.h"
#include "profile.pb-c.h"

typedef Perftools__Profiles__Profile Profile;

/* A small profile: main (a.out) calls work into which helper is inlined,
 * and a kernel frame at the leaf of one sample. */
enum { S_EMPTY, S_CPU, S_NS, S_SAMPLES, S_COUNT, S_MAIN, S_WORK, S_HELPER, S_ZWORK, S_AOUT, S_KERN,
       S_SYSCALL, S_PID, S_TID, S_COMM, S_APP, S_BUILDID, S_NR };
static char *strings[S_NR] = { "", "cpu", "nanoseconds", "samples", "count", "main", "work", "helper",
			       "_Z4workv", "/usr/bin/a.out", "[kernel.kallsyms]", "do_syscall_64", "pid",
			       "tid", "comm", "app", "abcdef01" };

struct fixture {
	Perftools__Profiles__ValueType vt[2], *vtp[2];
	Perftools__Profiles__Mapping map[2], *mapp[2];
	Perftools__Profiles__Function fn[4], *fnp[4];
	Perftools__Profiles__Line line[4], *linep[4];
	Perftools__Profiles__Location loc[3], *locp[3];
	Perftools__Profiles__Label lab[3], *labp[3];
	Perftools__Profiles__Sample smp[2], *smpp[2];
	uint64_t ids0[2], ids1[3];
	int64_t val0[2], val1[2];
	Profile p;
};

static void fixture_init(struct fixture *f)
{
	memset(f, 0, sizeof(*f));
	Profile p = PERFTOOLS__PROFILES__PROFILE__INIT;
	f->p = p;
	for (int i = 0; i < 2; i++) {
		Perftools__Profiles__ValueType vt = PERFTOOLS__PROFILES__VALUE_TYPE__INIT;
		f->vt[i] = vt;
		f->vtp[i] = &f->vt[i];
	}
	f->vt[0].type = S_SAMPLES, f->vt[0].unit = S_COUNT;
	f->vt[1].type = S_CPU, f->vt[1].unit = S_NS;
	for (int i = 0; i < 2; i++) {
		Perftools__Profiles__Mapping m = PERFTOOLS__PROFILES__MAPPING__INIT;
		f->map[i] = m;
		f->mapp[i] = &f->map[i];
	}
	f->map[0].id = 1, f->map[0].memory_start = 0x400000, f->map[0].memory_limit = 0x500000;
	f->map[0].filename = S_AOUT, f->map[0].build_id = S_BUILDID;
	f->map[1].id = 2, f->map[1].memory_start = 0xffffffff81000000ULL;
	f->map[1].memory_limit = 0xffffffff82000000ULL, f->map[1].filename = S_KERN;
	int names[4] = { S_MAIN, S_WORK, S_HELPER, S_SYSCALL };
	for (int i = 0; i < 4; i++) {
		Perftools__Profiles__Function fn = PERFTOOLS__PROFILES__FUNCTION__INIT;
		f->fn[i] = fn;
		f->fn[i].id = 10 + (uint64_t)i;
		f->fn[i].name = names[i];
		f->fnp[i] = &f->fn[i];
		Perftools__Profiles__Line l = PERFTOOLS__PROFILES__LINE__INIT;
		f->line[i] = l;
		f->line[i].function_id = 10 + (uint64_t)i;
		f->linep[i] = &f->line[i];
	}
	f->fn[1].system_name = S_ZWORK;
	for (int i = 0; i < 3; i++) {
		Perftools__Profiles__Location l = PERFTOOLS__PROFILES__LOCATION__INIT;
		f->loc[i] = l;
		f->loc[i].id = 100 + (uint64_t)i;
		f->locp[i] = &f->loc[i];
	}
	/* 100: main; 101: helper inlined into work (line[0] the callee); 102: kernel */
	f->loc[0].mapping_id = 1, f->loc[0].address = 0x401000, f->loc[0].n_line = 1, f->loc[0].line = &f->linep[0];
	f->loc[1].mapping_id = 1, f->loc[1].address = 0x402000, f->loc[1].n_line = 2, f->loc[1].line = &f->linep[1];
	/* lines [1] = work, [2] = helper: helper must come first */
	f->linep[1] = &f->line[2];
	f->linep[2] = &f->line[1];
	f->loc[2].mapping_id = 2, f->loc[2].address = 0xffffffff81001000ULL, f->loc[2].n_line = 1;
	f->loc[2].line = &f->linep[3];
	for (int i = 0; i < 3; i++) {
		Perftools__Profiles__Label l = PERFTOOLS__PROFILES__LABEL__INIT;
		f->lab[i] = l;
		f->labp[i] = &f->lab[i];
	}
	f->lab[0].key = S_PID, f->lab[0].num = 42;
	f->lab[1].key = S_TID, f->lab[1].num = 43;
	f->lab[2].key = S_COMM, f->lab[2].str = S_APP;
	for (int i = 0; i < 2; i++) {
		Perftools__Profiles__Sample s = PERFTOOLS__PROFILES__SAMPLE__INIT;
		f->smp[i] = s;
		f->smpp[i] = &f->smp[i];
	}
	f->ids0[0] = 101, f->ids0[1] = 100;		/* leaf first */
	f->ids1[0] = 102, f->ids1[1] = 101, f->ids1[2] = 100;
	f->val0[0] = 3, f->val0[1] = 3000;
	f->val1[0] = 1, f->val1[1] = 1000;
	f->smp[0].n_location_id = 2, f->smp[0].location_id = f->ids0;
	f->smp[0].n_value = 2, f->smp[0].value = f->val0;
	f->smp[0].n_label = 3, f->smp[0].label = f->labp;
	f->smp[1].n_location_id = 3, f->smp[1].location_id = f->ids1;
	f->smp[1].n_value = 2, f->smp[1].value = f->val1;
	f->p.n_sample_type = 2, f->p.sample_type = f->vtp;
	f->p.n_sample = 2, f->p.sample = f->smpp;
	f->p.n_mapping = 2, f->p.mapping = f->mapp;
	f->p.n_location = 3, f->p.location = f->locp;
	f->p.n_function = 4, f->p.function = f->fnp;
	f->p.n_string_table = S_NR, f->p.string_table = strings;
	f->p.default_sample_type = S_CPU;
}

static uint8_t *pack(const Profile *p, size_t *len)
{
	*len = perftools__profiles__profile__get_packed_size(p);
	uint8_t *b = malloc(*len + 1);
	perftools__profiles__profile__pack(p, b);
	return b;
}

static uint8_t *gzip(const uint8_t *in, size_t len, size_t *out_len)
{
	z_stream zs;
	memset(&zs, 0, sizeof(zs));
	if (deflateInit2(&zs, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return NULL;
	size_t cap = deflateBound(&zs, len) + 64;
	uint8_t *o = malloc(cap);
	zs.next_in = (Bytef *)in, zs.avail_in = (uInt)len;
	zs.next_out = o, zs.avail_out = (uInt)cap;
	int r = deflate(&zs, Z_FINISH);
	*out_len = cap - zs.avail_out;
	deflateEnd(&zs);
	if (r != Z_STREAM_END) {
		free(o);
		return NULL;
	}
	return o;
}

static uint8_t *gunzip(const uint8_t *in, size_t len, size_t *out_len)
{
	z_stream zs;
	memset(&zs, 0, sizeof(zs));
	if (inflateInit2(&zs, 15 + 32) != Z_OK)
		return NULL;
	size_t cap = 1 << 20;
	uint8_t *o = malloc(cap);
	zs.next_in = (Bytef *)in, zs.avail_in = (uInt)len;
	zs.next_out = o, zs.avail_out = (uInt)cap;
	int r = inflate(&zs, Z_FINISH);
	*out_len = cap - zs.avail_out;
	inflateEnd(&zs);
	if (r != Z_STREAM_END) {
		free(o);
		return NULL;
	}
	return o;
}

struct got {
	int n;
	char text[2][256];	/* "comm pid tid weight: frame;frame..." with flags */
};

static int collect(void *ctx, const struct psample *s)
{
	struct got *g = ctx;
	if (g->n >= 2)
		return -ERANGE;
	char *t = g->text[g->n++];
	size_t len = (size_t)snprintf(t, 256, "%s %lld %lld %g:", s->comm ? s->comm : "-", (long long)s->pid,
				      (long long)s->tid, s->weight);
	for (size_t i = 0; i < s->nr && len < 256; i++)
		len += (size_t)snprintf(t + len, 256 - len, "%s%s%s%s(%s)", i ? ";" : "", s->frames[i].name,
					s->frames[i].kernel ? "_[k]" : "", s->frames[i].inlined ? "_[i]" : "",
					s->frames[i].dso ? s->frames[i].dso : "-");
	return 0;
}

static int read_profile(const Profile *p, bool gz, struct got *g, struct profile_info *info, char *err,
			size_t errlen)
{
	size_t len, zlen;
	uint8_t *raw = pack(p, &len);
	uint8_t *z = gz ? gzip(raw, len, &zlen) : NULL;
	memset(g, 0, sizeof(*g));
	int r = pprof__read(gz ? z : raw, gz ? zlen : len, collect, g, info, err, errlen);
	free(raw);
	free(z);
	return r;
}

static void test_good(bool gz)
{
	struct fixture f;
	struct got g;
	struct profile_info info;
	char err[256] = "";
	fixture_init(&f);
	int r = read_profile(&f.p, gz, &g, &info, err, sizeof(err));
	if (!CHECK(r == 0, "read failed: %d %s", r, err))
		return;
	CHECK_EQ_INT(info.format, PROFILE_PPROF);
	CHECK_STREQ(info.sample_type, "cpu");
	CHECK_STREQ(info.sample_unit, "nanoseconds");
	CHECK_EQ_INT(g.n, 2);
	CHECK_STREQ(g.text[0], "app 42 43 3000:main(a.out);work(a.out);helper_[i](a.out)");
	CHECK_STREQ(g.text[1], "- -1 -1 1000:main(a.out);work(a.out);helper_[i](a.out);"
		    "do_syscall_64_[k]([kernel.kallsyms])");
}

/* Each frame keeps its location's address and mapping (pprobe annotate);
 * a location's inline frames share them. */
struct got_addrs {
	int n;
	uint64_t addr[2][4];
	struct pmapping map[2][4];
	char file[2][4][32], bid[2][4][32];
	size_t nr[2];
};

static int collect_addrs(void *ctx, const struct psample *s)
{
	struct got_addrs *g = ctx;
	if (g->n >= 2 || s->nr > 4)
		return -ERANGE;
	g->nr[g->n] = s->nr;
	for (size_t i = 0; i < s->nr; i++) {
		g->addr[g->n][i] = s->frames[i].addr;
		if (s->frames[i].map) {
			g->map[g->n][i] = *s->frames[i].map;
			snprintf(g->file[g->n][i], 32, "%s", s->frames[i].map->file);
			snprintf(g->bid[g->n][i], 32, "%s", s->frames[i].map->build_id);
		}
	}
	g->n++;
	return 0;
}

static void test_addresses(void)
{
	struct fixture f;
	struct got_addrs g = { 0 };
	struct profile_info info;
	char err[256] = "";
	fixture_init(&f);
	f.map[0].file_offset = 0x1000;
	size_t len;
	uint8_t *raw = pack(&f.p, &len);
	int r = pprof__read(raw, len, collect_addrs, &g, &info, err, sizeof(err));
	free(raw);
	if (!CHECK(r == 0 && g.n == 2 && g.nr[1] == 4, "read: %d %s", r, err))
		return;
	/* sample 1: main, work, helper (inlined into work: one location), the kernel */
	CHECK_EQ_U64(g.addr[1][0], 0x401000);
	CHECK_EQ_U64(g.addr[1][1], 0x402000);
	CHECK_EQ_U64(g.addr[1][2], 0x402000);
	CHECK_EQ_U64(g.addr[1][3], 0xffffffff81001000ULL);
	CHECK_EQ_U64(g.map[1][2].start, 0x400000);
	CHECK_EQ_U64(g.map[1][2].limit, 0x500000);
	CHECK_EQ_U64(g.map[1][2].offset, 0x1000);
	CHECK_STREQ(g.file[1][2], "/usr/bin/a.out");
	CHECK_STREQ(g.bid[1][2], "abcdef01");
	CHECK_STREQ(g.file[1][3], "[kernel.kallsyms]");
	CHECK_STREQ(g.bid[1][3], "");
}

/* Without default_sample_type the last value is the weight (go tool pprof);
 * with one naming the first type, the first. */
static void test_value_choice(void)
{
	struct fixture f;
	struct got g;
	struct profile_info info;
	char err[256] = "";
	fixture_init(&f);
	f.p.default_sample_type = 0;
	CHECK_EQ_INT(read_profile(&f.p, true, &g, &info, err, sizeof(err)), 0);
	CHECK_STREQ(info.sample_type, "cpu");
	CHECK(strstr(g.text[0], " 3000:") != NULL, "last value: %s", g.text[0]);
	f.p.default_sample_type = S_SAMPLES;
	CHECK_EQ_INT(read_profile(&f.p, true, &g, &info, err, sizeof(err)), 0);
	CHECK_STREQ(info.sample_type, "samples");
	CHECK(strstr(g.text[0], " 3:") != NULL, "samples value: %s", g.text[0]);
}

/* Unsymbolized locations read as their object, as folded names them. */
static void test_no_lines(void)
{
	struct fixture f;
	struct got g;
	struct profile_info info;
	char err[256] = "";
	fixture_init(&f);
	f.loc[0].n_line = 0;
	f.loc[1].mapping_id = 0, f.loc[1].n_line = 0;
	CHECK_EQ_INT(read_profile(&f.p, true, &g, &info, err, sizeof(err)), 0);
	CHECK_STREQ(g.text[0], "app 42 43 3000:[a.out](a.out);[unknown](-)");
}

static void expect_error(const Profile *p, const char *what, const char *needle)
{
	struct got g;
	struct profile_info info;
	char err[256] = "";
	int r = read_profile(p, true, &g, &info, err, sizeof(err));
	CHECK(r < 0, "%s: expected an error, got %d", what, r);
	CHECK(strstr(err, needle) != NULL, "%s: error '%s' should say '%s'", what, err, needle);
}

static void test_bad_ids(void)
{
	struct fixture f;
	fixture_init(&f);
	f.ids1[0] = 999;
	expect_error(&f.p, "bad location id", "location 999");
	fixture_init(&f);
	f.line[3].function_id = 77;
	expect_error(&f.p, "bad function id", "function 77");
	fixture_init(&f);
	f.loc[2].mapping_id = 9;
	expect_error(&f.p, "bad mapping id", "mapping 9");
	fixture_init(&f);
	f.fn[0].name = S_NR + 5;
	expect_error(&f.p, "bad string index", "string");
	fixture_init(&f);
	f.lab[2].str = -3;
	expect_error(&f.p, "negative string index", "string -3");
	fixture_init(&f);
	f.p.default_sample_type = 1000;
	expect_error(&f.p, "bad default_sample_type", "default_sample_type");
	fixture_init(&f);
	f.smp[1].n_value = 1;
	expect_error(&f.p, "value count", "values");
	fixture_init(&f);
	f.loc[1].id = 100;
	expect_error(&f.p, "duplicate id", "used twice");
	fixture_init(&f);
	f.fn[2].id = 0;
	expect_error(&f.p, "zero id", "zero");
}

static void test_bad_bytes(void)
{
	struct fixture f;
	struct got g;
	struct profile_info info;
	char err[256];
	fixture_init(&f);
	size_t len, zlen;
	uint8_t *raw = pack(&f.p, &len);
	uint8_t *z = gzip(raw, len, &zlen);
	/* every truncation of the gzip stream (its 2-byte magic kept): an
	 * error, never a crash */
	size_t errors = 0;
	for (size_t cut = 2; cut < zlen; cut++) {
		err[0] = 0;
		int r = pprof__read(z, cut, collect, &g, &info, err, sizeof(err));
		memset(&g, 0, sizeof(g));
		errors += r < 0;
	}
	CHECK_EQ_U64(errors, zlen - 2);
	err[0] = 0;
	CHECK(pprof__read(z, zlen - 10, collect, &g, &info, err, sizeof(err)) < 0 && strstr(err, "gzip"),
	      "truncated gzip says so: %s", err);
	/* every truncation of the raw protobuf: decodes to a prefix or fails */
	for (size_t cut = 0; cut < len; cut++) {
		memset(&g, 0, sizeof(g));
		(void)pprof__read(raw, cut, collect, &g, &info, err, sizeof(err));
	}
	/* flipped bytes in the protobuf: whatever comes out, no crash */
	for (size_t i = 0; i < len; i++) {
		uint8_t save = raw[i];
		raw[i] ^= 0xa5;
		memset(&g, 0, sizeof(g));
		(void)pprof__read(raw, len, collect, &g, &info, err, sizeof(err));
		raw[i] = save;
	}
	const uint8_t junk[] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01 };
	err[0] = 0;
	CHECK(pprof__read(junk, sizeof(junk), collect, &g, &info, err, sizeof(err)) == -EINVAL,
	      "junk is not a profile: %s", err);
	free(raw);
	free(z);
}


/* ---- the round trip ---- */

static volatile uintptr_t rt_ret;

/* Its return address lies in rt_outer, in the code of rt_inlined. */
__attribute__((noinline)) static void rt_capture(void)
{
	rt_ret = (uintptr_t)__builtin_return_address(0);
	__asm__ volatile("" ::: "memory");
}

static inline __attribute__((always_inline)) void rt_inlined(void)
{
	rt_capture();
	__asm__ volatile("" ::: "memory");	/* not a tail call */
}

__attribute__((noinline)) static void rt_outer(void)
{
	rt_inlined();
	__asm__ volatile("" ::: "memory");
}

/* A text symbol of the kernel from /proc/kallsyms; 0 when addresses are hidden. */
static uint64_t kernel_text(const char *want)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	char line[512], name[256], type;
	unsigned long long a;
	uint64_t found = 0;
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx %c %255s", &a, &type, name) == 3 && (type == 't' || type == 'T') &&
		    !strcmp(name, want)) {
			found = a;
			break;
		}
	if (f)
		fclose(f);
	return found;
}

static const char *base_name(const char *path)
{
	const char *b = strrchr(path, '/');
	return b ? b + 1 : path;
}

struct rt_got {
	char *text[16];
	int n;
	bool overflow;
	double samples;		/* psample.samples summed */
};

/* "comm pid tid weight: name(flags,dso);..." outermost first. */
static char *rt_text(const char *comm, long long pid, long long tid, double weight)
{
	char *t = NULL;
	if (asprintf(&t, "%s %lld %lld %.0f:", comm ? comm : "-", pid, tid, weight) < 0)
		abort();
	return t;
}

static char *rt_frame(char *t, const char *name, bool kernel, bool inlined, const char *dso)
{
	char *u = NULL;
	if (asprintf(&u, "%s %s(%s%s,%s)", t, name, kernel ? "k" : "", inlined ? "i" : "", dso ? dso : "-") < 0)
		abort();
	free(t);
	return u;
}

static int rt_collect(void *ctx, const struct psample *s)
{
	struct rt_got *g = ctx;
	if (g->n >= 16) {
		g->overflow = true;
		return 0;
	}
	char *t = rt_text(s->comm, (long long)s->pid, (long long)s->tid, s->weight);
	g->samples += s->samples;
	for (size_t i = 0; i < s->nr; i++)
		t = rt_frame(t, s->frames[i].name, s->frames[i].kernel, s->frames[i].inlined, s->frames[i].dso);
	g->text[g->n++] = t;
	return 0;
}

/* What the reader should give for stack i: the frames as the table has them,
 * outermost first, each physical function before those inlined into it. */
static char *rt_expect(const struct stacktab *st, const struct frametab *ft, size_t i, bool samples,
		       uint64_t period)
{
	struct stack_view sv;
	stacktab__get(st, i, &sv);
	char *t = rt_text(sv.comm ? sv.comm : "[unknown]", sv.pid, sv.tid,
			  samples ? (double)sv.samples : (double)(sv.weight * period));
	for (uint32_t k = sv.nr; k-- > 0;) {
		struct frame_view fv;
		frametab__get(ft, sv.frames[k], &fv);
		const char *dso = fv.kind == FRAME_KERNEL ? "[kernel.kallsyms]" :
				  fv.kind == FRAME_USER && fv.map ? base_name(fv.map->path) : NULL;
		for (uint32_t j = 0; j < fv.nr_syms; j++)
			t = rt_frame(t, fv.syms[j].name ? fv.syms[j].name : fv.labels[j], fv.kind == FRAME_KERNEL,
				     fv.syms[j].inlined, dso);
	}
	return t;
}

static int str_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void rt_compare(const struct stacktab *st, const struct frametab *ft, const struct pprof_opts *o,
		       bool samples, const char *what)
{
	uint8_t *buf = NULL;
	size_t len = 0;
	struct rt_got g = { 0 };
	struct profile_info info;
	char err[256] = "";
	int r = pprof__encode(st, ft, o, &buf, &len);
	if (!CHECK(r == 0, "%s: pprof__encode: %d", what, r))
		return;
	r = pprof__read(buf, len, rt_collect, &g, &info, err, sizeof(err));
	CHECK(r == 0, "%s: pprof__read: %d %s", what, r, err);
	CHECK(!g.overflow, "%s: more samples than stacks", what);
	CHECK_STREQ(info.sample_type, samples ? "samples" : "cpu");
	CHECK_STREQ(info.sample_unit, samples ? "count" : "nanoseconds");
	size_t n = stacktab__count(st);
	CHECK_EQ_U64((uint64_t)g.n, n);
	uint64_t adds = 0;
	for (size_t i = 0; i < n; i++) {
		struct stack_view sv;
		stacktab__get(st, i, &sv);
		adds += sv.samples;
	}
	CHECK(info.has_samples && g.samples == (double)adds, "%s: samples/count read back: %g of %llu", what,
	      g.samples, (unsigned long long)adds);
	char *want[16];
	for (size_t i = 0; i < n && i < 16; i++)
		want[i] = rt_expect(st, ft, i, samples, o->period);
	qsort(want, n, sizeof(*want), str_cmp);
	qsort(g.text, (size_t)g.n, sizeof(*g.text), str_cmp);
	for (size_t i = 0; i < n && i < (size_t)g.n; i++)
		CHECK(!strcmp(want[i], g.text[i]), "%s: stack %zu:\n  wrote %s\n  read  %s", what, i, want[i],
		      g.text[i]);
	for (size_t i = 0; i < n; i++)
		free(want[i]);
	for (int i = 0; i < g.n; i++)
		free(g.text[i]);
	free(buf);
}

static void test_round_trip(void)
{
	rt_outer();
	struct maps *maps = maps__new();
	if (!CHECK(maps && maps__load_proc(maps, getpid()) == 0, "load /proc/self/maps"))
		return;
	const struct map *self = maps__find(maps, rt_ret);
	const struct map *libc = maps__find(maps, (uintptr_t)&getpid);
	if (!CHECK(self && libc, "this program and libc are mapped (%p %p)", (void *)self, (void *)libc)) {
		maps__delete(maps);
		return;
	}
	struct symbolizer_opts so;
	symbolizer_opts__init(&so);
	so.srcline = true;
	struct symbolizer *sym = symbolizer__new(&so);
	struct frametab *ft = frametab__new();
	struct stacktab *st = stacktab__new(ft);
	uint64_t kaddr = kernel_text("schedule");

	/* leaf first */
	uint32_t outer = frametab__user(ft, getpid(), self, rt_ret, true);
	uint32_t in_libc = frametab__user(ft, getpid(), libc, (uintptr_t)&getpid, false);
	uint32_t kern = frametab__kernel(ft, kaddr ? kaddr : 0xffffffff81000000ULL, false);
	uint32_t trunc = frametab__special(ft, "[truncated]");
	uint32_t s1[] = { in_libc, outer }, s2[] = { kern, in_libc, outer }, s3[] = { outer, trunc };
	struct stack_owner app = { "app", 100, 100 }, worker = { "app", 100, 101 }, tool = { "my tool", 200, 202 },
			   nobody = { NULL, -1, -1 };
	stacktab__add(st, &app, s1, 2, 1, 0);
	stacktab__add(st, &app, s1, 2, 1, 0);
	stacktab__add(st, &worker, s1, 2, 3, 0);
	stacktab__add(st, &app, s2, 3, 1, 0);
	stacktab__add(st, &tool, s2, 3, 2, 0);
	stacktab__add(st, &tool, s3, 2, 5, 0);
	stacktab__add(st, &nobody, s3, 2, 1, 0);
	frametab__symbolize(ft, sym);

	/* the fixture is what it says: the inlined function after its caller,
	 * a kernel function when kallsyms shows addresses */
	struct frame_view fv;
	frametab__get(ft, outer, &fv);
	CHECK(fv.nr_syms == 2 && fv.syms[0].name && !strcmp(fv.syms[0].name, "rt_outer") && !fv.syms[0].inlined &&
		      fv.syms[1].name && !strcmp(fv.syms[1].name, "rt_inlined") && fv.syms[1].inlined,
	      "rt_capture's return address is rt_inlined inlined into rt_outer (%u functions, %s)", fv.nr_syms,
	      fv.nr_syms ? fv.syms[0].name : "-");
	frametab__get(ft, in_libc, &fv);
	CHECK(fv.nr_syms >= 1 && fv.syms[fv.nr_syms - 1].name && strstr(fv.syms[fv.nr_syms - 1].name, "getpid"),
	      "getpid's address is getpid in libc (%s)", fv.nr_syms ? fv.syms[0].name : "-");
	frametab__get(ft, kern, &fv);
	if (kaddr)
		CHECK(fv.nr_syms == 1 && fv.syms[0].name && !strcmp(fv.syms[0].name, "schedule"),
		      "the kernel's schedule (%s)", fv.syms[0].name ? fv.syms[0].name : "-");

	struct pprof_opts o = { .event = "cpu-clock", .time = true, .period = 1000 };
	rt_compare(st, ft, &o, false, "cpu ns");
	struct pprof_opts counts = { .event = "cpu-clock" };	/* the events per sample vary: samples alone */
	rt_compare(st, ft, &counts, true, "samples");

	/* A second process of the same binary: its frame at outer's address is
	 * outer's (frames are the file's), located in the first process's
	 * mapping; a frame only it ran is in its own. Both mappings of the file
	 * say what the file was symbolized to, inline frames included. */
	uint32_t other = frametab__user(ft, 300, self, (uintptr_t)&test_round_trip, true);
	uint32_t s4[] = { other }, s5[] = { outer };
	struct stack_owner second = { "app", 300, 300 };
	stacktab__add(st, &second, s4, 1, 50, 0);	/* the most samples: its mapping is the main one */
	stacktab__add(st, &second, s5, 1, 1, 0);
	frametab__symbolize(ft, sym);
	uint8_t *buf = NULL;
	size_t len = 0;
	if (CHECK(pprof__encode(st, ft, &o, &buf, &len) == 0, "pprof__encode with two processes")) {
		size_t rlen = 0;
		uint8_t *raw = gunzip(buf, len, &rlen);
		Profile *p = raw ? perftools__profiles__profile__unpack(NULL, rlen, raw) : NULL;
		free(raw);
		size_t n_self = 0, n_flags = 0;
		for (size_t i = 0; p && i < p->n_mapping; i++) {
			const Perftools__Profiles__Mapping *m = p->mapping[i];
			if (m->filename < 0 || (size_t)m->filename >= p->n_string_table ||
			    strcmp(p->string_table[m->filename], self->path))
				continue;
			n_self++;
			n_flags += m->has_functions && m->has_filenames && m->has_line_numbers && m->has_inline_frames;
		}
		CHECK(p && n_self == 2 && n_flags == 2,
		      "two processes' mappings of this program, both with functions, files, lines, inline frames "
		      "(%zu mappings, %zu with all four)", n_self, n_flags);
		perftools__profiles__profile__free_unpacked(p, NULL);
		free(buf);
	}

	stacktab__delete(st);
	frametab__delete(ft);
	symbolizer__delete(sym);
	maps__delete(maps);
}

int main(void)
{
	test_good(true);
	test_good(false);
	test_value_choice();
	test_addresses();
	test_no_lines();
	test_bad_ids();
	test_bad_bytes();
	test_round_trip();
	return check_summary();
}
