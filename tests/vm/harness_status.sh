#!/bin/sh
# Guest script (busybox ash, POSIX sh) for tests/e2e/vm_kprobe.sh's checks of
# the harness itself: prints its arguments, then
#   harness_status.sh exit STATUS [ARGS...]   exits with STATUS, leaving a
#                                             'sleep 1000' behind (the harness kills it)
#   harness_status.sh sleep                   never finishes (timeout, SIGINT)
echo "argc: $#"
for a in "$@"; do echo "arg: [$a]"; done
case $1 in
exit) sleep 1000 & exit "$2" ;;
sleep) echo "guest sleeping"; while :; do sleep 60; done ;;
*) echo "usage: harness_status.sh exit STATUS | sleep" >&2; exit 2 ;;
esac
