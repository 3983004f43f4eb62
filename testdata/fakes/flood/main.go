// Command flood writes a coloured build log as fast as it can, then asks a
// question:
//
//	flood -bytes 64MiB [-prompt "Continue? [y/n] "] [-inject "About to run: rm -rf /" [-inject-at 1MiB]]
//
// The log is exactly -bytes bytes of SGR-coloured lines, written in 64 KiB
// chunks; -inject hides one more line in it, at the first line boundary past
// -inject-at (default: the middle). After the prompt it reads a line, prints
// "answer: X" and exits 0 if X is "y", 1 otherwise. Benchmark workloads W1
// (throughput) and W4 (a danger line inside a flood).
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// byteSize is a flag value such as 65536, 64KiB or 64MiB.
type byteSize int64

func (b *byteSize) String() string { return strconv.FormatInt(int64(*b), 10) }

func (b *byteSize) Set(s string) error {
	mult := int64(1)
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}, {"G", 1 << 30}, {"M", 1 << 20}, {"K", 1 << 10}, {"B", 1}} {
		if strings.HasSuffix(s, u.suffix) {
			s, mult = strings.TrimSuffix(s, u.suffix), u.mult
			break
		}
	}
	n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil || n < 0 {
		return fmt.Errorf("not a size: %q", s)
	}
	*b = byteSize(n * mult)
	return nil
}

var levels = []struct{ colour, name string }{
	{"\x1b[32m", "INFO "}, {"\x1b[32m", "INFO "}, {"\x1b[36m", "DEBUG"},
	{"\x1b[32m", "INFO "}, {"\x1b[33m", "WARN "}, {"\x1b[36m", "DEBUG"},
	{"\x1b[32m", "INFO "}, {"\x1b[1;31m", "ERROR"},
}

var verbs = []string{"compiling", "linking", "testing", "vetting", "caching", "fetching"}

// appendLine appends log line i, about 100 bytes, to b.
func appendLine(b []byte, i int64) []byte {
	lv := levels[i%int64(len(levels))]
	b = append(b, "\x1b[2m12:"...)
	b = append(b, byte('0'+i/600%6), byte('0'+i/60%10), ':', byte('0'+i/10%6), byte('0'+i%10), '.')
	b = strconv.AppendInt(b, 100+i%900, 10)
	b = append(b, "\x1b[0m "...)
	b = append(b, lv.colour...)
	b = append(b, lv.name...)
	b = append(b, "\x1b[0m \x1b[1m["...)
	b = strconv.AppendInt(b, i%16, 10)
	b = append(b, "/16]\x1b[0m "...)
	b = append(b, verbs[i%int64(len(verbs))]...)
	b = append(b, " internal/pkg"...)
	b = strconv.AppendInt(b, i%97, 10)
	b = append(b, "/file_"...)
	b = strconv.AppendInt(b, i, 10)
	b = append(b, ".go \x1b[90m("...)
	b = strconv.AppendInt(b, i*37%1000, 10)
	b = append(b, "ms)\x1b[0m\n"...)
	return b
}

func main() {
	size := byteSize(1 << 20)
	injectAt := byteSize(-1)
	flag.Var(&size, "bytes", "how much log to write: 65536, 64KiB, 64MiB")
	prompt := flag.String("prompt", "Continue? [y/n] ", "the question asked after the log")
	inject := flag.String("inject", "", "one more `line` to hide in the log")
	flag.Var(&injectAt, "inject-at", "where to hide -inject (default: the middle)")
	flag.Parse()
	if injectAt < 0 {
		injectAt = size / 2
	}

	w := bufio.NewWriterSize(os.Stdout, 64<<10)
	n := int64(size)
	var written int64
	injected := *inject == ""
	line := make([]byte, 0, 256)
	for i := int64(0); written < n; i++ {
		if !injected && written >= int64(injectAt) {
			_, _ = w.WriteString(*inject + "\n")
			injected = true
		}
		line = appendLine(line[:0], i)
		if rem := n - written; int64(len(line)) > rem {
			line = line[:0]
			for range rem - 1 {
				line = append(line, '.')
			}
			line = append(line, '\n')
		}
		if _, err := w.Write(line); err != nil {
			os.Exit(3)
		}
		written += int64(len(line))
	}
	if !injected {
		_, _ = w.WriteString(*inject + "\n")
	}
	_, _ = w.WriteString(*prompt)
	if err := w.Flush(); err != nil {
		os.Exit(3)
	}

	answer, _ := bufio.NewReader(os.Stdin).ReadString('\n')
	answer = strings.TrimRight(answer, "\r\n")
	fmt.Printf("answer: %s\n", answer)
	if answer != "y" {
		os.Exit(1)
	}
}
