# Workloads of the probe topic (ephemeral uprobes, tests/e2e/probe_pmu*.sh).
# probe_wl_O2: optimized, PIE; probe_wl_O0: unoptimized, not PIE (trace's
# printed addresses are then nm's).
# gcc: -fipa-cp-clone makes probe_clone.constprop.0 (a second instance of a function).
set(PROBE_WL_CLONE)
if(CMAKE_C_COMPILER_ID STREQUAL "GNU")
  set(PROBE_WL_CLONE -fipa-cp-clone)
endif()
pprobe_workload(probe_wl_O2 ${CMAKE_CURRENT_LIST_DIR}/probe_wl.c FLAGS -O2 -g ${PROBE_WL_CLONE})
pprobe_workload(probe_wl_O0 ${CMAKE_CURRENT_LIST_DIR}/probe_wl.c FLAGS -O0 -g -fno-pie LIBS -no-pie)
# probe_throw: N C++ exceptions (libstdc++'s USDT notes libstdcxx:throw/catch).
pprobe_workload(probe_throw ${CMAKE_CURRENT_LIST_DIR}/probe_throw.cc FLAGS -O2 -g)
# probe_usdt: one USDT probe at two sites, one behind a semaphore.
pprobe_workload(probe_usdt ${CMAKE_CURRENT_LIST_DIR}/probe_usdt.c FLAGS -O2 -g)
