/* Syscall tracing, the kernel side: names and numbers, which syscalls have
 * tracepoints, their argument names from the sys_enter formats, enter/exit
 * pairing per thread and the summary (see syscalls.h). */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "syscalls.h"
#include "tp_format.h"
#include "tracefs.h"

static const struct {
	int nr;
	const char *name;
} syscall_table[] = {
#include "syscall_names.h"
};
#define NR_TABLE (sizeof(syscall_table) / sizeof(syscall_table[0]))

const char *syscall__name(int nr)
{
	for (size_t i = 0; i < NR_TABLE; i++)
		if (syscall_table[i].nr == nr)
			return syscall_table[i].name;
	return NULL;
}

int syscall__nr(const char *name)
{
	for (size_t i = 0; i < NR_TABLE; i++)
		if (!strcmp(syscall_table[i].name, name))
			return syscall_table[i].nr;
	return -ENOENT;
}

/* ---- which syscalls have tracepoints ---- */

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int syscalls__available(char ***names)
{
	char path[4096];
	int ret = tracefs__path(path, sizeof(path), "events/syscalls");
	*names = NULL;
	if (ret)
		return ret;
	DIR *d = opendir(path);
	if (!d)
		return -errno;
	char **v = NULL;
	int nr = 0, cap = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		if (strncmp(de->d_name, "sys_enter_", 10) || !de->d_name[10])
			continue;
		if (nr == cap) {
			cap = cap ? 2 * cap : 512;
			v = pp_xrealloc(v, (size_t)cap * sizeof(*v));
		}
		v[nr++] = pp_xstrdup(de->d_name + 10);
	}
	closedir(d);
	if (nr)
		qsort(v, (size_t)nr, sizeof(*v), cmp_str);
	*names = v;
	return nr;
}

void syscalls__free_names(char **names, int nr)
{
	for (int i = 0; i < nr; i++)
		free(names[i]);
	free(names);
}

static void add_once(const char ***out, int *nr_out, const char *name)
{
	for (int i = 0; i < *nr_out; i++)
		if ((*out)[i] == name)
			return;
	*out = pp_xrealloc(*out, (size_t)(*nr_out + 1) * sizeof(**out));
	(*out)[(*nr_out)++] = name;
}

/* One name or glob of -e. 0 or -ENOENT with why in err. */
static int select_one(const char *tok, char **avail, int nr_avail, const char ***out, int *nr_out,
		      char *err, size_t errlen)
{
	bool glob = strpbrk(tok, "*?[") != NULL;
	int found = 0;
	for (int i = 0; i < nr_avail; i++)
		if (glob ? !fnmatch(tok, avail[i], 0) : !strcmp(tok, avail[i])) {
			add_once(out, nr_out, avail[i]);
			found++;
		}
	if (found)
		return 0;
	if (!glob && syscall__nr(tok) >= 0) {
		seterr(err, errlen, "syscall '%s' has no tracepoint on this kernel (no events/syscalls/sys_enter_%s)",
		       tok, tok);
		return -ENOENT;
	}
	const char *best = NULL;
	int best_d = 3;
	for (int i = 0; i < nr_avail && !glob; i++) {
		int d = edit_distance(tok, avail[i], 2);
		if (d < best_d) {
			best_d = d;
			best = avail[i];
		}
	}
	if (best)
		seterr(err, errlen, "no syscall matches '%s' (did you mean '%s'?)", tok, best);
	else
		seterr(err, errlen, "no syscall matches '%s'", tok);
	return -ENOENT;
}

int syscalls__select(const char *list, char **avail, int nr_avail, const char ***out, int *nr_out,
		     char *err, size_t errlen)
{
	char *copy = pp_xstrdup(list), *save = NULL;
	int ret = 0;
	bool any = false;
	for (char *tok = strtok_r(copy, ",", &save); tok && !ret; tok = strtok_r(NULL, ",", &save)) {
		any = true;
		ret = select_one(tok, avail, nr_avail, out, nr_out, err, errlen);
	}
	if (!any && !ret) {
		seterr(err, errlen, "no syscall named in '%s'", list);
		ret = -ENOENT;
	}
	free(copy);
	return ret;
}

/* ---- records ---- */

static int read_u64(const struct tp_field *f, const void *raw, size_t size, uint64_t *v)
{
	if (!f || f->offset + 8 > size || f->size != 8)
		return -ERANGE;
	memcpy(v, (const char *)raw + f->offset, 8);
	return 0;
}

int syscalls__enter_args(const struct tp_format *fmt, const void *raw, size_t size, int *nr,
			 uint64_t args[SYSCALL_MAX_ARGS])
{
	int64_t v;
	memset(args, 0, SYSCALL_MAX_ARGS * sizeof(*args));
	const struct tp_field *id = tp_format__field(fmt, "id");
	if (id) {	/* raw_syscalls:sys_enter: long id; unsigned long args[6] */
		const struct tp_field *a = tp_format__field(fmt, "args");
		if (tp_field__int(id, raw, size, &v) || !a || a->offset + a->size > size ||
		    a->size < SYSCALL_MAX_ARGS * 8)
			return -ERANGE;
		*nr = (int)v;
		memcpy(args, (const char *)raw + a->offset, SYSCALL_MAX_ARGS * 8);
		return 0;
	}
	const struct tp_field *f = tp_format__field(fmt, "__syscall_nr");
	if (!f || tp_field__int(f, raw, size, &v))
		return -EINVAL;
	*nr = (int)v;
	int k = 0;
	for (size_t i = fmt->nr_common; i < fmt->nr_fields && k < SYSCALL_MAX_ARGS; i++) {
		const struct tp_field *a = &fmt->fields[i];
		if (a == f || a->is_dynamic)
			continue;
		if (read_u64(a, raw, size, &args[k++]))
			return -ERANGE;
	}
	return 0;
}

int syscalls__exit_ret(const struct tp_format *fmt, const void *raw, size_t size, int *nr, int64_t *ret)
{
	int64_t v;
	const struct tp_field *id = tp_format__field(fmt, "id");
	if (!id)
		id = tp_format__field(fmt, "__syscall_nr");
	const struct tp_field *r = tp_format__field(fmt, "ret");
	if (!id || !r)
		return -EINVAL;
	if (tp_field__int(id, raw, size, &v) || tp_field__int(r, raw, size, ret))
		return -ERANGE;
	*nr = (int)v;
	return 0;
}

/* ---- pairing and the summary ---- */

struct pending {
	bool active;
	int nr;
	pid_t pid, tid;
	uint64_t time;
	uint64_t seq;			/* enter order, for flush */
	uint64_t args[SYSCALL_MAX_ARGS];
	void *raw;
	size_t raw_size, raw_cap;
	char comm[16];
};

struct thread_acc {
	struct syscall_thread t;
	struct u64map by_nr;		/* nr -> index + 1 into t.stats */
	int cap;
};

struct syscalls {
	struct syscall_desc **descs;	/* by nr */
	int nr_descs;
	struct syscall_desc *odd;	/* numbers outside [0, 4096) */
	struct u64map pending;		/* tid -> struct pending */
	struct u64map threads;		/* tid -> struct thread_acc */
	uint64_t seq, events;
	struct syscall_thread *summary;
	int nr_summary;
};

struct syscalls *syscalls__new(void)
{
	struct syscalls *sc = pp_xcalloc(1, sizeof(*sc));
	u64map__init(&sc->pending);
	u64map__init(&sc->threads);
	return sc;
}

static void desc_free(struct syscall_desc *d)
{
	if (!d)
		return;
	tp_format__free(d->fmt);
	free((char *)d->name);
	free(d);
}

void syscalls__delete(struct syscalls *sc)
{
	if (!sc)
		return;
	for (int i = 0; i < sc->nr_descs; i++)
		desc_free(sc->descs[i]);
	free(sc->descs);
	desc_free(sc->odd);
	for (size_t i = 0; i < sc->pending.cap; i++)
		if (sc->pending.used[i]) {
			struct pending *p = sc->pending.vals[i];
			free(p->raw);
			free(p);
		}
	u64map__free(&sc->pending);
	for (size_t i = 0; i < sc->threads.cap; i++)
		if (sc->threads.used[i]) {
			struct thread_acc *a = sc->threads.vals[i];
			u64map__free(&a->by_nr);
			free(a->t.stats);
			free(a);
		}
	u64map__free(&sc->threads);
	free(sc->summary);
	free(sc);
}

void syscall_desc__set_format(struct syscall_desc *d, struct tp_format *fmt)
{
	d->fmt = fmt;
	d->nargs = 0;
	memset(d->args, 0, sizeof(d->args));
	memset(d->strs, 0, sizeof(d->strs));
	if (!fmt)
		return;
	for (size_t i = fmt->nr_common; i < fmt->nr_fields; i++) {
		const struct tp_field *a = &fmt->fields[i];
		if (!strcmp(a->name, "__syscall_nr") || a->is_dynamic)
			continue;
		if (d->nargs < SYSCALL_MAX_ARGS)
			d->args[d->nargs++] = a;
	}
	/* the user memory the kernel copied for argument ARG: "__ARG_val" */
	for (size_t i = fmt->nr_common; i < fmt->nr_fields; i++) {
		const struct tp_field *s = &fmt->fields[i];
		size_t len = strlen(s->name);
		if (!s->is_dynamic || !s->is_string || len < 7 || strncmp(s->name, "__", 2) ||
		    strcmp(s->name + len - 4, "_val"))
			continue;
		for (int k = 0; k < d->nargs; k++)
			if (strlen(d->args[k]->name) == len - 6 && !strncmp(d->args[k]->name, s->name + 2, len - 6))
				d->strs[k] = s;
	}
}

/* Argument names and types from sys_enter_NAME's format. */
static void desc_load(struct syscall_desc *d)
{
	char ev[128];
	snprintf(ev, sizeof(ev), "sys_enter_%s", d->name);
	syscall_desc__set_format(d, syscall__name(d->nr) ? tp_format__load("syscalls", ev) : NULL);
}

const struct syscall_desc *syscalls__desc(struct syscalls *sc, int nr)
{
	struct syscall_desc **slot;
	if (nr < 0 || nr >= 4096) {
		if (sc->odd && sc->odd->nr == nr)
			return sc->odd;
		desc_free(sc->odd);
		sc->odd = NULL;
		slot = &sc->odd;
	} else {
		if (nr >= sc->nr_descs) {
			sc->descs = pp_xrealloc(sc->descs, (size_t)(nr + 1) * sizeof(*sc->descs));
			memset(sc->descs + sc->nr_descs, 0, (size_t)(nr + 1 - sc->nr_descs) * sizeof(*sc->descs));
			sc->nr_descs = nr + 1;
		}
		slot = &sc->descs[nr];
	}
	if (!*slot) {
		struct syscall_desc *d = pp_xcalloc(1, sizeof(*d));
		d->nr = nr;
		const char *name = syscall__name(nr);
		if (name) {
			d->name = pp_xstrdup(name);
		} else {
			char buf[32];
			snprintf(buf, sizeof(buf), "syscall_%d", nr);
			d->name = pp_xstrdup(buf);
		}
		desc_load(d);
		*slot = d;
	}
	return *slot;
}

static struct thread_acc *thread_acc(struct syscalls *sc, pid_t pid, pid_t tid, const char *comm)
{
	struct thread_acc *a = u64map__get(&sc->threads, (uint64_t)tid);
	if (!a) {
		a = pp_xcalloc(1, sizeof(*a));
		a->t.tid = tid;
		u64map__init(&a->by_nr);
		u64map__put(&sc->threads, (uint64_t)tid, a);
	}
	a->t.pid = pid;
	if (comm && *comm)
		snprintf(a->t.comm, sizeof(a->t.comm), "%s", comm);
	return a;
}

static struct syscall_stats *stats_of(struct syscalls *sc, struct thread_acc *a, int nr)
{
	uintptr_t idx = (uintptr_t)u64map__get(&a->by_nr, (uint64_t)(uint32_t)nr);
	if (idx)
		return &a->t.stats[idx - 1];
	if (a->t.nr_stats == a->cap) {
		a->cap = a->cap ? 2 * a->cap : 8;
		a->t.stats = pp_xrealloc(a->t.stats, (size_t)a->cap * sizeof(*a->t.stats));
	}
	struct syscall_stats *st = &a->t.stats[a->t.nr_stats++];
	*st = (struct syscall_stats){ .nr = nr, .name = syscalls__desc(sc, nr)->name };
	u64map__put(&a->by_nr, (uint64_t)(uint32_t)nr, (void *)(uintptr_t)a->t.nr_stats);
	return st;
}

/* Count a call that ended (any way but UNFINISHED). */
static void account(struct syscalls *sc, const struct syscall_call *call)
{
	struct thread_acc *a = thread_acc(sc, call->pid, call->tid, call->comm);
	struct syscall_stats *st = stats_of(sc, a, call->desc->nr);
	st->calls++;
	if ((call->end == SYSCALL_RETURNED || call->end == SYSCALL_CONTINUED) && syscall__failed(call->ret))
		st->errors++;
	if (call->end != SYSCALL_RETURNED)
		return;
	double ms = (double)(call->t_exit - call->t_enter) / 1e6;
	if (!st->timed || ms < st->min_ms)
		st->min_ms = ms;
	if (ms > st->max_ms)
		st->max_ms = ms;
	st->total_ms += ms;
	st->timed++;
	double delta = ms - st->mean_ms;
	st->mean_ms += delta / (double)st->timed;
	st->m2 += delta * (ms - st->mean_ms);
}

static void end_pending(struct syscalls *sc, pid_t tid, struct pending *p, enum syscall_end end,
			syscall_call_fn fn, void *arg)
{
	struct syscall_call call = {
		.desc = syscalls__desc(sc, p->nr), .pid = p->pid, .tid = tid, .comm = p->comm,
		.end = end, .t_enter = p->time, .raw = p->raw_size ? p->raw : NULL, .raw_size = p->raw_size,
	};
	memcpy(call.args, p->args, sizeof(call.args));
	p->active = false;
	if (end != SYSCALL_UNFINISHED)
		account(sc, &call);
	fn(arg, &call);
}

static bool is_fork(const char *name)
{
	return !strcmp(name, "clone") || !strcmp(name, "clone3") || !strcmp(name, "fork") || !strcmp(name, "vfork");
}

static bool never_returns(const char *name)
{
	return !strcmp(name, "exit") || !strcmp(name, "exit_group");
}

void syscalls__enter(struct syscalls *sc, pid_t pid, pid_t tid, const char *comm, int nr, uint64_t time,
		     const uint64_t args[SYSCALL_MAX_ARGS], const void *raw, size_t raw_size,
		     syscall_call_fn fn, void *arg)
{
	sc->events++;
	thread_acc(sc, pid, tid, comm)->t.events++;
	struct pending *p = u64map__get(&sc->pending, (uint64_t)tid);
	if (!p) {
		p = pp_xcalloc(1, sizeof(*p));
		p->tid = tid;
		u64map__put(&sc->pending, (uint64_t)tid, p);
	}
	if (p->active)	/* its exit was lost or never came */
		end_pending(sc, tid, p, SYSCALL_UNFINISHED, fn, arg);
	p->active = true;
	p->nr = nr;
	p->pid = pid;
	p->time = time;
	p->seq = ++sc->seq;
	memcpy(p->args, args, sizeof(p->args));
	snprintf(p->comm, sizeof(p->comm), "%s", comm ? comm : "");
	p->raw_size = 0;
	if (raw && raw_size) {
		if (raw_size > p->raw_cap) {
			p->raw = pp_xrealloc(p->raw, raw_size);
			p->raw_cap = raw_size;
		}
		memcpy(p->raw, raw, raw_size);
		p->raw_size = raw_size;
	}
	if (never_returns(syscalls__desc(sc, nr)->name))
		end_pending(sc, tid, p, SYSCALL_NO_RETURN, fn, arg);
}

void syscalls__exit(struct syscalls *sc, pid_t pid, pid_t tid, const char *comm, int nr, uint64_t time,
		    int64_t ret, syscall_call_fn fn, void *arg)
{
	sc->events++;
	thread_acc(sc, pid, tid, comm)->t.events++;
	struct pending *p = u64map__get(&sc->pending, (uint64_t)tid);
	/* rt_sigreturn restores the registers and sets orig_ax to -1 (no
	 * restart), so its exit says syscall -1: the thread's pending call, as
	 * strace shows it (rt_sigreturn(...) = the restored value) */
	if (nr == -1 && p && p->active)
		nr = p->nr;
	if (p && p->active && p->nr == nr) {
		struct syscall_call call = {
			.desc = syscalls__desc(sc, nr), .pid = pid, .tid = tid, .comm = comm ? comm : p->comm,
			.end = SYSCALL_RETURNED, .t_enter = p->time, .t_exit = time, .ret = ret,
			.raw = p->raw_size ? p->raw : NULL, .raw_size = p->raw_size,
		};
		memcpy(call.args, p->args, sizeof(call.args));
		p->active = false;
		account(sc, &call);
		fn(arg, &call);
		return;
	}
	if (p && p->active)	/* another call's exit: that one's was lost */
		end_pending(sc, tid, p, SYSCALL_UNFINISHED, fn, arg);
	struct syscall_call call = {
		.desc = syscalls__desc(sc, nr), .pid = pid, .tid = tid, .comm = comm ? comm : "",
		.end = SYSCALL_CONTINUED, .t_exit = time, .ret = ret,
	};
	/* A new task's return from the fork or clone that made it is the
	 * parent's call, counted there (as strace -c counts it) */
	if (!(ret == 0 && is_fork(call.desc->name)))
		account(sc, &call);
	fn(arg, &call);
}

static int cmp_pending(const void *a, const void *b)
{
	const struct pending *x = *(struct pending *const *)a, *y = *(struct pending *const *)b;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

void syscalls__flush(struct syscalls *sc, syscall_call_fn fn, void *arg)
{
	struct pending **v = pp_xmalloc((sc->pending.nr + 1) * sizeof(*v));
	size_t n = 0;
	for (size_t i = 0; i < sc->pending.cap; i++)
		if (sc->pending.used[i] && ((struct pending *)sc->pending.vals[i])->active)
			v[n++] = sc->pending.vals[i];
	qsort(v, n, sizeof(*v), cmp_pending);
	for (size_t k = 0; k < n; k++)
		end_pending(sc, v[k]->tid, v[k], SYSCALL_UNFINISHED, fn, arg);
	free(v);
}

static int cmp_stats(const void *a, const void *b)
{
	const struct syscall_stats *x = a, *y = b;
	if (x->total_ms != y->total_ms)
		return x->total_ms > y->total_ms ? -1 : 1;
	if (x->calls != y->calls)
		return x->calls > y->calls ? -1 : 1;
	return strcmp(x->name, y->name);
}

static int cmp_threads(const void *a, const void *b)
{
	const struct syscall_thread *x = a, *y = b;
	if (x->events != y->events)
		return x->events > y->events ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

const struct syscall_thread *syscalls__summary(struct syscalls *sc, int *nr, uint64_t *total_events)
{
	free(sc->summary);
	sc->summary = pp_xmalloc((sc->threads.nr + 1) * sizeof(*sc->summary));
	int n = 0;
	for (size_t i = 0; i < sc->threads.cap; i++) {
		if (!sc->threads.used[i])
			continue;
		struct thread_acc *a = sc->threads.vals[i];
		if (!a->t.nr_stats)
			continue;
		/* sorting moves the stats: the index map is rebuilt */
		qsort(a->t.stats, (size_t)a->t.nr_stats, sizeof(*a->t.stats), cmp_stats);
		u64map__free(&a->by_nr);
		u64map__init(&a->by_nr);
		for (int k = 0; k < a->t.nr_stats; k++)
			u64map__put(&a->by_nr, (uint64_t)(uint32_t)a->t.stats[k].nr, (void *)(uintptr_t)(k + 1));
		sc->summary[n++] = a->t;
	}
	qsort(sc->summary, (size_t)n, sizeof(*sc->summary), cmp_threads);
	*nr = n;
	*total_events = sc->events;
	return sc->summary;
}
