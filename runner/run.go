// Package runner is clai's session: it runs a playbook's program under a driver
// and connects it to an engine (package runner/engine), a clock, the user's
// terminal, the logs, the recording and the report. Run drives a live program,
// Replay a recorded session in virtual time, RunTests a playbook's own tests.
package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/clai-sh/clai/internal/redact"
	"github.com/clai-sh/clai/playbooks"
	"github.com/clai-sh/clai/playbooks/files"
	"github.com/clai-sh/clai/runner/ask"
	"github.com/clai-sh/clai/runner/cast"
	"github.com/clai-sh/clai/runner/driver"
	"github.com/clai-sh/clai/runner/driver/keys"
	"github.com/clai-sh/clai/runner/driver/pty"
	"github.com/clai-sh/clai/runner/driver/tmux"
	"github.com/clai-sh/clai/runner/engine"
	"github.com/clai-sh/clai/runner/eventlog"
	"github.com/clai-sh/clai/runner/exitcode"
	"github.com/clai-sh/clai/runner/playback"
	"github.com/clai-sh/clai/runner/questions"
	"github.com/clai-sh/clai/runner/report"
)

// StartError says the program could not be started.
type StartError struct{ Err error }

// Error says what went wrong.
func (e *StartError) Error() string { return e.Err.Error() }

// Unwrap returns the error underneath.
func (e *StartError) Unwrap() error { return e.Err }

// ExitCode is ExitFailed: the program could not run.
func (e *StartError) ExitCode() int { return exitcode.Failed }

// SetupError is a run refused before anything starts, for what it was given:
// a playbook that cannot run as written, a --var it does not declare, a secret
// that cannot be read, a spawn section that does not resolve. Any other error
// of Run or a replay is one nobody planned for.
type SetupError struct{ Err error }

// Error says what went wrong.
func (e *SetupError) Error() string { return e.Err.Error() }

// Unwrap returns the error underneath.
func (e *SetupError) Unwrap() error { return e.Err }

// ExitCode is ExitUsage: the run was refused for what it was given.
func (e *SetupError) ExitCode() int { return exitcode.Usage }

// options are the settings of one Run.
type options struct {
	host     string
	logger   *zap.Logger
	clock    clock
	mirror   io.Writer
	terminal *Terminal
	vars     map[string]string
	args     []string
	environ  []string
	dryRun   bool
	start    func(ctx context.Context, s Spawn) (driver.Driver, error)
	record   *cast.Writer
	// beginRecording makes the recording once the program started (see
	// WithRecordingOnStart).
	beginRecording func(start time.Time) *cast.Writer
	notices        io.Writer
	// noTimeline leaves the report's timeline out.
	noTimeline bool
	// watch is set for a session a person drives (see Record): clai only
	// watches and records.
	watch bool
	// desk is handed the run's ask.Desk (see WithDesk); remote says that a
	// person may answer from elsewhere (see WithRemote).
	desk   func(ask.Desk)
	remote bool
	// sources are the run's question sources (see WithQuestions).
	sources []questions.Source
	// suggest gives an opening question its suggestions (see
	// WithSuggestions).
	suggest func(ask.Question) []ask.Suggestion
	// terminalAnswer is handed the lines typed at the terminal to answer a
	// question (see WithTerminalAnswers).
	terminalAnswer func(q ask.Question)
}

// Option configures Run, Record and the replays.
type Option func(*options)

// WithLogger logs every event of the run (default: none).
func WithLogger(l *zap.Logger) Option { return func(o *options) { o.logger = l } }

// withClock sets the clock (default: the wall clock); tests reach it
// through export_test.go.
func withClock(c clock) Option { return func(o *options) { o.clock = c } }

// WithHost names the machine the run is on, in its session (ask.Session's
// Host); without it the session names none.
func WithHost(name string) Option { return func(o *options) { o.host = name } }

// WithMirror copies the program's output to w, secrets masked (default: nowhere).
func WithMirror(w io.Writer) Option { return func(o *options) { o.mirror = w } }

// WithTerminal makes the run interactive: the person at t sees the program, types
// to it, and takes over in MANUAL.
func WithTerminal(t *Terminal) Option { return func(o *options) { o.terminal = t } }

// WithVars overrides playbook variables; each must be declared in the playbook.
func WithVars(v map[string]string) Option { return func(o *options) { o.vars = v } }

// WithArgs appends arguments to the spawned command.
func WithArgs(args []string) Option { return func(o *options) { o.args = args } }

// WithEnviron sets the environment the program inherits and ${VAR} expands from
// (default: clai's own).
func WithEnviron(env []string) Option { return func(o *options) { o.environ = env } }

// WithDryRun records what would be sent instead of sending it.
func WithDryRun(on bool) Option { return func(o *options) { o.dryRun = on } }

// WithRecording records the session as asciicast v2 into w: the program's output,
// what the person typed, size changes, and each of clai's answers marked as such
// (playback.MarkerSend), so that a replay of the recording makes its decisions afresh and
// can be compared with this run's. Secrets are recorded masked, and so is what the
// person types while the program has echo off.
func WithRecording(w *cast.Writer) Option { return func(o *options) { o.record = w } }

// WithRecordingOnStart records the session as WithRecording does, into the
// writer begin returns once the program started, before any of its output is
// read (nil: nothing is recorded); start is the time the recording's events
// count from. A file that was there can so be kept until the program runs.
func WithRecordingOnStart(begin func(start time.Time) *cast.Writer) Option {
	return func(o *options) { o.beginRecording = begin }
}

// WithNotices writes a line to w for each answer a dry run or a replay would have
// sent, as it is decided, so a person sees what to type (default: nowhere).
func WithNotices(w io.Writer) Option { return func(o *options) { o.notices = w } }

// WithTimeline says whether the report keeps the run's timeline (default: yes).
// A run whose report is not written can spare recording every event; its
// report still counts the rules and lists the danger hits and unanswered
// prompts.
func WithTimeline(keep bool) Option { return func(o *options) { o.noTimeline = !keep } }

// WithStarter replaces how the program is started (default: a pseudo-terminal).
func WithStarter(start func(ctx context.Context, s Spawn) (driver.Driver, error)) Option {
	return func(o *options) { o.start = start }
}

// Run drives the playbook's program to the end and returns the report. The error is
// for a run that could not happen (a *SetupError: an unsupported feature, a
// missing secret; a *StartError: a program that cannot start); how the run ended
// is in the report. A program that cannot start gives both a *StartError and a
// report (outcome failed, exit code 1, the reason), and the log says why.
func Run(ctx context.Context, pb *playbooks.Playbook, opts ...Option) (*report.Report, error) {
	o := liveOptions(opts)
	if refused := pb.Refusals(); len(refused) > 0 {
		return nil, &SetupError{Err: refused}
	}
	vars, err := mergeVars(pb, o.vars)
	if err != nil {
		return nil, &SetupError{Err: err}
	}
	secrets, err := readSecrets(pb, o.environ, o.dryRun)
	if err != nil {
		return nil, &SetupError{Err: err}
	}
	spawn, err := resolveSpawn(pb, o.environ, vars, o.args)
	if err != nil {
		return nil, &SetupError{Err: err}
	}
	return live(ctx, o, pb, vars, secrets, spawn)
}

// liveOptions are opts over the defaults of a session with a live program.
func liveOptions(opts []Option) options {
	o := options{logger: zap.NewNop(), clock: systemClock{}, environ: os.Environ()}
	for _, opt := range opts {
		opt(&o)
	}
	if o.start == nil {
		o.start = startProgram
	}
	return o
}

// live starts the program spawn describes and runs its session to the end.
// The person's terminal, if there is one, is in raw mode from before the
// program starts (keys typed meanwhile are not echoed by the terminal as well
// as by the program) until the session's loop ends.
func live(ctx context.Context, o options, pb *playbooks.Playbook, vars map[string]string, secrets map[playbooks.SecretRef]string, spawn Spawn) (*report.Report, error) {
	if spawn.Rows == 0 && o.terminal != nil {
		spawn.Rows, spawn.Cols = o.terminal.Size()
	}
	mirror := o.mirror
	if o.terminal != nil {
		mirror = o.terminal.Out
	}
	if mirror == nil {
		mirror = io.Discard
	}
	shown := newLineEnd(mirror, o.terminal != nil)
	if shown != nil {
		mirror = shown
	}
	redact := redact.New(mirror, secretValues(secrets))
	mode := report.ModeLive
	if o.dryRun {
		mode = report.ModeDryRun
	}
	rec := report.NewBuilder(pb, report.Config{Mode: mode, NoTimeline: o.noTimeline, Mask: redact.String})
	var d *desk
	var who string
	id := sessionID()
	if o.terminal != nil {
		who = person()
	}
	if o.desk != nil || len(o.sources) > 0 {
		now := o.clock.Now()
		d = newDesk(ask.Session{ID: id, Name: pb.Name, Host: o.host, Playbook: pb.Path, Program: spawn.Argv, PID: os.Getpid(),
			State: string(engine.Starting), Since: now, Started: now})
		d.dir = spawn.Dir
		if d.dir == "" {
			d.dir, _ = os.Getwd()
			d.dirGuessed = true
		}
	}
	eng := engine.NewEngine(pb, engine.Config{Vars: vars, Environ: envMap(o.environ), Interactive: o.terminal != nil, DryRun: o.dryRun,
		Rows: int(spawn.Rows), Cols: int(spawn.Cols), Attached: spawn.TmuxTarget != "", Redact: redact.String,
		Session: id, Person: who, Remote: o.remote, Project: projectDir(spawn.Dir)})

	restore := func() {}
	if t := o.terminal; t != nil {
		raw, err := t.Raw()
		if err != nil {
			return nil, fmt.Errorf("terminal: %w", err)
		}
		restore = raw
	}
	drv, err := o.start(ctx, spawn)
	if err == nil && o.beginRecording != nil {
		o.record = o.beginRecording(o.clock.Now())
	}
	s := newSession(o, pb, rec, redact)
	if err != nil {
		restore()
		err = &maskedError{err: err, msg: redact.String(err.Error())}
		return s.notStarted(err), &StartError{Err: err}
	}
	s.drv, s.engine, s.secrets, s.shown = drv, eng, secrets, shown
	s.restore, s.rows, s.cols = restore, spawn.Rows, spawn.Cols
	if d != nil {
		s.desk, d.sess = d, s
	}
	if o.record != nil {
		s.recordRedact = redact.Filter(castOutput{s})
		s.inputRedact = redact.Filter(castInput{s})
	}
	return s.run(ctx)
}

// startProgram starts the program in a pseudo-terminal of its own, or drives it
// through tmux.
func startProgram(ctx context.Context, s Spawn) (driver.Driver, error) {
	if s.TmuxTarget != "" || s.TmuxSession != "" {
		return tmux.Start(ctx, tmux.Options{Target: s.TmuxTarget, Session: s.TmuxSession, Argv: s.Argv, Env: s.PlaybookEnv, Dir: s.Dir, Rows: int(s.Rows), Cols: int(s.Cols)})
	}
	if err := commandNotFound(s, nil); err != nil {
		return nil, err
	}
	drv, err := pty.Start(ctx, pty.Options{Argv: s.Argv, Env: s.Env, Dir: s.Dir, Rows: s.Rows, Cols: s.Cols})
	if err != nil {
		if explained := commandNotFound(s, err); explained != nil {
			return nil, explained
		}
	}
	return drv, err
}

// mergeVars applies --var overrides to the playbook's variables.
func mergeVars(pb *playbooks.Playbook, overrides map[string]string) (map[string]string, error) {
	vars := map[string]string{}
	var names []string
	for _, v := range pb.Vars {
		vars[v.Name] = v.Value
		names = append(names, v.Name)
	}
	for k, v := range overrides {
		if _, ok := vars[k]; !ok {
			if len(names) == 0 {
				return nil, fmt.Errorf("--var %s: the playbook declares no variables (add them under vars:)", k)
			}
			return nil, fmt.Errorf("--var %s: the playbook declares no such variable (it has %s)", k, strings.Join(names, ", "))
		}
		vars[k] = v
	}
	return vars, nil
}

// readSecrets reads every secret the playbook uses, before anything starts, so a
// missing one fails at once rather than halfway through a run.
func readSecrets(pb *playbooks.Playbook, environ []string, dryRun bool) (map[playbooks.SecretRef]string, error) {
	out := map[playbooks.SecretRef]string{}
	var errs []error
	tried := map[playbooks.SecretRef]bool{}
	for _, a := range pb.Actions() {
		if a.Kind != playbooks.ActSecret || tried[a.Secret] {
			continue
		}
		tried[a.Secret] = true
		v, err := files.ReadSecret(a.Secret, environ, pb.ResolvePath)
		if err != nil {
			if !dryRun {
				errs = append(errs, err)
			}
			continue
		}
		out[a.Secret] = v
	}
	return out, errors.Join(errs...)
}

func secretValues(m map[playbooks.SecretRef]string) []string {
	out := make([]string, 0, len(m))
	for _, v := range m {
		out = append(out, v)
	}
	return out
}

// session is one run in progress.
type session struct {
	// suggested are the suggestions of the question opened last (see
	// withSuggestions).
	suggested suggested
	o         options
	pb        *playbooks.Playbook
	drv       driver.Driver
	engine    *engine.Engine
	rec       *report.Builder
	redact    *redact.Redactor
	secrets   map[playbooks.SecretRef]string
	// shown tracks the line the mirrored output stopped in on a terminal
	// (nil: it does not show on one).
	shown *lineEnd
	// restore gives the person's terminal its mode back once the loop ends;
	// rows and cols are the program's terminal size (0: the driver's default).
	restore    func()
	rows, cols uint16

	result *engine.Result
	child  *driver.ExitStatus
	kill   bool
	// recordRedact masks secrets in the output on its way to the recording,
	// inputRedact in what the person types.
	recordRedact, inputRedact *redact.Redactor
	// lastOutput is when the program last wrote (see releaseMirror).
	lastOutput time.Time
	// typing is set while the person types at a password prompt; typed is
	// what they typed so far.
	typing bool
	typed  []byte
	// answering follows the line the person types at the terminal to
	// answer a question (see WithTerminalAnswers); typedAnswer is the
	// question the last input closed, as it closed.
	answering   *answerLine
	typedAnswer *ask.Question
	// sent holds the bytes of an answer of clai's, as a terminal gets them.
	sent []byte
	// pending holds events not yet logged and recorded: encoding them in batches
	// keeps the work off the path between a prompt and its answer.
	pending []engine.Event
	// reading is closed when the loop's direct reader has stopped (see outputs).
	reading chan struct{}
	// log is the run's event log (see flush).
	log *eventlog.Sink
	// desk is the run's ask.Desk, nil without WithDesk; screenDirty is set
	// when the program showed more since its watchers were last told.
	desk        *desk
	screenDirty bool
	// sinks take each of the engine's events, in order (see event).
	sinks []func(e *engine.Event)
	// echoes is what the session found of the terminal's echo for the
	// engine, which hears of it before its next call (see eng).
	echoes echoes
}

// newSession begins the bookkeeping of a run: its options, logs and report.
func newSession(o options, pb *playbooks.Playbook, rec *report.Builder, redact *redact.Redactor) *session {
	_, wall := o.clock.(systemClock)
	return &session{o: o, pb: pb, rec: rec, redact: redact, log: eventlog.NewSink(o.logger, redact.String, wall)}
}

// maxPending is how many events wait before they are logged and recorded.
const maxPending = 256

// flush logs and records the pending events, in order.
func (s *session) flush() {
	for i := range s.pending {
		s.rec.Add(s.pending[i])
		s.log.Event(s.rec.Start(), &s.pending[i])
	}
	s.pending = s.pending[:0]
	if s.screenDirty {
		s.screenDirty = false
		s.desk.screenChanged(s.lastOutput, string(s.engine.State()))
	}
}

func (s *session) run(parent context.Context) (rep *report.Report, err error) {
	ctx, cancel := context.WithCancel(parent)
	defer cancel()
	clock := s.o.clock
	s.rec.SetStart(clock.Now())
	defer func() {
		// Whatever happened, the program is ended and waited for before Run
		// returns.
		if cerr := s.drv.Close(); cerr != nil {
			s.log.Error("close", cerr)
		}
		if s.reading != nil {
			// Closing the driver ended the reader's pending read.
			<-s.reading
		}
		if s.child == nil {
			if st, werr := s.drv.Wait(); werr == nil {
				s.child = &st
			}
		}
		_ = s.redact.Flush()
		if s.shown != nil {
			// What clai says once Run returns starts on a line of its own.
			s.shown.fresh()
		}
		if rep != nil && s.child != nil && !s.child.PaneClosed && rep.Child == nil {
			rep.Child = &report.Child{Code: s.child.Code, Signal: s.child.Signal}
		}
	}()

	if r := s.o.record; r != nil {
		defer flushEvery(r, recordingFlush)()
	}
	if s.desk != nil && s.o.desk != nil {
		s.o.desk(s.desk)
	}
	if f, ok := s.drv.(driver.Folder); ok && s.desk != nil && s.desk.dirGuessed && f.Dir() != "" {
		// A pane clai attached to: its program works in the pane's folder,
		// not clai's.
		s.desk.dir = f.Dir()
	}
	s.apply(s.eng().Start(clock.Now()))
	stopSources := s.startSources(parent)
	s.loop(ctx, parent)
	if s.desk != nil {
		// Said at once: ending the program may take a while yet.
		s.desk.finish(clock.Now(), s.screenNow(), *s.result)
	}
	stopSources()
	if s.kill {
		_ = s.drv.Close()
		if st, werr := s.drv.Wait(); werr == nil {
			s.child = &st
		}
	}
	s.flush()
	if s.recordRedact != nil {
		_ = s.recordRedact.Flush()
		_ = s.inputRedact.Flush()
	}
	if r := s.o.record; r != nil && s.child != nil && !s.child.PaneClosed && !s.o.watch {
		_ = r.Marker(s.since(), fmt.Sprintf("%s %d", playback.MarkerExit, s.child.Code))
	}
	return s.rec.Finish(*s.result, s.engine.Fired(), s.child, clock.Now()), nil
}

// tick lets time pass in the engine. While it may await a reaction to an
// answer the session looks at the terminal's echo first, which the engine
// hears of before the Tick (see eng): with echo off, silence is the reaction.
func (s *session) tick(now time.Time) {
	if s.echoes.awaiting {
		s.echoes.look(s.echo())
	}
	s.apply(s.eng().Tick(now))
}

// since is the time since the run started, for recordings.
func (s *session) since() time.Duration { return s.o.clock.Now().Sub(s.rec.Start()) }

// recordOutput adds program output to the recording, if there is one, with the
// secrets masked as in the mirrored output.
func (s *session) recordOutput(data []byte) {
	if s.recordRedact != nil {
		_, _ = s.recordRedact.Write(data)
	}
}

// castOutput writes output events to a recording.
type castOutput struct{ s *session }

func (c castOutput) Write(p []byte) (int, error) {
	return len(p), c.s.o.record.Output(c.s.since(), p)
}

// castInput writes what the person typed to a recording.
type castInput struct{ s *session }

func (c castInput) Write(p []byte) (int, error) {
	return len(p), c.s.o.record.Input(c.s.since(), p)
}

// apply carries out the engine's actions. Sends go first: the program is waiting
// for them, while logging and recording can wait a few microseconds.
func (s *session) apply(actions []engine.Action) {
	for _, a := range actions {
		if send, ok := a.(*engine.Send); ok && !send.DryRun {
			if !send.Reply {
				s.echoes.typed(send.AwaitsReaction, s.echo)
			}
			ks := send.Keystrokes
			if send.Secret.Source != "" {
				ks.Data = append([]byte(s.secrets[send.Secret]), send.Data...)
			}
			if err := s.typeIn(ks); err != nil {
				s.log.Error("send failed", err)
			}
			if r := s.o.record; r != nil {
				// An answer can repeat what the program showed (a matched
				// group): it is masked as the output is.
				s.sent = send.AppendBytes(s.sent[:0])
				shown := s.redact.Bytes(s.sent)
				if send.Secret.Source != "" {
					shown = append([]byte(redact.Mask), s.sent...)
				}
				// What the person typed before goes first.
				_ = s.inputRedact.Flush()
				t := s.since()
				if !send.Reply && !send.Person {
					// A person's answer is recorded as what they typed: a
					// replay hands it to clai as their input.
					_ = r.Marker(t, playback.MarkerSend)
				}
				_ = r.Input(t, shown)
			}
		}
	}
	for _, a := range actions {
		switch a := a.(type) {
		case *engine.Event:
			s.event(a)
		case engine.Kill:
			s.kill = true
		case engine.Finish:
			r := a.Result
			s.result = &r
		}
	}
	if len(s.pending) >= maxPending || s.result != nil {
		s.flush()
	}
}

// typeIn types keystrokes into the program: a driver.Typer gets the keys by
// name, any other driver the bytes a terminal sends for them.
func (s *session) typeIn(k keys.Keystrokes) error {
	if t, ok := s.drv.(driver.Typer); ok {
		return t.Type(k)
	}
	if len(k.Keys) == 0 {
		_, err := s.drv.Write(k.Data)
		return err
	}
	s.sent = k.AppendBytes(s.sent[:0])
	_, err := s.drv.Write(s.sent)
	clear(s.sent) // it may hold a secret
	return err
}
