/* C++ and Rust (legacy and v0) demangling through libiberty, the demangler
 * binutils and gdb use. */
#include <stdlib.h>
#include <string.h>

#include <libiberty/demangle.h>

#include "sym_internal.h"

char *pprobe_demangle(const char *name)
{
	/* _Z: Itanium C++ (also Rust legacy, which libiberty recognises by its
	 * hash suffix); _R: Rust v0. Anything else is a plain name. */
	if (!name || name[0] != '_' || (name[1] != 'Z' && name[1] != 'R'))
		return NULL;
	return cplus_demangle(name, DMGL_PARAMS | DMGL_ANSI | DMGL_AUTO);
}
