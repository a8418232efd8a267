# pprobe --add / temporary probes with arguments (tests/e2e/probe_add*.sh):
# the same server-like workload at -O0 (arguments on the stack, past the
# prologue) and -O2 (arguments in registers at the entry).
pprobe_workload(probeadd_server_O0 probeadd_server.c FLAGS -O0 -g -fno-omit-frame-pointer)
pprobe_workload(probeadd_server_O2 probeadd_server.c FLAGS -O2 -g -fomit-frame-pointer)
