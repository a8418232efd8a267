/* perf probe arguments -> tracefs fetch-args, through DWARF at one probe
 * point. See probe_finder__fetch_args() in include/pprobe/probe_finder.h.
 *
 * A DWARF argument is evaluated into a struct val: the value is in a
 * register (V_REG), in memory at base+off where base is itself a fetch
 * expression or an absolute link-time address (V_MEM), or a constant
 * (V_IMM). Member access, indexing and dereferences transform the val; the
 * last step renders it as a tracefs fetch string with a type. No tracefs
 * and no perf_event here: strings out only. */
#define _GNU_SOURCE
#include <ctype.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pprobe/probe_finder.h"
#include "probe_args_internal.h"

void val_free(struct val *v)
{
	free(v->fetch);
	v->fetch = NULL;
	for (int i = 0; i < v->npieces; i++) {
		val_free(&v->pieces[i].v);
		free(v->pieces[i].why);
	}
	free(v->pieces);
	v->pieces = NULL;
	v->npieces = 0;
}

/* ---- argument syntax ---- */
static bool is_ident(const char *s, size_t n)
{
	if (!n || !(isalpha((unsigned char)s[0]) || s[0] == '_'))
		return false;
	for (size_t i = 1; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '_')
			return false;
	return true;
}

static bool is_num(const char *s, bool hex_ok)
{
	if (hex_ok && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') && s[2]) {
		for (s += 2; *s; s++)
			if (!isxdigit((unsigned char)*s))
				return false;
		return true;
	}
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

/* an ELF symbol name: foo, foo.isra.0, _$x */
static bool is_symname(const char *s, size_t n)
{
	if (!n || isdigit((unsigned char)s[0]))
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && !strchr("_.$", s[i]))
			return false;
	return true;
}

/* TYPE of NAME=FETCH:TYPE; true when tracefs knows it */
static bool valid_type(const char *t)
{
	static const char *const basic[] = { "u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64", "x8", "x16",
					     "x32", "x64", "char", "string", "ustring", "symbol", "symstr" };
	char base[64];
	size_t n = strcspn(t, "[");
	if (n >= sizeof(base))
		return false;
	memcpy(base, t, n);
	base[n] = '\0';
	if (t[n]) {	/* [N] */
		char *end;
		long k = strtol(t + n + 1, &end, 10);
		/* string, ustring, symstr: no arrays of them */
		if (k < 1 || k > MAX_TRACEFS_ARRAY || strcmp(end, "]") || strstr(base, "str"))
			return false;
	}
	for (size_t i = 0; i < sizeof(basic) / sizeof(basic[0]); i++)
		if (!strcmp(base, basic[i]))
			return true;
	int w, o, cs;
	char tail;
	if (sscanf(base, "b%d@%d/%d%c", &w, &o, &cs, &tail) == 3)
		return w > 0 && o >= 0 && (cs == 8 || cs == 16 || cs == 32 || cs == 64) && w + o <= cs;
	return false;
}

static bool is_string_type(const char *t)
{
	return t && (!strcmp(t, "string") || !strcmp(t, "ustring"));
}

static const char *const raw_regs[] = { "ax", "bx", "cx", "dx", "si", "di", "bp", "sp", "r8", "r9", "r10",
					"r11", "r12", "r13", "r14", "r15", "ip", "flags", "cs", "ss", "ds",
					"es", "fs", "gs", "orig_ax" };

/* A raw fetch (perf passes these through); normalizes %rdi -> %di, @SYM
 * -> @+OFF for uprobes, $argN -> the ABI register for uprobes. */
static int raw_fetch(struct ctx *c, const char *s, char **out, int depth)
{
	*out = NULL;
	if (depth > 8)
		return fail(c, -EINVAL, "'%s' nests too deep", s);
	if (s[0] == '%') {
		const char *r = s + 1;
		char norm[16];
		/* %rax %rdi %rsp %rip ... are the 64-bit names of ax di sp ip */
		if (r[0] == 'r' && strlen(r) == 3 && !isdigit((unsigned char)r[1])) {
			snprintf(norm, sizeof(norm), "%s", r + 1);
			r = norm;
		}
		for (size_t i = 0; i < sizeof(raw_regs) / sizeof(raw_regs[0]); i++)
			if (!strcmp(r, raw_regs[i])) {
				*out = xasprintf("%%%s", r);
				return *out ? 0 : -ENOMEM;
			}
		return fail(c, -EINVAL, "unknown register '%s' (tracefs x86-64 names: %%ax %%bx %%cx %%dx %%si %%di "
			    "%%bp %%sp %%r8..%%r15 %%ip %%flags)", s);
	}
	if (s[0] == '@') {
		const char *a = s + 1;
		if (a[0] == '+') {
			if (c->kernel)
				return fail(c, -EINVAL, "@+OFFSET (a file offset) is for uprobes; use @SYM+OFF on the kernel");
			if (!is_num(a + 1, true))
				return fail(c, -EINVAL, "'%s': expected @+OFFSET (a number)", s);
			*out = strdup(s);
			return *out ? 0 : -ENOMEM;
		}
		if (is_num(a, true)) {
			*out = strdup(s);
			return *out ? 0 : -ENOMEM;
		}
		size_t n = strcspn(a, "+-");
		int64_t off = 0;
		if (a[n]) {
			char *end;
			if (!is_num(a + n + 1, true))
				return fail(c, -EINVAL, "'%s': expected @SYM[+|-OFFSET]", s);
			off = strtoll(a + n, &end, 0);
		}
		if (!is_symname(a, n))
			return fail(c, -EINVAL, "'%s': expected @SYM[+|-OFFSET] or @ADDR", s);
		if (c->kernel) {
			*out = strdup(s);
			return *out ? 0 : -ENOMEM;
		}
		char sym[256];
		uint64_t addr, size;
		snprintf(sym, sizeof(sym), "%.*s", (int)n, a);
		if (!pf__sym_by_name(c->pf, sym, &addr, &size))
			return fail(c, -ENOENT, "no symbol '%s' in %s", sym, probe_finder__path(c->pf));
		struct val v = { .kind = V_MEM, .off = (int64_t)(addr + (uint64_t)off) };
		*out = mem_fetch(c, &v);
		return *out ? 0 : -EINVAL;
	}
	if (s[0] == '+' || s[0] == '-') {
		const char *p = s + 1;
		bool user = false;
		if (*p == 'u') {
			user = true;
			p++;
		}
		size_t n = strcspn(p, "(");
		char num[32];
		if (!n || n >= sizeof(num) || !p[n] || s[strlen(s) - 1] != ')')
			return fail(c, -EINVAL, "'%s': expected +|-[u]OFFSET(FETCHARG)", s);
		memcpy(num, p, n);
		num[n] = '\0';
		if (!is_num(num, true))
			return fail(c, -EINVAL, "'%s': the offset '%s' is not a number", s, num);
		size_t il = strlen(p + n + 1) - 1;
		char *inner = strndup(p + n + 1, il);
		if (!inner)
			return -ENOMEM;
		char *in;
		int ret = raw_fetch(c, inner, &in, depth + 1);
		free(inner);
		if (ret)
			return ret;
		*out = xasprintf("%c%s%s(%s)", s[0], user ? "u" : "", num, in);
		free(in);
		return *out ? 0 : -ENOMEM;
	}
	if (s[0] == '$') {
		const char *a = s + 1;
		if (!strcmp(a, "comm") || !strcmp(a, "stack") || (!strncmp(a, "stack", 5) && is_num(a + 5, false))) {
			*out = strdup(s);
			return *out ? 0 : -ENOMEM;
		}
		if (!strcmp(a, "retval")) {
			if (!c->pt->retprobe)
				return fail(c, -EINVAL, "$retval exists only on a return probe (FUNC%%return)");
			*out = strdup(s);
			return *out ? 0 : -ENOMEM;
		}
		if (!strncmp(a, "arg", 3) && is_num(a + 3, false)) {
			long k = strtol(a + 3, NULL, 10);
			if (k < 1)
				return fail(c, -EINVAL, "$argN counts from 1");
			if (c->kernel) {
				*out = strdup(s);
				return *out ? 0 : -ENOMEM;
			}
			/* uprobes have no $argN: the calling convention's registers, valid at the entry */
			if (c->pt->retprobe || c->pt->sym_offset != 0)
				return fail(c, -EINVAL, "$%s is where the caller passed it, so only at a function's entry "
					    "(this point is %s)", a, c->pt->retprobe ? "a return probe" : "past the entry");
			if (k > 6)
				return fail(c, -EINVAL, "$%s is passed on the stack: use +%ld(%%sp)", a, 8 * (k - 6));
			*out = strdup(abi_reg[k - 1]);
			return *out ? 0 : -ENOMEM;
		}
		return fail(c, -EINVAL, "unknown '%s' (known: $retval $params $vars $comm $argN $stackN $stack)", s);
	}
	if (s[0] == '\\') {
		size_t l = strlen(s);
		bool str = s[1] == '"' && l > 2 && s[l - 1] == '"';
		bool num = is_num(s + 1, true) || (s[1] == '-' && is_num(s + 2, false));
		if (str || num) {
			*out = strdup(s);
			return *out ? 0 : -ENOMEM;
		}
		return fail(c, -EINVAL, "'%s': expected \\NUMBER or \\\"STRING\"", s);
	}
	return fail(c, -EINVAL, "'%s' is not a fetch-arg", s);
}

/* ---- output ---- */
static void sanitize(const char *s, char *out, size_t len)
{
	size_t o = 0;
	bool us = false;
	for (; *s && o + 1 < len; s++) {
		if (isalnum((unsigned char)*s) || *s == '_') {
			if (us && o)
				out[o++] = '_';
			us = false;
			if (o + 1 < len)
				out[o++] = *s;
		} else {
			us = true;
		}
	}
	out[o] = '\0';
}

static bool name_taken(struct ctx *c, const char *n)
{
	static const char *const reserved[] = { "common_type", "common_flags", "common_preempt_count",
						"common_pid", "__probe_ip", "__probe_ret_ip", "__probe_func" };
	for (size_t i = 0; i < sizeof(reserved) / sizeof(reserved[0]); i++)
		if (!strcmp(n, reserved[i]))
			return true;
	for (int i = 0; i < c->nout; i++)
		if (!strcmp(c->out[i].name, n))
			return true;
	return false;
}

/* Appends one arg; takes fetch (owned). name: given (checked) or NULL to
 * derive from expr. */
static int emit(struct ctx *c, const char *given, const char *expr, char *fetch, const char *type)
{
	char base[128], nm[160];
	int ret = -ENOMEM;
	if (!fetch)
		return -EINVAL;	/* whoever failed to render it said why */
	if (given) {
		if (!is_ident(given, strlen(given))) {
			free(fetch);
			return fail(c, -EINVAL, "'%s' is not a valid argument name ([A-Za-z_][A-Za-z0-9_]*)", given);
		}
		if (name_taken(c, given)) {
			free(fetch);
			return fail(c, -EINVAL, "the argument name '%s' is used twice (or reserved by tracefs)", given);
		}
		snprintf(nm, sizeof(nm), "%s", given);
	} else {
		sanitize(expr, base, sizeof(base));
		if (!base[0] || isdigit((unsigned char)base[0]))
			snprintf(base, sizeof(base), "arg%d", c->nout + 1);
		snprintf(nm, sizeof(nm), "%s", base);
		for (int k = 1; name_taken(c, nm); k++)
			snprintf(nm, sizeof(nm), "%s_%d", base, k);
	}
	struct pf_fetch_arg *o = realloc(c->out, (size_t)(c->nout + 1) * sizeof(*o));
	if (!o)
		goto err;
	c->out = o;
	o = &c->out[c->nout];
	o->name = strdup(nm);
	o->fetch = fetch;
	o->type = strdup(type);
	if (!o->name || !o->type) {
		free(o->name);
		free(o->type);
		goto err;
	}
	c->nout++;
	return 0;
err:
	free(fetch);
	return ret;
}

/* Renders the final value with the user's type (or the DWARF default). */
static int finish(struct ctx *c, const char *given, const char *expr, struct val *v, const char *utype)
{
	Dwarf_Die p;
	char tb[64];
	const char *why = NULL;
	int wret = whole(c, v, expr);
	if (wret)
		return wret;
	bool has = peel(v, &p);
	int tag = has ? dwarf_tag(&p) : 0;

	if (is_string_type(utype)) {
		if (v->kind == V_IMM)
			return fail(c, -EINVAL, "%s is the constant %" PRId64 " here, not a string", expr, v->imm);
		if (tag == DW_TAG_array_type) {
			if (v->kind != V_MEM)
				return fail(c, -EINVAL, "%s is an array not in memory here", expr);
			return emit(c, given, expr, mem_fetch(c, v), utype);
		}
		if (has && tag != DW_TAG_pointer_type && !(tag == DW_TAG_base_type && tsize(&p) == 8)) {
			char *ts = type_str(v);
			int ret = fail(c, -EINVAL, "%s (%s) is neither a pointer nor a char array: it cannot be a %s",
				       expr, ts ? ts : "?", utype);
			free(ts);
			return ret;
		}
		char *f = value_fetch(c, v, expr);
		if (!f)
			return -EINVAL;
		char *s = xasprintf("+0(%s)", f);
		free(f);
		return emit(c, given, expr, s, utype);
	}
	if (v->bit_size) {
		if (utype && utype[0] != 'b')
			return fail(c, -EINVAL, "%s is a bitfield (b%d@%d/%d): give no type or a bitfield type", expr,
				    v->bit_size, v->bit_off + v->bitoff, v->container);
		snprintf(tb, sizeof(tb), "b%d@%d/%d", v->bit_size, v->bit_off, v->container);
		if (v->kind == V_REG) {
			/* inside a register-held struct: the bits of the register */
			snprintf(tb, sizeof(tb), "b%d@%d/64", v->bit_size, v->bit_off + v->bitoff);
			char *f = strdup(v->fetch);
			return emit(c, given, expr, f, utype ? utype : tb);
		}
		return emit(c, given, expr, value_fetch(c, v, expr), utype ? utype : tb);
	}
	if (v->kind == V_REG && v->bitoff) {
		/* a member of a struct held in a register */
		int64_t sz = has ? tsize(&p) : -1;
		if (utype)
			return fail(c, -EINVAL, "%s is bits %d..%d of %s: only its default bitfield type can fetch it", expr,
				    v->bitoff, v->bitoff + (int)sz * 8 - 1, v->fetch);
		if (!scalar_type(&v->type, tb, sizeof(tb), &why))
			return fail(c, -EINVAL, "%s is %s", expr, why);
		snprintf(tb, sizeof(tb), "b%d@%d/64", (int)sz * 8, v->bitoff);
		return emit(c, given, expr, strdup(v->fetch), tb);
	}
	if (utype)
		return emit(c, given, expr, tag == DW_TAG_array_type && v->kind == V_MEM ? mem_fetch(c, v)
							    : value_fetch(c, v, expr), utype);
	if (!v->has_type)
		return fail(c, -EINVAL, "%s has no type (void): give one, e.g. :x64", expr);
	if (tag == DW_TAG_array_type) {
		int64_t counts[8];
		Dwarf_Die elem;
		int nd = array_dims(&p, counts, 8);
		int64_t total = 1;
		for (int d = v->dim; d < nd; d++)
			total = counts[d] > 0 && total > 0 ? total * counts[d] : -1;
		if (!die_type(&p, &elem) || total <= 0)
			return fail(c, -EINVAL, "%s is an array of unknown length: index it or give a type", expr);
		const char *et = scalar_type(&elem, tb, sizeof(tb), &why);
		if (!et)
			return fail(c, -EINVAL, "%s is an array of elements that are %s: index it and name a member", expr,
				    why);
		if (total > MAX_TRACEFS_ARRAY)
			return fail(c, -EINVAL, "%s has %" PRId64 " elements; tracefs arrays hold at most %d: index "
				    "it%s", expr, total, MAX_TRACEFS_ARRAY, is_char_type(&elem) ? " or give :string" : "");
		if (v->kind != V_MEM)
			return fail(c, -EINVAL, "%s is an array not in memory here", expr);
		char at[80];
		snprintf(at, sizeof(at), "%s[%" PRId64 "]", et, total);
		return emit(c, given, expr, mem_fetch(c, v), at);
	}
	const char *st = scalar_type(&v->type, tb, sizeof(tb), &why);
	if (!st) {
		if (tag == DW_TAG_structure_type || tag == DW_TAG_union_type || tag == DW_TAG_class_type) {
			struct sbuf b = { 0 };
			int cnt = 0;
			member_names(&p, &b, &cnt, 0);
			char *ts = type_str(v);
			int ret = fail(c, -EINVAL, "%s is %s (%s): name a member (%s) or give a type", expr, why,
				       ts ? ts : "?", b.s ? b.s : "none");
			free(ts);
			free(b.s);
			return ret;
		}
		return fail(c, -EINVAL, "%s is %s", expr, why);
	}
	return emit(c, given, expr, value_fetch(c, v, expr), st);
}

/* VAR[->m|.m|[i]]... with leading *s, or $retval[...] */
static int dwarf_arg(struct ctx *c, const char *given, const char *expr, const char *utype)
{
	struct val v = { 0 };
	const char *p = expr;
	int stars = 0, ret;
	char what[256];
	while (*p == '*')
		p++, stars++;
	size_t n = strspn(p, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_$");
	char name[128];
	if (!n || n >= sizeof(name))
		return fail(c, -EINVAL, "expected a variable name");
	memcpy(name, p, n);
	name[n] = '\0';
	p += n;
	if (name[0] == '$') {
		if (strcmp(name, "$retval"))
			return fail(c, -EINVAL, "'%s' takes no members, indexes or *", name);
		if (!c->pt->retprobe)
			return fail(c, -EINVAL, "$retval exists only on a return probe (%s%%return)", c->pt->function);
		Dwarf_Die fn = c->scopes[c->k];
		v.kind = V_REG;
		v.fetch = strdup("$retval");
		v.has_type = die_type(&fn, &v.type);
		if (!v.fetch)
			return -ENOMEM;
		if (!v.has_type && !utype && !*p && !stars) {
			val_free(&v);
			return fail(c, -EINVAL, "%s returns void", c->pt->function);
		}
		int64_t rsz;
		enum aclass rc = v.has_type ? abi_class(&v.type, &rsz) : A_UNSURE;
		Dwarf_Die rp;
		bool aggr = v.has_type && !dwarf_peel_type(&v.type, &rp) && dwarf_tag(&rp) != DW_TAG_base_type;
		if (rc == A_MEM && aggr) {
			/* returned in memory: %rax holds the address the caller passed */
			free(v.fetch);
			v.kind = V_MEM;
			v.fetch = strdup("$retval");
			if (!v.fetch)
				return -ENOMEM;
		} else if (rc == A_INT2 && aggr) {
			/* two eightbytes: %rax and %rdx */
			v.pieces = calloc(2, sizeof(*v.pieces));
			if (!v.pieces) {
				val_free(&v);
				return -ENOMEM;
			}
			free(v.fetch);
			v.fetch = NULL;
			v.kind = V_PIECES;
			v.npieces = 2;
			for (int i = 0; i < 2; i++) {
				v.pieces[i].start = 8 * i;
				v.pieces[i].size = i ? rsz - 8 : 8;
				v.pieces[i].v.kind = V_REG;
				if (!(v.pieces[i].v.fetch = strdup(i ? "%dx" : "$retval"))) {
					val_free(&v);
					return -ENOMEM;
				}
			}
		}
	} else {
		if (!is_ident(name, n))
			return fail(c, -EINVAL, "'%s' is not a variable name", name);
		if (c->pt->retprobe)
			return fail(c, -EINVAL, "on a return probe the function's variables are gone; only $retval (and "
				    "raw registers) can be fetched");
		if ((ret = lookup_var(c, name, &v)))
			return ret;
	}
	snprintf(what, sizeof(what), "%s", name);
	while (*p) {
		if (p[0] == '-' && p[1] == '>') {
			p += 2;
			n = strspn(p, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_");
			if (!is_ident(p, n)) {
				ret = fail(c, -EINVAL, "expected a member name after '->' in '%s'", expr);
				goto out;
			}
			snprintf(name, sizeof(name), "%.*s", (int)n, p);
			char pointee[300];
			snprintf(pointee, sizeof(pointee), "what %s points at", what);
			if ((ret = do_deref(c, &v, 0, what)) || (ret = do_member(c, &v, name, pointee)))
				goto out;
			snprintf(what + strlen(what), sizeof(what) - strlen(what), "->%s", name);
			p += n;
		} else if (p[0] == '.') {
			p++;
			n = strspn(p, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_");
			if (!is_ident(p, n)) {
				ret = fail(c, -EINVAL, "expected a member name after '.' in '%s'", expr);
				goto out;
			}
			snprintf(name, sizeof(name), "%.*s", (int)n, p);
			if ((ret = do_member(c, &v, name, what)))
				goto out;
			snprintf(what + strlen(what), sizeof(what) - strlen(what), ".%s", name);
			p += n;
		} else if (p[0] == '[') {
			char *end;
			long long idx = strtoll(p + 1, &end, 0);
			if (end == p + 1 || *end != ']') {
				ret = fail(c, -EINVAL, "expected [NUMBER] in '%s'", expr);
				goto out;
			}
			if ((ret = do_index(c, &v, idx, what)))
				goto out;
			snprintf(what + strlen(what), sizeof(what) - strlen(what), "[%lld]", idx);
			p = end + 1;
		} else {
			ret = fail(c, -EINVAL, "unexpected '%s' in '%s' (expected ->MEMBER, .MEMBER or [INDEX])", p, expr);
			goto out;
		}
	}
	for (int i = 0; i < stars; i++) {
		if ((ret = do_deref(c, &v, 0, what)))
			goto out;
	}
	ret = finish(c, given, expr, &v, utype);
out:
	val_free(&v);
	return ret;
}

static void note(struct ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(struct ctx *c, const char *fmt, ...)
{
	char m[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(m, sizeof(m), fmt, ap);
	va_end(ap);
	pf__sb_add(&c->notes, "%s%s", c->notes.len ? "; " : "", m);
}

/* One variable of $params/$vars: skipped with a note when it cannot be fetched. */
static int expand_one(struct ctx *c, const char *name, const char *utype)
{
	int ret = dwarf_arg(c, NULL, name, utype);
	if (ret == -ENOMEM)
		return ret;
	if (ret)
		note(c, "skipped %s: %s", name, reason(c));
	return 0;
}

/* Expand NAME and remember it in *seen (a local of that name in an outer
 * scope is then shadowed). */
static int expand_seen(struct ctx *c, const char *name, const char *utype, char ***seen, int *nseen)
{
	char **s = realloc(*seen, (size_t)(*nseen + 1) * sizeof(*s));
	if (!s)
		return -ENOMEM;
	*seen = s;
	s[(*nseen)++] = (char *)name;
	return expand_one(c, name, utype);
}

static int expand(struct ctx *c, bool vars, const char *utype)
{
	if (c->pt->retprobe)
		return fail(c, -EINVAL, "on a return probe the function's %s are gone; only $retval can be fetched",
			    vars ? "variables" : "parameters");
	Dwarf_Die ob, *decl = decl_of(&c->scopes[c->k], &ob), ch;
	char **seen = NULL;
	int nseen = 0, ret = 0;
	/* parameters in declaration order */
	if (dwarf_child(decl, &ch) == 0)
		do {
			const char *n = dwarf_tag(&ch) == DW_TAG_formal_parameter ? die_name(&ch) : NULL;
			if (n && (ret = expand_seen(c, n, utype, &seen, &nseen)))
				goto out;
		} while (dwarf_siblingof(&ch, &ch) == 0);
	if (vars) {
		/* locals, outer scopes first; an inner one shadows an outer one */
		for (int i = c->k; i >= c->lo; i--) {
			if (dwarf_child(&c->scopes[i], &ch) != 0)
				continue;
			do {
				const char *n = dwarf_tag(&ch) == DW_TAG_variable &&
							!dwarf_hasattr(&ch, DW_AT_declaration) ? die_name(&ch) : NULL;
				bool dup = false;
				for (int j = 0; n && j < nseen; j++)
					dup |= !strcmp(seen[j], n);
				if (n && !dup && (ret = expand_seen(c, n, utype, &seen, &nseen)))
					goto out;
			} while (dwarf_siblingof(&ch, &ch) == 0);
		}
	}
out:
	free(seen);
	return ret;
}

static int one_arg(struct ctx *c, const char *arg)
{
	char *dup = strdup(arg), *given = NULL, *expr, *utype = NULL;
	int ret;
	if (!dup)
		return -ENOMEM;
	expr = dup;
	while (isspace((unsigned char)*expr))
		expr++;
	size_t l = strlen(expr);
	while (l && isspace((unsigned char)expr[l - 1]))
		expr[--l] = '\0';
	/* NAME= */
	char *eq = strchr(expr, '=');
	if (eq && expr[0] != '\\' && is_ident(expr, (size_t)(eq - expr))) {
		*eq = '\0';
		given = expr;
		expr = eq + 1;
	}
	/* :TYPE (an immediate string may hold ':') */
	char *colon = expr[0] == '\\' && expr[1] == '"' ? strrchr(expr, '"') : expr;
	colon = colon ? strchr(colon, ':') : NULL;
	if (colon) {
		*colon = '\0';
		utype = colon + 1;
		if (!valid_type(utype)) {
			ret = fail(c, -EINVAL, "unknown type '%s' (string, ustring, u8..u64, s8..s64, x8..x64, char, "
				   "symbol, symstr, b<width>@<offset>/<container>, or TYPE[N])", utype);
			goto out;
		}
	}
	if (!*expr) {
		ret = fail(c, -EINVAL, "empty argument");
		goto out;
	}
	if (!strcmp(expr, "$params") || !strcmp(expr, "$vars")) {
		if (given) {
			ret = fail(c, -EINVAL, "%s expands to several arguments: it takes no NAME=", expr);
			goto out;
		}
		if (!c->dwarf) {
			ret = fail(c, -ENOENT, "%s needs DWARF at this address: %s", expr,
				   pf__dwarf(c->pf) ? "no function's debug info covers it" : pf__nodwarf(c->pf));
			goto out;
		}
		ret = expand(c, !strcmp(expr, "$vars"), utype);
		goto out;
	}
	bool raw = strchr("%@+-\\", expr[0]) || (expr[0] == '$' && strncmp(expr, "$retval", 7));
	if (!strncmp(expr, "$retval", 7) && !c->dwarf) {
		raw = true;
		if (expr[7]) {
			ret = fail(c, -EINVAL, "members of $retval need DWARF for the function's return type");
			goto out;
		}
	}
	if (raw) {
		char *f;
		if ((ret = raw_fetch(c, expr, &f, 0)))
			goto out;
		const char *t = utype ? utype : !strcmp(expr, "$comm") || (expr[0] == '\\' && expr[1] == '"') ? "string"
										  : "x64";
		ret = emit(c, given, expr, f, t);
		goto out;
	}
	if (!c->dwarf) {
		ret = fail(c, -ENOENT, "variables need DWARF at this address: %s",
			   pf__dwarf(c->pf) ? "no function's debug info covers it" : pf__nodwarf(c->pf));
		goto out;
	}
	if (pf__machine(c->pf) != EM_X86_64) {
		ret = fail(c, -EOPNOTSUPP, "DWARF arguments are translated for x86-64 only");
		goto out;
	}
	ret = dwarf_arg(c, given, expr, utype);
out:
	free(dup);
	return ret;
}

void pf_fetch_args__free(struct pf_fetch_arg *args, int n)
{
	if (!args)
		return;
	for (int i = 0; i < n; i++) {
		free(args[i].name);
		free(args[i].fetch);
		free(args[i].type);
	}
	free(args);
}

int probe_finder__fetch_args(struct probe_finder *pf, const struct pf_point *pt, const char *const *args,
			     int nargs, struct pf_fetch_arg **out)
{
	struct ctx c = { .pf = pf, .pt = pt, .kernel = probe_finder__is_kernel(pf) };
	int ret = 0;
	*out = NULL;
	if ((ret = setup_scope(&c)))
		goto err;
	for (int i = 0; i < nargs; i++) {
		c.arg = args[i];
		if ((ret = one_arg(&c, args[i])))
			goto err;
	}
	if (c.notes.oom) {
		ret = -ENOMEM;
		goto err;
	}
	pf_fail(pf, 0, "%s", c.notes.s ? c.notes.s : "");
	free(c.notes.s);
	free(c.scopes);
	if (c.eh_cfi)
		dwarf_cfi_end(c.eh_cfi);
	*out = c.out;
	return c.nout;
err:
	if (ret == -ENOMEM)
		pf_fail(pf, ret, "out of memory");
	pf_fetch_args__free(c.out, c.nout);
	free(c.notes.s);
	free(c.scopes);
	if (c.eh_cfi)
		dwarf_cfi_end(c.eh_cfi);
	return ret;
}
