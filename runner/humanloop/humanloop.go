// Package humanloop assembles a whole run of clai: the session of
// runner.Run, and around it the human loop the playbook and the user config
// ask for: the answerer, learned answers and the triage between them, the
// notifications, the channels a person answers from (Telegram, ntfy), the
// question sources beside the program's screen (Claude Code's own
// questions), the session server that clai sessions, clai answer and the
// dashboard reach, and the hints a headless run says on stderr. It opens
// them before the program starts, refusing the run for a part that cannot
// open, and closes them after it in the one order that loses nothing.
//
// An embedder that wants only a program driven by a playbook calls
// runner.Run; one that wants clai's whole run calls Run:
//
//	pb, err := files.Load("deploy.yaml") // playbooks/files
//	…
//	cfg, err := humanloop.LoadConfig(os.Stderr, os.Environ())
//	…
//	rep, err := humanloop.Run(ctx, pb, humanloop.Options{Config: cfg, Headless: true, Notices: os.Stderr})
package humanloop

import (
	"context"
	"io"
	"os"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/clai-sh/clai/internal/childenv"
	"github.com/clai-sh/clai/playbooks"
	"github.com/clai-sh/clai/runner"
	"github.com/clai-sh/clai/runner/answerer"
	"github.com/clai-sh/clai/runner/humanloop/core"
	"github.com/clai-sh/clai/runner/notify"
	"github.com/clai-sh/clai/runner/report"
	"github.com/clai-sh/clai/runner/suggest/learned"
)

// Options are what a run is assembled with, besides its playbook. The zero
// value is a headless run that tells nobody, with no user config.
type Options struct {
	// Config is the user config: its notify targets, channels and
	// answerer; nil is none.
	Config *playbooks.Config
	// Environ is the environment the parts read their secrets from (and
	// the program's, unless Runner says otherwise); nil is os.Environ().
	Environ []string
	// Logger is the run's event log; nil logs nothing.
	Logger *zap.Logger
	// DryRun sends nothing automatically and tells nobody: the answerer
	// and learned answers say what they would have answered.
	DryRun bool
	// Remote makes a headless run wait at a question for an answer from
	// elsewhere (clai answer, the dashboard). A run with an answerer,
	// notify targets or channels waits so anyway.
	Remote bool
	// Headless is a run with no person at a terminal; with Quiet as well,
	// it says nothing of its questions on Notices.
	Headless, Quiet bool
	// Notices is where the run tells a person what they must know
	// (warnings, the hints of a headless run); nil is io.Discard.
	Notices io.Writer
	// Command is the program's command line as it runs, which a question
	// source may read; nil is the playbook's.
	Command []string
	// Sources are the sources of questions beside the program's screen;
	// nil is DefaultSources().
	Sources []Source
	// SessionsDir is the sessions folder the run registers in, where clai
	// sessions, clai answer and the dashboard find it; "" is the user's own
	// (under $XDG_RUNTIME_DIR). Learned answers are kept in the state folder
	// of Environ ($XDG_STATE_HOME).
	SessionsDir string
	// Hub is the per-user hub whose channels the run asks on; nil opens
	// the user config's channels in the run itself.
	Hub *Hub
	// Host names this machine in the run's session, which a hub tells
	// people; "" is none.
	Host string
	// Runner are the options of runner.Run besides those of the human loop
	// (a terminal or a mirror, variables, arguments, a recording…); Run
	// adds its own after them.
	Runner []runner.Option
}

// Run runs pb as clai run does: it opens the human loop opts and pb ask
// for, runs the session, and closes the parts in order once it is over:
// the session server first (nothing answers a run that ended), then the
// answerer (the notifications it held back are told), the notifications and
// the channels together (each waits a bounded grace for what is in flight),
// learned answers, and the hints last. A part that cannot open refuses the
// run with a *runner.SetupError before the program starts. The report is
// runner.Run's, with the answerer's decisions.
func Run(ctx context.Context, pb *playbooks.Playbook, opts Options) (*report.Report, error) {
	if opts.Environ == nil {
		opts.Environ = os.Environ()
	}
	if opts.Logger == nil {
		opts.Logger = zap.NewNop()
	}
	if opts.Notices == nil {
		opts.Notices = io.Discard
	}
	if opts.Config == nil {
		opts.Config = &playbooks.Config{}
	}
	if opts.Command == nil {
		opts.Command = pb.Spawn.Command
	}
	if opts.Sources == nil {
		opts.Sources = DefaultSources()
	}
	// The program inherits Environ, unless Runner says otherwise.
	runOpts := append([]runner.Option{runner.WithEnviron(opts.Environ)}, opts.Runner...)
	if opts.Host != "" {
		runOpts = append(runOpts, runner.WithHost(opts.Host))
	}
	remote := opts.Remote
	// The answerer takes the easy questions; in a dry run it says what it
	// would answer.
	ans, err := openAnswerer(pb, opts.Config, opts.Environ, opts.Logger, opts.DryRun, opts.Notices)
	if err != nil {
		return nil, err
	}
	if ans != nil {
		runOpts = append(runOpts, runner.WithDesk(ans.Watch))
		if !opts.DryRun {
			// A headless run waits at a question for it.
			remote = true
		}
	}
	// People's answers are learned; the playbook's suggest: offers them
	// again.
	learner := openLearner(pb, getenv(opts.Environ), opts.Logger, opts.DryRun, opts.Notices, &runOpts)
	// Nobody is told of a question the run answers itself.
	tri := newRunTriage(ans, learner)
	// The user config's channels and targets the playbook uses: the hub's,
	// or the run's own.
	used, err := reachOf(pb, opts.Config, opts.Hub)
	if err != nil {
		closeParts(ans, nil, nil, learner)
		return nil, err
	}
	var notifier *notify.Sender
	var channels phones
	if !opts.DryRun {
		if notifier, err = openNotifier(used, pb, opts.Config, opts.Environ, opts.Logger, tri, opts.SessionsDir); err != nil {
			closeParts(ans, nil, nil, learner)
			return nil, err
		}
		env := notify.Environment{Environ: opts.Environ, ResolvePath: pb.ResolvePath}
		if channels, err = openPhones(pb, used, env, opts.Logger, tri, opts.Notices); err != nil {
			closeParts(ans, notifier, nil, learner)
			return nil, err
		}
	}
	if notifier != nil {
		runOpts = append(runOpts, runner.WithDesk(notifier.Watch))
		remote = true
	}
	if channels != nil {
		runOpts = append(runOpts, runner.WithDesk(channels.Watch))
		remote = true
	}
	if remote {
		runOpts = append(runOpts, runner.WithRemote(true))
	}
	run := SourceRun{Playbook: pb, Command: opts.Command, Getenv: getenv(opts.Environ), Start: time.Now(), Notices: opts.Notices}
	for _, s := range opts.Sources {
		if questions, ok := s.Open(run); ok {
			runOpts = append(runOpts, questions)
		}
	}
	// The run is registered and served while it lives (clai sessions, clai
	// answer).
	served := core.NewServer(opts.SessionsDir, opts.Notices)
	runOpts = append(runOpts, runner.WithDesk(served.Ready))
	// Headless, each question a person may answer from elsewhere is said on
	// the notices, with where to answer it.
	hints := hintsFor(opts.Headless, opts.Quiet, remote, opts.Notices, served, RunningDashboard(opts.SessionsDir), tri)
	if hints != nil {
		runOpts = append(runOpts, runner.WithDesk(hints.watch))
	}
	rep, err := runner.Run(ctx, pb, runOpts...)
	served.Close(opts.Notices)
	if ans != nil && rep != nil {
		// First: the notifications it holds back are then told.
		ans.Close()
		reportDecisions(rep, ans)
		ans = nil
	}
	closeParts(ans, notifier, channels, learner)
	if hints != nil {
		hints.wait()
	}
	return rep, err
}

// closeParts closes the parts that are open, in order: the answerer, then
// the notifications and the channels together (each waits notify.Grace or
// channel.Grace at most for what is in flight), then learned answers.
func closeParts(ans *answerer.Answerer, notifier *notify.Sender, channels phones, learner *learned.Learner) {
	if ans != nil {
		ans.Close()
	}
	var wg sync.WaitGroup
	if channels != nil {
		wg.Go(channels.Close)
	}
	if notifier != nil {
		notifier.Close()
	}
	wg.Wait()
	if learner != nil {
		learner.Close()
	}
}

// refused is err as the refusal of a run before it starts.
func refused(err error) error { return &runner.SetupError{Err: err} }

// getenv looks a name up in environ, the last of a name winning, as the
// program would see it.
func getenv(environ []string) func(string) string {
	return func(name string) string {
		v, _ := childenv.Lookup(environ, name)
		return v
	}
}
