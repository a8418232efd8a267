# Workloads of the vmprobe topic (kernel probes proven in scripts/vmtest.sh's VM).
# vmprobe_wl: exact numbers of open(2) calls (from threads and forked children
# too) and of loopback TCP sends. Linked statically: no ld.so opens before
# main, so a command's open count is exactly the opens it was asked for.
pprobe_workload(vmprobe_wl ${CMAKE_CURRENT_LIST_DIR}/vmprobe_wl.c FLAGS -O2 -g -fno-omit-frame-pointer LIBS pthread)
target_link_options(vmprobe_wl PRIVATE -static)
