package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/clai-sh/clai/internal/peer"
	"github.com/clai-sh/clai/runner/ask"
	"github.com/clai-sh/clai/runner/channel/channeltest"
	"github.com/clai-sh/clai/runner/hublink"
)

// hubMemSessions is how many sessions WH registers with a hub to read its
// memory.
const hubMemSessions = 100

// helloEvery spaces the sessions' hellos: the hub takes at most
// hub.HelloRate (100) in any second and refuses more.
const helloEvery = 12 * time.Millisecond

// memReading is a process's memory at one moment, in KiB: its peak resident
// set so far (VmHWM) and its resident set now (VmRSS).
type memReading struct{ peak, rss int64 }

// readMemory reads pid's VmHWM and VmRSS from /proc.
func readMemory(pid int) (memReading, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return memReading{}, err
	}
	var m memReading
	for line := range strings.SplitSeq(string(data), "\n") {
		for _, f := range []struct {
			key string
			to  *int64
		}{{"VmHWM:", &m.peak}, {"VmRSS:", &m.rss}} {
			if v, ok := strings.CutPrefix(line, f.key); ok {
				*f.to, _ = strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			}
		}
	}
	if m.peak == 0 || m.rss == 0 {
		return m, fmt.Errorf("no VmHWM or VmRSS in /proc/%d/status", pid)
	}
	return m, nil
}

// hubMemory starts clai hub serve in a runtime folder of its own, with one
// Telegram channel on a fake bot, and reads its memory once it polls the
// bot with no session, then again once n sessions registered with it (each
// a connection of its own speaking the hub's wire, with one open question)
// and every question reached the bot. The hub is stopped and waited for.
func (b hubBench) hubMemory(n int) (idle, loaded memReading, err error) {
	e, err := b.newEnv("wh-mem")
	if err != nil {
		return idle, loaded, err
	}
	defer e.close()
	out := &syncBuffer{}
	cmd := exec.Command(b.clai, "hub", "serve")
	cmd.Env, cmd.Stdout, cmd.Stderr = e.env, out, out
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Start(); err != nil {
		return idle, loaded, fmt.Errorf("WH: clai hub serve: %w", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	var conns []*hublink.Conn
	defer func() {
		for _, c := range conns {
			_ = c.Close()
		}
		if serr := b.stopServe(e, cmd, exited); serr != nil && err == nil {
			err = fmt.Errorf("%w\n%s", serr, out.String())
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), b.limit)
	defer cancel()
	socket := hublink.Socket(filepath.Join(e.runtime, "clai"))
	if err := waitHub(ctx, socket, 0, exited); err != nil {
		return idle, loaded, fmt.Errorf("WH: clai hub serve: %w\n%s", err, out.String())
	}
	if e.tg.WaitContext(ctx, func(f *channeltest.Telegram) bool { return f.Calls("getUpdates") > 0 }) != nil {
		return idle, loaded, fmt.Errorf("WH: the hub never polled the bot within %v\n%s", b.limit, out.String())
	}
	if idle, err = readMemory(cmd.Process.Pid); err != nil {
		return idle, loaded, err
	}
	refused := make(chan string, n)
	for i := range n {
		c, err := register(ctx, socket, i, refused)
		if err != nil {
			return idle, loaded, err
		}
		conns = append(conns, c)
		time.Sleep(helloEvery)
	}
	if err := waitHub(ctx, socket, n, exited); err != nil {
		select {
		case why := <-refused:
			err = fmt.Errorf("a hello refused: %s", why)
		default:
		}
		return idle, loaded, fmt.Errorf("WH: %d sessions: %w\n%s", n, err, out.String())
	}
	err = e.tg.WaitContext(ctx, func(f *channeltest.Telegram) bool {
		asked := 0
		for _, m := range f.Messages() {
			if len(m.Buttons) > 0 {
				asked++
			}
		}
		return asked >= n
	})
	if err != nil {
		return idle, loaded, fmt.Errorf("WH: the %d sessions' questions did not all reach the bot within %v\n%s", n, b.limit, out.String())
	}
	if loaded, err = readMemory(cmd.Process.Pid); err != nil {
		return idle, loaded, err
	}
	return idle, loaded, nil
}

// waitHub waits until the hub at socket answers a status with sessions
// sessions registered, or ctx ends, or the hub exits.
func waitHub(ctx context.Context, socket string, sessions int, exited chan error) error {
	for {
		st, err := hubStatusAt(ctx, socket)
		if err == nil && len(st.Sessions) == sessions {
			return nil
		}
		last := err
		if err == nil {
			last = fmt.Errorf("%d sessions registered, not %d", len(st.Sessions), sessions)
		}
		select {
		case err := <-exited:
			exited <- err
			return fmt.Errorf("the hub ended (%v)", err)
		case <-ctx.Done():
			return fmt.Errorf("%w: %w", ctx.Err(), last)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// hubStatusAt asks the hub at socket for its status, as clai hub status
// does.
func hubStatusAt(ctx context.Context, socket string) (hublink.Status, error) {
	c, err := peer.Dial(ctx, socket)
	if err != nil {
		return hublink.Status{}, err
	}
	conn := hublink.NewConn(c)
	defer conn.Close()
	if err := conn.Write(hublink.Frame{Control: "status"}); err != nil {
		return hublink.Status{}, err
	}
	f, err := conn.ReadWithin(5 * time.Second)
	switch {
	case err != nil:
		return hublink.Status{}, err
	case f.Status == nil:
		return hublink.Status{}, fmt.Errorf("the hub answered no status (%q)", f.Refused)
	}
	return *f.Status, nil
}

// register links session i to the hub at socket as a run does: a hello with
// its session (a 12-hex-digit id of its own, this process's id) and one
// open question. The connection stays open; what the hub calls is answered
// as a run away from its program would, and a refusal is sent to refused.
func register(ctx context.Context, socket string, i int, refused chan<- string) (*hublink.Conn, error) {
	c, err := peer.Dial(ctx, socket)
	if err != nil {
		return nil, fmt.Errorf("WH: session %d: %w", i, err)
	}
	conn := hublink.NewConn(c)
	now := time.Now()
	id := fmt.Sprintf("%012x", 0xbe0c00000000+i)
	q := &ask.Question{ID: "q1", Session: id, Playbook: "wh-mem", Reason: ask.Prompt,
		Text: fmt.Sprintf("m%03d: where? [north/south]", i), Options: []ask.Option{{Label: "north"}, {Label: "south"}},
		Screen: fmt.Sprintf("m%03d: where? [north/south]", i), ScreenHash: fmt.Sprintf("%016x", i), AskedAt: now}
	s := ask.Session{ID: id, Name: fmt.Sprintf("m%03d", i), Host: "bench", Playbook: "wh-mem.yaml",
		Program: []string{"prompter"}, PID: os.Getpid(), State: "manual", Since: now, Started: now, Question: q}
	if err := conn.Write(hublink.Frame{Hello: &hublink.Hello{Version: hublink.Version, Session: s}}); err != nil {
		_ = conn.Close()
		return nil, fmt.Errorf("WH: session %d's hello: %w", i, err)
	}
	go serveCalls(conn, refused)
	return conn, nil
}

// serveCalls answers the hub's calls on conn until it closes: the screen is
// the question's, and an answer is refused, for nothing is typed here.
func serveCalls(conn *hublink.Conn, refused chan<- string) {
	for {
		f, err := conn.Read()
		if err != nil {
			return
		}
		switch {
		case f.Refused != "":
			select {
			case refused <- f.Refused:
			default:
			}
			return
		case f.Call != nil && f.Call.Screen:
			_ = conn.Write(hublink.Frame{Reply: &hublink.Reply{ID: f.Call.ID, Screen: &ask.Screen{Rows: 24, Cols: 80, Text: "where? [north/south]"}}})
		case f.Call != nil:
			_ = conn.Write(hublink.Frame{Reply: &hublink.Reply{ID: f.Call.ID, Refusal: &ask.Refusal{Code: ask.RefusedClosed, Reason: "the bench types nothing"}}})
		}
	}
}

// stopServe stops the hub that cmd serves with clai hub stop and waits for
// it to exit; past the limit it is killed.
func (b hubBench) stopServe(e *hubEnv, cmd *exec.Cmd, exited chan error) error {
	stop := exec.Command(b.clai, "hub", "stop")
	stop.Env, stop.Stdout, stop.Stderr = e.env, io.Discard, io.Discard
	_ = stop.Run()
	select {
	case err := <-exited:
		if err != nil {
			return fmt.Errorf("WH: clai hub serve: %w", err)
		}
		return nil
	case <-time.After(b.limit):
		_ = cmd.Process.Kill()
		<-exited
		return fmt.Errorf("WH: clai hub serve did not end within %v of clai hub stop", b.limit)
	}
}

// benchHubMemory runs hubMemory runs times and prints the medians.
func benchHubMemory(b hubBench, runs int) error {
	var idlePeak, idleRSS, peak, rss []int64
	for range runs {
		idle, loaded, err := b.hubMemory(hubMemSessions)
		if err != nil {
			return err
		}
		idlePeak, idleRSS = append(idlePeak, idle.peak), append(idleRSS, idle.rss)
		peak, rss = append(peak, loaded.peak), append(rss, loaded.rss)
	}
	mib := func(kib int64) string { return fmt.Sprintf("%.1f MiB", float64(kib)/1024) }
	fmt.Printf("  clai hub serve's memory with %d sessions registered, each with a question on the bot, against none (median of %d hubs):\n", hubMemSessions, runs)
	fmt.Printf("    peak RSS (VmHWM)   %s (%d KiB) against %s: %.2f×, %.1f KiB a session   (hubs' range %s–%s)\n",
		mib(median(peak)), median(peak), mib(median(idlePeak)), float64(median(peak))/float64(median(idlePeak)),
		float64(median(peak)-median(idlePeak))/hubMemSessions, mib(slices.Min(peak)), mib(slices.Max(peak)))
	fmt.Printf("    RSS now (VmRSS)    %s (%d KiB) against %s: %.2f×, %.1f KiB a session   (hubs' range %s–%s)\n",
		mib(median(rss)), median(rss), mib(median(idleRSS)), float64(median(rss))/float64(median(idleRSS)),
		float64(median(rss)-median(idleRSS))/hubMemSessions, mib(slices.Min(rss)), mib(slices.Max(rss)))
	return nil
}
