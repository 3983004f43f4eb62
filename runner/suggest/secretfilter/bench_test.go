package secretfilter_test

import (
	"strings"
	"testing"

	"github.com/clai-sh/clai/runner/suggest/secretfilter"
)

// maxLine is the longest command the daemon takes (hookproto.MaxLine).
const maxLine = 256 << 10

// BenchmarkFindOrdinary checks the corpus of ordinary commands.
func BenchmarkFindOrdinary(b *testing.B) {
	f := secretfilter.New()
	for b.Loop() {
		for _, line := range corpus {
			f.Secret(line)
		}
	}
}

// BenchmarkFindAdversarial checks lines of the longest length the daemon
// takes, made to cost the most: many words in one command of a program
// whose rules look at the other words, long names, long letter runs, open
// quotes. The time must grow linearly with the line.
func BenchmarkFindAdversarial(b *testing.B) {
	lines := map[string]string{
		"docker-words": "docker " + strings.Repeat("a ", maxLine/2-8),
		"set-words":    "x " + strings.Repeat("-p ", maxLine/3-2),
		"config-words": "git config " + strings.Repeat("token ", maxLine/6-4),
		"assignments":  strings.Repeat("a=b=c=d=e=", maxLine/10),
		"letters":      strings.Repeat("abcdefghij", maxLine/10),
		"open-quote":   "echo '" + strings.Repeat("x", maxLine-8),
		"camel-key":    strings.Repeat("aB", maxLine/2-4) + "=v",
		"url-like":     strings.Repeat("a://b:", maxLine/6),
		"header-like":  strings.Repeat("authorization ", maxLine/14),
		"hex":          strings.Repeat("0123456789abcdef", maxLine/16),
	}
	f := secretfilter.New()
	for name, line := range lines {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(line)))
			for b.Loop() {
				f.Secret(line)
			}
		})
	}
}
