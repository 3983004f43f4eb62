package screen

import (
	"strconv"
	"testing"
)

// colouredLog returns n bytes of a coloured build log in lines of about 100
// bytes, each ended by CR LF as a terminal's output processing sends it.
func colouredLog(n int) []byte {
	colours := []string{"\x1b[32mINFO ", "\x1b[36mDEBUG", "\x1b[33mWARN ", "\x1b[1;31mERROR"}
	var b []byte
	for i := 0; len(b) < n; i++ {
		b = append(b, "\x1b[2m12:00:"...)
		b = strconv.AppendInt(b, int64(10+i%50), 10)
		b = append(b, "\x1b[0m "...)
		b = append(b, colours[i%len(colours)]...)
		b = append(b, "\x1b[0m compiling internal/pkg"...)
		b = strconv.AppendInt(b, int64(i%97), 10)
		b = append(b, "/file_"...)
		b = strconv.AppendInt(b, int64(i), 10)
		b = append(b, ".go \x1b[90m("...)
		b = strconv.AppendInt(b, int64(i*37%1000), 10)
		b = append(b, "ms)\x1b[0m\r\n"...)
	}
	return b[:n]
}

// BenchmarkWriteLog feeds 4 MiB of coloured log to a 24x80 screen in reads of
// 4 KiB (what a pseudo-terminal gives at a time), then looks at the screen:
// the screen side of workload W5. "exact" writes every byte to the emulator
// as it comes.
func BenchmarkWriteLog(b *testing.B) {
	log := colouredLog(4 << 20)
	for _, exact := range []bool{false, true} {
		b.Run("exact="+strconv.FormatBool(exact), func(b *testing.B) {
			b.SetBytes(int64(len(log)))
			b.ReportAllocs()
			for b.Loop() {
				s := New(24, 80)
				s.exact = exact
				for p := log; len(p) > 0; p = p[min(len(p), 4096):] {
					s.Write(p[:min(len(p), 4096)])
				}
				_ = s.Text()
			}
		})
	}
}
