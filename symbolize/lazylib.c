/* Libraries loaded at their first use: see pprobe/lazylib.h. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

#include "pprobe/lazylib.h"

static pthread_mutex_t loading = PTHREAD_MUTEX_INITIALIZER;

bool lazylib__load(struct lazylib *l)
{
	int state = __atomic_load_n(&l->state, __ATOMIC_ACQUIRE);

	if (state)
		return state > 0;
	pthread_mutex_lock(&loading);
	if (!l->state) {
		/* RTLD_LOCAL: its symbols stay its own; never unloaded (its
		 * functions may be in use until the process ends) */
		void *h = dlopen(l->soname, RTLD_NOW | RTLD_LOCAL);
		const char *err = h ? NULL : dlerror();
		size_t i;

		for (i = 0; h && i < l->n; i++) {
			l->fns[i] = dlsym(h, l->names[i]);
			if (!l->fns[i]) {
				snprintf(l->why, sizeof(l->why), "%s has no %s", l->soname, l->names[i]);
				break;
			}
		}
		if (!h)
			snprintf(l->why, sizeof(l->why), "cannot load %s: %s", l->soname, err ? err : "not found");
		__atomic_store_n(&l->state, h && i == l->n ? 1 : -1, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&loading);
	return l->state > 0;
}

#define STR(x) #x
#define XSTR(x) STR(x)

struct capstone_fns capstone_fns;
static const char *const capstone_names[] = { CAPSTONE_FNS(LAZYLIB_NAME) };
/* the soname of the capstone whose header we were built with */
static struct lazylib capstone = LAZYLIB_INIT("libcapstone.so." XSTR(CS_API_MAJOR), capstone_names, capstone_fns);

bool capstone__load(void)
{
	return lazylib__load(&capstone);
}
