# A CPython workload for tests/e2e/record_jit.sh: python -X perf (a perf
# map of trampolines, 3.12+) or -X perf_jit (a jitdump, 3.13+). For SECS
# seconds (argv[1]) three workers spin in the same named functions: the main
# thread, a thread (jit_thread_main) and a forked child (jit_child_main).
# Every sample of a worker is in jit_spin -> jit_descend (20 levels of
# recursion) -> jit_fib (recursive), all Python. Prints the pids.
import os
import sys
import threading
import time


def jit_fib(n):
    return n if n < 2 else jit_fib(n - 1) + jit_fib(n - 2)


def jit_descend(depth, n):
    return jit_fib(n) if depth == 0 else jit_descend(depth - 1, n)


def jit_spin(secs):
    end = time.monotonic() + secs
    total = 0
    while time.monotonic() < end:
        total += jit_descend(20, 14)
    return total


def jit_thread_main(secs):
    jit_spin(secs)


def jit_child_main(secs):
    jit_spin(secs)
    sys.exit(0)  # not os._exit: -X perf_jit's buffered jitdump is flushed at exit


def main():
    secs = float(sys.argv[1]) if len(sys.argv) > 1 else 2.0
    t = threading.Thread(target=jit_thread_main, args=(secs,))
    t.start()
    pid = os.fork()
    if pid == 0:
        jit_child_main(secs)
    print(f"parent {os.getpid()} child {pid}", flush=True)
    jit_spin(secs)
    t.join()
    os.waitpid(pid, 0)


main()
