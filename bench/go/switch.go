// switch N — Go's side of bench/switch.c: two goroutines pass a token back
// and forth N times each way with one sync.Mutex and two sync.Conds.
package main

import (
	"fmt"
	"os"
	"strconv"
	"sync"
	"time"
)

func main() {
	rounds := 200000
	if len(os.Args) > 1 {
		rounds, _ = strconv.Atoi(os.Args[1])
	}
	var mu sync.Mutex
	cv := [2]*sync.Cond{sync.NewCond(&mu), sync.NewCond(&mu)}
	turn := 0
	var wg sync.WaitGroup
	player := func(me int) {
		mu.Lock()
		for i := 0; i < rounds; i++ {
			for turn != me {
				cv[me].Wait()
			}
			turn = 1 - me
			cv[1-me].Signal()
		}
		mu.Unlock()
		wg.Done()
	}
	t0 := time.Now()
	wg.Add(2)
	go player(0)
	go player(1)
	wg.Wait()
	t := time.Since(t0).Seconds()
	fmt.Printf("hand-offs:         %d\n", 2*rounds)
	fmt.Printf("threads, one hand-off: %.0f ns\n", t*1e9/(2.0*float64(rounds)))
}
