# probe_fork: forks, execs itself and starts threads, each calling work() a
# known number of times (tests/e2e/probe_fork.sh). -O2 with work() noinline.
pprobe_workload(probe_fork ${CMAKE_CURRENT_LIST_DIR}/probe_fork.c FLAGS -O2 -g LIBS pthread)
