// waiters N — Go's side of bench/waiters.c: N goroutines that each wait on
// one sync.Cond, what they cost, then open the shop and wait for them all.
// Prints the same lines as waiters.c so bench/run.py reads both alike.
package main

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

func status(key string) int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if strings.HasPrefix(s.Text(), key+":") {
			fields := strings.Fields(s.Text()[len(key)+1:])
			if len(fields) > 0 {
				v, _ := strconv.ParseInt(fields[0], 10, 64)
				return v
			}
		}
	}
	return 0
}

func main() {
	n := 10000
	if len(os.Args) > 1 {
		n, _ = strconv.Atoi(os.Args[1])
	}
	var mu sync.Mutex
	opened := sync.NewCond(&mu)
	var started int
	open := false
	var wg sync.WaitGroup
	rss0, pte0, vm0 := status("VmRSS"), status("VmPTE"), status("VmSize")
	t0 := time.Now()
	wg.Add(n)
	for i := 0; i < n; i++ {
		go func() {
			mu.Lock()
			started++
			for !open {
				opened.Wait()
			}
			mu.Unlock()
			wg.Done()
		}()
	}
	for {
		mu.Lock()
		s := started
		mu.Unlock()
		if s == n {
			break
		}
		time.Sleep(time.Millisecond)
	}
	dt := time.Since(t0).Seconds()
	rss, pte, vm := status("VmRSS")-rss0, status("VmPTE")-pte0, status("VmSize")-vm0
	fmt.Printf("threads started:   %d\n", n)
	fmt.Printf("OS threads:        %d\n", status("Threads"))
	fmt.Printf("time to start:     %.3f s\n", dt)
	fmt.Printf("memory used:       %d MB\n", (rss+pte)/1024)
	fmt.Printf("kernel stacks:     0 MB\n")
	fmt.Printf("stack reserved:    %d GB\n", vm/(1024*1024))
	fmt.Printf("per thread:        %.1f KB\n", float64(rss+pte)/float64(n))
	mu.Lock()
	open = true
	opened.Broadcast()
	mu.Unlock()
	wg.Wait()
	fmt.Printf("joined:            %d\n", n)
}
