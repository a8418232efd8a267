# The -F/-L/-V inspector's workload: the same source at -O0 and -O2 (the
# golden files in tests/golden/inspect/ depend on its line numbers and on
# the compiler's output, so the frame-pointer choice is pinned against the
# sanitizer build's global -fno-omit-frame-pointer). At -O2 GCC clones scale
# (scale.constprop.0) and point_x (point_x.isra.0); tests/e2e/inspect.sh
# checks that with readelf.
pprobe_workload(inspect_wl_O0 inspect_wl.c FLAGS -O0 -g -fno-omit-frame-pointer)
pprobe_workload(inspect_wl_O2 inspect_wl.c FLAGS -O2 -g -fomit-frame-pointer)
