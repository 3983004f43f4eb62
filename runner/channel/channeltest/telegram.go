// Package channeltest holds loopback fakes of the services the two-way
// channels reach: the Telegram Bot API and an ntfy server, speaking their
// request and update formats, for tests.
package channeltest

import (
	"context"
	"encoding/json"
	"fmt"
	"html"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf16"
)

// Telegram is a fake Bot API server for one bot: getUpdates (long polling
// with offset, limit and timeout), sendMessage, answerCallbackQuery and
// editMessageText.
type Telegram struct {
	Server *httptest.Server
	Token  string

	mu       sync.Mutex
	changed  chan struct{}
	updates  []map[string]any
	nextID   int64
	nextMsg  int64
	messages []Message
	answers  []CallbackAnswer
	edits    []Message
	calls    map[string]int
	// floods are when each method flooded takes calls again; flooded counts
	// the calls refused for it.
	floods  map[string]time.Time
	flooded map[string]int
	// taken counts the calls of each method past flood control.
	taken map[string]int
	// Now is the fake's time, for Flood (nil: the wall clock's).
	Now func() time.Time
	// poll ends the getUpdates in flight, if any: as the Bot API does, a
	// newer one ends it with 409 Conflict. conflicts counts them.
	poll      chan struct{}
	conflicts int
	// Hook, when set, handles a method instead of the fake (a hostile or
	// failing peer); it returns false to leave it to the fake.
	Hook func(method string, w http.ResponseWriter, r *http.Request) bool
}

// Message is a message the bot sent, or an edit of one.
type Message struct {
	ID      int64
	Chat    int64
	Text    string
	Buttons []Button
	// ParseMode is as sent ("" or "HTML").
	ParseMode string
}

// Button is an inline keyboard button.
type Button struct {
	Text string `json:"text"`
	Data string `json:"callback_data"`
}

// CallbackAnswer is an answerCallbackQuery.
type CallbackAnswer struct {
	ID   string
	Text string
}

// NewTelegram starts the fake for the bot with token; it stops with t.
func NewTelegram(t testing.TB, token string) *Telegram {
	f := StartTelegram(token)
	t.Cleanup(f.Close)
	return f
}

// StartTelegram starts the fake for the bot with token outside a test (a
// benchmark program); Close stops it.
func StartTelegram(token string) *Telegram {
	f := &Telegram{Token: token, changed: make(chan struct{}), calls: map[string]int{}, nextMsg: 100,
		floods: map[string]time.Time{}, flooded: map[string]int{}, taken: map[string]int{}}
	f.Server = httptest.NewServer(http.HandlerFunc(f.serve))
	return f
}

// Close stops the fake's server, ending the requests in flight.
func (f *Telegram) Close() { f.Server.Close() }

// URL is the fake's base URL.
func (f *Telegram) URL() string { return f.Server.URL }

// notify wakes those who wait for a change; called with mu held.
func (f *Telegram) notify() {
	close(f.changed)
	f.changed = make(chan struct{})
}

// Wait waits until cond holds of the fake, or the deadline (a hang).
func (f *Telegram) Wait(t testing.TB, what string, cond func(f *Telegram) bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if f.WaitContext(ctx, cond) != nil {
		t.Fatalf("the fake Telegram never saw %s", what)
	}
}

// WaitContext waits until cond holds of the fake, called with the fake
// locked at each change, or ctx ends (its error).
func (f *Telegram) WaitContext(ctx context.Context, cond func(f *Telegram) bool) error {
	for {
		f.mu.Lock()
		ok, ch := cond(f), f.changed
		f.mu.Unlock()
		if ok {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// Messages are the messages sent; Edits the edits; Answers the answers to
// callback queries; Calls how often method was called. Call them within
// Wait's cond, or after.
func (f *Telegram) Messages() []Message { return f.messages }

// Edits are the edits of messages sent (see Messages).
func (f *Telegram) Edits() []Message { return f.edits }

// Answers are the answers to callback queries (see Messages).
func (f *Telegram) Answers() []CallbackAnswer { return f.answers }

// Conflicts is how many getUpdates a newer one ended with 409 Conflict:
// two pollers of one bot (see Messages).
func (f *Telegram) Conflicts() int { return f.conflicts }

// Calls is how often method was called (see Messages).
func (f *Telegram) Calls(method string) int { return f.calls[method] }

// Flooded is how many calls of method were refused for too many requests;
// Taken how many passed flood control. Call them within Wait's cond, or
// after.
func (f *Telegram) Flooded(method string) int { return f.flooded[method] }

// Taken is how many calls of method passed flood control (see Flooded).
func (f *Telegram) Taken(method string) int { return f.taken[method] }

// Flood has the fake refuse every call of method for the next d, as the Bot
// API's flood control does: HTTP 429 with the seconds left to wait in
// parameters.retry_after.
func (f *Telegram) Flood(method string, d time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.floods[method] = f.now().Add(d)
}

func (f *Telegram) now() time.Time {
	if f.Now != nil {
		return f.Now()
	}
	return time.Now()
}

// flood answers a call of method refused for flood control; false when it
// is taken.
func (f *Telegram) flood(method string, w http.ResponseWriter) bool {
	f.mu.Lock()
	left := f.floods[method].Sub(f.now())
	if left > 0 {
		f.flooded[method]++
	} else {
		f.taken[method]++
	}
	f.notify()
	f.mu.Unlock()
	if left <= 0 {
		return false
	}
	seconds := int((left + time.Second - 1) / time.Second)
	writeJSON(w, http.StatusTooManyRequests, map[string]any{"ok": false, "error_code": 429,
		"description": fmt.Sprintf("Too Many Requests: retry after %d", seconds), "parameters": map[string]any{"retry_after": seconds}})
	return true
}

// Snapshot runs fn with the fake locked.
func (f *Telegram) Snapshot(fn func(f *Telegram)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	fn(f)
}

// Press queues a callback query: user pressed the button with data under
// message in chat.
func (f *Telegram) Press(chat, user, message int64, data string) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	id := strconv.FormatInt(f.nextID+9000, 10)
	f.push(map[string]any{"callback_query": map[string]any{"id": id, "from": userJSON(user), "chat_instance": "1",
		"message": map[string]any{"message_id": message, "date": 1, "chat": chatJSON(chat), "text": "…"}, "data": data}})
	return id
}

// Send queues a text message from user in chat.
func (f *Telegram) Send(chat, user int64, text string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.nextMsg++
	f.push(map[string]any{"message": map[string]any{"message_id": f.nextMsg, "date": 1, "from": userJSON(user), "chat": chatJSON(chat), "text": text}})
}

func userJSON(id int64) map[string]any {
	return map[string]any{"id": id, "is_bot": false, "first_name": "u"}
}
func chatJSON(id int64) map[string]any { return map[string]any{"id": id, "type": "private"} }

func (f *Telegram) push(u map[string]any) {
	f.nextID++
	u["update_id"] = f.nextID
	f.updates = append(f.updates, u)
	f.notify()
}

func (f *Telegram) serve(w http.ResponseWriter, r *http.Request) {
	rest, ok := strings.CutPrefix(r.URL.Path, "/bot"+f.Token+"/")
	if !ok {
		writeJSON(w, http.StatusUnauthorized, map[string]any{"ok": false, "error_code": 401, "description": "Unauthorized"})
		return
	}
	f.mu.Lock()
	f.calls[rest]++
	f.notify()
	f.mu.Unlock()
	if f.Hook != nil && f.Hook(rest, w, r) {
		return
	}
	if f.flood(rest, w) {
		return
	}
	var p map[string]json.RawMessage
	if r.Method != http.MethodPost || json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<20)).Decode(&p) != nil {
		writeJSON(w, http.StatusBadRequest, map[string]any{"ok": false, "error_code": 400, "description": "Bad Request: invalid JSON"})
		return
	}
	switch rest {
	case "getUpdates":
		f.getUpdates(w, r, p)
	case "sendMessage":
		f.sendMessage(w, p)
	case "answerCallbackQuery":
		var id, text string
		_ = json.Unmarshal(p["callback_query_id"], &id)
		_ = json.Unmarshal(p["text"], &text)
		f.mu.Lock()
		f.answers = append(f.answers, CallbackAnswer{ID: id, Text: text})
		f.notify()
		f.mu.Unlock()
		writeJSON(w, http.StatusOK, map[string]any{"ok": true, "result": true})
	case "editMessageText":
		m := decodeMessage(p)
		f.mu.Lock()
		f.edits = append(f.edits, m)
		f.notify()
		f.mu.Unlock()
		writeJSON(w, http.StatusOK, map[string]any{"ok": true, "result": map[string]any{"message_id": m.ID, "date": 1, "chat": chatJSON(m.Chat), "text": m.Text}})
	default:
		writeJSON(w, http.StatusNotFound, map[string]any{"ok": false, "error_code": 404, "description": "Not Found: method not found"})
	}
}

func (f *Telegram) getUpdates(w http.ResponseWriter, r *http.Request, p map[string]json.RawMessage) {
	var offset, timeout, limit int64
	_ = json.Unmarshal(p["offset"], &offset)
	_ = json.Unmarshal(p["timeout"], &timeout)
	_ = json.Unmarshal(p["limit"], &limit)
	if limit <= 0 || limit > 100 {
		limit = 100
	}
	wait := time.NewTimer(time.Duration(timeout) * time.Second)
	defer wait.Stop()
	// As the Bot API does, a newer getUpdates ends this one with a
	// conflict: one bot has one poller.
	mine := make(chan struct{})
	f.mu.Lock()
	if f.poll != nil {
		close(f.poll)
	}
	f.poll = mine
	f.mu.Unlock()
	defer func() {
		f.mu.Lock()
		if f.poll == mine {
			f.poll = nil
		}
		f.mu.Unlock()
	}()
	for {
		f.mu.Lock()
		// As the Bot API does, an offset confirms the updates before it.
		kept := f.updates[:0]
		for _, u := range f.updates {
			if u["update_id"].(int64) >= offset {
				kept = append(kept, u)
			}
		}
		f.updates = kept
		batch := append([]map[string]any(nil), f.updates[:min(int64(len(f.updates)), limit)]...)
		ch := f.changed
		f.mu.Unlock()
		if len(batch) > 0 {
			writeJSON(w, http.StatusOK, map[string]any{"ok": true, "result": batch})
			return
		}
		select {
		case <-ch:
		case <-mine:
			f.mu.Lock()
			f.conflicts++
			f.notify()
			f.mu.Unlock()
			writeJSON(w, http.StatusConflict, map[string]any{"ok": false, "error_code": 409,
				"description": "Conflict: terminated by other getUpdates request; make sure that only one bot instance is running"})
			return
		case <-wait.C:
			writeJSON(w, http.StatusOK, map[string]any{"ok": true, "result": []any{}})
			return
		case <-r.Context().Done():
			return
		}
	}
}

func (f *Telegram) sendMessage(w http.ResponseWriter, p map[string]json.RawMessage) {
	m := decodeMessage(p)
	if m.Chat == 0 || m.Text == "" {
		writeJSON(w, http.StatusBadRequest, map[string]any{"ok": false, "error_code": 400, "description": "Bad Request: message text is empty"})
		return
	}
	if parsedLength(m) > MaxMessage {
		writeJSON(w, http.StatusBadRequest, map[string]any{"ok": false, "error_code": 400, "description": "Bad Request: message is too long"})
		return
	}
	f.mu.Lock()
	f.nextMsg++
	m.ID = f.nextMsg
	f.messages = append(f.messages, m)
	f.notify()
	f.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]any{"ok": true, "result": map[string]any{"message_id": m.ID, "date": 1, "chat": chatJSON(m.Chat), "text": m.Text}})
}

// MaxMessage is the most characters (UTF-16 code units, after the entities
// are parsed) a message may have.
const MaxMessage = 4096

// tag is an HTML tag of a message with parse_mode HTML.
var tag = regexp.MustCompile(`<[^>]*>`)

// parsedLength is m's text's length as the Bot API counts it.
func parsedLength(m Message) int {
	text := m.Text
	if m.ParseMode == "HTML" {
		text = html.UnescapeString(tag.ReplaceAllString(text, ""))
	}
	return len(utf16.Encode([]rune(text)))
}

func decodeMessage(p map[string]json.RawMessage) Message {
	var m Message
	_ = json.Unmarshal(p["chat_id"], &m.Chat)
	_ = json.Unmarshal(p["message_id"], &m.ID)
	_ = json.Unmarshal(p["text"], &m.Text)
	_ = json.Unmarshal(p["parse_mode"], &m.ParseMode)
	var markup struct {
		Keyboard [][]Button `json:"inline_keyboard"`
	}
	if raw, ok := p["reply_markup"]; ok {
		_ = json.Unmarshal(raw, &markup)
	}
	for _, row := range markup.Keyboard {
		m.Buttons = append(m.Buttons, row...)
	}
	return m
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	if err := json.NewEncoder(w).Encode(v); err != nil {
		fmt.Println("channeltest:", err)
	}
}
