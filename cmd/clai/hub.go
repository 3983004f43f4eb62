//go:build !clai_lean

package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/urfave/cli/v2"
	"go.uber.org/zap/zapcore"

	"github.com/clai-sh/clai/internal/bounded"
	"github.com/clai-sh/clai/internal/peer"
	"github.com/clai-sh/clai/internal/rundir"
	"github.com/clai-sh/clai/runner/ask"
	"github.com/clai-sh/clai/runner/eventlog"
	"github.com/clai-sh/clai/runner/hub"
	"github.com/clai-sh/clai/runner/hublink"
	"github.com/clai-sh/clai/runner/humanloop"
	"github.com/clai-sh/clai/runner/notify"
	"github.com/clai-sh/clai/runner/sessions"
)

// Bounds of starting a hub.
const (
	// hubStartWait bounds the wait for a hub started to answer.
	hubStartWait = 10 * time.Second
	// hubIdle is how long a hub started on demand serves no run before it
	// ends.
	hubIdle = 10 * time.Minute
	// maxHubLog is the size past which the hub's log starts again.
	maxHubLog = 1 << 20
)

func hubCommand() *cli.Command {
	return &cli.Command{
		Name:  "hub",
		Usage: hubUsage,
		Description: "One hub a user and machine owns the channels of the user config (Telegram, ntfy) once:\n" +
			"every run hands it its questions, and each press answers the run it was made for.\n" +
			"A run that needs it starts it; runs on other machines reach it with clai hub join.",
		Subcommands: []*cli.Command{
			{
				Name:  "serve",
				Usage: "serve the hub in the foreground (for a systemd or launchd unit)",
				Flags: []cli.Flag{
					&cli.DurationFlag{Name: "idle", Usage: "end once no run has been registered for this long (0: never)"},
				},
				Action: hubServe,
			},
			{Name: "start", Usage: "start the hub in the background unless it runs; returns once it answers", Action: hubStart},
			{Name: "stop", Usage: "stop the hub; runs go on, answerable here, and link again to the next", Action: hubStop},
			{
				Name:   "status",
				Usage:  "say whether the hub runs, its channels and the sessions it serves",
				Flags:  []cli.Flag{&cli.BoolFlag{Name: "json", Usage: "the status as JSON"}},
				Action: hubStatus,
			},
			{
				Name:  "socket",
				Usage: "print the hub's socket (what clai hub join forwards to)",
				Flags: []cli.Flag{&cli.BoolFlag{Name: "start", Usage: "start the hub first unless it runs"}},
				Action: func(c *cli.Context) error {
					if c.Bool("start") {
						if err := ensureHub(c.Context, io.Discard); err != nil {
							return failure(err)
						}
					}
					fmt.Fprintln(c.App.Writer, hublink.Socket(rundir.Dir()))
					return nil
				},
			},
			hubJoinCommand(),
		},
	}
}

// hubServe runs the hub until SIGTERM, Ctrl-C, clai hub stop or --idle.
func hubServe(c *cli.Context) error {
	if c.NArg() > 0 {
		return usageError("hub serve: takes no arguments")
	}
	cfg, err := humanloop.LoadConfig(c.App.ErrWriter, os.Environ())
	if err != nil {
		return err
	}
	dir := rundir.Dir()
	if err := rundir.Prepare(dir); err != nil {
		return failure(err)
	}
	logger, stop := eventlog.New(zapcore.AddSync(c.App.ErrWriter), zapcore.InfoLevel, "hub")
	defer stop()
	// The lock first: the state is the holder's alone.
	lock, err := hub.TakeLock(dir)
	if errors.Is(err, hub.ErrAlreadyRunning) {
		fmt.Fprintln(c.App.ErrWriter, "clai hub:", err)
		return nil
	}
	if err != nil {
		return failure(err)
	}
	state, err := hub.OpenState(dir)
	if err != nil {
		return failure(err)
	}
	env := notify.Environment{Environ: os.Environ(), ResolvePath: func(p string) string {
		if filepath.IsAbs(p) || cfg.Path == "" {
			return p
		}
		return filepath.Join(filepath.Dir(cfg.Path), p)
	}}
	host := hostName()
	channels, err := hub.OpenChannels(cfg.Channels, env, logger, state, host)
	if err != nil {
		return failure(err)
	}
	notifier, targets, err := hub.OpenTargets(cfg, env, logger, humanloop.RunningDashboard(dir))
	if err != nil {
		return failure(err)
	}
	if notifier != nil {
		defer notifier.Close()
	}
	reg, err := sessions.Open(dir)
	if err != nil {
		return failure(err)
	}
	ctx, cancel := signal.NotifyContext(c.Context, os.Interrupt, syscall.SIGTERM)
	defer cancel()
	err = hub.Run(ctx, hub.Config{
		Dir: dir, Host: host, Channels: channels, Notifier: notifier, Targets: targets, Log: logger, Idle: c.Duration("idle"), Lock: lock,
		Mirror: func(desk ask.Desk) func() {
			entry, err := reg.Register(hub.Named(desk), nil)
			if err != nil {
				return func() {}
			}
			return func() { _ = entry.Close() }
		},
	})
	if err != nil {
		return failure(err)
	}
	return nil
}

// hubStart starts the hub unless it runs.
func hubStart(c *cli.Context) error {
	if err := ensureHub(c.Context, c.App.Writer); err != nil {
		return failure(err)
	}
	return nil
}

// ensureHub starts the hub in the background unless one answers, and waits
// until it does: its own session, its output in hub.log of the runtime
// folder.
func ensureHub(ctx context.Context, out io.Writer) error {
	dir := rundir.Dir()
	if st, err := hubControl(ctx, dir, "status"); err == nil {
		fmt.Fprintf(out, "the hub runs (process %d)\n", st.PID)
		return nil
	}
	if err := rundir.Prepare(dir); err != nil {
		return err
	}
	self, err := os.Executable()
	if err != nil {
		return fmt.Errorf("starting the hub: %w", err)
	}
	logPath := filepath.Join(dir, "hub.log")
	if fi, err := os.Stat(logPath); err == nil && fi.Size() > maxHubLog {
		_ = os.Remove(logPath)
	}
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("starting the hub: %w", err)
	}
	defer logFile.Close()
	cmd := exec.Command(self, "hub", "serve", "--idle", hubIdle.String())
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.Dir = "/"
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("starting the hub: %w", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	deadline := time.Now().Add(hubStartWait)
	for time.Now().Before(deadline) {
		if st, err := hubControl(ctx, dir, "status"); err == nil {
			fmt.Fprintf(out, "the hub started (process %d)\n", st.PID)
			return nil
		}
		select {
		case err := <-exited:
			// Another hub took the lock first, or it failed: it says why.
			if st, cerr := hubControl(ctx, dir, "status"); cerr == nil {
				fmt.Fprintf(out, "the hub runs (process %d)\n", st.PID)
				return nil
			}
			return fmt.Errorf("the hub ended at once (%v); %s says why", err, logPath)
		case <-time.After(50 * time.Millisecond):
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return fmt.Errorf("the hub did not answer within %s; %s says why", hubStartWait, logPath)
}

// hubControl sends a control frame to the hub in dir and reads its status.
func hubControl(ctx context.Context, dir, control string) (hublink.Status, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	c, err := peer.Dial(ctx, hublink.Socket(dir))
	if err != nil {
		return hublink.Status{}, err
	}
	conn := hublink.NewConn(c)
	defer conn.Close()
	context.AfterFunc(ctx, func() { _ = conn.Close() })
	if err := conn.Write(hublink.Frame{Control: control}); err != nil {
		return hublink.Status{}, err
	}
	f, err := conn.Read()
	switch {
	case err != nil:
		return hublink.Status{}, err
	case f.Refused != "":
		return hublink.Status{}, errors.New(f.Refused)
	case f.Status == nil:
		return hublink.Status{}, errors.New("the hub said nothing of itself")
	}
	return *f.Status, nil
}

func hubStop(c *cli.Context) error {
	st, err := hubControl(c.Context, rundir.Dir(), "stop")
	if err != nil {
		fmt.Fprintln(c.App.Writer, "no hub runs")
		return nil
	}
	fmt.Fprintf(c.App.Writer, "the hub (process %d) stops\n", st.PID)
	return nil
}

func hubStatus(c *cli.Context) error {
	st, err := hubControl(c.Context, rundir.Dir(), "status")
	if err != nil {
		return failure(fmt.Errorf("no hub runs (%v): a run that asks on a channel starts it, or clai hub start", err))
	}
	if c.Bool("json") {
		enc := json.NewEncoder(c.App.Writer)
		enc.SetIndent("", "  ")
		return enc.Encode(st)
	}
	fmt.Fprintf(c.App.Writer, "the hub runs on %s as process %d since %s\n", st.Host, st.PID, st.Since)
	fmt.Fprintf(c.App.Writer, "channels: %s\n", orNone(st.Channels))
	fmt.Fprintf(c.App.Writer, "notify targets: %s\n", orNone(st.Targets))
	fmt.Fprintf(c.App.Writer, "%d sessions\n", len(st.Sessions))
	for _, s := range st.Sessions {
		line := fmt.Sprintf("  %s/%s  %s  %s", s.Host, s.ID, ask.Visible(s.Name), s.State)
		if q := s.Question; q != nil {
			line += "  asks: " + ask.OneLine(q.Text, 60)
		}
		fmt.Fprintln(c.App.Writer, line)
	}
	return nil
}

func orNone(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// startHub starts the hub for a run that needs it, as clai hub start
// does, in a process of its own: the hub is then none of the run's
// children.
func startHub(ctx context.Context) error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, hubStartWait+5*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, self, "hub", "start")
	// One writer for both: exec then writes from one goroutine at a time.
	out := bounded.NewWriter(4096)
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%v: %s", err, strings.TrimSpace(out.String()))
	}
	return nil
}
