/* sysfs PMU discovery. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pmu.h"

static char sysfs_root[PATH_MAX] = "/sys";

void pmu__set_sysfs_root(const char *root)
{
	snprintf(sysfs_root, sizeof(sysfs_root), "%s", root ? root : "/sys");
}

const char *pmu__sysfs_root(void)
{
	return sysfs_root;
}

/* ROOT/bus/event_source/devices/NAME/LEAF */
static int devpath(char *buf, size_t len, const char *name, const char *leaf)
{
	int n = snprintf(buf, len, "%s/bus/event_source/devices%s%s%s%s", sysfs_root,
			 name ? "/" : "", name ? name : "", leaf ? "/" : "", leaf ? leaf : "");
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

/* Small sysfs file into buf, trailing whitespace removed. */
static int read_small(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ssize_t r = read(fd, buf, len - 1);
	int err = r < 0 ? -errno : 0;
	close(fd);
	if (err)
		return err;
	buf[r] = 0;
	while (r > 0 && isspace((unsigned char)buf[r - 1]))
		buf[--r] = 0;
	return 0;
}

int pmu_format__parse(struct pmu_format *fmt, const char *text)
{
	const char *p = text;
	uint64_t bits = 0;

	if (!strncmp(p, "config2:", 8)) {
		fmt->field = PMU_FIELD_CONFIG2;
		p += 8;
	} else if (!strncmp(p, "config1:", 8)) {
		fmt->field = PMU_FIELD_CONFIG1;
		p += 8;
	} else if (!strncmp(p, "config:", 7)) {
		fmt->field = PMU_FIELD_CONFIG;
		p += 7;
	} else {
		return -EINVAL;
	}
	for (;;) {
		char *end;
		unsigned long lo = strtoul(p, &end, 10), hi = lo;
		if (end == p || lo > 63)
			return -EINVAL;
		p = end;
		if (*p == '-') {
			p++;
			hi = strtoul(p, &end, 10);
			if (end == p || hi > 63 || hi < lo)
				return -EINVAL;
			p = end;
		}
		for (unsigned long b = lo; b <= hi; b++)
			bits |= 1ULL << b;
		if (*p == ',') {
			p++;
			continue;
		}
		while (isspace((unsigned char)*p))
			p++;
		if (*p)
			return -EINVAL;
		break;
	}
	fmt->bits = bits;
	fmt->width = __builtin_popcountll(bits);
	return 0;
}

int pmu_format__encode(const struct pmu_format *fmt, uint64_t value, struct perf_event_attr *attr)
{
	__u64 *dst = fmt->field == PMU_FIELD_CONFIG ? &attr->config
		      : fmt->field == PMU_FIELD_CONFIG1 ? &attr->config1 : &attr->config2;

	if (fmt->width < 64 && (value >> fmt->width))
		return -ERANGE;
	uint64_t v = 0;
	unsigned vb = 0;
	for (unsigned b = 0; b < 64; b++) {
		if (!(fmt->bits & (1ULL << b)))
			continue;
		if (value & (1ULL << vb))
			v |= 1ULL << b;
		vb++;
	}
	*dst = (*dst & ~fmt->bits) | v;
	return 0;
}

void pmu__free(struct pmu *pmu)
{
	if (!pmu)
		return;
	for (size_t i = 0; i < pmu->nr_formats; i++)
		free(pmu->formats[i].name);
	for (size_t i = 0; i < pmu->nr_aliases; i++) {
		free(pmu->aliases[i].name);
		free(pmu->aliases[i].terms);
	}
	free(pmu->formats);
	free(pmu->aliases);
	free(pmu->name);
	free(pmu);
}

static int cmp_alias(const void *a, const void *b)
{
	return strcmp(((const struct pmu_alias *)a)->name, ((const struct pmu_alias *)b)->name);
}

/* events/ metadata files that are not aliases. */
static int is_alias_metadata(const char *name)
{
	static const char *const sfx[] = { ".scale", ".unit", ".per-pkg", ".snapshot" };
	size_t n = strlen(name);
	for (size_t i = 0; i < sizeof(sfx) / sizeof(sfx[0]); i++) {
		size_t s = strlen(sfx[i]);
		if (n > s && !strcmp(name + n - s, sfx[i]))
			return 1;
	}
	return 0;
}

struct pmu *pmu__load(const char *name)
{
	char path[PATH_MAX], buf[4096];
	struct pmu *pmu = NULL;
	DIR *d = NULL;
	int err;

	if (!*name || strchr(name, '/') || !strcmp(name, ".") || !strcmp(name, "..")) {
		err = -ENOENT;
		goto err;
	}
	err = devpath(path, sizeof(path), name, "type");
	if (!err)
		err = read_small(path, buf, sizeof(buf));
	if (err)
		goto err;
	pmu = calloc(1, sizeof(*pmu));
	if (!pmu || !(pmu->name = strdup(name))) {
		err = -ENOMEM;
		goto err;
	}
	char *end;
	unsigned long type = strtoul(buf, &end, 10);
	if (end == buf || type > UINT32_MAX) {
		err = -EINVAL;
		goto err;
	}
	pmu->type = type;

	d = devpath(path, sizeof(path), name, "format") ? NULL : opendir(path);
	if (d) {
		struct dirent *de;
		size_t cap = 0;
		while ((de = readdir(d))) {
			char fpath[PATH_MAX + 256];
			struct pmu_format f = { 0 };
			if (de->d_name[0] == '.')
				continue;
			int n = snprintf(fpath, sizeof(fpath), "%s/%s", path, de->d_name);
			if (n < 0 || (size_t)n >= sizeof(fpath) || read_small(fpath, buf, sizeof(buf)) ||
			    pmu_format__parse(&f, buf))
				continue;   /* formats we do not understand are skipped */
			if (pmu->nr_formats == cap) {
				cap = cap ? cap * 2 : 16;
				void *n = realloc(pmu->formats, cap * sizeof(*pmu->formats));
				if (!n) {
					err = -ENOMEM;
					goto err;
				}
				pmu->formats = n;
			}
			if (!(f.name = strdup(de->d_name))) {
				err = -ENOMEM;
				goto err;
			}
			pmu->formats[pmu->nr_formats++] = f;
		}
		closedir(d);
		d = NULL;
	}

	d = devpath(path, sizeof(path), name, "events") ? NULL : opendir(path);
	if (d) {
		struct dirent *de;
		size_t cap = 0;
		while ((de = readdir(d))) {
			char fpath[PATH_MAX + 256];
			if (de->d_name[0] == '.' || is_alias_metadata(de->d_name))
				continue;
			int n = snprintf(fpath, sizeof(fpath), "%s/%s", path, de->d_name);
			if (n < 0 || (size_t)n >= sizeof(fpath) || read_small(fpath, buf, sizeof(buf)))
				continue;
			if (pmu->nr_aliases == cap) {
				cap = cap ? cap * 2 : 16;
				void *n = realloc(pmu->aliases, cap * sizeof(*pmu->aliases));
				if (!n) {
					err = -ENOMEM;
					goto err;
				}
				pmu->aliases = n;
			}
			struct pmu_alias *a = &pmu->aliases[pmu->nr_aliases];
			a->name = strdup(de->d_name);
			a->terms = strdup(buf);
			if (!a->name || !a->terms) {
				free(a->name);
				free(a->terms);
				err = -ENOMEM;
				goto err;
			}
			pmu->nr_aliases++;
		}
		closedir(d);
		d = NULL;
		if (pmu->nr_aliases)
			qsort(pmu->aliases, pmu->nr_aliases, sizeof(*pmu->aliases), cmp_alias);
	}
	return pmu;
err:
	if (d)
		closedir(d);
	pmu__free(pmu);
	errno = -err;
	return NULL;
}

static int cmp_pmu(const void *a, const void *b)
{
	return strcmp((*(struct pmu *const *)a)->name, (*(struct pmu *const *)b)->name);
}

void pmu__free_all(struct pmu **pmus, int nr)
{
	if (!pmus)
		return;
	for (int i = 0; i < nr; i++)
		pmu__free(pmus[i]);
	free(pmus);
}

int pmu__load_all(struct pmu ***out)
{
	char path[PATH_MAX];
	struct pmu **v = NULL;
	int nr = 0, cap = 0, err;
	DIR *d;

	*out = NULL;
	if (devpath(path, sizeof(path), NULL, NULL))
		return -ENAMETOOLONG;
	d = opendir(path);
	if (!d)
		return -errno;
	struct dirent *de;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		struct pmu *p = pmu__load(de->d_name);
		if (!p) {
			if (errno == ENOMEM) {
				err = -ENOMEM;
				goto err;
			}
			continue;
		}
		if (nr == cap) {
			cap = cap ? cap * 2 : 16;
			struct pmu **n = realloc(v, cap * sizeof(*v));
			if (!n) {
				pmu__free(p);
				err = -ENOMEM;
				goto err;
			}
			v = n;
		}
		v[nr++] = p;
	}
	closedir(d);
	if (nr)
		qsort(v, nr, sizeof(*v), cmp_pmu);
	*out = v;
	return nr;
err:
	closedir(d);
	pmu__free_all(v, nr);
	return err;
}

const struct pmu_format *pmu__format(const struct pmu *pmu, const char *term)
{
	for (size_t i = 0; i < pmu->nr_formats; i++)
		if (!strcmp(pmu->formats[i].name, term))
			return &pmu->formats[i];
	return NULL;
}

const struct pmu_alias *pmu__alias(const struct pmu *pmu, const char *name)
{
	for (size_t i = 0; i < pmu->nr_aliases; i++)
		if (!strcasecmp(pmu->aliases[i].name, name))
			return &pmu->aliases[i];
	return NULL;
}

bool pmu__have_core_pmu(void)
{
	struct pmu **pmus;
	int nr = pmu__load_all(&pmus);
	bool have = false;

	for (int i = 0; i < nr && !have; i++) {
		const char *n = pmus[i]->name;
		if (pmus[i]->type == PERF_TYPE_RAW || !strcmp(n, "cpu") || !strcmp(n, "cpu_core") ||
		    !strcmp(n, "cpu_atom") || !strncmp(n, "armv", 4))
			have = true;
	}
	pmu__free_all(pmus, nr);
	return have;
}
