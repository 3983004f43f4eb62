package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/clai-sh/clai/internal/sqlitefile/sqlitefiletest"
	"github.com/clai-sh/clai/runner/suggest/daemon"
	"github.com/clai-sh/clai/runner/suggest/store"
)

// dbTraces names the files of the suggestion database that hold marker.
func (e *sessionsEnv) dbTraces(t *testing.T, marker string) []string {
	t.Helper()
	return sqlitefiletest.Traces(t, filepath.Join(e.dir, "clai", "suggest.db"), marker)
}

// waitStderr waits until the daemon's stderr matches re, and returns it.
func (d *runningDaemon) waitStderr(t *testing.T, re *regexp.Regexp) string {
	t.Helper()
	for {
		out, grew := d.stderr.next()
		if re.MatchString(out) {
			return out
		}
		select {
		case <-grew:
		case err := <-d.exited:
			d.exited <- err
			t.Fatalf("clai daemon ended (%v) before it said %s:\n%s", err, re, out)
		case <-t.Context().Done():
			t.Fatalf("clai daemon never said %s:\n%s", re, out)
		}
	}
}

// A user forgets a command with the daemon running (one that named a private
// address, say): nothing of it is left in the database, its write-ahead log
// or shared memory, nor in what is suggested. (A command that holds a secret
// is never stored at all.)
func TestHistoryForgetLeavesNoTraceWhileTheDaemonRuns(t *testing.T) {
	t.Parallel()
	e := newSessionsEnv(t)
	d := e.startDaemon(t)
	const token = "forgetE2Emarker-0123abcd.internal.example"
	now := time.Now()
	var lines strings.Builder
	for i := range 3 {
		at := now.Add(time.Duration(i) * time.Minute)
		lines.WriteString(commandLine("s1", e.dir, "git pull", at))
		lines.WriteString(commandLine("s1", e.dir, "curl https://"+token+"/status", at.Add(time.Second)))
		lines.WriteString(commandLine("s1", e.dir, "make test", at.Add(2*time.Second)))
	}
	c := daemon.NewClient(e.socket())
	if _, _, err := c.Ingest(t.Context(), []byte(lines.String())); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Health(t.Context()); err != nil {
		t.Fatal(err)
	}
	var scores struct{ Scores []struct{ Template string } }
	if err := c.Get(t.Context(), "/debug/scores", &scores); err != nil {
		t.Fatal(err)
	}
	if got := e.dbTraces(t, token); len(got) == 0 {
		t.Fatal("the token was never written")
	}
	if _, stderr, code := e.clai(t, "history", "forget", "--regex", ".*"); code != 2 || !strings.Contains(stderr, "matches an empty command") {
		t.Fatalf("forget .*: exit %d\n%s", code, stderr)
	}
	forget := exec.CommandContext(t.Context(), e.bin, "history", "forget", "-")
	forget.Env, forget.Stdin = e.env, strings.NewReader(token[:24]+"\n")
	out, err := forget.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "forgot 3 commands") {
		t.Fatalf("clai history forget -: %v\n%s", err, out)
	}
	if got := e.dbTraces(t, token[:24]); len(got) > 0 {
		t.Fatalf("the forgotten token is still in %v, the daemon running:\n%s", got, d.stderr)
	}
	suggest := exec.CommandContext(t.Context(), e.bin, "suggest", "--json", "--last", "git pull")
	suggest.Dir, suggest.Env = e.dir, append(e.env, "CLAI_SESSION_ID=s1")
	if out, err := suggest.Output(); err != nil || strings.Contains(string(out), "forgetE2Emarker") || !strings.Contains(string(out), "make test") {
		t.Fatalf("clai suggest after forget: %v\n%s", err, out)
	}
	if strings.Contains(d.stderr.String(), token[:24]) {
		t.Fatalf("the daemon's log holds the token:\n%s", d.stderr)
	}
}

// A retention purge at start leaves no trace of what it purged, the daemon
// still running.
func TestARetentionPurgeLeavesNoTraceWhileTheDaemonRuns(t *testing.T) {
	t.Parallel()
	e := newSessionsEnv(t)
	d := e.startDaemon(t)
	const old = "purgeE2Emarker-7d1c0b"
	now := time.Now()
	var lines strings.Builder
	lines.WriteString(commandLine("s1", e.dir, "echo "+old, now.Add(-30*24*time.Hour)))
	for i := range 20 {
		lines.WriteString(commandLine("s1", e.dir, "make build", now.Add(time.Duration(i)*time.Second)))
	}
	e.ingestThenStop(t, d, lines.String())
	if got := e.dbTraces(t, old); len(got) == 0 {
		t.Fatal("the command was never written")
	}
	again := e.startDaemon(t, "--retention", "7d")
	if _, err := daemon.NewClient(e.socket()).Health(t.Context()); err != nil {
		t.Fatal(err)
	}
	again.waitStderr(t, regexp.MustCompile(`purged 1 events.*scrubbed`))
	if got := e.dbTraces(t, old); len(got) > 0 {
		t.Fatalf("the purged command is still in %v, the daemon running", got)
	}
}

// ingestThenStop has the daemon d commit the NDJSON lines, then stops it
// with SIGTERM.
func (e *sessionsEnv) ingestThenStop(t *testing.T, d *runningDaemon, lines string) {
	t.Helper()
	if _, _, err := daemon.NewClient(e.socket()).Ingest(t.Context(), []byte(lines)); err != nil {
		t.Fatal(err)
	}
	if _, err := daemon.NewClient(e.socket()).Health(t.Context()); err != nil {
		t.Fatal(err)
	}
	if err := d.stop(t); err != nil {
		t.Fatalf("clai daemon on SIGTERM: %v\n%s", err, d.stderr)
	}
}

// A database that is not SQLite, or has a page overwritten in its middle,
// is moved aside at start, said on stderr, and a fresh one serves.
func TestACorruptDatabaseIsMovedAsideAtStart(t *testing.T) {
	t.Parallel()
	for name, spoil := range map[string]func(t *testing.T, e *sessionsEnv, path string){
		"garbage": func(t *testing.T, _ *sessionsEnv, path string) {
			if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, bytes.Repeat([]byte("this is no database\n"), 1000), 0o600); err != nil {
				t.Fatal(err)
			}
		},
		"a page overwritten": func(t *testing.T, e *sessionsEnv, path string) {
			d := e.startDaemon(t)
			var lines strings.Builder
			for i := range 400 {
				lines.WriteString(commandLine("s1", e.dir, "make target-"+strings.Repeat("x", i%40), time.Now().Add(time.Duration(i)*time.Second)))
			}
			e.ingestThenStop(t, d, lines.String())
			f, err := os.OpenFile(path, os.O_RDWR, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			fi, err := f.Stat()
			if err != nil {
				t.Fatal(err)
			}
			if fi.Size() < 8*4096 {
				t.Fatalf("the database is %d bytes", fi.Size())
			}
			if _, err := f.WriteAt(bytes.Repeat([]byte{0x5A}, 4096), (fi.Size()/4096/2)*4096); err != nil {
				t.Fatal(err)
			}
		},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			e := newSessionsEnv(t)
			path := filepath.Join(e.dir, "clai", "suggest.db")
			spoil(t, e, path)
			spoilt, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			d := e.startDaemon(t)
			msg := regexp.MustCompile(`the database (\S+) is damaged \((.+)\); it was moved to (\S+) and a fresh one is made`).FindStringSubmatch(d.stderr.String())
			if msg == nil || msg[1] != path || !strings.HasPrefix(msg[3], path+".corrupt-") || !strings.Contains(msg[2], "corrupt") {
				t.Fatalf("clai daemon said:\n%s", d.stderr)
			}
			if kept, err := os.ReadFile(msg[3]); err != nil || !bytes.Equal(kept, spoilt) {
				t.Fatalf("the old database was not kept whole at %s: %v", msg[3], err)
			}
			c := daemon.NewClient(e.socket())
			if _, _, err := c.Ingest(t.Context(), []byte(commandLine("s1", e.dir, "make fresh", time.Now()))); err != nil {
				t.Fatal(err)
			}
			var scores struct{ Scores []struct{ Template string } }
			if err := c.Get(t.Context(), "/debug/scores", &scores); err != nil || len(scores.Scores) != 1 {
				t.Fatalf("the fresh database: %+v, %v\n%s", scores, err, d.stderr)
			}
			if moved, err := store.CheckOrMoveAside(t.Context(), path, time.Now()); moved != nil || err != nil {
				t.Fatalf("the fresh database is not sound: %+v, %v", moved, err)
			}
		})
	}
}
