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

#include "sym_internal.h"

struct dwarf_state {
	Dwfl *dwfl;
	Dwfl_Module *mod;
	Dwarf_Addr bias;	/* module address = ELF vaddr + bias */
	struct strpool strings;
};

static int find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
			  const char *file_name, const char *debuglink_file, GElf_Word debuglink_crc,
			  char **debuginfo_file_name)
{
	struct elf_object *o = userdata ? *userdata : NULL;
	int fd;

	if (!o || !o->debug_path)
		return -1;
	fd = open(o->debug_path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0)
		*debuginfo_file_name = strdup(o->debug_path);
	return fd;
}

static const Dwfl_Callbacks callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = find_debuginfo,
	.section_address = dwfl_offline_section_address,
};

static struct dwarf_state *dwarf_open(struct elf_object *o)
{
	struct dwarf_state *st;
	void **userdata = NULL;
	int fd;

	if (o->elf_fd < 0 || (!o->debug_path && (!o->debug_how || strcmp(o->debug_how, "self"))))
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
		*userdata = o;
	if (!dwfl_module_getdwarf(st->mod, &st->bias))
		goto err;
	return st;
err:
	if (st->dwfl)
		dwfl_end(st->dwfl);
	free(st);
	return NULL;
}

void dwarf__free(struct elf_object *o)
{
	if (!o->dw)
		return;
	dwfl_end(o->dw->dwfl);
	strpool__free(&o->dw->strings);
	free(o->dw);
	o->dw = NULL;
}

static const char *intern(struct dwarf_state *st, const char *s)
{
	return s ? strpool__add(&st->strings, s, strlen(s)) : NULL;
}

/* Linkage name (demangled) if any, else DW_AT_name; both through
 * abstract_origin/specification, as eu-addr2line's get_diename. */
static const char *die_name(struct dwarf_state *st, Dwarf_Die *die, bool demangle)
{
	Dwarf_Attribute attr;
	const char *name;

	name = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &attr)
				?: dwarf_attr_integrate(die, DW_AT_linkage_name, &attr));
	if (name && demangle) {
		char *d = pprobe_demangle(name);

		if (d) {
			const char *r = intern(st, d);

			free(d);
			return r;
		}
	}
	if (!name)
		name = dwarf_diename(die);
	return name ? intern(st, name) : NULL;
}

static uint64_t die_start(Dwarf_Die *die)
{
	Dwarf_Addr pc;

	if (dwarf_entrypc(die, &pc) == 0 || dwarf_lowpc(die, &pc) == 0)
		return pc;
	return 0;
}

int dwarf__frames(struct elf_object *o, uint64_t vaddr, bool inlines, bool srcline,
		  bool demangle, struct sym_frame *out, int max)
{
	struct dwarf_state *st;
	Dwarf_Die *cudie, *scopes = NULL, *chain = NULL, innermost;
	Dwarf_Addr cubias, a;
	Dwarf_Files *files = NULL;
	int n, nchain, i, nout = 0;

	if (!o->dw_tried) {
		o->dw_tried = true;
		o->dw = dwarf_open(o);
	}
	st = o->dw;
	if (!st)
		return 0;
	a = vaddr + st->bias;
	cudie = dwfl_module_addrdie(st->mod, a, &cubias);
	if (!cudie)
		return 0;
	n = dwarf_getscopes(cudie, a - cubias, &scopes);
	if (n <= 0)
		return 0;
	/* the concrete DIE path: scopes[0] and the DIEs that contain it */
	if (!dwarf_offdie(dwarf_cu_getdwarf(cudie->cu), dwarf_dieoffset(&scopes[0]), &innermost))
		goto out;
	nchain = dwarf_getscopes_die(&innermost, &chain);
	if (nchain <= 0)
		goto out;
	if (srcline)
		dwarf_getsrcfiles(cudie, &files, NULL);

	const char *file = NULL;
	int line = 0;
	if (srcline) {
		Dwfl_Line *l = dwfl_module_getsrc(st->mod, a);

		if (l) {
			const char *f = dwfl_lineinfo(l, NULL, &line, NULL, NULL, NULL);

			file = intern(st, f);
		}
	}
	for (i = 0; i < nchain && nout < max; i++) {
		int tag = dwarf_tag(&chain[i]);

		if (tag != DW_TAG_inlined_subroutine && tag != DW_TAG_subprogram)
			continue;
		if (tag == DW_TAG_inlined_subroutine && !inlines)
			continue;
		struct sym_frame *f = &out[nout++];

		memset(f, 0, sizeof(*f));
		f->name = die_name(st, &chain[i], demangle);
		f->dso = o->dso;
		f->inlined = tag == DW_TAG_inlined_subroutine;
		f->offset = a - cubias - die_start(&chain[i]);
		if (srcline) {
			f->srcfile = file;
			f->line = line;
		}
		if (tag == DW_TAG_subprogram)
			break;
		/* the next (outer) frame is at this inline instance's call site */
		if (srcline) {
			Dwarf_Attribute attr;
			Dwarf_Word w;

			file = NULL;
			line = 0;
			if (dwarf_formudata(dwarf_attr(&chain[i], DW_AT_call_file, &attr), &w) == 0 && files)
				file = intern(st, dwarf_filesrc(files, w, NULL, NULL));
			if (dwarf_formudata(dwarf_attr(&chain[i], DW_AT_call_line, &attr), &w) == 0)
				line = (int)w;
		}
	}
out:
	free(scopes);
	free(chain);
	return nout;
}
