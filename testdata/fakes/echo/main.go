// Command echo is a tiny line-mode shell: it prints "> ", reads a line and
// answers it uppercased. "size" prints the terminal size as "ROWS COLS",
// "quit" prints "bye" and exits 0, as does the end of input.
package main

import (
	"bufio"
	"fmt"
	"os"
	"strings"

	"golang.org/x/term"
)

func main() {
	in := bufio.NewReader(os.Stdin)
	for {
		fmt.Print("> ")
		line, err := in.ReadString('\n')
		line = strings.TrimRight(line, "\r\n")
		switch {
		case line == "quit":
			fmt.Println("bye")
			return
		case line == "size":
			cols, rows, err := term.GetSize(int(os.Stdin.Fd()))
			if err != nil {
				fmt.Println("size:", err)
				break
			}
			fmt.Printf("%d %d\n", rows, cols)
		case line != "":
			fmt.Println(strings.ToUpper(line))
		}
		if err != nil {
			return
		}
	}
}
