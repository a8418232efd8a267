# The fetch-arg translator's workload (tests/unit/test_probe_args.c): the
# same source at -O0 (frame pointer, stack slots) and -O2 (registers,
# location lists, no frame pointer), pinned against the sanitizer build's
# global flags like the inspector's.
pprobe_workload(probeargs_wl_O0 probeargs_wl.c FLAGS -O0 -g -fno-omit-frame-pointer)
pprobe_workload(probeargs_wl_O2 probeargs_wl.c FLAGS -O2 -g -fomit-frame-pointer)
