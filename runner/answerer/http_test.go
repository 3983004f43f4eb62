package answerer_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/clai-sh/clai/runner/answerer"
)

// fakeAPI is a loopback fake of the OpenAI chat-completions API or the
// Anthropic Messages API: it checks the call as the real service would
// (path, method, key header, model, the request in the last message) and
// replies with text as the model's content, in the API's own shape.
type fakeAPI struct {
	api, key string
	// reply is the model's text; raw, when set, is the whole body instead.
	reply, raw string
	hang       bool
	asked      chan answerer.Request
}

func (f *fakeAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var call struct {
		Model    string `json:"model"`
		System   string `json:"system"`
		Messages []struct {
			Role    string `json:"role"`
			Content string `json:"content"`
		} `json:"messages"`
		MaxTokens int `json:"max_tokens"`
	}
	wantPath, gotKey := "/v1/chat/completions", strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
	if f.api == "anthropic" {
		wantPath, gotKey = "/v1/messages", r.Header.Get("x-api-key")
		if r.Header.Get("anthropic-version") == "" {
			http.Error(w, `{"type":"error","error":{"type":"invalid_request_error","message":"anthropic-version: header is required"}}`, http.StatusBadRequest)
			return
		}
	}
	switch {
	case r.Method != http.MethodPost || r.URL.Path != wantPath:
		http.NotFound(w, r)
		return
	case gotKey != f.key:
		http.Error(w, `{"error":{"message":"invalid api key"}}`, http.StatusUnauthorized)
		return
	}
	if err := json.NewDecoder(io.LimitReader(r.Body, 1<<20)).Decode(&call); err != nil || call.Model != "small" || call.MaxTokens == 0 || len(call.Messages) == 0 {
		http.Error(w, "bad call", http.StatusBadRequest)
		return
	}
	var req answerer.Request
	if err := json.Unmarshal([]byte(call.Messages[len(call.Messages)-1].Content), &req); err != nil {
		http.Error(w, "the user message is no request", http.StatusBadRequest)
		return
	}
	if f.asked != nil {
		f.asked <- req
	}
	if f.hang {
		<-r.Context().Done()
		return
	}
	w.Header().Set("Content-Type", "application/json")
	if f.raw != "" {
		io.WriteString(w, f.raw)
		return
	}
	text, _ := json.Marshal(f.reply)
	if f.api == "anthropic" {
		fmt.Fprintf(w, `{"id":"msg_1","type":"message","role":"assistant","model":"small","content":[{"type":"text","text":%s}],"stop_reason":"end_turn","usage":{"input_tokens":10,"output_tokens":10}}`, text)
		return
	}
	fmt.Fprintf(w, `{"id":"chatcmpl-1","object":"chat.completion","model":"small","choices":[{"index":0,"message":{"role":"assistant","content":%s},"finish_reason":"stop"}]}`, text)
}

// serve starts f and returns the model that calls it.
func serve(t *testing.T, f *fakeAPI) *answerer.HTTP {
	t.Helper()
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	base := srv.URL
	if f.api == "openai" {
		base += "/v1"
	}
	return &answerer.HTTP{API: f.api, BaseURL: base, Model: "small", Key: f.key}
}

func TestHTTPModels(t *testing.T) {
	t.Parallel()
	for _, api := range []string{"openai", "anthropic"} {
		t.Run(api, func(t *testing.T) {
			t.Parallel()
			asked := make(chan answerer.Request, 1)
			m := serve(t, &fakeAPI{api: api, key: "sk-secret", reply: "```json\n{\"answer\": \"Y\", \"confidence\": 0.98, \"reason\": \"continuing is safe\"}\n```", asked: asked})
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
		fake fakeAPI
		key  string
		want string
	}{
		{name: "a wrong key", fake: fakeAPI{api: "openai", key: "right"}, key: "wrong", want: "status 401"},
		{name: "garbage", fake: fakeAPI{api: "anthropic", reply: "I would rather not say."}, want: "no JSON object"},
		{name: "no chat completion", fake: fakeAPI{api: "openai", raw: "<html>gateway</html>"}, want: "no chat completion"},
		{name: "a huge reply", fake: fakeAPI{api: "openai", raw: `{"choices": "` + strings.Repeat("x", answerer.MaxReply) + `"}`}, want: "longer than"},
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
	m := serve(t, &fakeAPI{api: "anthropic", hang: true})
	ctx, cancel := contextWithTimeout(t, 50*time.Millisecond)
	defer cancel()
	if _, err := m.Ask(ctx, answerer.Request{Question: "Continue?"}); err == nil {
		t.Error("a model that never replies gave a reply")
	}
}
