package humanloop

import (
	"io"
	"path/filepath"

	"go.uber.org/zap"

	"github.com/clai-sh/clai/playbooks"
	"github.com/clai-sh/clai/runner/answerer"
	"github.com/clai-sh/clai/runner/notify"
	"github.com/clai-sh/clai/runner/report"
)

// openAnswerer opens the answerer of pb, else of the user config file cfg
// (nil: none); nil when neither has one. A key that cannot be read refuses
// the run before anything starts. In a dry run it answers nothing and says
// on notices what it would have answered.
func openAnswerer(pb *playbooks.Playbook, cfg *playbooks.Config, environ []string, logger *zap.Logger, dryRun bool, notices io.Writer) (*answerer.Answerer, error) {
	spec, resolve := pb.Answerer, pb.ResolvePath
	if spec == nil && cfg != nil {
		// A file: key of the config file is taken from its folder.
		spec, resolve = cfg.Answerer, func(path string) string {
			if filepath.IsAbs(path) {
				return path
			}
			return filepath.Join(filepath.Dir(cfg.Path), path)
		}
	}
	if spec == nil {
		return nil, nil
	}
	model, err := answerer.Open(spec, notify.Environment{Environ: environ, ResolvePath: resolve, Secrets: playbooks.SecretVariables(pb, cfg)})
	if err != nil {
		return nil, refused(err)
	}
	return answerer.New(model, spec, pb, answerer.WithLogger(logger), answerer.WithDryRun(dryRun, notices)), nil
}

// reportDecisions puts the decisions of ans, which has stopped, in rep.
func reportDecisions(rep *report.Report, ans *answerer.Answerer) {
	decisions, _ := ans.Decisions()
	for _, d := range decisions {
		rd := report.AnswererDecision{Question: d.Question, Decision: d.Decision, Model: d.Model, Why: d.Why}
		if r := d.Reply; r != nil {
			conf := r.Confidence
			rd.Answer, rd.Confidence, rd.Reason = r.Answer, &conf, r.Reason
		}
		rep.Answerer = append(rep.Answerer, rd)
	}
}
