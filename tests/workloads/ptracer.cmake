# ptracer: an exact number of ptrace(2) calls (N + 3), for the syscall tracer
# and the function tracer. Static: no loader, so the VM's initramfs needs no
# libraries for it.
pprobe_workload(ptracer ${CMAKE_CURRENT_LIST_DIR}/ptracer.c FLAGS -O2 -g)
target_link_options(ptracer PRIVATE -static)
