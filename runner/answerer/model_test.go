package answerer

import (
	"strings"
	"testing"
)

func TestParseReply(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, text string
		answer     string
		err        string
	}{
		{name: "plain", text: `{"answer": "Y", "confidence": 0.97, "reason": "safe"}`, answer: "Y"},
		{name: "fenced", text: "Sure:\n```json\n{\"answer\": \"n\", \"confidence\": 1, \"reason\": \"x\"}\n```", answer: "n"},
		{name: "a brace in prose first", text: "I think {maybe} so: {\"answer\": \"y\", \"confidence\": 0.9}", answer: "y"},
		{name: "garbage", text: "no idea", err: "no JSON object"},
		{name: "no confidence", text: `{"answer": "Y"}`, err: "no answer or no confidence"},
		{name: "confidence out of range", text: `{"answer": "Y", "confidence": 7}`, err: "not from 0 to 1"},
		{name: "an escape in the answer", text: `{"answer": "y\u001b[2J", "confidence": 1}`, err: "U+001B (a control character)"},
		{name: "a newline in the answer", text: `{"answer": "y\nrm -rf /", "confidence": 1}`, err: "U+000A (a line break)"},
		{name: "a bidi override", text: `{"answer": "y\u202e", "confidence": 1}`, err: "U+202E (a format character"},
		{name: "a CSI in the answer", text: `{"answer": "y\u009b2J", "confidence": 1}`, err: "U+009B (a control character)"},
		{name: "a next line in the answer", text: `{"answer": "y\u0085", "confidence": 1}`, err: "U+0085 (a control character)"},
		{name: "a zero-width space", text: `{"answer": "y\u200b", "confidence": 1}`, err: "U+200B (a format character"},
		{name: "too long", text: `{"answer": "` + strings.Repeat("a", MaxAnswer+1) + `", "confidence": 1}`, err: "longer than"},
		{name: "a huge reply", text: strings.Repeat(" ", MaxReply+1), err: "longer than"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r, err := parseReply([]byte(tc.text))
			switch {
			case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
				t.Errorf("reply %+v, error %v; want an error with %q", r, err, tc.err)
			case tc.err == "" && err != nil:
				t.Errorf("error %v", err)
			case tc.err == "" && r.Answer != tc.answer:
				t.Errorf("answer %q, want %q", r.Answer, tc.answer)
			}
		})
	}
}

func TestReplyReasonIsOneShortLine(t *testing.T) {
	t.Parallel()
	r, err := parseReply([]byte(`{"answer": "Y", "confidence": 1, "reason": "a\nb\u001b]0;title\u0007 ` + strings.Repeat("x", 400) + `"}`))
	if err != nil {
		t.Fatal(err)
	}
	if strings.ContainsAny(r.Reason, "\n\x1b\x07") || len([]rune(r.Reason)) > MaxReason {
		t.Errorf("reason %q", r.Reason)
	}
}
