package main

import (
	"io"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/clai-sh/clai/internal/testprog"
)

// BenchmarkRunRoundTrips is workload W2 of the bench as clai run does it, in
// process: the session registered and served, the config read, the log opened,
// then round trips of a real program through a real terminal. Its CPU profile
// (-cpuprofile) is where a round trip's time goes.
func BenchmarkRunRoundTrips(b *testing.B) {
	const rounds = 2000
	bin := testprog.Build(b, "roundtrip")
	dir := b.TempDir()
	for _, v := range []string{"XDG_RUNTIME_DIR", "XDG_CONFIG_HOME", "XDG_STATE_HOME"} {
		d := filepath.Join(dir, v)
		if err := os.Mkdir(d, 0o700); err != nil {
			b.Fatal(err)
		}
		b.Setenv(v, d)
	}
	pb := filepath.Join(dir, "w2.yaml")
	src := "version: 1\nname: w2\nspawn: {command: [" + strconv.Quote(bin) + ", -n, \"" + strconv.Itoa(rounds) + "\"]}\nsettings: {min_send_interval: 0s}\nrules:\n  - {name: code, match: {regex: 'Enter code (?P<code>\\d+) \\[\\d+\\]: $'}, line: \"{{ match.code }}\", limit: 1000000}\n"
	if err := os.WriteFile(pb, []byte(src), 0o644); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if code := runInProcess(b.Context(), []string{"clai", "run", "-q", "--log", os.DevNull, pb}, nil, io.Discard, io.Discard); code != 0 {
			b.Fatalf("clai run: exit code %d", code)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*rounds), "µs/roundtrip")
}
