package schema_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/clai-sh/clai/runner/engine"
	"github.com/clai-sh/clai/runner/report"
	"github.com/clai-sh/clai/schema"
)

const reportSchemaURL = "https://raw.githubusercontent.com/clai-sh/clai/main/schema/report.schema.json"

// reportSchema compiles the embedded report schema once for all tests.
var reportSchema = sync.OnceValues(func() (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema.Report()))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource(reportSchemaURL, doc); err != nil {
		return nil, err
	}
	return c.Compile(reportSchemaURL)
})

// validateReport validates a JSON document against the report schema.
func validateReport(t *testing.T, doc []byte) error {
	t.Helper()
	sch, err := reportSchema()
	if err != nil {
		t.Fatalf("compile the report schema: %v", err)
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		t.Fatalf("not JSON: %v\n%s", err, doc)
	}
	return sch.Validate(v)
}

// sampleReport is the report of a dry run as the runner writes it: would-sends,
// a danger hit, a prompt nobody answered, a rule that never fired, a secret
// send shown by reference.
func sampleReport() *report.Report {
	sum := sha256.Sum256([]byte("version: 1\nname: deploy\n"))
	danger := report.Event{TimeMS: 2500.917, Event: "danger", State: engine.Running, Rule: "drop-db",
		Excerpt: "About to run: DROP DATABASE prod;", Reason: "abort"}
	prompt := report.Event{TimeMS: 1800.5, Event: "prompt", State: engine.Running,
		Excerpt: "Proceed with migration? (yes/no) ", Reason: "the output stopped at a question for settle (300ms)"}
	return &report.Report{
		Version:    1,
		Playbook:   report.Playbook{Name: "deploy", Path: "playbooks/deploy.yaml", SHA256: hex.EncodeToString(sum[:])},
		Mode:       "dry-run",
		StartedAt:  time.Date(2025, 3, 14, 9, 26, 53, 589_793_000, time.UTC),
		DurationMS: 2501,
		Outcome:    engine.Aborted,
		ExitCode:   engine.ExitDanger,
		Reason:     `danger rule "drop-db" matched "DROP DATABASE"`,
		Child:      &report.Child{Code: 137, Signal: "killed"},
		Timeline: []report.Event{
			{TimeMS: 0, Event: "start", State: engine.Starting, Reason: "deploy"},
			{TimeMS: 0.25, Event: "state", State: engine.Running, From: engine.Starting, Reason: "program started"},
			{TimeMS: 12.5, Event: "would-send", State: engine.Running, Step: "login", Excerpt: "Password: ", Sent: "secret env:DEPLOY_PASS"},
			{TimeMS: 40.1, Event: "would-send", State: engine.Running, Rule: "confirm", Excerpt: "Continue? [y/N]", Sent: "y\r",
				Screen: "Migrating 3 tables\n\nContinue? [y/N]"},
			prompt,
			{TimeMS: 1800.5, Event: "state", State: engine.Prompting, From: engine.Running, Reason: prompt.Reason},
			{TimeMS: 2400, Event: "input", State: engine.Prompting, Bytes: 4},
			danger,
			{TimeMS: 2500.917, Event: "state", State: engine.Aborted, From: engine.Prompting, Reason: `danger rule "drop-db" matched "DROP DATABASE"`},
			{TimeMS: 2500.917, Event: "finish", State: engine.Aborted, Reason: `danger rule "drop-db" matched "DROP DATABASE"`},
		},
		TimelineDropped: 3,
		Rules:           map[string]int{"confirm": 1, "drop-db": 1, "overwrite": 0},
		NeverFired:      []string{"overwrite"},
		DangerHits:      []report.Event{danger},
		// A report of a flood lists the first danger hits only.
		DangerHitsDropped: 2,
		Unanswered:        []report.Event{prompt},
	}
}

func reportJSON(t *testing.T, rep *report.Report) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := rep.Write(&b, "json"); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestReportValidates(t *testing.T) {
	t.Parallel()
	rep := sampleReport()
	if err := validateReport(t, reportJSON(t, rep)); err != nil {
		t.Fatalf("the runner's report does not validate: %v", err)
	}
	// A live run that ended done, and one whose program never started.
	rep.Mode, rep.Outcome, rep.ExitCode, rep.TimelineDropped = "live", engine.Done, 0, 0
	rep.Child = &report.Child{Code: 0}
	if err := validateReport(t, reportJSON(t, rep)); err != nil {
		t.Fatalf("live: %v", err)
	}
	rep.Child = nil
	rep.Timeline, rep.DangerHits, rep.Unanswered, rep.NeverFired, rep.Rules = []report.Event{}, []report.Event{}, []report.Event{}, []string{}, map[string]int{}
	if err := validateReport(t, reportJSON(t, rep)); err != nil {
		t.Fatalf("not started: %v", err)
	}
	// A run whose log, recording and other report were cut short.
	rep.AddOutputError("log", "/dev/full", errors.New("write /dev/full: no space left on device"))
	rep.AddOutputError("recording", "run.cast", errors.New("cast: write: file too large"))
	rep.AddOutputError("report", "run.md", errors.New("write run.md: file too large"))
	if err := validateReport(t, reportJSON(t, rep)); err != nil {
		t.Fatalf("output errors: %v", err)
	}
}

func TestBrokenReportsFail(t *testing.T) {
	t.Parallel()
	var good map[string]any
	if err := json.Unmarshal(reportJSON(t, sampleReport()), &good); err != nil {
		t.Fatal(err)
	}
	for name, breakIt := range map[string]func(doc map[string]any){
		"missing outcome":       func(doc map[string]any) { delete(doc, "outcome") },
		"unknown field":         func(doc map[string]any) { doc["screen"] = "…" },
		"unknown event field":   func(doc map[string]any) { doc["timeline"].([]any)[2].(map[string]any)["secret"] = "x" },
		"unknown playbook key":  func(doc map[string]any) { doc["playbook"].(map[string]any)["hash"] = "x" },
		"unknown outcome":       func(doc map[string]any) { doc["outcome"] = "finished" },
		"no hit left out":       func(doc map[string]any) { doc["danger_hits_dropped"] = 0 },
		"unknown event state":   func(doc map[string]any) { doc["danger_hits"].([]any)[0].(map[string]any)["state"] = "sleeping" },
		"unknown mode":          func(doc map[string]any) { doc["mode"] = "fast" },
		"version 2":             func(doc map[string]any) { doc["version"] = 2 },
		"short hash":            func(doc map[string]any) { doc["playbook"].(map[string]any)["sha256"] = "abc" },
		"rule count not number": func(doc map[string]any) { doc["rules"].(map[string]any)["confirm"] = "1" },
		"timeline null":         func(doc map[string]any) { doc["timeline"] = nil },
		"event without time":    func(doc map[string]any) { delete(doc["timeline"].([]any)[0].(map[string]any), "t_ms") },
		"bad started_at":        func(doc map[string]any) { doc["started_at"] = "yesterday" },
		"output errors empty":   func(doc map[string]any) { doc["output_errors"] = []any{} },
		"unknown output": func(doc map[string]any) {
			doc["output_errors"] = []any{map[string]any{"output": "screen", "path": "r", "error": "x"}}
		},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var doc map[string]any
			data, _ := json.Marshal(good)
			if err := json.Unmarshal(data, &doc); err != nil {
				t.Fatal(err)
			}
			breakIt(doc)
			broken, err := json.Marshal(doc)
			if err != nil {
				t.Fatal(err)
			}
			if err := validateReport(t, broken); err == nil {
				t.Fatalf("a report with %s validates", name)
			}
		})
	}
}

// TestReportSchemaMatchesTheStructs: the schema names exactly the JSON fields of
// the report's Go types, and requires exactly those the runner always writes.
func TestReportSchemaMatchesTheStructs(t *testing.T) {
	t.Parallel()
	var doc map[string]any
	if err := json.Unmarshal(schema.Report(), &doc); err != nil {
		t.Fatal(err)
	}
	defs := doc["$defs"].(map[string]any)
	props := func(m map[string]any) map[string]any { return m["properties"].(map[string]any) }
	top := props(doc)
	child := top["child"].(map[string]any)["oneOf"].([]any)[1].(map[string]any)
	for _, c := range []struct {
		typ    reflect.Type
		object map[string]any
	}{
		{reflect.TypeFor[report.Report](), doc},
		{reflect.TypeFor[report.Playbook](), top["playbook"].(map[string]any)},
		{reflect.TypeFor[report.Child](), child},
		{reflect.TypeFor[report.Event](), defs["event"].(map[string]any)},
		{reflect.TypeFor[report.OutputError](), defs["output_error"].(map[string]any)},
	} {
		var fields, required []string
		for f := range c.typ.Fields() {
			tag := f.Tag.Get("json")
			name, opts, _ := strings.Cut(tag, ",")
			if name == "-" || !f.IsExported() {
				continue
			}
			fields = append(fields, name)
			if !strings.Contains(opts, "omitempty") {
				required = append(required, name)
			}
		}
		var inSchema, requiredInSchema []string
		for name := range props(c.object) {
			inSchema = append(inSchema, name)
		}
		for _, r := range c.object["required"].([]any) {
			requiredInSchema = append(requiredInSchema, r.(string))
		}
		for _, l := range [][]string{fields, required, inSchema, requiredInSchema} {
			slices.Sort(l)
		}
		if !slices.Equal(fields, inSchema) {
			t.Errorf("%s: fields %v, the schema has %v", c.typ, fields, inSchema)
		}
		if !slices.Equal(required, requiredInSchema) {
			t.Errorf("%s: always written %v, the schema requires %v", c.typ, required, requiredInSchema)
		}
		if c.object["additionalProperties"] != false {
			t.Errorf("%s: additionalProperties is not false", c.typ)
		}
	}
	// The states of the schema are the runner's.
	var states []string
	for _, s := range defs["state"].(map[string]any)["enum"].([]any) {
		states = append(states, s.(string))
	}
	want := []string{string(engine.Starting), string(engine.Running), string(engine.Prompting), string(engine.Nudging),
		string(engine.Manual), string(engine.Done), string(engine.TimedOut), string(engine.Failed), string(engine.Aborted)}
	if !slices.Equal(states, want) {
		t.Errorf("states %v, want %v", states, want)
	}
}

func TestReportReturnsCopy(t *testing.T) {
	t.Parallel()
	a := schema.Report()
	if len(a) == 0 || !json.Valid(a) {
		t.Fatal("the report schema is empty or not JSON")
	}
	a[0] = 'X'
	if b := schema.Report(); b[0] == 'X' {
		t.Fatal("Report() returned the embedded slice, not a copy")
	}
}
