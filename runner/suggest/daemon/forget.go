package daemon

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strings"
	"time"

	"github.com/clai-sh/clai/runner/suggest/store"
)

// MaxPattern bounds the pattern of a forget request, in bytes.
const MaxPattern = 4096

// forgetTimeout bounds a forget: it rewrites what is learnt and may vacuum
// the whole database.
const forgetTimeout = 5 * time.Minute

// ForgetRequest is the body of POST /forget: the commands to forget are
// those whose text, template or one of whose args contains Pattern, or,
// with Regex, that the RE2 regular expression Pattern matches anywhere in.
type ForgetRequest struct {
	Pattern string `json:"pattern"`
	Regex   bool   `json:"regex,omitempty"`
}

// ForgetReply is the answer of POST /forget.
type ForgetReply struct {
	// Events counts the command events forgotten.
	Events int64 `json:"events_forgotten"`
	// Vacuumed tells that the database was rebuilt without its free pages.
	Vacuumed bool `json:"vacuumed"`
}

// Matcher is the test of a forget request: a substring, or a regular
// expression that cannot match an empty command (it would forget them all).
func (r ForgetRequest) Matcher() (func(string) bool, error) {
	switch {
	case r.Pattern == "":
		return nil, errors.New("forget: the pattern is empty")
	case len(r.Pattern) > MaxPattern:
		return nil, fmt.Errorf("forget: the pattern is %d bytes, longer than %d", len(r.Pattern), MaxPattern)
	case !r.Regex:
		p := r.Pattern
		return func(s string) bool { return strings.Contains(s, p) }, nil
	}
	re, err := regexp.Compile(r.Pattern)
	if err != nil {
		return nil, fmt.Errorf("forget: %w", err)
	}
	if re.MatchString("") {
		return nil, fmt.Errorf("forget: /%s/ matches an empty command, so every command; to forget them all, stop the daemon and delete its database", r.Pattern)
	}
	return re.MatchString, nil
}

// forget handles POST /forget: the spool is taken first, so that commands
// still waiting there are forgotten too, then the store forgets through the
// writer, and the daemon forgets the sessions' last templates that match.
func (d *server) forget(w http.ResponseWriter, r *http.Request) {
	var req ForgetRequest
	if err := json.NewDecoder(io.LimitReader(r.Body, maxRequest)).Decode(&req); err != nil {
		http.Error(w, "forget request: "+err.Error(), http.StatusBadRequest)
		return
	}
	match, err := req.Matcher()
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	_ = http.NewResponseController(w).SetWriteDeadline(time.Now().Add(forgetTimeout))
	reply, err := d.forgetMatching(context.WithoutCancel(r.Context()), match)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	writeJSON(w, reply)
}

// forgetMatching forgets the commands that match, in the spool, the store
// and the daemon's memory.
func (d *server) forgetMatching(ctx context.Context, match func(string) bool) (ForgetReply, error) {
	d.takeSpool(ctx)
	var reply ForgetReply
	err := d.writer.Do(ctx, func(ctx context.Context) error {
		f, err := d.store.Forget(ctx, match)
		reply = ForgetReply{Events: f.Events, Vacuumed: f.Scrubbed.Vacuumed}
		return err
	})
	d.lastMu.Lock()
	for session, template := range d.last {
		if match(template) {
			delete(d.last, session)
		}
	}
	d.lastMu.Unlock()
	if err != nil {
		d.logf("forget: %v", err)
		return reply, err
	}
	d.logf("forgot %d command events, and learnt again from the others", reply.Events)
	return reply, nil
}

// Forget forgets the commands req matches (see ForgetRequest) and what was
// learnt from them. When a daemon serves cfg.Socket, it asks it (the daemon
// is the database's only writer); else it takes the daemon's lock, so that
// none starts meanwhile, and does the same in this process: the shells'
// spool is taken into the database, then the commands are forgotten.
func Forget(ctx context.Context, cfg Config, req ForgetRequest) (ForgetReply, error) {
	if _, err := req.Matcher(); err != nil {
		return ForgetReply{}, err
	}
	reply, err := NewClient(cfg.Socket).Forget(ctx, req)
	if !errors.Is(err, ErrNotRunning) {
		return reply, err
	}
	reply, err = forgetHere(ctx, cfg, req)
	if errors.Is(err, ErrAlreadyRunning) {
		// A daemon started in between: it serves the request.
		return NewClient(cfg.Socket).Forget(ctx, req)
	}
	return reply, err
}

// forgetHere forgets with no daemon running, under the daemon's lock.
func forgetHere(ctx context.Context, cfg Config, req ForgetRequest) (ForgetReply, error) {
	match, err := req.Matcher()
	if err != nil {
		return ForgetReply{}, err
	}
	cfg, err = cfg.withDefaults()
	if err != nil {
		return ForgetReply{}, err
	}
	lock, err := takeLock(cfg.Socket)
	if err != nil {
		return ForgetReply{}, err
	}
	defer func() { _ = lock.Unlock() }()
	st, err := store.Open(ctx, cfg.Database, cfg.Store)
	if err != nil {
		return ForgetReply{}, err
	}
	defer st.Close()
	d := newServer(cfg, st)
	defer d.close()
	return d.forgetMatching(ctx, match)
}
