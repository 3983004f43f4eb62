package answerer_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/clai-sh/clai/internal/redact"
	"github.com/clai-sh/clai/runner/answerer"
	"github.com/clai-sh/clai/runner/answerer/answerertest"
)

// serve starts f and returns the model that calls it.
func serve(t *testing.T, f *answerertest.API) *answerer.HTTP {
	t.Helper()
	return &answerer.HTTP{API: f.Kind, BaseURL: answerertest.Start(t, f), Model: answerertest.Model, Key: f.Key}
}

func TestHTTPModels(t *testing.T) {
	t.Parallel()
	for _, api := range []string{"openai", "anthropic"} {
		t.Run(api, func(t *testing.T) {
			t.Parallel()
			asked := make(chan answerer.Request, 1)
			m := serve(t, &answerertest.API{Kind: api, Key: "sk-secret", Reply: "```json\n{\"answer\": \"Y\", \"confidence\": 0.98, \"reason\": \"continuing is safe\"}\n```", Asked: asked})
			r, err := m.Ask(t.Context(), answerer.Request{Question: "Continue? [Y/n]", Options: []string{"Y", "n"}, Screen: "Continue? [Y/n]"})
			if err != nil {
				t.Fatal(err)
			}
			if r.Answer != "Y" || r.Confidence != 0.98 || r.Reason != "continuing is safe" {
				t.Errorf("reply %+v", r)
			}
			if req := <-asked; req.Question != "Continue? [Y/n]" || len(req.Options) != 2 {
				t.Errorf("the model was asked %+v", req)
			}
			if strings.Contains(m.Name(), "sk-secret") {
				t.Errorf("the name %q holds the key", m.Name())
			}
		})
	}
}

func TestHTTPModelFailures(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		fake answerertest.API
		key  string
		want string
	}{
		{name: "a wrong key", fake: answerertest.API{Kind: "openai", Key: "right"}, key: "wrong", want: "status 401"},
		{name: "garbage", fake: answerertest.API{Kind: "anthropic", Reply: "I would rather not say."}, want: "no JSON object"},
		{name: "no chat completion", fake: answerertest.API{Kind: "openai", Raw: "<html>gateway</html>"}, want: "no chat completion"},
		{name: "a huge reply", fake: answerertest.API{Kind: "openai", Raw: `{"choices": "` + strings.Repeat("x", answerer.MaxReply) + `"}`}, want: "longer than"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			m := serve(t, &tc.fake)
			if tc.key != "" {
				m.Key = tc.key
			}
			_, err := m.Ask(t.Context(), answerer.Request{Question: "Continue?"})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one with %q", err, tc.want)
			}
			if err != nil && m.Key != "" && strings.Contains(err.Error(), m.Key) {
				t.Errorf("the error %q holds the key", err)
			}
		})
	}
}

func TestHTTPModelThatHangsIsCut(t *testing.T) {
	t.Parallel()
	m := serve(t, &answerertest.API{Kind: "anthropic", Hang: true})
	ctx, cancel := contextWithTimeout(t, 50*time.Millisecond)
	defer cancel()
	if _, err := m.Ask(ctx, answerer.Request{Question: "Continue?"}); err == nil {
		t.Error("a model that never replies gave a reply")
	}
}

// An API model's reply that is no JSON is quoted in its error, the key
// masked.
func TestHTTPModelQuotesAnUnusableReplyWithoutTheKey(t *testing.T) {
	t.Parallel()
	m := serve(t, &answerertest.API{Kind: "openai", Key: "sk-secret-key", Reply: "Sorry, sk-secret-key is over its quota."})
	_, err := m.Ask(t.Context(), answerer.Request{Question: "Continue?"})
	var re *answerer.ReplyError
	if !errors.As(err, &re) {
		t.Fatalf("error %v, want a *ReplyError", err)
	}
	if want := "Sorry, " + redact.Mask + " is over its quota."; re.Excerpt != want {
		t.Errorf("excerpt %q, want %q", re.Excerpt, want)
	}
}
