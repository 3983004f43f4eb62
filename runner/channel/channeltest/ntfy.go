package channeltest

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Ntfy is a fake ntfy server: publishing as JSON to / or as a body to
// /TOPIC, and subscribing to /TOPIC/json (a stream of JSON lines, with since=
// a message id or a Unix time). With a Token, every request must carry it
// as a bearer token.
type Ntfy struct {
	Server *httptest.Server
	Token  string

	mu       sync.Mutex
	changed  chan struct{}
	messages []NtfyMessage
	next     int
	// Hook, when set, handles a request instead of the fake; it returns
	// false to leave it to the fake.
	Hook func(w http.ResponseWriter, r *http.Request) bool
}

// NtfyMessage is a message published, with its actions when published as
// JSON.
type NtfyMessage struct {
	ID      string       `json:"id"`
	Time    int64        `json:"time"`
	Event   string       `json:"event"`
	Topic   string       `json:"topic"`
	Title   string       `json:"title,omitempty"`
	Message string       `json:"message"`
	Actions []NtfyAction `json:"actions,omitempty"`
}

// NtfyAction is an action button.
type NtfyAction struct {
	Action  string            `json:"action"`
	Label   string            `json:"label"`
	URL     string            `json:"url"`
	Method  string            `json:"method,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
	Body    string            `json:"body,omitempty"`
}

// NewNtfy starts the fake; it stops with t.
func NewNtfy(t testing.TB, token string) *Ntfy {
	f := &Ntfy{Token: token, changed: make(chan struct{})}
	f.Server = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.Server.Close)
	return f
}

// URL is the fake's address.
func (f *Ntfy) URL() string { return f.Server.URL }

// Wait waits until cond holds of the messages, or the deadline (a hang).
func (f *Ntfy) Wait(t testing.TB, what string, cond func(msgs []NtfyMessage) bool) {
	t.Helper()
	deadline := time.After(60 * time.Second)
	for {
		f.mu.Lock()
		ok, ch := cond(f.messages), f.changed
		f.mu.Unlock()
		if ok {
			return
		}
		select {
		case <-ch:
		case <-deadline:
			t.Fatalf("the fake ntfy never saw %s", what)
		}
	}
}

// Press does what the ntfy app does when a's button is pressed: the http
// action's request. It returns the status.
func (f *Ntfy) Press(t testing.TB, a NtfyAction) int {
	t.Helper()
	req, err := http.NewRequest(a.Method, a.URL, strings.NewReader(a.Body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range a.Headers {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// Publish publishes a plain message to topic, as anyone who knows the topic
// can.
func (f *Ntfy) Publish(topic, message string) {
	f.add(NtfyMessage{Topic: topic, Message: message})
}

func (f *Ntfy) add(m NtfyMessage) NtfyMessage {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.next++
	m.ID, m.Time, m.Event = "m"+strconv.Itoa(f.next), time.Now().Unix(), "message"
	f.messages = append(f.messages, m)
	close(f.changed)
	f.changed = make(chan struct{})
	return m
}

func (f *Ntfy) serve(w http.ResponseWriter, r *http.Request) {
	if f.Hook != nil && f.Hook(w, r) {
		return
	}
	if f.Token != "" && r.Header.Get("Authorization") != "Bearer "+f.Token {
		http.Error(w, `{"code":40301,"http":403,"error":"forbidden"}`, http.StatusForbidden)
		return
	}
	path := strings.Trim(r.URL.Path, "/")
	switch {
	case r.Method == http.MethodPost && path == "":
		var m NtfyMessage
		if json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<20)).Decode(&m) != nil || m.Topic == "" {
			http.Error(w, `{"code":40024,"http":400,"error":"invalid request: json"}`, http.StatusBadRequest)
			return
		}
		writeNtfy(w, f.add(m))
	case (r.Method == http.MethodPost || r.Method == http.MethodPut) && !strings.Contains(path, "/"):
		body, _ := io.ReadAll(io.LimitReader(r.Body, 4096))
		writeNtfy(w, f.add(NtfyMessage{Topic: path, Message: string(body)}))
	case r.Method == http.MethodGet && strings.HasSuffix(path, "/json"):
		f.subscribe(w, r, strings.TrimSuffix(path, "/json"))
	default:
		http.Error(w, `{"code":40401,"http":404,"error":"page not found"}`, http.StatusNotFound)
	}
}

func writeNtfy(w http.ResponseWriter, m NtfyMessage) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(m)
}

// subscribe streams topic's messages after since, then each new one, with
// an open event first, until the client goes.
func (f *Ntfy) subscribe(w http.ResponseWriter, r *http.Request, topic string) {
	since := r.URL.Query().Get("since")
	w.Header().Set("Content-Type", "application/x-ndjson; charset=utf-8")
	enc := json.NewEncoder(w)
	_ = enc.Encode(NtfyMessage{ID: "open", Time: time.Now().Unix(), Event: "open", Topic: topic})
	w.(http.Flusher).Flush()
	sent := 0
	f.mu.Lock()
	if since != "" && since != "all" {
		if unix, err := strconv.ParseInt(since, 10, 64); err == nil {
			for sent < len(f.messages) && f.messages[sent].Time < unix {
				sent++
			}
		} else {
			for i, m := range f.messages {
				if m.ID == since {
					sent = i + 1
				}
			}
		}
	}
	f.mu.Unlock()
	for {
		f.mu.Lock()
		batch, ch := f.messages[sent:], f.changed
		sent = len(f.messages)
		f.mu.Unlock()
		for _, m := range batch {
			if m.Topic == topic {
				_ = enc.Encode(m)
			}
		}
		w.(http.Flusher).Flush()
		select {
		case <-ch:
		case <-r.Context().Done():
			return
		}
	}
}
