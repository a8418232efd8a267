# Workloads for record's tests: frame pointers kept so --call-graph fp is exact.
pprobe_workload(wl_record record_wl.c FLAGS ${WL_FP} LIBS dl pthread)
add_library(wl_dl SHARED record_dl.c)
target_compile_options(wl_dl PRIVATE -fno-sanitize=all ${WL_FP})
target_link_options(wl_dl PRIVATE -fno-sanitize=all)
set_target_properties(wl_dl PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
add_dependencies(wl_record wl_dl)
pprobe_workload(demo_app demo_app.c FLAGS ${WL_FP} LIBS m)
# A C++ program whose stacks run through 120 template instantiations (issue 12).
pprobe_workload(wl_cxx_deep record_cxx.cc FLAGS ${WL_NOFP} LIBS pthread)
target_compile_features(wl_cxx_deep PRIVATE cxx_std_17)
# A miniature JIT with a /tmp/perf-PID.map of its making: ordinary, a FIFO,
# another user's (issue 16, e2e/record_hostile_files).
pprobe_workload(jit_wl jit_wl.c FLAGS ${WL_FP} LIBS pthread)
