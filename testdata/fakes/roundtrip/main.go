// Command roundtrip asks for a code -n times and checks each answer:
//
//	Enter code 8919 [1]:
//
// The code varies per iteration (the number in brackets), so every answer
// must come from reading the prompt. On a wrong answer it prints
// "mismatch: ..." and exits 2; after the last it prints "done" and exits 0.
// Benchmark workload W2 (prompt-to-answer latency).
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
)

func main() {
	n := flag.Int("n", 10, "how many codes to ask for")
	flag.Parse()
	in := bufio.NewReader(os.Stdin)
	for i := 1; i <= *n; i++ {
		code := 1000 + (i*7919)%9000
		fmt.Printf("Enter code %d [%d]: ", code, i)
		line, err := in.ReadString('\n')
		if err != nil {
			fmt.Printf("\nroundtrip: input ended at %d: %v\n", i, err)
			os.Exit(3)
		}
		if got := strings.TrimRight(line, "\r\n"); got != strconv.Itoa(code) {
			fmt.Printf("mismatch: want %d, got %q\n", code, got)
			os.Exit(2)
		}
	}
	fmt.Println("done")
}
