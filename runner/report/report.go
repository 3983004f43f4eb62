// Package report is the account of a run that --report writes: the model
// (Report and its parts, in report.go), the Builder that makes one from the
// run's events (builder.go), and its formats, one file each: JSON (json.go, the
// versioned, machine-readable one, whose schema is schema/report.schema.json),
// Markdown (markdown.go) and HTML (html.go, the page's template
// report.html.tmpl and its chart in chart.go); text.go holds what the Markdown
// and HTML reports share. See docs/reports.md.
package report

import (
	"bytes"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/clai-sh/clai/runner/ask"
	"github.com/clai-sh/clai/runner/engine"
)

// Report is what a run did, for --report. It is versioned: fields are only added.
type Report struct {
	Version  int      `json:"version"`
	Playbook Playbook `json:"playbook"`
	// Mode is "live", "dry-run" or "replay" (ModeLive, ModeDryRun, ModeReplay).
	Mode       string       `json:"mode"`
	StartedAt  time.Time    `json:"started_at"`
	DurationMS int64        `json:"duration_ms"`
	Outcome    engine.State `json:"outcome"`
	ExitCode   int          `json:"exit_code"`
	Reason     string       `json:"reason"`
	// DecidedBy names who took the last hand-over to a person, when someone
	// did: the run then ends as the program does, not in MANUAL.
	DecidedBy string `json:"decided_by,omitempty"`
	// Child is how the program ended; null when it could not be started, or
	// when its tmux pane closed and how it ended is not known.
	Child *Child `json:"child"`
	// Timeline lists the run's events in order; TimelineDropped counts those left
	// out past the first maxTimeline.
	Timeline        []Event        `json:"timeline"`
	TimelineDropped int            `json:"timeline_dropped,omitempty"`
	Rules           map[string]int `json:"rules"`
	NeverFired      []string       `json:"never_fired"`
	// DangerHits lists the run's danger events; DangerHitsDropped counts those
	// left out past the first maxDangerHits.
	DangerHits        []Event `json:"danger_hits"`
	DangerHitsDropped int     `json:"danger_hits_dropped,omitempty"`
	Unanswered        []Event `json:"unanswered_prompts"`
	// Questions lists the questions the run asked a person, as they closed
	// (or stood at the end), with who answered them and through what;
	// QuestionsDropped counts those left out past the first maxQuestions.
	Questions        []ask.Question `json:"questions"`
	QuestionsDropped int            `json:"questions_dropped,omitempty"`
	// Answerer lists the answerer's decisions, taken or declined, with its
	// model, confidence and reason (docs/answerer.md); absent without one.
	Answerer []AnswererDecision `json:"answerer,omitempty"`
	// OutputErrors lists the outputs of the run (the event log, the
	// recording) that could not be written in full; absent when all were.
	OutputErrors []OutputError `json:"output_errors,omitempty"`
}

// AnswererDecision is what the answerer decided on a question.
type AnswererDecision struct {
	Question string `json:"question"`
	// Decision is answered, would-answer, declined, failed or refused.
	Decision string `json:"decision"`
	Model    string `json:"model"`
	// Answer, Confidence and Reason are the model's reply, when it gave one.
	Answer     string   `json:"answer,omitempty"`
	Confidence *float64 `json:"confidence,omitempty"`
	Reason     string   `json:"reason,omitempty"`
	// Why says why it was declined, failed or refused.
	Why string `json:"why,omitempty"`
}

// Playbook identifies the playbook a run used.
type Playbook struct {
	Name   string `json:"name"`
	Path   string `json:"path"`
	SHA256 string `json:"sha256"`
}

// Child is how the program ended.
type Child struct {
	Code   int    `json:"code"`
	Signal string `json:"signal,omitempty"`
}

// Event is an engine.Event as a report shows it.
type Event struct {
	TimeMS  float64          `json:"t_ms"`
	Event   engine.EventKind `json:"event"`
	State   engine.State     `json:"state"`
	From    engine.State     `json:"from,omitempty"`
	Rule    string           `json:"rule,omitempty"`
	Step    string           `json:"step,omitempty"`
	Excerpt string           `json:"excerpt,omitempty"`
	Sent    string           `json:"sent,omitempty"`
	Reason  string           `json:"reason,omitempty"`
	Bytes   int              `json:"bytes,omitempty"`
	// Screen is the visible screen the decision was taken on (screen matching).
	Screen string `json:"screen,omitempty"`
	// Question is the id of the question a question, answer or closed event
	// is about; Channel and By say through what and by whom an answer came.
	Question string `json:"question,omitempty"`
	Channel  string `json:"channel,omitempty"`
	By       string `json:"by,omitempty"`
}

// The modes a report says a run was in.
const (
	// ModeLive is a run that answered its program.
	ModeLive = "live"
	// ModeDryRun is a run that only said what it would answer.
	ModeDryRun = "dry-run"
	// ModeReplay is a replay of a recording.
	ModeReplay = "replay"
)

// The formats a report is written in, chosen by WriteFile from the file's extension.
const (
	// FormatJSON is the versioned, machine-readable report (schema/report.schema.json).
	FormatJSON = "json"
	// FormatMarkdown is a summary for a pull request comment.
	FormatMarkdown = "md"
	// FormatHTML is one self-contained page with a picture of the timeline.
	FormatHTML = "html"
)

// Write renders the report to w in format: "json", "md" or "html". It shows only
// what the report holds, so what a Report has redacted stays redacted.
func (rep *Report) Write(w io.Writer, format string) error {
	if err := rep.render(w, format); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	return nil
}

func (rep *Report) render(w io.Writer, format string) error {
	switch format {
	case FormatJSON:
		return rep.writeJSON(w)
	case FormatMarkdown:
		return rep.writeMarkdown(w)
	case FormatHTML:
		return rep.writeHTML(w)
	}
	return fmt.Errorf("unknown format %q (json, md or html)", format)
}

// FormatOf is the format WriteFile writes path in, from its extension
// (.json, .md or .html, in any case), or an error naming the three; a command can
// check a --report path with it before the run.
func FormatOf(path string) (string, error) {
	ext := filepath.Ext(path)
	switch format := strings.ToLower(strings.TrimPrefix(ext, ".")); format {
	case FormatJSON, FormatMarkdown, FormatHTML:
		return format, nil
	}
	if ext == "" {
		return "", fmt.Errorf("report %s: no extension to choose the format by (write .json, .md or .html)", path)
	}
	return "", fmt.Errorf("report %s: unknown format %q (write .json, .md or .html)", path, ext)
}

// CheckPath checks, before a run, that WriteFile can write a report to
// path: its extension names a format, path is not a folder, and a file can be
// made where WriteFile will make it. A missing folder is created; what is at
// path is left as it is.
func CheckPath(path string) error {
	if _, err := FormatOf(path); err != nil {
		return err
	}
	return checkWritableAtomic(path)
}

// WriteFile writes the report to path in the format its extension names: .json,
// .md or .html. The file is replaced whole or not at all: a failure leaves what
// was at path before, and runs writing the same path at once leave one of their
// reports, never a mix.
func (rep *Report) WriteFile(path string) error {
	format, err := FormatOf(path)
	if err != nil {
		return err
	}
	// Rendered whole before the file is touched, so a failure leaves no half report.
	var buf bytes.Buffer
	if err := rep.render(&buf, format); err != nil {
		return fmt.Errorf("report %s: %w", path, err)
	}
	// Its errors name path already.
	return writeFileAtomic(path, func(w io.Writer) error {
		_, err := w.Write(buf.Bytes())
		return err
	})
}
