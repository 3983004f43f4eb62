package playbooks_test

import (
	"strings"
	"testing"

	"github.com/clai-sh/clai/playbooks"
)

func TestSuggestDecodes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, yaml string
		sources    []playbooks.SuggestSource
		auto       *playbooks.AutoAnswer
	}{
		{"defaults", "suggest: {}", []playbooks.SuggestSource{playbooks.SourceAnswers}, nil},
		{"auto defaults", "suggest: {sources: [tasks, answers], auto_answer: {}}",
			[]playbooks.SuggestSource{playbooks.SourceTasks, playbooks.SourceAnswers},
			&playbooks.AutoAnswer{MinConfidence: playbooks.DefaultAutoConfidence, MinCount: playbooks.DefaultAutoCount}},
		{"auto given", "suggest: {auto_answer: {min_confidence: 1, min_count: 2}}",
			[]playbooks.SuggestSource{playbooks.SourceAnswers}, &playbooks.AutoAnswer{MinConfidence: 1, MinCount: 2}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			pb, findings := playbooks.Parse("p.yaml", []byte("version: 1\nname: x\nspawn: {command: [cat]}\n"+tc.yaml+"\n"))
			if len(findings) > 0 || pb == nil {
				t.Fatalf("findings: %v", findings)
			}
			s := pb.Suggest
			if s == nil || strings.Join(sourceNames(s.Sources), ",") != strings.Join(sourceNames(tc.sources), ",") {
				t.Fatalf("suggest = %+v, want sources %v", s, tc.sources)
			}
			switch {
			case tc.auto == nil && s.AutoAnswer != nil:
				t.Errorf("auto_answer = %+v, want none", s.AutoAnswer)
			case tc.auto != nil && (s.AutoAnswer == nil || s.AutoAnswer.MinConfidence != tc.auto.MinConfidence || s.AutoAnswer.MinCount != tc.auto.MinCount):
				t.Errorf("auto_answer = %+v, want %+v", s.AutoAnswer, tc.auto)
			}
		})
	}
}

func TestSuggestErrorsSayWhereAndHow(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ yaml, want string }{
		{"suggest: {sources: [answers, histroy]}", `p.yaml:4:30: error: suggest.sources: unknown source "histroy" [schema]` + "\n" + `    hint: rename it to "history"`},
		{"suggest: {sources: [answers, answers]}", `p.yaml:4:30: error: suggest.sources names "answers" twice [schema]`},
		{"suggest: {auto_answer: {min_confidence: 0}}", `p.yaml:4:41: error: suggest.auto_answer.min_confidence must be more than 0 and at most 1, not 0 [schema]`},
		{"suggest: {auto_answer: {min_confidence: 1.01}}", `suggest.auto_answer.min_confidence must be more than 0 and at most 1, not 1.01`},
		{"suggest: {auto_answer: {min_count: 0}}", `p.yaml:4:36: error: suggest.auto_answer.min_count must be from 1 to 1000000, not 0 [schema]`},
		{"suggest: {auto_anwser: {}}", `unknown key "auto_anwser" in suggest, did you mean "auto_answer"?`},
		{"suggest: [answers]", `suggest must be a mapping`},
	} {
		t.Run(tc.yaml, func(t *testing.T) {
			t.Parallel()
			_, findings := playbooks.Parse("p.yaml", []byte("version: 1\nname: x\nspawn: {command: [cat]}\n"+tc.yaml+"\n"))
			var all []string
			for _, f := range findings {
				all = append(all, f.String()+"\n    hint: "+f.Hint)
			}
			if got := strings.Join(all, "\n"); !strings.Contains(got, tc.want) {
				t.Errorf("findings:\n%s\nwant one with:\n%s", got, tc.want)
			}
		})
	}
}

func sourceNames(s []playbooks.SuggestSource) []string {
	out := make([]string, len(s))
	for i, x := range s {
		out[i] = string(x)
	}
	return out
}
