/* Code with neither CFI nor a frame pointer (see unwind.cmake): nothing can
 * step over nocfi_nofp_call honestly, so a walk through it must end there
 * as no-cfi, never claim a complete stack. */
#define NOINL __attribute__((noinline))

NOINL int nocfi_nofp_call(void (*fn)(void))
{
	volatile char buf[64];
	buf[0] = 1;
	fn();
	buf[1] = 2;
	return buf[0] + buf[1];
}

/* A leaf loop without CFI that keeps its stack as the call left it (its
 * return address at sp): a sample in it can step to the caller through
 * that word (mode nocfileaf). */
volatile unsigned long nocfi_leaf_sink;
NOINL void nocfi_leaf_spin(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		nocfi_leaf_sink += i;
}
