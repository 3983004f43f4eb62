package diag_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/clai-sh/clai/playbooks/diag"
)

var sample = diag.List{
	{Pos: diag.Pos{File: "b.yaml", Line: 3, Col: 5}, Severity: diag.Warning, Rule: "unbounded", Message: "rule \"x\" has neither cooldown nor limit", Hint: "add limit: N"},
	{Pos: diag.Pos{File: "a,b:c.yaml", Line: 2, Col: 3}, Severity: diag.Error, Rule: "schema", Message: "100% wrong\nreally", Hint: "fix it"},
}

func TestSortAndCount(t *testing.T) {
	t.Parallel()
	l := append(diag.List(nil), sample...)
	l.Sort()
	if l[0].File != "a,b:c.yaml" {
		t.Fatalf("not sorted by file: %v", l)
	}
	if e, w := l.Count(); e != 1 || w != 1 {
		t.Fatalf("count = %d, %d", e, w)
	}
}

func TestTextWithCaret(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	l := diag.List{sample[0]}
	src := map[string][]byte{"b.yaml": []byte("version: 1\nrules:\n  - name: x\n")}
	if err := diag.WriteText(&out, l, src); err != nil {
		t.Fatal(err)
	}
	want := "b.yaml:3:5: warning: rule \"x\" has neither cooldown nor limit [unbounded]\n" +
		"      - name: x\n" +
		"        ^\n" +
		"    hint: add limit: N\n"
	if out.String() != want {
		t.Fatalf("got\n%s\nwant\n%s", out.String(), want)
	}
}

func TestSummary(t *testing.T) {
	t.Parallel()
	cases := []struct {
		files int
		l     diag.List
		want  string
	}{
		{3, nil, "3 playbooks: 0 errors, 0 warnings"},
		{1, diag.List{sample[0]}, "1 playbook: 0 errors, 1 warning"},
		{0, diag.List{{Severity: diag.Error}, {Severity: diag.Error}}, "0 playbooks: 2 errors, 0 warnings"},
	}
	for _, c := range cases {
		if got := diag.Summary(c.files, c.l); got != c.want {
			t.Errorf("Summary(%d, %d findings) = %q, want %q", c.files, len(c.l), got, c.want)
		}
	}
}

func TestGitHubEscapes(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	if err := diag.WriteGitHub(&out, diag.List{sample[1]}); err != nil {
		t.Fatal(err)
	}
	want := "::error file=a%2Cb%3Ac.yaml,line=2,col=3,title=schema::100%25 wrong%0Areally%0Afix it\n"
	if out.String() != want {
		t.Fatalf("got  %q\nwant %q", out.String(), want)
	}
}

// TestSARIFShape checks the parts of SARIF 2.1.0 that code-scanning tools require:
// version, a driver with a name and rules, results whose ruleIndex points at their
// rule, a level from the spec's set, and 1-based regions.
func TestSARIFShape(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	if err := diag.WriteSARIF(&out, sample, diag.ToolInfo{Name: "clai", Version: "test"}); err != nil {
		t.Fatal(err)
	}
	var log struct {
		Schema  string `json:"$schema"`
		Version string `json:"version"`
		Runs    []struct {
			Tool struct {
				Driver struct {
					Name           string `json:"name"`
					Version        string `json:"version"`
					InformationURI string `json:"informationUri"`
					Rules          []struct {
						ID               string `json:"id"`
						ShortDescription struct {
							Text string `json:"text"`
						} `json:"shortDescription"`
						DefaultConfiguration struct {
							Level string `json:"level"`
						} `json:"defaultConfiguration"`
					} `json:"rules"`
				} `json:"driver"`
			} `json:"tool"`
			Results []struct {
				RuleID    string `json:"ruleId"`
				RuleIndex int    `json:"ruleIndex"`
				Level     string `json:"level"`
				Message   struct {
					Text string `json:"text"`
				} `json:"message"`
				Locations []struct {
					PhysicalLocation struct {
						ArtifactLocation struct {
							URI string `json:"uri"`
						} `json:"artifactLocation"`
						Region struct {
							StartLine   int `json:"startLine"`
							StartColumn int `json:"startColumn"`
						} `json:"region"`
					} `json:"physicalLocation"`
				} `json:"locations"`
			} `json:"results"`
		} `json:"runs"`
	}
	dec := json.NewDecoder(&out)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&log); err != nil {
		t.Fatal(err)
	}
	if log.Version != "2.1.0" || !strings.Contains(log.Schema, "sarif") || len(log.Runs) != 1 {
		t.Fatalf("bad envelope: %+v", log)
	}
	run := log.Runs[0]
	if run.Tool.Driver.Name != "clai" || len(run.Tool.Driver.Rules) != len(diag.Rules()) {
		t.Fatalf("driver lists %d rules, want %d", len(run.Tool.Driver.Rules), len(diag.Rules()))
	}
	levels := map[string]bool{"none": true, "note": true, "warning": true, "error": true}
	for _, r := range run.Tool.Driver.Rules {
		if r.ID == "" || r.ShortDescription.Text == "" || !levels[r.DefaultConfiguration.Level] {
			t.Errorf("incomplete rule %+v", r)
		}
	}
	if len(run.Results) != len(sample) {
		t.Fatalf("%d results, want %d", len(run.Results), len(sample))
	}
	for i, res := range run.Results {
		if run.Tool.Driver.Rules[res.RuleIndex].ID != res.RuleID {
			t.Errorf("result %d: ruleIndex %d points at %q, not %q", i, res.RuleIndex, run.Tool.Driver.Rules[res.RuleIndex].ID, res.RuleID)
		}
		if !levels[res.Level] || res.Message.Text == "" || len(res.Locations) != 1 {
			t.Errorf("result %d incomplete: %+v", i, res)
		}
		reg := res.Locations[0].PhysicalLocation.Region
		if reg.StartLine < 1 || reg.StartColumn < 1 {
			t.Errorf("result %d: region %+v not 1-based", i, reg)
		}
	}
	if uri := run.Results[1].Locations[0].PhysicalLocation.ArtifactLocation.URI; uri != "a,b:c.yaml" {
		t.Errorf("uri = %q", uri)
	}
}
