/* Separate debug info lookup: build-id and .gnu_debuglink. */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pprobe/debuginfo.h"

#define DEBUG_ROOT "/usr/lib/debug"

static Elf *open_elf(const char *path, int *fd)
{
	elf_version(EV_CURRENT);
	*fd = open(path, O_RDONLY | O_CLOEXEC);
	if (*fd < 0)
		return NULL;
	Elf *e = elf_begin(*fd, ELF_C_READ_MMAP, NULL);
	if (!e || elf_kind(e) != ELF_K_ELF) {
		elf_end(e);
		close(*fd);
		*fd = -1;
		errno = ENOEXEC;
		return NULL;
	}
	return e;
}

static Elf_Scn *find_section(Elf *e, const char *name, GElf_Shdr *sh)
{
	size_t shstrndx;
	if (elf_getshdrstrndx(e, &shstrndx))
		return NULL;
	for (Elf_Scn *s = elf_nextscn(e, NULL); s; s = elf_nextscn(e, s)) {
		if (!gelf_getshdr(s, sh))
			continue;
		const char *n = elf_strptr(e, shstrndx, sh->sh_name);
		if (n && !strcmp(n, name))
			return s;
	}
	return NULL;
}

static int elf_build_id(Elf *e, unsigned char *id, size_t max)
{
	size_t nphdr;
	GElf_Shdr sh;
	/* Notes through sections first (debug files keep them), then phdrs. */
	for (Elf_Scn *s = elf_nextscn(e, NULL); s; s = elf_nextscn(e, s)) {
		if (!gelf_getshdr(s, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		Elf_Data *d = elf_getdata(s, NULL);
		if (!d)
			continue;
		size_t off = 0, noff, doff;
		GElf_Nhdr nh;
		while ((off = gelf_getnote(d, off, &nh, &noff, &doff)) > 0) {
			if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
			    !memcmp((char *)d->d_buf + noff, "GNU", 4) && nh.n_descsz <= max) {
				memcpy(id, (char *)d->d_buf + doff, nh.n_descsz);
				return (int)nh.n_descsz;
			}
		}
	}
	if (elf_getphdrnum(e, &nphdr))
		return -ENOENT;
	for (size_t i = 0; i < nphdr; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_NOTE)
			continue;
		Elf_Data *d = elf_getdata_rawchunk(e, ph.p_offset, ph.p_filesz, ELF_T_NHDR);
		if (!d)
			continue;
		size_t off = 0, noff, doff;
		GElf_Nhdr nh;
		while ((off = gelf_getnote(d, off, &nh, &noff, &doff)) > 0) {
			if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
			    !memcmp((char *)d->d_buf + noff, "GNU", 4) && nh.n_descsz <= max) {
				memcpy(id, (char *)d->d_buf + doff, nh.n_descsz);
				return (int)nh.n_descsz;
			}
		}
	}
	return -ENOENT;
}

static void to_hex(const unsigned char *id, int n, char *hex, size_t len)
{
	size_t o = 0;
	for (int i = 0; i < n && o + 3 <= len; i++)
		o += (size_t)snprintf(hex + o, len - o, "%02x", id[i]);
	if (len)
		hex[o < len ? o : len - 1] = '\0';
}

int debuginfo__build_id(const char *path, char *hex, size_t len)
{
	int fd;
	unsigned char id[64];
	Elf *e = open_elf(path, &fd);
	if (!e)
		return -errno;
	int n = elf_build_id(e, id, sizeof(id));
	elf_end(e);
	close(fd);
	if (n > 0)
		to_hex(id, n, hex, len);
	return n;
}

static bool has_dwarf(Elf *e)
{
	GElf_Shdr sh;
	Elf_Scn *s = find_section(e, ".debug_info", &sh);
	return s && sh.sh_type != SHT_NOBITS && sh.sh_size > 0;
}

/* A candidate is good when it has DWARF and a matching (or no) build-id. */
static bool candidate_ok(const char *cand, const unsigned char *id, int idlen)
{
	int fd;
	Elf *e = open_elf(cand, &fd);
	if (!e)
		return false;
	bool ok = has_dwarf(e);
	if (ok && idlen > 0) {
		unsigned char cid[64];
		int n = elf_build_id(e, cid, sizeof(cid));
		if (n > 0 && (n != idlen || memcmp(cid, id, (size_t)n)))
			ok = false;
	}
	elf_end(e);
	close(fd);
	return ok;
}

static int try_path(const char *cand, const unsigned char *id, int idlen, char *out, size_t len)
{
	if (!candidate_ok(cand, id, idlen))
		return -ENOENT;
	if (strlen(cand) >= len)
		return -ENAMETOOLONG;
	strcpy(out, cand);
	return 0;
}

int debuginfo__find(const char *path, char *out, size_t len)
{
	char real[PATH_MAX], cand[PATH_MAX * 2], dir[PATH_MAX];
	unsigned char id[64];
	int fd, idlen, ret = -ENOENT;
	char *link = NULL;

	if (!realpath(path, real))
		return -errno;
	Elf *e = open_elf(real, &fd);
	if (!e)
		return -errno;
	if (has_dwarf(e)) {
		elf_end(e);
		close(fd);
		return try_path(real, NULL, 0, out, len);
	}
	idlen = elf_build_id(e, id, sizeof(id));
	GElf_Shdr sh;
	Elf_Scn *s = find_section(e, ".gnu_debuglink", &sh);
	if (s) {
		Elf_Data *d = elf_getdata(s, NULL);
		if (d && d->d_size > 4 && memchr(d->d_buf, '\0', d->d_size))
			link = strdup(d->d_buf);
	}
	elf_end(e);
	close(fd);

	if (idlen > 0) {
		char hex[130];
		to_hex(id, idlen, hex, sizeof(hex));
		snprintf(cand, sizeof(cand), DEBUG_ROOT "/.build-id/%.2s/%s.debug", hex, hex + 2);
		if (!(ret = try_path(cand, id, idlen, out, len)))
			goto out;
	}
	if (link && *link) {
		snprintf(dir, sizeof(dir), "%s", real);
		char *slash = strrchr(dir, '/');
		if (slash)
			*slash = '\0';
		const char *fmts[] = { "%s/%s", "%s/.debug/%s", DEBUG_ROOT "%s/%s" };
		for (size_t i = 0; i < 3; i++) {
			snprintf(cand, sizeof(cand), fmts[i], dir, link);
			if (!strcmp(cand, real))
				continue;
			if (!(ret = try_path(cand, id, idlen, out, len)))
				goto out;
		}
	}
	ret = -ENOENT;
out:
	free(link);
	return ret;
}
