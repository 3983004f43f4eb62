// Package answerer lets a model answer the easy questions of a run: it
// watches a session's ask.Desk, asks the model of the playbook's answerer:
// (a command, or an OpenAI-compatible or Anthropic HTTP API) what to answer
// each question, and answers through the Desk only when every gate holds: the
// model is confident enough, the question is allowed, no danger rule of the
// playbook matches what the program shows, and the answer is one of the
// visible options (or a text where the question takes one). The model's
// reply is untrusted: it never passes a gate by what it says. Every decision,
// taken or declined, is logged (see docs/answerer.md).
package answerer

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"

	"github.com/clai-sh/clai/runner/ask"
)

// Bounds of what a model is given and what is taken from it.
const (
	// MaxReply is the most bytes of a model's reply that are read.
	MaxReply = 64 << 10
	// MaxAnswer is the longest answer taken, in bytes.
	MaxAnswer = 1 << 10
	// MaxReason and MaxSummary bound the reason and the summary kept, in
	// characters.
	MaxReason  = 300
	MaxSummary = 200
	// maxHistory is how many earlier questions a request carries.
	maxHistory = 10
)

// Request is what a model is asked about a question.
type Request struct {
	// Question is the question's text; Options its visible options (none:
	// the question takes a text).
	Question string   `json:"question"`
	Options  []string `json:"options"`
	// Screen is what the program shows, secrets masked: untrusted text.
	Screen   string     `json:"screen"`
	Playbook Playbook   `json:"playbook"`
	History  []Exchange `json:"history"`
	// Summarize asks for a one-line summary of the question too; it is
	// always sent, false included.
	Summarize bool `json:"summarize"`
}

// Playbook is what the model is told of the playbook.
type Playbook struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
}

// Exchange is an earlier question of the run and how it was answered.
type Exchange struct {
	Question string `json:"question"`
	Answer   string `json:"answer"`
	By       string `json:"by,omitempty"`
	Channel  string `json:"channel,omitempty"`
}

// Reply is what a model answers: the answer (an option's label, or a text),
// how sure it is (0 to 1), why, and, when asked, a summary of the question.
type Reply struct {
	Answer     string  `json:"answer"`
	Confidence float64 `json:"confidence"`
	Reason     string  `json:"reason"`
	Summary    string  `json:"summary,omitempty"`
}

// Model answers requests.
type Model interface {
	// Name names the model in logs and reports, never with a credential.
	Name() string
	// Ask returns the model's reply to req; ctx bounds the call.
	Ask(ctx context.Context, req Request) (Reply, error)
}

// errNoJSON is the error of a reply that holds no JSON object.
var errNoJSON = errors.New("the reply holds no JSON object")

// parseReply reads a model's reply from text that should be one JSON object,
// but may be wrapped in prose or a Markdown code fence: the first object
// that decodes is taken. The reply is checked and bounded (see checkReply).
func parseReply(text []byte) (Reply, error) {
	if len(text) > MaxReply {
		return Reply{}, fmt.Errorf("the reply is longer than %d bytes", MaxReply)
	}
	for start := bytes.IndexByte(text, '{'); start >= 0; {
		var raw struct {
			Answer     *string  `json:"answer"`
			Confidence *float64 `json:"confidence"`
			Reason     string   `json:"reason"`
			Summary    string   `json:"summary"`
		}
		dec := json.NewDecoder(bytes.NewReader(text[start:]))
		if err := dec.Decode(&raw); err == nil {
			if raw.Answer == nil || raw.Confidence == nil {
				return Reply{}, errors.New("the reply's JSON has no answer or no confidence")
			}
			return checkReply(Reply{Answer: *raw.Answer, Confidence: *raw.Confidence, Reason: raw.Reason, Summary: raw.Summary})
		}
		next := bytes.IndexByte(text[start+1:], '{')
		if next < 0 {
			break
		}
		start += 1 + next
	}
	return Reply{}, errNoJSON
}

// checkReply refuses a reply whose answer cannot be typed as given (longer
// than MaxAnswer, or refused by ask.CheckText, the rule of every text answer:
// not UTF-8, a control or format character) or whose confidence is no number
// from 0 to 1; the reason and the summary are made one printable line and
// shortened.
func checkReply(r Reply) (Reply, error) {
	switch {
	case len(r.Answer) > MaxAnswer:
		return Reply{}, fmt.Errorf("the answer is longer than %d bytes", MaxAnswer)
	case math.IsNaN(r.Confidence) || r.Confidence < 0 || r.Confidence > 1:
		return Reply{}, fmt.Errorf("the confidence %v is not from 0 to 1", r.Confidence)
	}
	if err := ask.CheckText(r.Answer); err != nil {
		// The rule a person's text answer is held to.
		return Reply{}, fmt.Errorf("the answer cannot be typed: %w", err)
	}
	r.Reason = ask.OneLine(r.Reason, MaxReason)
	r.Summary = ask.OneLine(r.Summary, MaxSummary)
	return r, nil
}
