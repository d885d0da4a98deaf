// spawn N — Go's side of bench/spawn.c: N goroutines that return at once,
// all started then all waited for, then started and waited for one at a
// time.  Prints the same lines as spawn.c so bench/run.py reads both alike.
package main

import (
	"fmt"
	"os"
	"strconv"
	"sync"
	"time"
)

func main() {
	n := 10000
	if len(os.Args) > 1 {
		n, _ = strconv.Atoi(os.Args[1])
	}
	var wg sync.WaitGroup
	t0 := time.Now()
	wg.Add(n)
	for i := 0; i < n; i++ {
		go func() { wg.Done() }()
	}
	t1 := time.Now()
	wg.Wait()
	t2 := time.Now()
	for i := 0; i < n; i++ {
		done := make(chan struct{})
		go func() { close(done) }()
		<-done
	}
	t3 := time.Now()
	us := func(d time.Duration) float64 { return d.Seconds() * 1e6 / float64(n) }
	fmt.Printf("threads:           %d\n", n)
	fmt.Printf("create all:        %.2f us/thread\n", us(t1.Sub(t0)))
	fmt.Printf("create+join all:   %.2f us/thread\n", us(t2.Sub(t0)))
	fmt.Printf("create-join loop:  %.2f us/thread\n", us(t3.Sub(t2)))
}
