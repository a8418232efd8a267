// The workload of tests/e2e/record_go.sh: goroutines on several threads
// spin in leaf under mid, and the program forks and execs itself ("child")
// through os/exec, which does the same. Built there three ways: Go's
// defaults (compressed DWARF), -ldflags=-compressdwarf=false, and stripped
// (-ldflags='-s -w': .gopclntab only).
//
// "go_wl pprof FILE" (tests/e2e/record_go_pprof.sh) writes a runtime/pprof
// CPU profile of itself to FILE instead: two goroutines each run main.leaf
// under main.mid and main.lite, the same loop, 2:1 in work, so the CPU
// shares are ~2/3 and ~1/3 whatever else runs on the machine.
package main

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"runtime/pprof"
	"sync"
)

//go:noinline
func leaf(n int) int {
	s := 0
	for i := 0; i < n; i++ {
		s += i * i % 7
	}
	return s
}

//go:noinline
func mid(rounds, n int) int {
	t := 0
	for i := 0; i < rounds; i++ {
		t += leaf(n)
	}
	return t + 1
}

func spin(rounds int) int {
	var wg sync.WaitGroup
	res := make([]int, 3)
	for g := range res {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			res[g] = mid(rounds, 100000)
		}(g)
	}
	wg.Wait()
	return res[0] + res[1] + res[2]
}

//go:noinline
func lite(n int) int {
	s := 0
	for i := 0; i < n; i++ {
		s += i * i % 7
	}
	return s
}

func profiled(path string, rounds int) {
	f, err := os.Create(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	// 500 Hz rather than 100: more samples for the shares (the runtime
	// warns on stderr that the rate was set before the profile started)
	runtime.SetCPUProfileRate(500)
	if err := pprof.StartCPUProfile(f); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	var wg sync.WaitGroup
	res := make([]int, 2)
	for g := range res {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < rounds; i++ {
				res[g] += mid(2, 100000) + lite(100000)
			}
		}(g)
	}
	wg.Wait()
	pprof.StopCPUProfile()
	f.Close()
	fmt.Println(res[0] + res[1])
}

func main() {
	if len(os.Args) > 2 && os.Args[1] == "pprof" {
		profiled(os.Args[2], 8000)
		return
	}
	if len(os.Args) > 1 && os.Args[1] == "child" {
		fmt.Println(spin(2000))
		return
	}
	cmd := exec.Command(os.Args[0], "child")
	cmd.Stdout = os.Stdout
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	fmt.Println(spin(4000))
	if err := cmd.Wait(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(3)
	}
}
