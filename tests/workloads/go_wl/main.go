// The workload of tests/e2e/record_go.sh: goroutines on several threads
// spin in leaf under mid, and the program forks and execs itself ("child")
// through os/exec, which does the same. Built there three ways: Go's
// defaults (compressed DWARF), -ldflags=-compressdwarf=false, and stripped
// (-ldflags='-s -w': .gopclntab only).
package main

import (
	"fmt"
	"os"
	"os/exec"
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

func main() {
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
