// burst N ROUNDS IDLE — Go's side of bench/burst.c: ROUNDS times, N
// goroutines that wait on one sync.Cond, woken and waited for; memory in
// use (RSS + page tables) after each round and once a second while idle.
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

func mem() int64 { return status("VmRSS") + status("VmPTE") }

func arg(i, d int) int {
	if len(os.Args) > i {
		v, _ := strconv.Atoi(os.Args[i])
		return v
	}
	return d
}

func main() {
	n, rounds, idle := arg(1, 100000), arg(2, 5), arg(3, 10)
	var mu sync.Mutex
	opened := sync.NewCond(&mu)
	fmt.Printf("start:             %d KB\n", mem())
	var peak int64
	for r := 1; r <= rounds; r++ {
		started, open := 0, false
		var wg sync.WaitGroup
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
		mu.Lock()
		open = true
		opened.Broadcast()
		mu.Unlock()
		m := mem()
		if m > peak {
			peak = m
		}
		wg.Wait()
		dt := time.Since(t0).Seconds()
		fmt.Printf("round %d:           %d threads, %.2f us/thread, %d KB with all parked, %d KB after join\n",
			r, n, dt*1e6/float64(n), m, mem())
	}
	for s := 1; s <= idle; s++ {
		time.Sleep(time.Second)
		fmt.Printf("idle %d s:          %d KB\n", s, mem())
	}
	fmt.Printf("peak parked:       %d KB\n", peak)
}
