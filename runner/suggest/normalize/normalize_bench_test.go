package normalize

import "testing"

// BenchmarkNormalize normalises every command of the corpus: one op is one
// command, on average.
func BenchmarkNormalize(b *testing.B) {
	lines := corpus(b)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		Normalize(lines[i%len(lines)])
		i++
	}
}
