//go:build !clai_lean

package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/google/shlex"
	"github.com/urfave/cli/v2"

	"github.com/clai-sh/clai/internal/backoff"
	"github.com/clai-sh/clai/internal/bounded"
	"github.com/clai-sh/clai/internal/pidlock"
	"github.com/clai-sh/clai/internal/rundir"
	"github.com/clai-sh/clai/runner/ask"
	"github.com/clai-sh/clai/runner/hub"
	"github.com/clai-sh/clai/runner/hublink"
)

// Bounds of a join.
const (
	// joinCheckEvery is how often a join asks the hub how it is.
	joinCheckEvery = 10 * time.Second
	// joinUpWait bounds the wait for a new link to answer.
	joinUpWait = 15 * time.Second
	// maxRemoteSocket bounds what the other machine says its socket is.
	maxRemoteSocket = 4096
)

func hubJoinCommand() *cli.Command {
	return &cli.Command{
		Name:      "join",
		Usage:     "join this machine to the hub of another over SSH, and keep the link up",
		ArgsUsage: "[USER@]HOST",
		Description: "Forwards this machine's hub socket to the hub of HOST with OpenSSH (ssh -L, StreamLocalBindUnlink),\n" +
			"so that the runs here hand their questions to that hub and its channels; it links again with a\n" +
			"backoff when the link drops, and says when it is down. While the link is down, runs here stay\n" +
			"answerable with clai answer. SSH authenticates; the hub checks the forwarded peer is the same user.",
		Flags: []cli.Flag{
			&cli.StringSliceFlag{Name: "ssh-option", Aliases: []string{"o"}, Usage: "an option for ssh, e.g. -o '-p 2222' (repeat)"},
			&cli.StringFlag{Name: "remote-socket", Usage: "the hub's socket on HOST (default: ask clai hub socket --start there)"},
			&cli.StringFlag{Name: "remote-clai", Value: "clai", Usage: "the clai command on HOST"},
			&cli.StringFlag{Name: "ssh", Value: "ssh", Usage: "the ssh command"},
		},
		Action: hubJoin,
	}
}

// join is one machine's link to another's hub.
type join struct {
	dest, sshCmd, remoteClai, remoteSocket string
	sshOpts                                []string
	local                                  string
	out                                    io.Writer
}

func hubJoin(c *cli.Context) error {
	if c.NArg() != 1 {
		return usageError("hub join: give the host to join, e.g. clai hub join me@build-box")
	}
	opts, err := sshOptions(c.StringSlice("ssh-option"))
	if err != nil {
		return usageError("hub join: %v", err)
	}
	dir := rundir.Dir()
	if err := rundir.Prepare(dir); err != nil {
		return failure(err)
	}
	// The lock is the hub's: while this machine is joined no hub of its own
	// starts, and a hub that runs here refuses the join.
	lock, held, err := pidlock.TryLock(hub.LockPath(dir))
	if err != nil {
		return failure(err)
	}
	if held {
		return failure(fmt.Errorf("a hub runs on this machine, or it is joined already (process %d): clai hub stop first", pidlock.Holder(hub.LockPath(dir))))
	}
	defer lock.Unlock()
	j := &join{dest: c.Args().First(), sshCmd: c.String("ssh"), remoteClai: c.String("remote-clai"),
		remoteSocket: c.String("remote-socket"), sshOpts: opts, local: hublink.Socket(dir), out: c.App.Writer}
	ctx, stop := signal.NotifyContext(c.Context, os.Interrupt, syscall.SIGTERM)
	defer stop()
	j.keepUp(ctx)
	_ = os.Remove(j.local)
	return nil
}

// sshOptions splits each -o into the words ssh takes, as a shell would:
// quotes keep a path with spaces one word ("-i '/home/me/my keys/build'").
func sshOptions(given []string) ([]string, error) {
	var opts []string
	for _, o := range given {
		words, err := shlex.Split(o)
		if err != nil {
			return nil, fmt.Errorf("-o %q: %v", ask.OneLine(o, 200), err)
		}
		opts = append(opts, words...)
	}
	return opts, nil
}

// keepUp links to the hub again and again until ctx ends, with a backoff
// between failures.
func (j *join) keepUp(ctx context.Context) {
	failures := 0
	for ctx.Err() == nil {
		up, err := j.linkOnce(ctx)
		if ctx.Err() != nil {
			return
		}
		if up {
			failures = 0
		}
		failures++
		wait := backoff.Jitter(backoff.Step(failures))
		fmt.Fprintf(j.out, "clai hub join: the link to %s is down (%v); trying again in %s\n", j.dest, err, wait.Round(time.Second))
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
	}
}

// linkOnce asks the other machine for its hub's socket (starting its hub),
// forwards this machine's to it and waits until the link drops; up says
// whether it came up.
func (j *join) linkOnce(ctx context.Context) (up bool, err error) {
	remote := j.remoteSocket
	if remote == "" {
		if remote, err = j.askSocket(ctx); err != nil {
			return false, err
		}
	}
	args := append(append([]string{}, j.sshOpts...), "-N", "-o", "ExitOnForwardFailure=yes", "-o", "StreamLocalBindUnlink=yes",
		"-o", "ServerAliveInterval=15", "-o", "ServerAliveCountMax=3", "-L", j.local+":"+remote, j.dest)
	cmd := exec.Command(j.sshCmd, args...)
	stderr := bounded.NewWriter(4096)
	cmd.Stderr = stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return false, err
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	defer func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		<-exited
	}()
	check := time.NewTicker(250 * time.Millisecond)
	defer check.Stop()
	deadline := time.Now().Add(joinUpWait)
	failed := 0
	for {
		select {
		case <-ctx.Done():
			return up, ctx.Err()
		case err := <-exited:
			exited <- err // for the deferred wait
			return up, fmt.Errorf("ssh ended: %v %s", err, strings.TrimSpace(stderr.String()))
		case <-check.C:
		}
		st, err := hubControl(ctx, filepath.Dir(j.local), "status")
		switch {
		case err == nil && !up:
			up = true
			failed = 0
			check.Reset(joinCheckEvery)
			fmt.Fprintf(j.out, "clai hub join: joined the hub of %s on %s (process %d); the runs here reach it\n", j.dest, st.Host, st.PID)
		case err == nil:
			failed = 0
		case !up && time.Now().After(deadline):
			return false, fmt.Errorf("the hub of %s did not answer: %v", j.dest, err)
		case up:
			failed++
			if failed >= 2 {
				// The link is up and the hub is not: start it again there.
				fmt.Fprintf(j.out, "clai hub join: the hub of %s does not answer (%v); starting it\n", j.dest, err)
				if j.remoteSocket == "" {
					if _, err := j.askSocket(ctx); err != nil {
						return up, err
					}
				}
				failed = 0
			}
		}
	}
}

// askSocket runs clai hub socket --start on the other machine and reads
// the path of its hub's socket.
func (j *join) askSocket(ctx context.Context) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, joinUpWait)
	defer cancel()
	args := append(append([]string{}, j.sshOpts...), j.dest, j.remoteClai, "hub", "socket", "--start")
	cmd := exec.CommandContext(ctx, j.sshCmd, args...)
	stderr := bounded.NewWriter(4096)
	cmd.Stderr = stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return "", err
	}
	if err := cmd.Start(); err != nil {
		return "", err
	}
	line, _ := bufio.NewReader(io.LimitReader(out, maxRemoteSocket)).ReadString('\n')
	_, _ = io.Copy(io.Discard, io.LimitReader(out, maxRemoteSocket))
	if err := cmd.Wait(); err != nil {
		return "", fmt.Errorf("asking %s for its hub: %v %s", j.dest, err, strings.TrimSpace(stderr.String()))
	}
	path := strings.TrimSpace(line)
	if !filepath.IsAbs(path) || strings.ContainsAny(path, ":\x00") {
		return "", fmt.Errorf("%s named no hub socket (%q)", j.dest, ask.OneLine(path, 200))
	}
	return path, nil
}
