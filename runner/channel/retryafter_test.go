package channel_test

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/zap"

	"github.com/clai-sh/clai/runner/channel"
	"github.com/clai-sh/clai/runner/channel/channeltest"
)

// virtualClock is a time that passes only when the channel sleeps; it
// keeps each sleep.
type virtualClock struct {
	mu    sync.Mutex
	now   time.Time
	slept []time.Duration
}

func (c *virtualClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *virtualClock) Sleep(ctx context.Context, d time.Duration) bool {
	if ctx.Err() != nil {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	c.slept = append(c.slept, d)
	return true
}

func (c *virtualClock) sleeps() []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.slept)
}

// floodedTelegram starts a channel on a fake Bot API that refuses every
// call of method for flood, both in the clock's virtual time.
func floodedTelegram(t *testing.T, method string, flood time.Duration, log *zap.Logger) (*channeltest.Telegram, *fakeDesk, *virtualClock) {
	t.Helper()
	clock := &virtualClock{now: time.Date(2026, 11, 26, 18, 0, 0, 0, time.UTC)}
	fake := channeltest.NewTelegram(t, token)
	fake.Now = clock.Now
	fake.Flood(method, flood)
	desk := newFakeDesk()
	startTelegramWith(t, channel.TelegramConfig{BaseURL: fake.URL(), Token: token, Chats: []int64{chat}, Log: log,
		Now: clock.Now, Sleep: clock.Sleep}, desk, log)
	return fake, desk, clock
}

// TestTelegramWaitsAsLongAsRetryAfterSays: when getUpdates is refused with
// a 429 and parameters.retry_after, the next call waits that long, not the
// backoff of a failure, so that it is refused no more; a longer wait than
// the bound is cut to it.
func TestTelegramWaitsAsLongAsRetryAfterSays(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		flood time.Duration
		want  []time.Duration
	}{
		"seven seconds": {flood: 7 * time.Second, want: []time.Duration{7 * time.Second}},
		"two minutes":   {flood: 2 * channel.MaxRetryAfter, want: []time.Duration{channel.MaxRetryAfter, channel.MaxRetryAfter}},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			fake, _, clock := floodedTelegram(t, "getUpdates", tc.flood, zap.NewNop())
			fake.Wait(t, "a getUpdates taken after the flood", func(f *channeltest.Telegram) bool {
				return f.Taken("getUpdates") > 0
			})
			fake.Snapshot(func(f *channeltest.Telegram) {
				if n := f.Flooded("getUpdates"); n != len(tc.want) {
					t.Errorf("%d calls refused for flooding, want %d", n, len(tc.want))
				}
			})
			if got := clock.sleeps(); !slices.Equal(got, tc.want) {
				t.Errorf("the channel waited %v, want %v", got, tc.want)
			}
		})
	}
}

// TestTelegramSendsAQuestionAgainAfterRetryAfter: a question's message the
// Bot API refuses for flooding is sent again once the wait it asked for has
// passed, and reaches the chat.
func TestTelegramSendsAQuestionAgainAfterRetryAfter(t *testing.T) {
	t.Parallel()
	log, obs := logs()
	fake, desk, clock := floodedTelegram(t, "sendMessage", 3*time.Second, log)
	desk.ask(question("q1", "h1", "Continue? [y/n]", "y", "n"))
	deadline := time.Now().Add(60 * time.Second)
	for sent := false; !sent; {
		fake.Snapshot(func(f *channeltest.Telegram) { sent = len(f.Messages()) > 0 })
		if obs.FilterMessage(channel.LogFailed).Len() > 0 {
			t.Fatalf("the message was given up:\n%s", allLogs(obs))
		}
		if time.Now().After(deadline) {
			t.Fatal("the question never reached the chat")
		}
		time.Sleep(2 * time.Millisecond)
	}
	fake.Snapshot(func(f *channeltest.Telegram) {
		if n, m := f.Flooded("sendMessage"), f.Messages()[0]; n != 1 || !strings.Contains(m.Text, "Continue? [y/n]") || len(m.Buttons) != 2 {
			t.Errorf("%d calls refused, want 1; the message %+v", n, m)
		}
	})
	if got := clock.sleeps(); !slices.Contains(got, 3*time.Second) {
		t.Errorf("the channel waited %v, want 3s among them", got)
	}
}

// TestTelegramRetryAfterEndsWithTheRun: the wait the Bot API asked for
// ends when the run's end has had its grace; a wait that ignored it would
// hang the run's end.
func TestTelegramRetryAfterEndsWithTheRun(t *testing.T) {
	t.Parallel()
	fake := channeltest.NewTelegram(t, token)
	fake.Flood("getUpdates", time.Hour)
	desk := newFakeDesk()
	forever := func(ctx context.Context, _ time.Duration) bool { <-ctx.Done(); return false }
	set := startTelegramWith(t, channel.TelegramConfig{BaseURL: fake.URL(), Token: token, Chats: []int64{chat}, Sleep: forever}, desk, zap.NewNop())
	fake.Wait(t, "a refused getUpdates", func(f *channeltest.Telegram) bool { return f.Flooded("getUpdates") > 0 })
	desk.end()
	set.Close()
}
