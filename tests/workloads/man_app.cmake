# The ./app of the man pages' EXAMPLES (tests/e2e/man_examples.sh).
pprobe_workload(man_app man_app.c FLAGS -O2 -g LIBS pthread)
