// Command danger announces a destructive command and asks to confirm it:
//
//	About to run: rm -rf /
//	Proceed? [y/N]
//
// It exits 1 when told "y" or "yes" (and prints "running"), 0 otherwise
// (default no, prints "aborted"). It never runs anything.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"strings"
)

func main() {
	command := flag.String("command", "rm -rf /", "the `command` it claims to be about to run")
	flag.Parse()
	fmt.Printf("About to run: %s\n", *command)
	fmt.Print("Proceed? [y/N] ")
	line, _ := bufio.NewReader(os.Stdin).ReadString('\n')
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		fmt.Println("running")
		os.Exit(1)
	default:
		fmt.Println("aborted")
	}
}
