# annotate_wl: a thread of an exec'd child spends its time in one division
# chain, inlined from mix() into hot_loop (tests/e2e/annotate.sh). -O2 -g:
# the inlining and the single hot instruction are what the test asserts;
# -fno-unroll-loops: clang would unroll the loop into two divisions that
# share the samples.
pprobe_workload(annotate_wl ${CMAKE_CURRENT_LIST_DIR}/annotate_wl.c FLAGS -O2 -g -fno-unroll-loops LIBS pthread)
