package humanloop_test

import (
	"context"
	"fmt"
	"os"

	"github.com/clai-sh/clai/playbooks"
	"github.com/clai-sh/clai/playbooks/files"
	"github.com/clai-sh/clai/runner/humanloop"
)

// Run a playbook as clai run does, with a notification target and a phone
// channel: a person is told of each question and answers it from ntfy.
func ExampleRun() {
	pb, err := files.Load("deploy.yaml")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return
	}
	cfg, findings := playbooks.ParseConfig("config.yaml", []byte(`
notify:
  - webhook: {url: "https://ci.example/hook"}
channels:
  - ntfy: {topic: alice-questions-5f2a9c}
`))
	if cfg == nil {
		fmt.Fprintln(os.Stderr, findings)
		return
	}
	rep, err := humanloop.Run(context.Background(), pb, humanloop.Options{
		Config: cfg, Headless: true, Notices: os.Stderr,
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
	}
	if rep != nil {
		fmt.Println(rep.Outcome)
	}
}
