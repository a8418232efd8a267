/* USDT notes via libelf. */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pprobe/safe_open.h"
#include "pprobe/usdt.h"

#ifndef NT_STAPSDT
#define NT_STAPSDT 3
#endif

void usdt__free(struct usdt_probe *probes, int nr)
{
	if (!probes)
		return;
	for (int i = 0; i < nr; i++) {
		free(probes[i].provider);
		free(probes[i].name);
		free(probes[i].args);
	}
	free(probes);
}

/* Virtual address -> file offset through the PT_LOAD segments; 0 if none. */
static uint64_t vaddr_to_offset(Elf *elf, uint64_t addr)
{
	size_t n;
	if (elf_getphdrnum(elf, &n))
		return 0;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(elf, i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (addr >= ph.p_vaddr && addr < ph.p_vaddr + ph.p_filesz)
			return addr - ph.p_vaddr + ph.p_offset;
	}
	/* ET_REL or no program headers: a section's address is its offset */
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		if (gelf_getshdr(scn, &sh) && sh.sh_type != SHT_NOBITS && sh.sh_addr &&
		    addr >= sh.sh_addr && addr < sh.sh_addr + sh.sh_size)
			return addr - sh.sh_addr + sh.sh_offset;
	}
	return 0;
}

static int add_probe(struct usdt_probe **v, int *nr, int *cap, const struct usdt_probe *p)
{
	if (*nr == *cap) {
		int c = *cap ? *cap * 2 : 16;
		struct usdt_probe *n = realloc(*v, c * sizeof(*n));
		if (!n)
			return -ENOMEM;
		*v = n;
		*cap = c;
	}
	(*v)[(*nr)++] = *p;
	return 0;
}

int usdt__read(const char *path, struct usdt_probe **out)
{
	struct usdt_probe *v = NULL;
	int nr = 0, cap = 0, err = 0;
	Elf *elf = NULL;
	int fd;

	*out = NULL;
	elf_version(EV_CURRENT);
	fd = safe_open_file(path);	/* never blocks on a FIFO */
	if (fd < 0)
		return fd == -EPERM ? -ENOEXEC : fd;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		err = -ENOEXEC;
		goto err;
	}
	int cls = gelf_getclass(elf);
	size_t asz = cls == ELFCLASS32 ? 4 : 8, shstrndx;
	if (elf_getshdrstrndx(elf, &shstrndx)) {
		err = -ENOEXEC;
		goto err;
	}
	/* .stapsdt.base's actual address, to correct prelinked files */
	uint64_t base_addr = 0;
	int have_base = 0;
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *nm;
		if (gelf_getshdr(scn, &sh) && (nm = elf_strptr(elf, shstrndx, sh.sh_name)) &&
		    !strcmp(nm, ".stapsdt.base")) {
			base_addr = sh.sh_addr;
			have_base = 1;
		}
	}
	scn = NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *nm;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE ||
		    !(nm = elf_strptr(elf, shstrndx, sh.sh_name)) || strcmp(nm, ".note.stapsdt"))
			continue;
		Elf_Data *data = elf_getdata(scn, NULL);
		if (!data)
			continue;
		size_t off = 0, name_off, desc_off;
		GElf_Nhdr nh;
		while ((off = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0) {
			if (nh.n_type != NT_STAPSDT || nh.n_namesz != 8 ||
			    memcmp((char *)data->d_buf + name_off, "stapsdt", 8) || nh.n_descsz < 3 * asz + 3)
				continue;
			const unsigned char *d = (const unsigned char *)data->d_buf + desc_off;
			uint64_t a[3] = { 0, 0, 0 };
			for (int k = 0; k < 3; k++) {
				if (asz == 8) {
					memcpy(&a[k], d + k * 8, 8);
				} else {
					uint32_t x;
					memcpy(&x, d + k * 4, 4);
					a[k] = x;
				}
			}
			const char *s = (const char *)d + 3 * asz, *end = (const char *)d + nh.n_descsz;
			/* provider\0name\0args\0; a NULL from memchr is never stepped
			 * past (arithmetic on NULL is undefined) */
			const char *prov = s, *name = memchr(prov, 0, (size_t)(end - prov));
			if (!name || ++name >= end)
				continue;
			const char *args = memchr(name, 0, (size_t)(end - name));
			if (!args)
				continue;
			if (++args >= end || !memchr(args, 0, (size_t)(end - args)))
				args = "";
			struct usdt_probe p = { 0 };
			uint64_t delta = have_base ? base_addr - a[1] : 0;
			p.pc = a[0] + delta;
			p.semaphore = a[2] ? a[2] + delta : 0;
			p.pc_offset = vaddr_to_offset(elf, p.pc);
			p.semaphore_offset = p.semaphore ? vaddr_to_offset(elf, p.semaphore) : 0;
			p.provider = strdup(prov);
			p.name = strdup(name);
			p.args = strdup(args);
			if (!p.provider || !p.name || !p.args || add_probe(&v, &nr, &cap, &p)) {
				free(p.provider);
				free(p.name);
				free(p.args);
				err = -ENOMEM;
				goto err;
			}
		}
	}
	elf_end(elf);
	close(fd);
	*out = v;
	return nr;
err:
	usdt__free(v, nr);
	if (elf)
		elf_end(elf);
	close(fd);
	return err;
}
