// The workload of tests/e2e/record_go_cgo.sh: cgo. Goroutines on several
// threads call the C spin loop cspin (spin.c, compiled by cgo with gcc -g)
// through main.cwork, and one goroutine also calls C (ccallback) that calls
// back into Go (main.goback, //export) which spins in main.gospin. C code
// runs on the thread's system (g0) stack after runtime.asmcgocall switched
// to it; Go code called back from C runs on the goroutine's stack again.
package main

/*
#include "spin.h"
*/
import "C"

import (
	"fmt"
	"sync"
)

//go:noinline
func cwork(rounds, n int) int {
	t := 0
	for i := 0; i < rounds; i++ {
		t += int(C.cspin(C.long(n)))
	}
	return t
}

//go:noinline
func gospin(n int) int {
	s := 0
	for i := 0; i < n; i++ {
		s += i * i % 7
	}
	return s
}

//export goback
func goback(n C.long) C.long {
	return C.long(gospin(int(n)))
}

//go:noinline
func viaC(rounds, n int) int {
	t := 0
	for i := 0; i < rounds; i++ {
		t += int(C.ccallback(C.long(n)))
	}
	return t
}

func main() {
	var wg sync.WaitGroup
	res := make([]int, 3)
	for g := range res {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			if g == 2 {
				res[g] = viaC(300, 1000000)
			} else {
				res[g] = cwork(300, 1000000)
			}
		}(g)
	}
	wg.Wait()
	fmt.Println(res[0] + res[1] + res[2])
}
