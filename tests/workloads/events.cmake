# Workloads of the events topic (event specs, list, USDT).
# events_usdt: four USDT probes, each with a semaphore, for `pprobe list -x`.
# (Not WL_FP: clang rejects -fno-inline-functions-called-once.)
pprobe_workload(events_usdt ${CMAKE_CURRENT_LIST_DIR}/events_usdt.c FLAGS -O2 -g -fno-omit-frame-pointer)
# events_prctl: N prctl calls per thread (exact syscall tracepoint counts).
pprobe_workload(events_prctl ${CMAKE_CURRENT_LIST_DIR}/events_prctl.c FLAGS -O2 -g LIBS pthread)
