/* DWARF function names and inline frames through libdw: one Dwfl per object,
 * reporting just that ELF at its link addresses, with the separate debug
 * file found by debuginfo.c. The inline chain follows what eu-addr2line -f -i
 * prints: the DIE path from the innermost scope up to the physical function,
 * names through abstract origins, call sites for the outer frames' lines. */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elf_zsec.h"
#include "pprobe/safe_open.h"
#include "sym_internal.h"

/* Per compile unit, built on first use by one walk of its DIE tree: every
 * subprogram and inlined_subroutine with code, and its address ranges sorted
 * by start. A lookup is a binary search for the last range starting at or
 * before the address, then a walk up the DIE parents to the innermost one
 * containing it (ranges of nested DIEs nest), so O(log n + depth) instead of
 * dwarf_getscopes' walk over the whole unit. */
struct fn_die {
	Dwarf_Off off;		/* DIE offset in its Dwarf */
	int parent;		/* index of the enclosing fn_die, -1 */
	bool inlined;
	uint32_t first, count;	/* its ranges in cu_index.by_die */
};

struct fn_range {
	uint64_t lo, hi;
	int die;
};

struct cu_index {
	Dwarf_Off cu_off;
	struct fn_die *dies;
	struct fn_range *ranges;	/* sorted by start */
	struct fn_range *by_die;	/* the same, grouped per DIE */
	size_t ndies, nranges, capdies, capranges;
};

struct dwarf_state {
	Dwfl *dwfl;
	Dwfl_Module *mod;
	Dwarf_Addr bias;	/* module address = ELF vaddr + bias */
	struct strpool strings;
	struct cu_index *cus;	/* sorted by cu_off */
	size_t ncus;
	bool search_units;	/* no usable .debug_aranges: find units ourselves */
	bool lines;		/* its line table is there (debug_image.c hides it) */
	bool relined;		/* opening it again with lines was tried */
	struct dwarf_state *older;	/* one opened without lines, kept for its strings */
};

/* What find_debuginfo is given by dwarf_open, through the module's
 * userdata (libdwfl's callbacks take no other argument), and says back. */
struct debug_want {
	struct elf_object *o;
	bool lines;
	bool imaged;		/* the debug file was given as debug_image's */
};

static int find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
			  const char *file_name, const char *debuglink_file, GElf_Word debuglink_crc,
			  char **debuginfo_file_name)
{
	struct debug_want *w = userdata ? *userdata : NULL;
	struct elf_object *o = w ? w->o : NULL;
	int fd, img;

	if (!o || !o->debug_path)
		return -1;
	fd = o->debug_fd >= 0 ? dup(o->debug_fd) : safe_open_file(o->debug_path);
	if (fd < 0)
		return fd;
	/* its compressed sections inflated, or given as it is */
	img = debug_image__open(fd, w->lines);
	if (img >= 0) {
		close(fd);
		fd = img;
		w->imaged = true;
	}
	*debuginfo_file_name = strdup(o->debug_path);
	return fd;
}

static const Dwfl_Callbacks callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = find_debuginfo,
	.section_address = dwfl_offline_section_address,
};

static struct dwarf_state *dwarf_open(struct elf_object *o, bool lines)
{
	struct debug_want want = { o, lines, false };
	struct dwarf_state *st;
	void **userdata = NULL;
	int fd;

	if (o->elf_fd < 0 || o->dwarf_refused ||
	    (!o->debug_path && (!o->debug_how || strcmp(o->debug_how, "self"))))
		return NULL;	/* no DWARF anywhere: do not pay for a Dwfl */
	st = calloc(1, sizeof(*st));
	if (!st)
		return NULL;
	st->dwfl = dwfl_begin(&callbacks);
	if (!st->dwfl)
		goto err;
	fd = dup(o->elf_fd);
	if (fd < 0)
		goto err;
	dwfl_report_begin(st->dwfl);
	/* base 0 with add_p_vaddr: the module sits at its link addresses */
	st->mod = dwfl_report_elf(st->dwfl, o->dso, o->path, fd, 0, true);
	dwfl_report_end(st->dwfl, NULL, NULL);
	if (!st->mod) {
		close(fd);
		goto err;
	}
	dwfl_module_info(st->mod, &userdata, NULL, NULL, NULL, NULL, NULL, NULL);
	if (userdata)
		*userdata = &want;
	Dwarf *dw = dwfl_module_getdwarf(st->mod, &st->bias);
	if (userdata)
		*userdata = NULL;	/* want is gone once we return */
	st->lines = lines || !want.imaged;	/* hidden only in an image */
	Dwarf_Aranges *ar;
	size_t nar = 0;

	if (!dw)
		goto err;
	st->search_units = dwarf_getaranges(dw, &ar, &nar) != 0 || nar == 0;
	return st;
err:
	if (st->dwfl)
		dwfl_end(st->dwfl);
	free(st);
	return NULL;
}

static void state_free(struct dwarf_state *st)
{
	while (st) {
		struct dwarf_state *older = st->older;

		for (size_t i = 0; i < st->ncus; i++) {
			free(st->cus[i].dies);
			free(st->cus[i].ranges);
			free(st->cus[i].by_die);
		}
		free(st->cus);
		dwfl_end(st->dwfl);
		strpool__free(&st->strings);
		free(st);
		st = older;
	}
}

void dwarf__free(struct elf_object *o)
{
	state_free(o->dw);
	o->dw = NULL;
}

/* The object's Dwfl, opened at the first frame asked of it; with its line
 * table where lines are asked for. One opened without it is opened again
 * with it, the first kept: names already handed out live in its pool. */
static struct dwarf_state *dwarf_get(struct elf_object *o, bool lines)
{
	if (!o->dw_tried) {
		o->dw_tried = true;
		o->dw = dwarf_open(o, lines);
	} else if (o->dw && lines && !o->dw->lines && !o->dw->relined) {
		struct dwarf_state *st = dwarf_open(o, true);

		o->dw->relined = true;	/* once: a failure is not paid again */
		if (st) {
			st->older = o->dw;
			o->dw = st;
		}
	}
	return o->dw;
}

static const char *intern(struct dwarf_state *st, const char *s)
{
	return s ? strpool__add(&st->strings, s, strlen(s)) : NULL;
}

/* The name a stack frame shows: the linkage name (demangled) if any, else
 * DW_AT_name; both through abstract_origin/specification, as eu-addr2line's
 * get_diename. (The probe room's die_name is DW_AT_name alone: perf probe
 * matches and prints source names.) */
static const char *frame_name(struct dwarf_state *st, Dwarf_Die *die, bool demangle, const char **linkage)
{
	Dwarf_Attribute attr;
	const char *name;

	name = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &attr)
				?: dwarf_attr_integrate(die, DW_AT_linkage_name, &attr));
	*linkage = name ? intern(st, name) : NULL;
	if (name && demangle) {
		char *d = pprobe_demangle(name);

		if (d) {
			const char *r = intern(st, d);

			free(d);
			return r;
		}
	}
	/* A C function's linkage name is an asm label (glibc's hidden
	 * aliases, __GI___libc_malloc for __libc_malloc): the source name,
	 * inlined or not; the symbolizer gives a physical one its exported
	 * alias (malloc). A mangled name is kept (--no-demangle). */
	if (pprobe_mangled(name) && !demangle)
		return intern(st, name);
	const char *source = dwarf_diename(die);
	if (source)
		name = source;
	return name ? intern(st, name) : NULL;
}

static uint64_t die_start(Dwarf_Die *die)
{
	Dwarf_Addr pc;

	if (dwarf_entrypc(die, &pc) == 0 || dwarf_lowpc(die, &pc) == 0)
		return pc;
	return 0;
}

static int index_walk(struct cu_index *ci, Dwarf_Die *die, int parent, int depth)
{
	Dwarf_Die child;

	if (depth > 64)	/* malformed or absurd nesting: stop, do not recurse forever */
		return 0;
	do {
		int tag = dwarf_tag(die), me = parent;

		if (tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine) {
			Dwarf_Addr base, lo, hi;
			ptrdiff_t off = 0;

			if (ci->ndies == ci->capdies) {
				size_t cap = ci->capdies ? ci->capdies * 2 : 64;
				struct fn_die *v = realloc(ci->dies, cap * sizeof(*v));

				if (!v)
					return -ENOMEM;
				ci->dies = v;
				ci->capdies = cap;
			}
			me = (int)ci->ndies;
			ci->dies[ci->ndies++] = (struct fn_die){ dwarf_dieoffset(die), parent,
								 tag == DW_TAG_inlined_subroutine,
								 (uint32_t)ci->nranges, 0 };
			while ((off = dwarf_ranges(die, off, &base, &lo, &hi)) > 0) {
				if (hi <= lo)
					continue;
				if (ci->nranges == ci->capranges) {
					size_t cap = ci->capranges ? ci->capranges * 2 : 64;
					struct fn_range *v = realloc(ci->ranges, cap * sizeof(*v));

					if (!v)
						return -ENOMEM;
					ci->ranges = v;
					ci->capranges = cap;
				}
				ci->ranges[ci->nranges++] = (struct fn_range){ lo, hi, me };
				ci->dies[me].count++;
			}
		}
		/* functions nest in functions, lexical blocks and (C++) namespaces
		 * and classes; types and variables hold no code */
		if (dwarf_haschildren(die) > 0 && dwarf_child(die, &child) == 0) {
			int err = index_walk(ci, &child, me, depth + 1);

			if (err)
				return err;
		}
	} while (dwarf_siblingof(die, die) == 0);
	return 0;
}

static int range_cmp(const void *a, const void *b)
{
	const struct fn_range *x = a, *y = b;

	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	/* same start: the outer (longer) first, so the inner is found last */
	if (x->hi != y->hi)
		return x->hi > y->hi ? -1 : 1;
	return x->die - y->die;
}

static struct cu_index *cu_index_get(struct dwarf_state *st, Dwarf_Die *cudie)
{
	Dwarf_Off off = dwarf_dieoffset(cudie);
	size_t lo = 0, hi = st->ncus;
	struct cu_index *v, ci = { .cu_off = off };
	Dwarf_Die child;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (st->cus[mid].cu_off == off)
			return &st->cus[mid];
		if (st->cus[mid].cu_off < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (dwarf_child(cudie, &child) == 0 && index_walk(&ci, &child, -1, 0)) {
		free(ci.dies);
		free(ci.ranges);
		return NULL;
	}
	ci.by_die = malloc((ci.nranges ? ci.nranges : 1) * sizeof(*ci.by_die));
	/* a CU may have no ranges at all (ci.ranges NULL): memcpy and qsort
	 * must not see a NULL pointer, even for 0 bytes */
	if (ci.by_die && ci.nranges)
		memcpy(ci.by_die, ci.ranges, ci.nranges * sizeof(*ci.by_die));
	if (ci.nranges)
		qsort(ci.ranges, ci.nranges, sizeof(*ci.ranges), range_cmp);
	v = ci.by_die ? realloc(st->cus, (st->ncus + 1) * sizeof(*v)) : NULL;
	if (!v) {
		free(ci.by_die);
		free(ci.dies);
		free(ci.ranges);
		return NULL;
	}
	st->cus = v;
	memmove(&v[lo + 1], &v[lo], (st->ncus - lo) * sizeof(*v));
	v[lo] = ci;
	st->ncus++;
	return &v[lo];
}

static bool die_contains(struct cu_index *ci, int die, uint64_t addr)
{
	const struct fn_die *d = &ci->dies[die];

	for (uint32_t i = d->first; i < d->first + d->count; i++)
		if (addr >= ci->by_die[i].lo && addr < ci->by_die[i].hi)
			return true;
	return false;
}

/* Index of the innermost function DIE containing addr (CU-relative address), or -1. */
static int cu_index_find(struct cu_index *ci, uint64_t addr)
{
	size_t lo = 0, hi = ci->nranges;
	int d;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ci->ranges[mid].lo <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return -1;
	const struct fn_range *r = &ci->ranges[lo - 1];
	if (addr < r->hi)
		return r->die;
	/* walk up from the last function starting before addr */
	for (d = ci->dies[r->die].parent; d >= 0; d = ci->dies[d].parent)
		if (die_contains(ci, d, addr))
			return d;
	/* not nested under it: an earlier sibling tree may still contain addr */
	for (size_t i = lo - 1; i-- > 0;)
		if (addr < ci->ranges[i].hi && addr >= ci->ranges[i].lo) {
			/* the innermost among those containing: the last such by start */
			return ci->ranges[i].die;
		}
	return -1;
}

/* Every unit, through its function index (built once each): the one whose
 * functions contain addr. O(units) per call; only used when libdw cannot map
 * the address to a unit itself. */
static Dwarf_Die *cu_search_all(struct dwarf_state *st, uint64_t addr, Dwarf_Die *cudie,
				struct cu_index **cip, int *dp)
{
	Dwarf_Addr bias;
	Dwarf *dw = dwfl_module_getdwarf(st->mod, &bias);
	Dwarf_CU *cu = NULL;
	uint8_t unit_type;

	if (!dw)
		return NULL;
	while (dwarf_get_units(dw, cu, &cu, NULL, &unit_type, cudie, NULL) == 0) {
		struct cu_index *ci;
		int d;

		if (unit_type != DW_UT_compile)
			continue;
		ci = cu_index_get(st, cudie);
		if (!ci)
			return NULL;
		d = cu_index_find(ci, addr);
		if (d >= 0) {
			*cip = ci;
			*dp = d;
			return cudie;
		}
	}
	return NULL;
}

/* The line a function is declared at: DW_AT_decl_line, through
 * DW_AT_abstract_origin (an inlined instance) and DW_AT_specification (a
 * member defined outside its class), as dwarf_decl_line follows them. GCC
 * gives a lambda's operator() no line of its own; its closure type, which
 * "this" points to, has the lambda's. 0: none. */
static int decl_line(Dwarf_Die *die)
{
	Dwarf_Attribute attr;
	Dwarf_Die t;
	int line = 0;

	if (dwarf_decl_line(die, &line) == 0)
		return line;
	if (!dwarf_formref_die(dwarf_attr_integrate(die, DW_AT_object_pointer, &attr), &t))
		return 0;
	for (int i = 0; i < 8 && dwarf_formref_die(dwarf_attr(&t, DW_AT_type, &attr), &t); i++) {
		int tag = dwarf_tag(&t);

		if (tag == DW_TAG_class_type || tag == DW_TAG_structure_type || tag == DW_TAG_union_type)
			return dwarf_decl_line(&t, &line) == 0 ? line : 0;
		if (tag != DW_TAG_pointer_type && tag != DW_TAG_const_type && tag != DW_TAG_volatile_type &&
		    tag != DW_TAG_restrict_type)
			return 0;
	}
	return 0;
}

int dwarf__frames(struct elf_object *o, uint64_t vaddr, bool inlines, bool srcline,
		  bool demangle, struct sym_frame *out, int max)
{
	struct dwarf_state *st;
	struct cu_index *ci;
	Dwarf_Die *cudie, die, fallback_cu;
	Dwarf_Addr cubias, a;
	Dwarf_Files *files = NULL;
	Dwarf *dw;
	int d, nout = 0;

	st = dwarf_get(o, srcline);
	if (!st)
		return 0;
	a = vaddr + st->bias;
	cudie = dwfl_module_addrdie(st->mod, a, &cubias);
	if (cudie) {
		ci = cu_index_get(st, cudie);
		if (!ci)
			return -ENOMEM;
		d = cu_index_find(ci, a - cubias);
	} else if (st->search_units) {
		/* libdw 0.188 finds no unit for some DWARF 5 (clang without
		 * .debug_aranges): search the units' own function indexes */
		cubias = st->bias;
		cudie = cu_search_all(st, a - cubias, &fallback_cu, &ci, &d);
		if (!cudie)
			return 0;
	} else {
		return 0;
	}
	if (d < 0)
		return 0;
	dw = dwarf_cu_getdwarf(cudie->cu);
	if (srcline)
		dwarf_getsrcfiles(cudie, &files, NULL);

	const char *file = NULL;
	int line = 0;
	if (srcline) {
		Dwfl_Line *l = dwfl_module_getsrc(st->mod, a);
		Dwarf_Line *dl;

		if (l) {
			file = intern(st, dwfl_lineinfo(l, NULL, &line, NULL, NULL, NULL));
		} else if ((dl = dwarf_getsrc_die(cudie, a - cubias))) {
			file = intern(st, dwarf_linesrc(dl, NULL, NULL));
			dwarf_lineno(dl, &line);
		}
	}
	for (; d >= 0 && nout < max; d = ci->dies[d].parent) {
		if (!dwarf_offdie(dw, ci->dies[d].off, &die))
			break;
		if (ci->dies[d].inlined && !inlines)
			continue;
		struct sym_frame *f = &out[nout++];

		memset(f, 0, sizeof(*f));
		f->name = frame_name(st, &die, demangle, &f->system_name);
		f->dso = o->dso;
		f->inlined = ci->dies[d].inlined;
		f->offset = a - cubias - die_start(&die);
		if (srcline) {
			f->srcfile = file;
			f->line = line;
			f->decl_line = decl_line(&die);
		}
		if (!ci->dies[d].inlined)
			break;
		/* the next (outer) frame is at this inline instance's call site */
		if (srcline) {
			Dwarf_Attribute attr;
			Dwarf_Word w;

			file = NULL;
			line = 0;
			if (dwarf_formudata(dwarf_attr(&die, DW_AT_call_file, &attr), &w) == 0 && files)
				file = intern(st, dwarf_filesrc(files, w, NULL, NULL));
			if (dwarf_formudata(dwarf_attr(&die, DW_AT_call_line, &attr), &w) == 0)
				line = (int)w;
		}
	}
	return nout;
}

/* Only the descriptor: inflating a debug file's DWARF (libc6-dbg's libc,
 * libm and ld.so: 13 MB, a third of a short run's CPU) waits for a frame
 * in the object, which many mapped objects never have. */
void dwarf__prepare(struct elf_object *o)
{
	if (!o->dw_tried && o->debug_path && o->debug_fd < 0 && !o->dwarf_refused)
		o->debug_fd = safe_open_file(o->debug_path);
}

int dwarf__srcline(struct elf_object *o, uint64_t vaddr, const char **file, int *line)
{
	Dwfl_Line *l;
	const char *f;

	if (!dwarf_get(o, true) || !(l = dwfl_module_getsrc(o->dw->mod, vaddr + o->dw->bias)))
		return 0;
	f = dwfl_lineinfo(l, NULL, line, NULL, NULL, NULL);
	*file = f ? intern(o->dw, f) : NULL;
	return *file ? 1 : 0;
}
