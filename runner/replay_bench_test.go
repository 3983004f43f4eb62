package runner_test

import (
	"testing"
	"time"

	"github.com/clai-sh/clai/playbooks"
	"github.com/clai-sh/clai/runner"
	"github.com/clai-sh/clai/runner/cast"
	"github.com/clai-sh/clai/runner/playback"
)

// BenchmarkReplay replays a recording of a clai run of 2000 prompt/answer round
// trips in virtual time, matched in the stream and on the screen. The rounds are
// further apart than settle, so the engine's timers fall due between them.
func BenchmarkReplay(b *testing.B) {
	const rounds = 2000
	rec := roundTripRecording(rounds)
	for _, match := range []string{"stream", "screen"} {
		src := "version: 1\nname: replay\nspawn: {command: [x]}\nsettings: {settle: 5ms, min_send_interval: 0s, match: " + match + "}\nrules:\n  - {name: code, match: {regex: 'Enter code (?P<code>\\d+) \\[\\d+\\]: $'}, line: \"{{ match.code }}\", limit: 1000000}\n"
		pb, findings := playbooks.Parse("replay.yaml", []byte(src))
		if pb == nil {
			b.Fatal(findings)
		}
		b.Run("match="+match, func(b *testing.B) {
			for b.Loop() {
				rep, err := runner.ReplayRecording(b.Context(), pb, rec)
				if err != nil || rep.ExitCode != 0 || rep.Rules["code"] != rounds {
					b.Fatalf("%v: exit %d, fired %v", err, rep.ExitCode, rep.Rules)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*rounds), "µs/round")
		})
	}
}

// roundTripRecording is a recording of a clai run of n rounds, 10 ms apart: the
// program's prompt, clai's answer, its echo; then the program's exit.
func roundTripRecording(n int) *cast.Recording {
	rec := &cast.Recording{Header: cast.Header{Version: 2, Width: 80, Height: 24}}
	at := func(d time.Duration) float64 { return d.Seconds() }
	for i := range n {
		t := time.Duration(i) * 10 * time.Millisecond
		code := itoa(10000 + i)
		rec.Events = append(rec.Events,
			cast.Event{Time: at(t), Kind: cast.KindOutput, Data: "Enter code " + code + " [" + itoa(i) + "]: "},
			cast.Event{Time: at(t + time.Millisecond), Kind: cast.KindMarker, Data: playback.MarkerSend},
			cast.Event{Time: at(t + time.Millisecond), Kind: cast.KindInput, Data: code + "\r"},
			cast.Event{Time: at(t + 2*time.Millisecond), Kind: cast.KindOutput, Data: code + "\r\n"},
		)
	}
	rec.Events = append(rec.Events, cast.Event{Time: at(time.Duration(n) * 10 * time.Millisecond), Kind: cast.KindMarker, Data: playback.MarkerExit + " 0"})
	return rec
}
