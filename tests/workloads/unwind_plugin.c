/* dlopen'd by unwind_wl: plugin_run -> plugin_recurse*(levels) -> cb. */
#ifdef __clang__
#define NOINL __attribute__((noinline))
#else
#define NOINL __attribute__((noinline, noclone))
#endif

NOINL int plugin_recurse(int n, void (*cb)(void), volatile char *prev)
{
	volatile char frame[300];
	frame[0] = (char)n;
	frame[299] = prev ? prev[0] : 0;
	if (n <= 1) {
		cb();
		return frame[0];
	}
	return plugin_recurse(n - 1, cb, frame) + frame[299];
}

int plugin_run(int levels, void (*cb)(void))
{
	return plugin_recurse(levels, cb, 0) == -7;
}
