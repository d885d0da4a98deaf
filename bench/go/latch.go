// latch [N] — Go's side of bench/real/cxx_waits.cpp: N goroutines (10,000
// by default) wait on a latch (a closed channel), then on a barrier of N+1
// (a sync.WaitGroup the main goroutine waits on, then a channel closed),
// then on a value change (sync.Cond); each part ends when all have passed.
// Prints the same line as cxx_waits.
package main

import (
	"fmt"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

var arrived int64

func allIn(n int) {
	for atomic.LoadInt64(&arrived) < int64(n) {
		time.Sleep(200 * time.Microsecond)
	}
	atomic.StoreInt64(&arrived, 0)
}

func main() {
	n := 10000
	if len(os.Args) > 1 {
		n, _ = strconv.Atoi(os.Args[1])
	}
	var passed int64
	var wg sync.WaitGroup

	latch := make(chan struct{})
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() { defer wg.Done(); atomic.AddInt64(&arrived, 1); <-latch; atomic.AddInt64(&passed, 1) }()
	}
	allIn(n)
	close(latch)
	wg.Wait()

	var in sync.WaitGroup
	in.Add(n)
	open := make(chan struct{})
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() { defer wg.Done(); atomic.AddInt64(&arrived, 1); in.Done(); <-open; atomic.AddInt64(&passed, 1) }()
	}
	allIn(n)
	in.Wait()
	close(open)
	wg.Wait()

	var mu sync.Mutex
	c := sync.NewCond(&mu)
	flag := 0
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			atomic.AddInt64(&arrived, 1)
			mu.Lock()
			for flag == 0 {
				c.Wait()
			}
			mu.Unlock()
			atomic.AddInt64(&passed, 1)
		}()
	}
	allIn(n)
	mu.Lock()
	flag = 1
	c.Broadcast()
	mu.Unlock()
	wg.Wait()
	fmt.Printf("threads %d, passed %d of %d waits\n", n, passed, 3*n)
}
