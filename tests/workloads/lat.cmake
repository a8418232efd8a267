# lat_wl: sleeps of known lengths from forked, exec'd and threaded tasks
# (trace --latency, tests/e2e/trace_latency.sh)
pprobe_workload(lat_wl ${CMAKE_CURRENT_LIST_DIR}/lat_wl.c FLAGS -O2 -g LIBS pthread)
