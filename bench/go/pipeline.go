// pipeline [N [STAGES [CAP]]]: bench/pipeline.c with goroutines and
// channels of CAP (default 128): a producer sends 1..N, STAGES goroutines
// add 1 each, main sums.  Prints the same lines as the C program.
package main

import (
	"fmt"
	"os"
	"strconv"
	"syscall"
	"time"
)

func arg(i int, dflt int64) int64 {
	if len(os.Args) <= i {
		return dflt
	}
	v, err := strconv.ParseInt(os.Args[i], 10, 64)
	if err != nil || v <= 0 {
		fmt.Fprintf(os.Stderr, "%s: bad number %s\n", os.Args[0], os.Args[i])
		os.Exit(2)
	}
	return v
}

func cpu() float64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return float64(ru.Utime.Sec+ru.Stime.Sec) + float64(ru.Utime.Usec+ru.Stime.Usec)*1e-6
}

func main() {
	n := arg(1, 1000000)
	stages := arg(2, 8)
	capacity := arg(3, 128)
	c0, t0 := cpu(), time.Now()
	first := make(chan int64, capacity)
	in := first
	for i := int64(0); i < stages; i++ {
		out := make(chan int64, capacity)
		go func(in <-chan int64, out chan<- int64) {
			for v := range in {
				out <- v + 1
			}
			close(out)
		}(in, out)
		in = out
	}
	go func() {
		for i := int64(1); i <= n; i++ {
			first <- i
		}
		close(first)
	}()
	var sum int64
	for v := range in {
		sum += v
	}
	t, c := time.Since(t0).Seconds(), cpu()-c0
	fmt.Printf("messages: %d through %d stages\n", n, stages)
	fmt.Printf("sum: %d\n", sum)
	fmt.Printf("wall time: %.3f s\n", t)
	fmt.Printf("cpu time: %.3f s\n", c)
}
