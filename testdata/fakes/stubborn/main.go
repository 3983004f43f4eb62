// Command stubborn ignores SIGTERM and SIGHUP (a closed terminal too), prints
// "ready" and blocks forever: only SIGKILL ends it.
package main

import (
	"fmt"
	"os/signal"
	"syscall"
	"time"
)

func main() {
	signal.Ignore(syscall.SIGTERM, syscall.SIGHUP)
	fmt.Println("ready")
	for {
		time.Sleep(time.Hour)
	}
}
