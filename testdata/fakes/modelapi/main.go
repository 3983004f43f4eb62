// Command modelapi is a fake model server for recording coding agents offline.
// It speaks just enough of two APIs to make an agent ask for a shell command:
//
//   - the OpenAI Responses API (POST …/responses, streamed), as Codex CLI uses
//     it through a custom model provider: the reply is an exec_command call
//     that asks to run outside the sandbox, so Codex shows its approval dialog;
//   - the Gemini API (POST …/models/NAME:generateContent and
//     :streamGenerateContent), as Gemini CLI uses it with
//     GOOGLE_GEMINI_BASE_URL: the reply is a run_shell_command call.
//
// Each command given as an argument is asked for in turn: a request that
// already carries N tool results gets the call for command N+1, and once all
// were asked for the reply is a short text. So the server keeps no state and
// a denied command simply ends the agent's turn. Gemini CLI leaves a denied
// call out of the conversation it sends (and with it the result before it,
// whose call stays), so for the Gemini API a command counts as done for each
// call or each result it carries, whichever are more, and for each prompt the
// user typed after the first (a text part of theirs, such as a nudge's
// "continue"; not the "<session_context>" part Gemini CLI adds): the next
// prompt after a denial gets the command after the denied one.
//
// An argument "write:PATH" asks to create the file PATH instead (Gemini CLI:
// write_file; Codex CLI: an apply_patch invocation through exec_command,
// which Codex turns into an edit); "edit:PATH:OLD:NEW" asks to replace the
// text OLD in PATH with NEW (Gemini CLI only: replace).
//
// Codex CLI also asks for a title for the task, in a request of its own with
// no tools that wants structured output (text.format of type json_schema):
// such a request gets a JSON object whose required string properties read
// "Fake task", never a command, so the commands go to the conversation alone.
// -done TEXT sets the last reply of both APIs (default "Done."): a test
// can wait for it on the screen, and each request after it (a nudge) gets
// it again.
//
//	modelapi -addr 127.0.0.1:18181 -log requests.log 'git status' 'sudo make install' write:notes.txt
//	modelapi -done SCRIPT-DONE 'ls -la'
//
// It prints "listening on http://ADDR" once it accepts connections. Non-stream
// generateContent requests (Gemini CLI's model router) get a fixed JSON answer.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
)

// writePrefix and editPrefix mark arguments that ask to create or to change a
// file, not to run a command.
const (
	writePrefix = "write:"
	editPrefix  = "edit:"
)

// fileContent is what a "write:PATH" call puts in the file.
const fileContent = "hello from the fake model\n"

// server answers model requests with tool calls for commands, in order.
type server struct {
	commands []string
	done     string // the last reply, once every command was asked for

	mu  sync.Mutex
	log io.Writer // request log, or nil
	seq int       // ids handed out so far
}

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "`address` to listen on")
	logPath := flag.String("log", "", "append each request's method, path and body to `file`")
	doneText := flag.String("done", "Done.", "the reply once every command was asked for")
	flag.Parse()
	if flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: modelapi [-addr ADDR] [-log FILE] [-done TEXT] COMMAND...")
		os.Exit(2)
	}
	s := &server{commands: flag.Args(), done: *doneText}
	if *logPath != "" {
		f, err := os.OpenFile(*logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			log.Fatal(err)
		}
		defer f.Close()
		s.log = f
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("listening on http://%s\n", ln.Addr())
	log.Fatal(http.Serve(ln, s))
}

// ServeHTTP dispatches on the path: Responses API for Codex, Gemini API for
// Gemini CLI; anything else is a 404.
func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	if s.log != nil {
		fmt.Fprintf(s.log, "=== %s %s\n%s\n", r.Method, r.URL, body)
	}
	s.seq++
	id := s.seq
	s.mu.Unlock()

	switch p := r.URL.Path; {
	case r.Method == http.MethodPost && strings.HasSuffix(p, "/responses"):
		s.responses(w, body, id)
	case r.Method == http.MethodPost && strings.HasSuffix(p, ":streamGenerateContent"):
		s.gemini(w, body, true)
	case r.Method == http.MethodPost && strings.HasSuffix(p, ":generateContent"):
		s.gemini(w, body, false)
	default:
		http.NotFound(w, r)
	}
}

// next returns the command to ask for after done tool results, or "" when
// every command was asked for.
func (s *server) next(done int) string {
	if done < len(s.commands) {
		return s.commands[done]
	}
	return ""
}

// responses answers a Responses API request with a server-sent event stream:
// response.created, one output item, response.completed.
func (s *server) responses(w http.ResponseWriter, body []byte, id int) {
	var req struct {
		Input []struct {
			Type string `json:"type"`
		} `json:"input"`
		Text struct {
			Format struct {
				Type   string     `json:"type"`
				Schema jsonSchema `json:"schema"`
			} `json:"format"`
		} `json:"text"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	done := 0
	for _, item := range req.Input {
		if item.Type == "function_call_output" {
			done++
		}
	}
	respID := fmt.Sprintf("resp_%d", id)
	var item map[string]any
	if f := req.Text.Format; f.Type == "json_schema" {
		item = textItem(id, f.Schema.fill())
	} else if cmd := s.next(done); cmd != "" {
		call := map[string]any{
			"cmd":                 cmd,
			"sandbox_permissions": "require_escalated",
			"justification":       "Run " + cmd + " for the task.",
		}
		if path, ok := strings.CutPrefix(cmd, writePrefix); ok {
			call = map[string]any{"cmd": "apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: " + path +
				"\n+" + strings.TrimSuffix(fileContent, "\n") + "\n*** End Patch\nEOF\n"}
		}
		args, _ := json.Marshal(call)
		item = map[string]any{
			"type": "function_call", "id": fmt.Sprintf("fc_%d", id), "call_id": fmt.Sprintf("call_%d", id),
			"name": "exec_command", "arguments": string(args), "status": "completed",
		}
	} else {
		item = textItem(id, s.done)
	}
	usage := map[string]any{"input_tokens": 10, "output_tokens": 5, "total_tokens": 15}
	w.Header().Set("Content-Type", "text/event-stream")
	events := []map[string]any{
		{"type": "response.created", "response": map[string]any{"id": respID}},
		{"type": "response.output_item.done", "output_index": 0, "item": item},
		{"type": "response.completed", "response": map[string]any{"id": respID, "usage": usage}},
	}
	for _, ev := range events {
		data, _ := json.Marshal(ev)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", ev["type"], data)
	}
}

// textItem is a Responses API output item: the assistant's message text.
func textItem(id int, text string) map[string]any {
	return map[string]any{
		"type": "message", "id": fmt.Sprintf("msg_%d", id), "role": "assistant", "status": "completed",
		"content": []map[string]any{{"type": "output_text", "text": text, "annotations": []any{}}},
	}
}

// jsonSchema is the part of a structured-output schema the fake fills in.
type jsonSchema struct {
	Properties map[string]struct {
		Type string `json:"type"`
	} `json:"properties"`
	Required []string `json:"required"`
}

// fill returns a JSON object with "Fake task" for each required string
// property of the schema.
func (sc jsonSchema) fill() string {
	obj := map[string]string{}
	for _, name := range sc.Required {
		if sc.Properties[name].Type == "string" {
			obj[name] = "Fake task"
		}
	}
	data, _ := json.Marshal(obj)
	return string(data)
}

// gemini answers a Gemini API request: streamed requests get a function call
// (or text) as one server-sent event, plain ones the router's JSON verdict.
func (s *server) gemini(w http.ResponseWriter, body []byte, stream bool) {
	var req struct {
		Contents []struct {
			Role  string                       `json:"role"`
			Parts []map[string]json.RawMessage `json:"parts"`
		} `json:"contents"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var part map[string]any
	if !stream {
		part = map[string]any{"text": `{"complexity_reasoning":"A simple command.","complexity_score":10}`}
	} else {
		calls, results, prompts := 0, 0, 0
		for _, c := range req.Contents {
			for _, p := range c.Parts {
				if _, ok := p["functionCall"]; ok {
					calls++
				}
				if _, ok := p["functionResponse"]; ok {
					results++
				}
				var text string
				if c.Role != "model" && json.Unmarshal(p["text"], &text) == nil &&
					!strings.HasPrefix(text, "<session_context>") {
					prompts++
				}
			}
		}
		done := max(calls, results) + max(prompts-1, 0)
		if cmd := s.next(done); cmd != "" {
			call := map[string]any{
				"name": "run_shell_command",
				"args": map[string]any{"command": cmd, "description": "Run " + cmd + " for the task."},
			}
			if path, ok := strings.CutPrefix(cmd, writePrefix); ok {
				call = map[string]any{
					"name": "write_file",
					"args": map[string]any{"file_path": path, "content": fileContent},
				}
			}
			if edit, ok := strings.CutPrefix(cmd, editPrefix); ok {
				f := strings.SplitN(edit, ":", 3)
				for len(f) < 3 {
					f = append(f, "")
				}
				call = map[string]any{
					"name": "replace",
					"args": map[string]any{
						"file_path": f[0], "old_string": f[1], "new_string": f[2],
						"instruction": "Replace " + f[1] + " with " + f[2] + ".",
					},
				}
			}
			part = map[string]any{"functionCall": call}
		} else {
			part = map[string]any{"text": s.done}
		}
	}
	resp := map[string]any{
		"candidates": []map[string]any{{
			"content":      map[string]any{"role": "model", "parts": []any{part}},
			"finishReason": "STOP",
			"index":        0,
		}},
		"usageMetadata": map[string]any{"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15},
	}
	data, _ := json.Marshal(resp)
	if stream {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprintf(w, "data: %s\r\n\r\n", data)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write(data)
}
