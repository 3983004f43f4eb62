// Command anthropic is a fake Anthropic Messages API for driving a real Claude
// Code offline: point it at the fake with ANTHROPIC_BASE_URL and any
// ANTHROPIC_AUTH_TOKEN, and the "model" plays a fixed script. (Not
// ANTHROPIC_API_KEY: with a key, Claude Code 2.1.197's first run checks
// api.anthropic.com itself and stops when it cannot reach it.)
//
//	anthropic -bash 'ls' -bash 'rm -rf /tmp/x' -say 'All done.'
//
// Each -bash, -ask and -say flag is one turn of the script, in order: -bash
// answers with a call of the Bash tool running that command, -ask with a call
// of the AskUserQuestion tool whose input is the flag's JSON (its
// "questions"), -say with plain text.
// The turn is chosen from the conversation the client sends, not from a
// counter: it is the number of tool calls already in it, so a retried or
// repeated request gets the same answer, and a turn after a refused tool call
// comes only when the user writes again. Requests that offer no Bash tool
// (titles, summaries and other side requests of the client) get the text of
// -aside. Past the end of the script the last -say turn is repeated.
//
// The server listens on -addr (default 127.0.0.1:0, a free port) and prints
// "listening on http://HOST:PORT" as its first line of standard output, then
// lines for every request: "aside", "count_tokens", "unknown METHOD PATH"
// (answered 404), or for a turn of the script first "result ID ok|error TEXT"
// with the first line of the result of the latest tool call, if any, which
// says whether the call ran or was rejected (after an -ask turn, the whole
// result, quoted as Go quotes it), then "turn N bash COMMAND", "turn N ask
// JSON" or "turn N say TEXT". With -log FILE the JSON bodies of the requests are
// appended to FILE as well, one a line.
//
// It serves POST /v1/messages (streamed as server-sent events when the
// request asks for "stream": true, else as one JSON message) and POST
// /v1/messages/count_tokens.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"sync/atomic"
)

// turn is one answer of the scripted model: a Bash or AskUserQuestion tool
// call, or text.
type turn struct {
	bash string          // the command of a Bash tool call, when set
	ask  json.RawMessage // the input of an AskUserQuestion call, when set
	say  string          // the text of the answer otherwise
}

// call reports whether the turn calls a tool.
func (t turn) call() bool { return t.bash != "" || t.ask != nil }

// script is the ordered list of turns given by -bash and -say.
type script []turn

// add returns a flag.Func setter that appends the turn mk makes of the value.
func (s *script) add(mk func(string) turn) func(string) error {
	return func(v string) error { *s = append(*s, mk(v)); return nil }
}

// request is the part of a Messages API request the fake reads.
type request struct {
	Model    string    `json:"model"`
	Stream   bool      `json:"stream"`
	Messages []message `json:"messages"`
	Tools    []struct {
		Name string `json:"name"`
	} `json:"tools"`
}

type message struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"` // a string or a list of blocks
}

// blocks returns the content blocks of m; plain string content has none.
func (m message) blocks() []contentBlock {
	var b []contentBlock
	if json.Unmarshal(m.Content, &b) != nil {
		return nil
	}
	return b
}

// contentBlock is the part of a content block the fake reads.
type contentBlock struct {
	Type      string          `json:"type"`
	ToolUseID string          `json:"tool_use_id"`
	IsError   bool            `json:"is_error"`
	Content   json.RawMessage `json:"content"` // of a tool_result: a string or blocks
}

// text returns the first line of a tool result's content.
func (b contentBlock) text() string {
	line, _, _ := strings.Cut(b.whole(), "\n")
	return line
}

// whole returns a tool result's content as text.
func (b contentBlock) whole() string {
	var s string
	if json.Unmarshal(b.Content, &s) != nil {
		var parts []struct {
			Text string `json:"text"`
		}
		json.Unmarshal(b.Content, &parts)
		for _, p := range parts {
			s += p.Text
		}
	}
	return s
}

// toolCalls counts the tool_use blocks in the assistant messages of r.
func (r *request) toolCalls() int {
	n := 0
	for _, m := range r.Messages {
		if m.Role != "assistant" {
			continue
		}
		for _, b := range m.blocks() {
			if b.Type == "tool_use" {
				n++
			}
		}
	}
	return n
}

// result returns the tool_result block for the tool call id, if any.
func (r *request) result(id string) (contentBlock, bool) {
	for _, m := range r.Messages {
		if m.Role != "user" {
			continue
		}
		for _, b := range m.blocks() {
			if b.Type == "tool_result" && b.ToolUseID == id {
				return b, true
			}
		}
	}
	return contentBlock{}, false
}

// toolID is the id of the script's tool call in turn n.
func toolID(n int) string { return fmt.Sprintf("toolu_fake%02d", n+1) }

// offersBash reports whether the request lets the model call the Bash tool,
// which tells the main conversation from the client's side requests.
func (r *request) offersBash() bool {
	for _, t := range r.Tools {
		if t.Name == "Bash" {
			return true
		}
	}
	return false
}

// server answers requests from the script, logging each to out.
type server struct {
	script script
	aside  string

	ids atomic.Int64 // numbers the messages: each answer has its own id

	mu  sync.Mutex
	out *log.Logger
	raw *os.File // request bodies, when -log is given
}

func main() {
	var s server
	addr := flag.String("addr", "127.0.0.1:0", "listen on `HOST:PORT`")
	logFile := flag.String("log", "", "append the JSON body of every request to `FILE`")
	flag.Func("bash", "a turn that runs `COMMAND` with the Bash tool (repeatable, in order)",
		s.script.add(func(v string) turn { return turn{bash: v} }))
	flag.Func("ask", "a turn that calls AskUserQuestion with the input `JSON` (repeatable, in order)",
		func(v string) error {
			if !json.Valid([]byte(v)) {
				return fmt.Errorf("not JSON: %s", v)
			}
			s.script = append(s.script, turn{ask: json.RawMessage(v)})
			return nil
		})
	flag.Func("say", "a turn that answers `TEXT` (repeatable, in order)",
		s.script.add(func(v string) turn { return turn{say: v} }))
	flag.StringVar(&s.aside, "aside", "Scripted session", "the answer to side requests (no Bash tool offered)")
	flag.Parse()
	if len(s.script) == 0 {
		s.script = script{{say: "Hello from the fake model."}}
	}
	s.out = log.New(os.Stdout, "", 0)
	if *logFile != "" {
		f, err := os.OpenFile(*logFile, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
		if err != nil {
			log.Fatal(err)
		}
		defer f.Close()
		s.raw = f
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	s.out.Printf("listening on http://%s", ln.Addr())
	log.Fatal(http.Serve(ln, &s))
}

// ServeHTTP routes the Messages endpoints and answers 404 to anything else.
func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	path := r.URL.Path
	if r.Method != http.MethodPost || (path != "/v1/messages" && path != "/v1/messages/count_tokens") {
		s.logf("unknown %s %s", r.Method, r.URL.RequestURI())
		http.Error(w, `{"type":"error","error":{"type":"not_found_error","message":"not found"}}`, http.StatusNotFound)
		return
	}
	var body json.RawMessage
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		http.Error(w, `{"type":"error","error":{"type":"invalid_request_error","message":"bad JSON"}}`, http.StatusBadRequest)
		return
	}
	s.record(body)
	var req request
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, `{"type":"error","error":{"type":"invalid_request_error","message":"bad request"}}`, http.StatusBadRequest)
		return
	}
	if path == "/v1/messages/count_tokens" {
		s.logf("count_tokens")
		writeJSON(w, map[string]int{"input_tokens": 100})
		return
	}
	t := turn{say: s.aside}
	if req.offersBash() {
		n := req.toolCalls()
		if b, ok := req.result(toolID(n - 1)); ok {
			status := "ok"
			if b.IsError {
				status = "error"
			}
			if n > 0 && s.turn(n-1).ask != nil {
				s.logf("result %s %s %q", b.ToolUseID, status, b.whole())
			} else {
				s.logf("result %s %s %s", b.ToolUseID, status, b.text())
			}
		}
		t = s.turn(n)
		switch {
		case t.bash != "":
			s.logf("turn %d bash %s", n, t.bash)
		case t.ask != nil:
			s.logf("turn %d ask %s", n, t.ask)
		default:
			s.logf("turn %d say %s", n, t.say)
		}
	} else {
		s.logf("aside")
	}
	blocks := answer(t, req.toolCalls())
	id := fmt.Sprintf("msg_fake%03d", s.ids.Add(1))
	if req.Stream {
		stream(w, id, req.Model, blocks)
	} else {
		writeJSON(w, messageJSON(id, req.Model, blocks, stopReason(blocks)))
	}
}

// turn returns the script's turn n; past the end, the last text turn.
func (s *server) turn(n int) turn {
	if n < len(s.script) {
		return s.script[n]
	}
	for i := len(s.script) - 1; i >= 0; i-- {
		if !s.script[i].call() {
			return s.script[i]
		}
	}
	return turn{say: "Done."}
}

func (s *server) logf(format string, args ...any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.out.Printf(format, args...)
}

func (s *server) record(body json.RawMessage) {
	if s.raw == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.raw.Write(append(append([]byte{}, body...), '\n'))
}

// block is one content block of an answer.
type block map[string]any

// answer turns t into content blocks; n numbers the tool call's id.
func answer(t turn, n int) []block {
	if t.ask != nil {
		return []block{
			{"type": "text", "text": "I have a question."},
			{"type": "tool_use", "id": toolID(n), "name": "AskUserQuestion", "input": t.ask},
		}
	}
	if t.bash == "" {
		return []block{{"type": "text", "text": t.say}}
	}
	return []block{
		{"type": "text", "text": "I'll run `" + t.bash + "`."},
		{"type": "tool_use", "id": toolID(n), "name": "Bash",
			"input": map[string]string{"command": t.bash, "description": "Run " + firstWord(t.bash)}},
	}
}

func firstWord(s string) string {
	if f := strings.Fields(s); len(f) > 0 {
		return f[0]
	}
	return s
}

func stopReason(blocks []block) string {
	for _, b := range blocks {
		if b["type"] == "tool_use" {
			return "tool_use"
		}
	}
	return "end_turn"
}

func usage() map[string]int {
	return map[string]int{"input_tokens": 100, "output_tokens": 20,
		"cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
}

// messageJSON is a whole Messages API response.
func messageJSON(id, model string, blocks []block, stop string) map[string]any {
	content := any(blocks)
	if blocks == nil {
		content = []block{}
	}
	var reason any
	if stop != "" {
		reason = stop
	}
	return map[string]any{
		"id": id, "type": "message", "role": "assistant", "model": model,
		"content": content, "stop_reason": reason, "stop_sequence": nil, "usage": usage(),
	}
}

// stream writes blocks as the server-sent events of a streamed response:
// message_start, then for each block content_block_start, one delta and
// content_block_stop, then message_delta with the stop reason and
// message_stop.
func stream(w http.ResponseWriter, id, model string, blocks []block) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	event := func(name string, data map[string]any) {
		data["type"] = name
		b, _ := json.Marshal(data)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, b)
	}
	event("message_start", map[string]any{"message": messageJSON(id, model, nil, "")})
	for i, b := range blocks {
		switch b["type"] {
		case "text":
			event("content_block_start", map[string]any{"index": i, "content_block": block{"type": "text", "text": ""}})
			event("content_block_delta", map[string]any{"index": i, "delta": map[string]any{"type": "text_delta", "text": b["text"]}})
		case "tool_use":
			input, _ := json.Marshal(b["input"])
			event("content_block_start", map[string]any{"index": i, "content_block": block{
				"type": "tool_use", "id": b["id"], "name": b["name"], "input": map[string]any{}}})
			event("content_block_delta", map[string]any{"index": i, "delta": map[string]any{
				"type": "input_json_delta", "partial_json": string(input)}})
		}
		event("content_block_stop", map[string]any{"index": i})
	}
	event("message_delta", map[string]any{
		"delta": map[string]any{"stop_reason": stopReason(blocks), "stop_sequence": nil},
		"usage": map[string]int{"output_tokens": 20}})
	event("message_stop", map[string]any{})
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}
