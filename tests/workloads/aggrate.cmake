# aggrate_wl: read(2)s of /dev/zero at a chosen rate, through a noinline
# wl_event() (scripts/bench/aggregate.sh). -O2.
pprobe_workload(aggrate_wl ${CMAKE_CURRENT_LIST_DIR}/aggrate_wl.c FLAGS -O2 -g)
