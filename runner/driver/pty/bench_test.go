package pty_test

import (
	"bytes"
	"context"
	"io"
	"strconv"
	"testing"

	"github.com/clai-sh/clai/internal/testprog"
	"github.com/clai-sh/clai/runner/driver/pty"
)

// BenchmarkReadFlood measures the driver's output throughput (workload W1):
// flood writes 64 MiB of coloured log, read in 64 KiB chunks until its
// prompt, answered, then read to the end. Each iteration includes starting
// and ending the program; MB/s counts the log the program wrote.
func BenchmarkReadFlood(b *testing.B) {
	const size = 64 << 20
	bin := testprog.Build(b, "flood")
	prompt := []byte("Continue? [y/n] ")
	buf := make([]byte, 64<<10)
	tail := make([]byte, 0, 2*len(prompt))
	var reads, read int64
	b.SetBytes(size)
	b.ReportAllocs()
	for b.Loop() {
		p, err := pty.Start(context.Background(), pty.Options{Argv: []string{bin, "-bytes", strconv.Itoa(size)}})
		if err != nil {
			b.Fatal(err)
		}
		tail = tail[:0]
		for {
			n, err := p.Read(buf)
			reads++
			read += int64(n)
			if err != nil {
				b.Fatalf("Read before the prompt: %v", err)
			}
			// The prompt may straddle two reads: look at the end of the
			// previous one and the start of this one, then at this one.
			chunk := buf[:n]
			tail = append(tail, chunk[:min(n, len(prompt))]...)
			if bytes.Contains(tail, prompt) || bytes.Contains(chunk, prompt) {
				break
			}
			tail = append(tail[:0], chunk[max(0, n-len(prompt)):]...)
		}
		if _, err := p.Write([]byte("y\r")); err != nil {
			b.Fatal(err)
		}
		if _, err := io.Copy(io.Discard, p); err != nil {
			b.Fatal(err)
		}
		if st, err := p.Wait(); err != nil || st.Code != 0 {
			b.Fatalf("flood ended with %v, %v", st, err)
		}
		if err := p.Close(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(read)/float64(reads), "B/read")
}
