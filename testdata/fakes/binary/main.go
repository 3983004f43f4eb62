// Command binary writes text mixed with bytes that are not UTF-8 and escape
// sequences that are invalid, unknown or unterminated, each chunk in its own
// write, then asks "Name: ", reads a line, prints "hello NAME" and exits 0.
// -repeat repeats the garbage.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"strings"
)

var chunks = []string{
	"binary: start\n",
	"\xff\xfe\xfd", " text after invalid bytes\n",
	"\xc3\x28 bad two-byte, \xe2\x82 truncated three-byte, \x80 lone continuation\n",
	"\xf0\x9f\x98\x80 emoji, \xed\xa0\x80 surrogate, \xf8\x88\x80\x80\x80 five-byte\n",
	"\x1b[31;1;99999;xyz odd CSI parameters\x1b[0m\n",
	"\x1b[12;", "unterminated CSI, then text\n",
	"\x1b]0;title without a terminator ", "text\n",
	"\x1b]8;;http://example.com\x1b\\link\x1b]8;;\x1b\\\n",
	"\x1bZ\x1b(\x1b", " bare escapes\n",
	"\x9b31m C1 CSI\x9b0m, \x9d0;c1 osc\x9c\n",
	"\x00\x01\x07\x08\x7f controls, \x18cancelled, \x1b[?1049h\x1b[?1049l alt screen\n",
	"\x1bP1$r0m\x1b\\ DCS, \x1b_apc\x1b\\ APC\n",
	"\x1b[",
}

func main() {
	repeat := flag.Int("repeat", 1, "how many times to write the garbage")
	flag.Parse()
	for range *repeat {
		for _, c := range chunks {
			_, _ = os.Stdout.WriteString(c)
		}
	}
	_, _ = os.Stdout.WriteString("\x1b[0m\nName: ")
	line, _ := bufio.NewReader(os.Stdin).ReadString('\n')
	fmt.Printf("hello %s\n", strings.TrimRight(line, "\r\n"))
}
