package pattern

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
)

// BenchmarkPatternPrompt finds prompts of the usual shapes at the end of a
// window of ordinary output, and misses them in one that has none: the work of
// matching between two prompts.
func BenchmarkPatternPrompt(b *testing.B) {
	var out strings.Builder
	for i := 0; out.Len() < 8<<10; i++ {
		fmt.Fprintf(&out, "compiling module %d of the project: ok (%d files, 0 errors)\n", i, i*7%13)
	}
	ordinary := out.String()
	for _, c := range []struct{ name, src, prompt string }{
		{"segments", `Enter code (?P<code>\d+) \[\d+\]: $`, "Enter code 42 [3]: "},
		{"anchored", `passphrase for (.*): $`, "Enter passphrase for key '/home/me/.ssh/id': "},
		{"regexp", `(?i)continue\? \[y/n\] `, "Continue? [y/N] "},
	} {
		p := &Pattern{Kind: Regex, Source: c.src}
		p.setRegexp(regexp.MustCompile(c.src))
		for _, text := range []struct{ name, text string }{{"hit", ordinary + c.prompt}, {"miss", ordinary}} {
			data := []byte(text.text)
			buf := make([]int, 0, 16)
			b.Run(c.name+"/"+text.name, func(b *testing.B) {
				b.SetBytes(int64(len(data)))
				for b.Loop() {
					p.FindInto(data, buf)
				}
			})
		}
	}
}
