/* `pprobe annotate`'s question to an object: one function's instructions
 * (capstone, AT&T on x86, as objdump and perf annotate print them), each
 * with its source line and the function inlined there from DWARF. The
 * object and its debug file are found as for -L (probe_finder.c); the
 * bytes decoded are bounded by the symbol's size, the section's end and
 * PF_ASM_MAX_BYTES, so a hostile st_size cannot make it read past them. */
#define _GNU_SOURCE
#include <capstone/capstone.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pprobe/lazylib.h"
#include "pprobe/probe_finder.h"
#include "probe_finder_internal.h"

#define MAX_SOURCES 64	/* source files read for one function (its own and its inlines') */

struct sources {
	struct source s[MAX_SOURCES];
	char *want[MAX_SOURCES];	/* the line table's name of each */
	bool ok[MAX_SOURCES];
	size_t n;
};

static const char *source_line(struct probe_finder *pf, struct sources *ss, Dwarf_Die *cu, const char *file,
			       int line)
{
	size_t i;
	for (i = 0; i < ss->n; i++)
		if (!strcmp(ss->want[i], file))
			break;
	if (i == ss->n) {
		if (ss->n == MAX_SOURCES)
			return NULL;
		ss->want[i] = strdup(file);
		if (!ss->want[i])
			return NULL;
		ss->ok[i] = !load_abs(pf, cu, file, &ss->s[i]);
		ss->n++;
	}
	if (!ss->ok[i] || line < 1 || line > ss->s[i].n)
		return NULL;
	return ss->s[i].lines[line - 1];
}

static void sources_free(struct sources *ss)
{
	for (size_t i = 0; i < ss->n; i++) {
		if (ss->ok[i])
			source_free(&ss->s[i]);
		free(ss->want[i]);
	}
}

/* File, line and the innermost inlined function at addr. */
static int insn_source(struct probe_finder *pf, struct sources *ss, struct pf_asm_insn *in)
{
	Dwarf_Die cu;
	if (!pf->dw || !dwarf_addrdie(pf->dw, in->addr, &cu))
		return 0;
	Dwarf_Line *l = dwarf_getsrc_die(&cu, in->addr);
	const char *file = l ? dwarf_linesrc(l, NULL, NULL) : NULL;
	if (file) {
		if (!(in->file = strdup(file)))
			return -ENOMEM;
		dwarf_lineno(l, &in->line);
		const char *text = source_line(pf, ss, &cu, file, in->line);
		if (text && !(in->src = strdup(text)))
			return -ENOMEM;
	}
	Dwarf_Die *scopes = NULL;
	int n = dwarf_getscopes(&cu, in->addr, &scopes);
	for (int i = 0; i < n; i++) {
		int tag = dwarf_tag(&scopes[i]);
		if (tag == DW_TAG_subprogram)
			break;
		if (tag == DW_TAG_inlined_subroutine) {
			const char *name = die_name(&scopes[i]);
			in->inlined = strdup(name ? name : "[unknown]");
			if (!in->inlined) {
				free(scopes);
				return -ENOMEM;
			}
			break;
		}
	}
	free(scopes);
	return 0;
}

void pf_asm__delete(struct pf_asm *a)
{
	if (!a)
		return;
	for (size_t i = 0; i < a->n; i++) {
		free(a->insns[i].text);
		free(a->insns[i].file);
		free(a->insns[i].inlined);
		free(a->insns[i].src);
	}
	free(a->insns);
	free(a->symbol);
	free(a);
}

static int decode(struct probe_finder *pf, struct pf_asm *a, const uint8_t *code, size_t size)
{
	struct sources ss = { .n = 0 };
	cs_insn *insn = CS(cs_malloc)(pf->cs);
	if (!insn)
		return -ENOMEM;
	uint64_t at = a->addr;
	size_t cap = 0;
	int ret = 0;
	while (size && !ret) {
		if (!CS(cs_disasm_iter)(pf->cs, &code, &size, &at, insn)) {
			a->truncated = true;	/* not code capstone knows: stop, say so */
			break;
		}
		if (a->n == cap) {
			cap = cap ? cap * 2 : 256;
			struct pf_asm_insn *v = realloc(a->insns, cap * sizeof(*v));
			if (!v) {
				ret = -ENOMEM;
				break;
			}
			a->insns = v;
		}
		struct pf_asm_insn *in = &a->insns[a->n++];
		memset(in, 0, sizeof(*in));
		in->addr = insn->address;
		/* a branch inside the function: its target named, as objdump does */
		char target[128] = "";
		char *end;
		unsigned long long to = strtoull(insn->op_str, &end, 16);
		if ((insn->mnemonic[0] == 'j' || !strncmp(insn->mnemonic, "call", 4)) && !strncmp(insn->op_str, "0x", 2) &&
		    !*end && to >= a->addr && to - a->addr < a->size)
			snprintf(target, sizeof(target), " <%s+%#llx>", a->symbol, to - a->addr);
		if (asprintf(&in->text, "%s%s%s%s", insn->mnemonic, insn->op_str[0] ? " " : "", insn->op_str,
			     target) < 0) {
			in->text = NULL;
			ret = -ENOMEM;
			break;
		}
		ret = insn_source(pf, &ss, in);
	}
	CS(cs_free)(insn, 1);
	sources_free(&ss);
	return ret;
}

int probe_finder__disasm(struct probe_finder *pf, uint64_t addr, struct pf_asm **out)
{
	*out = NULL;
	if (!pf->cs_ok)
		return pf_fail(pf, -ENOTSUP, "cannot disassemble %s: capstone is missing or knows no machine %u",
			       pf->path, (unsigned)pf->ehdr.e_machine);
	const struct sym_entry *s = sym_at(pf, addr, NULL, NULL);
	if (!s || !s->func || !s->size)
		return pf_fail(pf, -ENOENT, "no function symbol of %s holds %#llx", pf->path,
			       (unsigned long long)addr);
	if (s->size > PF_ASM_MAX_BYTES)
		return pf_fail(pf, -EFBIG, "%s of %s is %llu bytes long, more than the %u disassembled", s->name,
			       pf->path, (unsigned long long)s->size, PF_ASM_MAX_BYTES);
	size_t avail;
	const uint8_t *code = pf__code_at(pf, s->addr, &avail);
	if (!code)
		return pf_fail(pf, -ENOENT, "the code of %s is not in %s (no executable section holds %#llx)",
			       s->name, pf->path, (unsigned long long)s->addr);
	struct pf_asm *a = calloc(1, sizeof(*a));
	if (!a || !(a->symbol = strdup(s->name))) {
		free(a);
		return -ENOMEM;
	}
	a->addr = s->addr;
	a->size = s->size;
	size_t size = s->size < avail ? s->size : avail;
	a->truncated = size < s->size;
	int ret = decode(pf, a, code, size);
	if (ret) {
		pf_asm__delete(a);
		return pf_fail(pf, ret, "disassembling %s of %s: %s", s->name, pf->path, strerror(-ret));
	}
	*out = a;
	return 0;
}
