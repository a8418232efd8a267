# offcpu_wl: known shares of on-CPU, sleeping and pipe-blocked time, and a
# pipe ping-pong (record --off-cpu, scripts/bench/offcpu.sh). No frame
# pointers: its stacks come from DWARF.
pprobe_workload(offcpu_wl ${CMAKE_CURRENT_LIST_DIR}/offcpu_wl.c FLAGS ${WL_NOFP} LIBS pthread)
