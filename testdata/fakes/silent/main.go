// Command silent prints a readiness marker and then says nothing until it is
// killed or, with -for, until the duration has passed (then it exits 0).
package main

import (
	"flag"
	"fmt"
	"time"
)

func main() {
	marker := flag.String("marker", "ready", "readiness `marker` printed first")
	d := flag.Duration("for", 0, "exit after this `duration` (0: never)")
	flag.Parse()
	fmt.Println(*marker)
	if *d > 0 {
		time.Sleep(*d)
		return
	}
	for {
		time.Sleep(time.Hour)
	}
}
