/* C side of tests/workloads/go_cgo_wl (see main.go) */
long cspin(long n);
long ccallback(long n);
