package testprog_test

import (
	"bufio"
	"io"
	"net/http"
	"os/exec"
	"strings"
	"testing"

	"github.com/clai-sh/clai/internal/testprog"
)

// startModelAPI runs the modelapi fake with the given commands and returns its
// base URL; the server is killed when the test ends.
func startModelAPI(t *testing.T, commands ...string) string {
	t.Helper()
	cmd := exec.Command(testprog.Build(t, "modelapi"), append([]string{"-addr", "127.0.0.1:0"}, commands...)...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("modelapi did not say where it listens: %v", err)
	}
	url, ok := strings.CutPrefix(strings.TrimSpace(line), "listening on ")
	if !ok {
		t.Fatalf("modelapi said %q, want \"listening on URL\"", line)
	}
	return url
}

// post sends body to url+path and returns the reply's body.
func post(t *testing.T, url, path, body string) string {
	t.Helper()
	resp, err := http.Post(url+path, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("POST %s: %s\n%s", path, resp.Status, b)
	}
	return string(b)
}

func TestModelAPIResponses(t *testing.T) {
	url := startModelAPI(t, "git status", "write:notes.txt")
	tests := []struct {
		name, input string
		want        []string
	}{
		{"first command", `[{"type":"message"}]`, []string{
			"event: response.created\n", `"name":"exec_command"`,
			`\"cmd\":\"git status\"`, `\"sandbox_permissions\":\"require_escalated\"`,
			"event: response.completed\n",
		}},
		{"after one result", `[{"type":"message"},{"type":"function_call"},{"type":"function_call_output"}]`, []string{
			`\"cmd\":\"apply_patch \\u003c\\u003c'EOF'\\n*** Begin Patch\\n*** Add File: notes.txt\\n+hello from the fake model\\n`,
		}},
		{"all asked for", `[{"type":"function_call_output"},{"type":"function_call_output"}]`, []string{
			`"text":"Done.","type":"output_text"`,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := post(t, url, "/v1/responses", `{"model":"m","stream":true,"input":`+tt.input+`}`)
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("reply lacks %s:\n%s", w, got)
				}
			}
		})
	}
}

// Codex CLI's request for a task title gets the title it asks for, not a
// command; -done sets the last reply, which every later request gets.
func TestModelAPIResponsesTitleAndDone(t *testing.T) {
	url := startModelAPI(t, "-done", "SCRIPT-DONE", "git status")
	title := `{"model":"m","stream":true,"tools":[],"input":[{"type":"message"}],` +
		`"text":{"format":{"type":"json_schema","name":"codex_output_schema","strict":true,` +
		`"schema":{"type":"object","properties":{"title":{"type":"string"}},"required":["title"]}}}}`
	if got := post(t, url, "/v1/responses", title); !strings.Contains(got, `"text":"{\"title\":\"Fake task\"}"`) ||
		strings.Contains(got, "exec_command") {
		t.Errorf("title request got:\n%s", got)
	}
	for _, input := range []string{
		`[{"type":"function_call_output"}]`,
		`[{"type":"function_call_output"},{"type":"message"},{"type":"message"}]`, // a nudge after it
	} {
		got := post(t, url, "/v1/responses", `{"model":"m","stream":true,"input":`+input+`}`)
		if !strings.Contains(got, `"text":"SCRIPT-DONE","type":"output_text"`) {
			t.Errorf("input %s got:\n%s", input, got)
		}
	}
}

func TestModelAPIGemini(t *testing.T) {
	url := startModelAPI(t, "sudo make install", "write:notes.txt", "edit:README.md:hi:hello")
	stream := "/v1beta/models/m:streamGenerateContent?alt=sse"
	tests := []struct {
		name, path, contents string
		want                 string
	}{
		{"router", "/v1beta/models/m:generateContent", `[{"parts":[{"text":"hi"}]}]`, `complexity_score`},
		{"first command", stream, `[{"parts":[{"text":"hi"}]}]`,
			`{"functionCall":{"args":{"command":"sudo make install","description":"Run sudo make install for the task."},"name":"run_shell_command"}}`},
		{"after one result", stream, `[{"parts":[{"text":"hi"}]},{"parts":[{"functionCall":{}}]},{"parts":[{"functionResponse":{}}]}]`,
			`{"functionCall":{"args":{"content":"hello from the fake model\n","file_path":"notes.txt"},"name":"write_file"}}`},
		{"after two results", stream, `[{"parts":[{"functionResponse":{}},{"functionResponse":{}}]}]`,
			`{"functionCall":{"args":{"file_path":"README.md","instruction":"Replace hi with hello.","new_string":"hello","old_string":"hi"},"name":"replace"}}`},
		{"all asked for", stream, `[{"parts":[{"functionResponse":{}},{"functionResponse":{}},{"functionResponse":{}}]}]`, `{"text":"Done."}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := post(t, url, tt.path, `{"contents":`+tt.contents+`}`)
			if !strings.Contains(got, tt.want) {
				t.Errorf("reply lacks %s:\n%s", tt.want, got)
			}
			if sse := strings.Contains(tt.path, "stream"); sse != strings.HasPrefix(got, "data: ") {
				t.Errorf("streamed = %v, but reply is %q", sse, got)
			}
		})
	}
}

// Gemini CLI leaves a denied call out of what it sends, and the result before
// it: each prompt after the first moves past one command, a call counts as
// done without its result, and -done sets the last reply.
func TestModelAPIGeminiPromptsAndDone(t *testing.T) {
	url := startModelAPI(t, "-done", "SCRIPT-DONE", "find sub -delete", "ls -la", "rm -rf /tmp/x")
	const ctx = `{"text":"<session_context>\nThis is the Gemini CLI."},`
	call := `{"role":"model","parts":[{"functionCall":{"name":"run_shell_command"}}]},` +
		`{"role":"user","parts":[{"functionResponse":{"name":"run_shell_command"}}]}`
	tests := []struct {
		name, contents, want string
	}{
		{"first prompt", `[{"role":"user","parts":[` + ctx + `{"text":"clean up"}]}]`, `"command":"find sub -delete"`},
		{"a prompt after a denial", `[{"role":"user","parts":[` + ctx + `{"text":"clean up"},{"text":"continue"}]}]`, `"command":"ls -la"`},
		{"a result after it", `[{"role":"user","parts":[` + ctx + `{"text":"clean up"},{"text":"continue"}]},` + call + `]`, `"command":"rm -rf /tmp/x"`},
		{"a prompt after the last denial", `[{"role":"user","parts":[` + ctx + `{"text":"clean up"},{"text":"continue"}]},` + call +
			`,{"role":"user","parts":[{"text":"continue"}]}]`, `{"text":"SCRIPT-DONE"}`},
		{"a denial dropped the result before it", `[{"role":"user","parts":[` + ctx + `{"text":"clean up"},{"text":"continue"}]},` + call +
			`,{"role":"model","parts":[{"functionCall":{"name":"run_shell_command"}}]},{"role":"user","parts":[{"text":"continue"}]}]`,
			`{"text":"SCRIPT-DONE"}`},
		{"model text is no prompt", `[{"role":"user","parts":[{"text":"clean up"}]},{"role":"model","parts":[{"text":"Sure."}]}]`, `"command":"find sub -delete"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := post(t, url, "/v1beta/models/m:streamGenerateContent?alt=sse", `{"contents":`+tt.contents+`}`)
			if !strings.Contains(got, tt.want) {
				t.Errorf("reply lacks %s:\n%s", tt.want, got)
			}
		})
	}
}
