# agg_wl: writes of known sizes from forked, exec'd and threaded tasks
# (tests/e2e/trace_agg.sh). -O2 with task_writes() noinline.
pprobe_workload(agg_wl ${CMAKE_CURRENT_LIST_DIR}/agg_wl.c FLAGS -O2 -g LIBS pthread)
