package daemon

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strconv"
	"time"

	"github.com/clai-sh/clai/runner/suggest/gitctx"
	"github.com/clai-sh/clai/runner/suggest/hookproto"
	"github.com/clai-sh/clai/runner/suggest/score"
	"github.com/clai-sh/clai/runner/suggest/store"
)

// Evidence is what the store knows that bears on a shell's next command.
type Evidence struct {
	// Prev is the template of the shell's last command, "" when unknown;
	// PrevCmd the command itself, when the shell gave it.
	Prev, PrevCmd string
	// RepoKey is the repository the shell is in, "" outside one.
	RepoKey string
	// RepoTransitions and GlobalTransitions followed Prev, in the
	// repository and anywhere.
	RepoTransitions, GlobalTransitions []store.Transition
	// RepoCommands are the repository's most frequent commands, decayed;
	// GlobalCommands the same across all repositories, gathered only outside
	// a repository, where they stand in for RepoCommands.
	RepoCommands, GlobalCommands []store.CommandScore
	// Tasks are the repository's project tasks.
	Tasks []store.Task
	// Recent are the templates run lately in the repository (outside one,
	// outside any): how often, and with what args, the latest first.
	Recent map[string]*store.Recent
	// Tree is the repository's work tree, nil when unknown or outside one;
	// Root is the repository's top folder and Cwd the shell's folder, which
	// the tree's paths are told from.
	Tree      *gitctx.Status
	Root, Cwd string
	// Shell is the asking shell, "" when unknown.
	Shell string
	// Now is when the suggestions were asked.
	Now time.Time
}

// The wire format of POST /suggest is the hook protocol's, which the small
// client speaks too.
type (
	// Suggestion is a command to run next, with why.
	Suggestion = hookproto.Suggestion
	// SuggestRequest is the body of POST /suggest.
	SuggestRequest = hookproto.SuggestRequest
	// SuggestReply is the answer of POST /suggest.
	SuggestReply = hookproto.SuggestReply
	// SuggestContext is what a shell's suggestions were drawn from.
	SuggestContext = hookproto.SuggestContext
)

// Limits of a suggestion request.
const (
	DefaultLimit = hookproto.DefaultLimit
	MaxLimit     = hookproto.MaxLimit
	// maxRequest bounds the body of a request other than ingest.
	maxRequest = 64 << 10
	// evidenceRows is how many rows of each kind the ranker is given.
	evidenceRows = 30
	// recentEvents is how many of the latest commands the recent uses of
	// templates are read from.
	recentEvents = 300
)

// routes is the daemon's HTTP API.
func (d *server) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", d.healthz)
	mux.HandleFunc("POST /ingest", d.ingest)
	mux.HandleFunc("POST /suggest", d.suggest)
	mux.HandleFunc("POST /forget", d.forget)
	mux.HandleFunc("GET /debug/scores", d.debugScores)
	mux.HandleFunc("GET /debug/transitions", d.debugTransitions)
	mux.HandleFunc("GET /debug/tasks", d.debugTasks)
	return mux
}

// Health is the answer of GET /healthz.
type Health struct {
	OK       bool   `json:"ok"`
	PID      int    `json:"pid"`
	Socket   string `json:"socket"`
	Database string `json:"database"`
	Schema   int    `json:"schema"`
	// Uptime is in seconds.
	Uptime float64 `json:"uptime_s"`
	// What ingest took and skipped since the daemon started.
	Accepted     int64 `json:"events_accepted"`
	LinesTooLong int64 `json:"lines_too_long"`
	LinesBad     int64 `json:"lines_bad"`
	LinesNewer   int64 `json:"lines_newer"`
	// AskedClai counts the commands not learnt from because they ask
	// clai itself for suggestions, hooks or to forget (clai suggest, clai
	// init, clai history).
	AskedClai int64 `json:"commands_asking_clai"`
	// NotNew counts the commands bash ran without its history growing that
	// were the session's last command again (see hookproto.Event.IfNew).
	NotNew int64 `json:"commands_not_new"`
	// SecretDropped counts the commands not stored because they hold a
	// secret (see secretfilter).
	SecretDropped int64 `json:"commands_secret_dropped"`
	// Noise counts the commands not learnt from because they did not run
	// (exit status 126 or 127) or are on the stop-list (Config.Ignore).
	Noise int64 `json:"commands_noise"`
	// Spooled counts the events accepted from the shells' spool files.
	Spooled int64 `json:"events_spooled"`
	// Dropped counts the events POST /ingest answered as dropped for want
	// of room, Failed those it answered as dropped because their commit
	// failed.
	Dropped int64 `json:"events_dropped"`
	Failed  int64 `json:"events_failed"`
	// Batches counts the transactions that committed events.
	Batches int64 `json:"batches"`
	// Behind tells that a commit of the spool's events failed and the
	// spool keeps them until one succeeds; PendingEvents and PendingBytes
	// count what waits in the spool.
	Behind        bool  `json:"behind"`
	PendingEvents int   `json:"pending_events"`
	PendingBytes  int64 `json:"pending_bytes"`
	// WriteFailures counts the commits that failed, each try;
	// LastWriteError is the error of the last one while writes fail.
	WriteFailures  int64  `json:"write_failures"`
	LastWriteError string `json:"last_write_error,omitempty"`
}

func (d *server) healthz(w http.ResponseWriter, r *http.Request) {
	d.takeSpool(context.WithoutCancel(r.Context()))
	wh := d.writes.health()
	pending, pendingBytes := d.spool.Pending()
	writeJSON(w, Health{
		OK: true, PID: os.Getpid(), Socket: d.cfg.Socket, Database: d.cfg.Database, Schema: store.SchemaVersion(),
		Uptime:   d.cfg.Clock.Now().Sub(d.start).Seconds(),
		Accepted: d.accepted.Load(), LinesTooLong: d.tooLong.Load(), LinesBad: d.bad.Load(), LinesNewer: d.newer.Load(), AskedClai: d.own.Load(), NotNew: d.notNew.Load(), SecretDropped: d.secret.Load(), Noise: d.noise.Load(), Spooled: d.spooled.Load(),
		Dropped: d.dropped.Load(), Failed: d.failed.Load(), Batches: d.batches.Load(),
		Behind: wh.behind, PendingEvents: pending, PendingBytes: pendingBytes, WriteFailures: wh.failures, LastWriteError: wh.lastErr,
	})
}

func (d *server) suggest(w http.ResponseWriter, r *http.Request) {
	var req SuggestRequest
	if err := json.NewDecoder(io.LimitReader(r.Body, maxRequest)).Decode(&req); err != nil {
		http.Error(w, "suggest request: "+err.Error(), http.StatusBadRequest)
		return
	}
	if req.Limit <= 0 {
		req.Limit = DefaultLimit
	}
	req.Limit = min(req.Limit, MaxLimit)
	if !d.settle(w, r) {
		return
	}
	// The shell whose quoting the filled words get and whose syntax each
	// suggestion must parse in.
	req.Shell = d.askingShell(r.Context(), req)
	ev, err := d.evidence(r, req)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	s := d.runnable(r.Context(), req, d.withoutSecrets(d.cfg.Ranker.Rank(ev, MaxLimit)))
	writeJSON(w, SuggestReply{Suggestions: s, Context: d.contextOf(ev)})
}

// contextOf is what the suggestions of ev were drawn from, without a
// branch name that would show a secret.
func (d *server) contextOf(ev Evidence) SuggestContext {
	c := SuggestContext{RepoKey: ev.RepoKey, Previous: ev.Prev, Sources: []string{}}
	if ev.Tree != nil {
		dirty := ev.Tree.Dirty
		c.Dirty = &dirty
		if !d.cfg.Secrets.Secret(ev.Tree.Branch) {
			c.Branch = ev.Tree.Branch
		}
	}
	for _, src := range []struct {
		name string
		some bool
	}{
		{"repo_transitions", len(ev.RepoTransitions) > 0},
		{"global_transitions", len(ev.GlobalTransitions) > 0},
		{"repo_frequency", len(ev.RepoCommands) > 0},
		{"global_frequency", len(ev.GlobalCommands) > 0},
		{"project_tasks", len(ev.Tasks) > 0},
		{"work_tree", ev.Tree != nil},
	} {
		if src.some {
			c.Sources = append(c.Sources, src.name)
		}
	}
	return c
}

// withoutSecrets is s without the suggestions that would show a secret: a
// database written before the filter, or by a rule changed since, may hold
// one. The result is never nil.
func (d *server) withoutSecrets(s []Suggestion) []Suggestion {
	out := make([]Suggestion, 0, len(s))
	for _, sg := range s {
		if d.cfg.Secrets.Secret(sg.Command) || d.cfg.Secrets.Secret(sg.Template) || slices.ContainsFunc(sg.Reasons, d.cfg.Secrets.Secret) {
			continue
		}
		out = append(out, sg)
	}
	return out
}

// evidence gathers what the store knows for req.
func (d *server) evidence(r *http.Request, req SuggestRequest) (Evidence, error) {
	ctx := r.Context()
	ev := Evidence{Cwd: req.Cwd, Shell: req.Shell}
	var root string
	ev.RepoKey, root = d.cfg.Understander.Repo(ctx, req.Cwd, false)
	if req.LastCmd != "" && !d.cfg.Secrets.Secret(req.LastCmd) {
		ev.PrevCmd = req.LastCmd
		ev.Prev = d.cfg.Understander.Command(req.LastCmd).Template
	} else if req.Session != "" {
		// The session's last command stored: a command with a secret
		// was not.
		prev, err := d.store.LastCommand(ctx, req.Session)
		if err != nil {
			return ev, err
		}
		ev.Prev = prev
	}
	if d.cfg.Secrets.Secret(ev.Prev) {
		// Stored before the filter: what followed it would be told in
		// the reasons of its own.
		ev.Prev = ""
	}
	now := d.cfg.Clock.Now()
	ev.Now = now
	var err error
	if ev.Prev != "" {
		if ev.GlobalTransitions, err = d.store.Transitions(ctx, "", ev.Prev, evidenceRows); err != nil {
			return ev, err
		}
	}
	if ev.Recent, err = d.store.RecentUses(ctx, ev.RepoKey, recentEvents, score.MaxAlternatives+1); err != nil {
		return ev, err
	}
	if ev.RepoKey == "" {
		ev.GlobalCommands, err = d.store.TopCommands(ctx, "", now, evidenceRows)
		return ev, err
	}
	if ev.Prev != "" {
		if ev.RepoTransitions, err = d.store.Transitions(ctx, ev.RepoKey, ev.Prev, evidenceRows); err != nil {
			return ev, err
		}
	}
	if ev.RepoCommands, err = d.store.TopCommands(ctx, ev.RepoKey, now, evidenceRows); err != nil {
		return ev, err
	}
	ev.Tasks = d.tasksOf(ctx, ev.RepoKey, root)
	if st, ok := d.cfg.Understander.WorkTree(ctx, root, d.trees.take(root)); ok {
		ev.Tree, ev.Root = &st, root
	}
	return ev, nil
}

// scope is the scope a debug request names: ?repo=KEY, else the repository
// of ?cwd=FOLDER, else the global one.
func (d *server) scope(r *http.Request) string {
	if k := r.URL.Query().Get("repo"); k != "" {
		return k
	}
	if cwd := r.URL.Query().Get("cwd"); cwd != "" {
		k, _ := d.cfg.Understander.Repo(r.Context(), cwd, false)
		return k
	}
	return ""
}

// limit is the ?limit= of a debug request, 100 by default.
func limit(r *http.Request) int {
	n, err := strconv.Atoi(r.URL.Query().Get("limit"))
	if err != nil || n <= 0 {
		return 100
	}
	return min(n, 10000)
}

// debugScore is a command score as /debug/scores shows it.
type debugScore struct {
	Template string    `json:"template"`
	Score    float64   `json:"score"`
	Count    int64     `json:"count"`
	Last     time.Time `json:"last"`
	LastCmd  string    `json:"last_cmd"`
}

// settle reads the spool and commits the events queued before the request,
// so that its answer knows of them; false when it failed, which it then
// answered.
func (d *server) settle(w http.ResponseWriter, r *http.Request) bool {
	d.takeSpool(context.WithoutCancel(r.Context()))
	if err := d.writer.Do(r.Context(), func(context.Context) error { return nil }); err != nil {
		http.Error(w, "commit the events queued: "+err.Error(), http.StatusServiceUnavailable)
		return false
	}
	return true
}

func (d *server) debugScores(w http.ResponseWriter, r *http.Request) {
	if !d.settle(w, r) {
		return
	}
	scope := d.scope(r)
	cs, err := d.store.TopCommands(r.Context(), scope, d.cfg.Clock.Now(), limit(r))
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	out := make([]debugScore, 0, len(cs))
	for _, c := range cs {
		if d.cfg.Secrets.Secret(c.Template) || d.cfg.Secrets.Secret(c.LastCmd) {
			continue
		}
		out = append(out, debugScore{Template: c.Template, Score: c.Score, Count: c.Count, Last: c.Last, LastCmd: c.LastCmd})
	}
	writeJSON(w, map[string]any{"scope": scope, "scores": out})
}

// debugTransition is a transition as /debug/transitions shows it.
type debugTransition struct {
	Prev  string    `json:"prev"`
	Next  string    `json:"next"`
	Count int64     `json:"count"`
	Last  time.Time `json:"last"`
}

func (d *server) debugTransitions(w http.ResponseWriter, r *http.Request) {
	if !d.settle(w, r) {
		return
	}
	scope := d.scope(r)
	var ts []store.Transition
	var err error
	if prev := r.URL.Query().Get("prev"); prev != "" {
		ts, err = d.store.Transitions(r.Context(), scope, d.cfg.Understander.Command(prev).Template, limit(r))
	} else {
		ts, err = d.store.AllTransitions(r.Context(), scope, limit(r))
	}
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	out := make([]debugTransition, 0, len(ts))
	for _, t := range ts {
		if d.cfg.Secrets.Secret(t.Prev) || d.cfg.Secrets.Secret(t.Next) || d.cfg.Secrets.Secret(t.LastCmd) {
			continue
		}
		out = append(out, debugTransition{Prev: t.Prev, Next: t.Next, Count: t.Count, Last: t.Last})
	}
	writeJSON(w, map[string]any{"scope": scope, "transitions": out})
}

func (d *server) debugTasks(w http.ResponseWriter, r *http.Request) {
	if !d.settle(w, r) {
		return
	}
	scope := d.scope(r)
	ts, err := d.store.Tasks(r.Context(), scope)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	if ts == nil {
		ts = []store.Task{}
	}
	writeJSON(w, map[string]any{"repo": scope, "tasks": ts})
}

// writeJSON answers v as JSON.
func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		http.Error(w, fmt.Sprintf("encode the answer: %v", err), http.StatusInternalServerError)
	}
}
