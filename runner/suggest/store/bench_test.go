package store_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/clai-sh/clai/runner/suggest/store"
)

// BenchmarkApply commits batches of 100 commands, as the writer does.
func BenchmarkApply(b *testing.B) {
	s, err := store.Open(b.Context(), b.TempDir()+"/suggest.db", store.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	batch := make([]store.Event, 100)
	b.ResetTimer()
	for i := range b.N {
		for j := range batch {
			k := i*len(batch) + j
			batch[j] = cmd(fmt.Sprintf("s%d", k/200), fmt.Sprintf("r%d", k%7), fmt.Sprintf("make t%d", k%50), time.Duration(k)*time.Second)
		}
		if err := s.Apply(b.Context(), batch); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*len(batch))/b.Elapsed().Seconds(), "events/s")
}
