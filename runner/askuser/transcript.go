// Package askuser catches Claude Code's own questions: the AskUserQuestion
// tool calls it writes to its session's transcript (JSON lines under
// ~/.claude/projects) and waits on. Its Source follows the transcript as it
// grows and opens a question of the run for each question of a pending call,
// with its header, options, descriptions, multi-select and "Other" text; the
// answers, from any channel, are typed into Claude Code's question dialog the
// way it takes them (see docs/presets.md).
package askuser

import (
	"encoding/json"
)

// ToolName is the name of Claude Code's question tool.
const ToolName = "AskUserQuestion"

// Option is an option of one of a call's questions.
type Option struct {
	Label       string `json:"label"`
	Description string `json:"description"`
}

// Question is one question of an AskUserQuestion call.
type Question struct {
	Header      string   `json:"header"`
	Question    string   `json:"question"`
	Options     []Option `json:"options"`
	MultiSelect bool     `json:"multiSelect"`
}

// Call is an AskUserQuestion tool call: its id and its questions, which
// Claude Code's dialog shows one after another.
type Call struct {
	ID        string
	Questions []Question
}

// Limits of what a call may hold, beyond which it is ignored: Claude Code's
// dialog takes up to four questions of up to four options, numbered from 1.
const (
	maxQuestions = 8
	maxOptions   = 8
)

// line is the part of a transcript line this package reads.
type line struct {
	Type    string `json:"type"`
	Message struct {
		Content json.RawMessage `json:"content"` // a string, or blocks
	} `json:"message"`
}

// block is the part of a content block this package reads.
type block struct {
	Type      string          `json:"type"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
}

// Entry is what a transcript line says of questions: the AskUserQuestion
// calls the assistant made, and the ids of the tool calls that got a result.
type Entry struct {
	Calls   []Call
	Results []string
}

// Parse reads one transcript line. A line that is not JSON, or not of the
// shape Claude Code writes, says nothing; a call with no questions, too many,
// or an option without a label is left out.
func Parse(data []byte) Entry {
	var l line
	if json.Unmarshal(data, &l) != nil || (l.Type != "assistant" && l.Type != "user") {
		return Entry{}
	}
	var blocks []block
	if json.Unmarshal(l.Message.Content, &blocks) != nil {
		return Entry{}
	}
	var e Entry
	for _, b := range blocks {
		switch {
		case l.Type == "assistant" && b.Type == "tool_use" && b.Name == ToolName && b.ID != "":
			if c, ok := parseCall(b); ok {
				e.Calls = append(e.Calls, c)
			}
		case l.Type == "user" && b.Type == "tool_result" && b.ToolUseID != "":
			e.Results = append(e.Results, b.ToolUseID)
		}
	}
	return e
}

// parseCall reads the input of an AskUserQuestion call.
func parseCall(b block) (Call, bool) {
	var in struct {
		Questions []Question `json:"questions"`
	}
	if json.Unmarshal(b.Input, &in) != nil || len(in.Questions) == 0 || len(in.Questions) > maxQuestions {
		return Call{}, false
	}
	for _, q := range in.Questions {
		if len(q.Options) == 0 || len(q.Options) > maxOptions {
			return Call{}, false
		}
		for _, o := range q.Options {
			if o.Label == "" {
				return Call{}, false
			}
		}
	}
	return Call{ID: b.ID, Questions: in.Questions}, true
}
