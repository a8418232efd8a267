/* Code with neither CFI nor a frame pointer (see unwind.cmake). A walk
 * steps over nocfi_nofp_call by emulating its code from the return address
 * to its ret (mode nofp); nothing can step over nocfi_opaque_call honestly
 * (it restores %rsp from a register), so a walk through it must end there
 * as no-cfi, never claim a complete stack (mode opaque). */
#define NOINL __attribute__((noinline))

#ifdef __x86_64__
__asm__(".text\n"
	".globl nocfi_opaque_call\n"
	".type nocfi_opaque_call, @function\n"
	"nocfi_opaque_call:\n"
	"	push %r12\n"
	"	mov %rsp, %r12\n"
	"	and $-32, %rsp\n"
	"	call *%rdi\n"
	"	mov %r12, %rsp\n"
	"	pop %r12\n"
	"	mov $3, %eax\n"
	"	ret\n"
	".size nocfi_opaque_call, .-nocfi_opaque_call\n");
#endif

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
