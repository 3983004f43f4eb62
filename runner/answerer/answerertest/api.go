// Package answerertest holds a loopback fake of the model APIs the answerer
// reaches over HTTP, the OpenAI chat-completions API and the Anthropic
// Messages API, speaking their request and response formats, for tests.
package answerertest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/clai-sh/clai/runner/answerer"
)

// Model is the only model the fake serves.
const Model = "small"

// API is a fake of the OpenAI chat-completions API (Kind "openai") or the
// Anthropic Messages API (Kind "anthropic"): it checks each call as the
// real service would (path, method, key header, model, the answerer's
// request as the last message) and replies with Reply as the model's
// content, in the API's own shape.
type API struct {
	Kind, Key string
	// Reply is the model's text; Raw, when set, is the whole body instead.
	Reply, Raw string
	// Hang holds every call until its client goes.
	Hang bool
	// Asked, when set, is handed each request the model is asked.
	Asked chan answerer.Request
}

// Start serves f on a loopback port until t ends, and returns the base URL
// an answerer of its kind is given (with /v1 for OpenAI, as its docs write
// it; without it for Anthropic).
func Start(t testing.TB, f *API) string {
	t.Helper()
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	if f.Kind == "openai" {
		return srv.URL + "/v1"
	}
	return srv.URL
}

// ServeHTTP answers one call of the API.
func (f *API) ServeHTTP(w http.ResponseWriter, r *http.Request) {
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
	if f.Kind == "anthropic" {
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
	case gotKey != f.Key:
		http.Error(w, `{"error":{"message":"invalid api key"}}`, http.StatusUnauthorized)
		return
	}
	if err := json.NewDecoder(io.LimitReader(r.Body, 1<<20)).Decode(&call); err != nil || call.Model != Model || call.MaxTokens == 0 || len(call.Messages) == 0 {
		http.Error(w, "bad call", http.StatusBadRequest)
		return
	}
	var req answerer.Request
	if err := json.Unmarshal([]byte(call.Messages[len(call.Messages)-1].Content), &req); err != nil {
		http.Error(w, "the user message is no request", http.StatusBadRequest)
		return
	}
	if f.Asked != nil {
		f.Asked <- req
	}
	if f.Hang {
		<-r.Context().Done()
		return
	}
	w.Header().Set("Content-Type", "application/json")
	if f.Raw != "" {
		_, _ = io.WriteString(w, f.Raw)
		return
	}
	text, _ := json.Marshal(f.Reply)
	if f.Kind == "anthropic" {
		fmt.Fprintf(w, `{"id":"msg_1","type":"message","role":"assistant","model":%q,"content":[{"type":"text","text":%s}],"stop_reason":"end_turn","usage":{"input_tokens":10,"output_tokens":10}}`, Model, text)
		return
	}
	fmt.Fprintf(w, `{"id":"chatcmpl-1","object":"chat.completion","model":%q,"choices":[{"index":0,"message":{"role":"assistant","content":%s},"finish_reason":"stop"}]}`, Model, text)
}
