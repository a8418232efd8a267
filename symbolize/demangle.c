/* C++ and Rust (legacy and v0) demangling through libiberty, the demangler
 * binutils and gdb use. */
#include <stdlib.h>
#include <string.h>

#include <libiberty/demangle.h>

#include "sym_internal.h"

bool pprobe_mangled(const char *name)
{
	/* _Z: Itanium C++ (also Rust legacy, which libiberty recognises by its
	 * hash suffix); _R: Rust v0. Anything else is a plain name. */
	return name && name[0] == '_' && (name[1] == 'Z' || name[1] == 'R');
}

char *pprobe_demangle(const char *name)
{
	if (!pprobe_mangled(name))
		return NULL;
	return cplus_demangle(name, DMGL_PARAMS | DMGL_ANSI | DMGL_AUTO);
}
