/* Code without CFI (compiled -fno-asynchronous-unwind-tables
 * -fno-unwind-tables, see unwind.cmake) but with a frame pointer: only the
 * frame-pointer fallback can step over nocfi_call. */
#define NOINL __attribute__((noinline))

NOINL int nocfi_call(void (*fn)(void))
{
	volatile char buf[64];
	buf[0] = 1;
	fn();
	buf[1] = 2;
	return buf[0] + buf[1];
}
