package runner

import (
	"context"

	"github.com/clai-sh/clai/playbooks"
	"github.com/clai-sh/clai/runner/cast"
	"github.com/clai-sh/clai/runner/report"
)

// Clock and Timer are a run's time source and its timers, for the tests
// that drive a run in virtual time.
type (
	Clock = clock
	Timer = timer
)

// WithClock sets a run's clock.
func WithClock(c Clock) Option { return withClock(c) }

// ReplayRecording is Replay of a recording held whole in memory.
func ReplayRecording(ctx context.Context, pb *playbooks.Playbook, rec *cast.Recording, opts ...Option) (*report.Report, error) {
	return replay(ctx, pb, rec.Header, rec.All(), opts)
}
