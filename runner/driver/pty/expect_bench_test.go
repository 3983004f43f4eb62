package pty_test

import (
	"bytes"
	"context"
	"io"
	"os/exec"
	"testing"

	expect "github.com/Netflix/go-expect"

	"github.com/clai-sh/clai/internal/testprog"
	"github.com/clai-sh/clai/runner/driver/pty"
)

// tailMatcher is an O(1) go-expect matcher: it looks only at the end of what was
// read, so the measurement is of go-expect's reading, not of its matching.
type tailMatcher struct{ suffix []byte }

func (m tailMatcher) Match(v any) bool {
	buf, ok := v.(*bytes.Buffer)
	return ok && bytes.HasSuffix(buf.Bytes(), m.suffix)
}

func (m tailMatcher) Criteria() any { return string(m.suffix) }

// BenchmarkExpectVersusChunks reads 16 MiB of coloured log then answers the prompt,
// through go-expect's Console.Expect (one rune at a time through a small buffer) and
// through the driver's 64 KiB reads, the way clai reads. The ratio between the two
// decided how clai reads the terminal (docs/performance.md).
func BenchmarkExpectVersusChunks(b *testing.B) {
	const size = "16MiB"
	bin := testprog.Build(b, "flood")
	prompt := []byte("Continue? [y/n] ")
	b.Run("go-expect", func(b *testing.B) {
		b.SetBytes(16 << 20)
		for b.Loop() {
			c, err := expect.NewConsole()
			if err != nil {
				b.Fatal(err)
			}
			cmd := exec.Command(bin, "-bytes", size)
			cmd.Stdin, cmd.Stdout, cmd.Stderr = c.Tty(), c.Tty(), c.Tty()
			if err := cmd.Start(); err != nil {
				b.Fatal(err)
			}
			_ = c.Tty().Close()
			matcher := func(o *expect.ExpectOpts) error {
				o.Matchers = append(o.Matchers, tailMatcher{prompt})
				return nil
			}
			if _, err := c.Expect(matcher); err != nil {
				b.Fatal(err)
			}
			if _, err := c.SendLine("y"); err != nil {
				b.Fatal(err)
			}
			if err := cmd.Wait(); err != nil {
				b.Fatal(err)
			}
			_ = c.Close()
		}
	})
	b.Run("chunks", func(b *testing.B) {
		b.SetBytes(16 << 20)
		buf := make([]byte, 64<<10)
		for b.Loop() {
			p, err := pty.Start(context.Background(), pty.Options{Argv: []string{bin, "-bytes", size}})
			if err != nil {
				b.Fatal(err)
			}
			var tail []byte
			for !bytes.HasSuffix(tail, prompt) {
				n, err := p.Read(buf)
				if err != nil {
					b.Fatal(err)
				}
				tail = append(tail, buf[:n]...)
				tail = tail[max(0, len(tail)-64):]
			}
			if _, err := p.Write([]byte("y\r")); err != nil {
				b.Fatal(err)
			}
			if _, err := io.Copy(io.Discard, p); err != nil {
				b.Fatal(err)
			}
			if st, err := p.Wait(); err != nil || st.Code != 0 {
				b.Fatalf("%v %v", st, err)
			}
			_ = p.Close()
		}
	})
}
