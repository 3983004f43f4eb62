package channel

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/clai-sh/clai/internal/backoff"
	"github.com/clai-sh/clai/playbooks"
	"github.com/clai-sh/clai/runner/ask"
	"github.com/clai-sh/clai/runner/notify"
)

// ntfy's bounds and the channel's.
const (
	// MaxNtfyActions is how many action buttons ntfy shows on a message.
	MaxNtfyActions = 3
	// maxLine bounds a line of the JSON stream.
	maxLine = 64 << 10
	// maxSeen bounds the message ids remembered against a replay.
	maxSeen = 1024
)

// NtfyConfig is an ntfy channel's settings.
type NtfyConfig struct {
	// Server is the ntfy server's address (https://ntfy.sh).
	Server string
	// Topic is where the questions are published.
	Topic string
	// Token is an access token ("" for none).
	Token string
	// Client makes the requests (nil: a client of its own).
	Client *http.Client
	// CallTimeout bounds a publish (0: CallTimeout).
	CallTimeout time.Duration
	// Log gets a line for each input ignored or refused, each answer and
	// each failure of the service.
	Log *zap.Logger
	// ReplyTopic is the topic the presses come back on ("": a new one, with
	// a random name); a hub keeps its own across restarts, so that the
	// buttons of its messages still answer.
	ReplyTopic string
	// Ledger remembers the questions published, so that a hub started
	// again does not publish one twice (nil: none).
	Ledger Ledger
	// Since is where the reply topic's stream is read from when the channel
	// starts: a message id or a Unix time ("": now). Seen, when set, is told
	// the id of each message read from it, to start from next time.
	Since string
	Seen  func(id string)
	// Host is the machine the channel's process runs on (the hub's); a
	// session of another machine is HOST/ID in the clai answer commands it
	// publishes, as that machine's sessions are named there ("": every
	// session by its id).
	Host string
	// Sleep waits d or until ctx ends, and says whether d passed: the wait
	// between attempts (nil: the wall clock's), which a test makes virtual.
	Sleep func(ctx context.Context, d time.Duration) bool
}

// Ntfy publishes each question to a topic with an action button per option;
// a press publishes the button's data to a reply topic of the run's own, with
// a random name, that clai reads over ntfy's JSON stream.
type Ntfy struct {
	cfg     NtfyConfig
	server  string
	reply   string
	client  *http.Client
	log     *zap.Logger
	limiter *limiter
	seen    map[string]bool
	order   []string
}

// NewNtfy returns the channel with a new reply topic; nothing is sent before
// Serve.
func NewNtfy(cfg NtfyConfig) (*Ntfy, error) {
	u, err := url.Parse(cfg.Server)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, errors.New("ntfy: the server is not an http or https address")
	}
	if cfg.Topic == "" || strings.ContainsAny(cfg.Topic, "/?#% ") {
		return nil, errors.New("ntfy: the topic is empty or not a topic")
	}
	reply := cfg.ReplyTopic
	if reply == "" {
		var err error
		if reply, err = NewReplyTopic(); err != nil {
			return nil, err
		}
	} else if !validReplyTopic(reply) {
		return nil, errors.New("ntfy: the reply topic is not one clai made")
	}
	n := &Ntfy{cfg: cfg, server: strings.TrimRight(cfg.Server, "/"), reply: reply,
		client: cfg.Client, log: cfg.Log, limiter: newLimiter(InputRate, InputPer), seen: map[string]bool{}}
	if n.client == nil {
		n.client = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	}
	if n.log == nil {
		n.log = zap.NewNop()
	}
	if n.cfg.CallTimeout <= 0 {
		n.cfg.CallTimeout = CallTimeout
	}
	if n.cfg.Sleep == nil {
		n.cfg.Sleep = sleep
	}
	if n.cfg.Ledger == nil {
		n.cfg.Ledger = noLedger{}
	}
	return n, nil
}

// NewReplyTopic is a new reply topic: clai- and 32 random hex digits, a
// name nobody can guess.
func NewReplyTopic() (string, error) {
	var random [16]byte
	if _, err := rand.Read(random[:]); err != nil {
		return "", fmt.Errorf("ntfy: the reply topic: %w", err)
	}
	return "clai-" + hex.EncodeToString(random[:]), nil
}

// validReplyTopic says whether topic is one NewReplyTopic makes.
func validReplyTopic(topic string) bool {
	digits, ok := strings.CutPrefix(topic, "clai-")
	if !ok || len(digits) != 32 {
		return false
	}
	_, err := hex.DecodeString(digits)
	return err == nil
}

// Name is ask.ChannelNtfy.
func (n *Ntfy) Name() string { return ask.ChannelNtfy }

// ReplyTopic is the run's reply topic.
func (n *Ntfy) ReplyTopic() string { return n.reply }

// Serve publishes desk's questions and takes the presses until the run ends
// or ctx ends. A question's publish is tried until it succeeds or the
// question closes; once a published question closes, a follow-up says how.
func (n *Ntfy) Serve(ctx context.Context, desk ask.Desk) error {
	return serveOne(ctx, desk, n.outboxConfig(), 16, n.subscribe, n.tell, n.press)
}

// ServeAll is Serve of every desk that joins, with one subscription to the
// reply topic for them all, until ctx ends: a press answers the session its
// button was made for.
func (n *Ntfy) ServeAll(ctx context.Context, joins <-chan ask.Desk) error {
	return serve(ctx, joins, false, n.outboxConfig(), 16, n.subscribe, n.tell, n.press)
}

func (n *Ntfy) outboxConfig() outboxConfig {
	return outboxConfig{channel: n.Name(), log: n.log, sleep: n.cfg.Sleep}
}

// topicLane is the lane of what is published that is not a question.
const topicLane = "topic"

func (n *Ntfy) tell(out *outbox, desk ask.Desk, u ask.Update) {
	s := desk.Session()
	switch {
	case u.Kind == ask.UpdateQuestion && u.Question != nil:
		n.ask(out, s, u.Question)
	case u.Kind == ask.UpdateClosed && u.Question != nil:
		out.close(u.Question)
	case u.Kind == ask.UpdateEnd:
		msg := ntfyPublish{Title: "clai: " + s.Name + " ended", Message: fmt.Sprintf("%s ended: %s", where(s), u.Outcome), Tags: []string{"checkered_flag"}}
		out.reply(topicLane, "publish", func(ctx context.Context) error { return n.publish(ctx, msg) })
	}
}

// ask publishes q with an action per suggestion, then per option,
// MaxNtfyActions at most; the others are listed. Once it closes, a
// follow-up says how.
func (n *Ntfy) ask(out *outbox, s ask.Session, q *ask.Question) {
	if out.asked(q) {
		return
	}
	msg := ntfyPublish{Title: "clai: " + s.Name + " asks", Message: questionText(s, q), Tags: []string{"question"}, Priority: 4}
	for _, b := range Buttons(q, MaxNtfyActions) {
		a := ntfyAction{Action: "http", Label: cut(b.Label(q), 40), URL: n.server + "/" + n.reply,
			Method: http.MethodPost, Body: b.Encode(), Clear: true}
		if n.cfg.Token != "" {
			a.Headers = map[string]string{"Authorization": "Bearer " + n.cfg.Token}
		}
		msg.Actions = append(msg.Actions, a)
	}
	if len(q.Suggestions)+len(q.Options) > MaxNtfyActions || len(q.Options) == 0 {
		msg.Message += fmt.Sprintf("\nanswer: clai answer --question %s %s TEXT", q.ID, n.sessionName(s))
	}
	msg.Message = cut(msg.Message, maxMessage)
	key := ledgerKey(n.Name(), q, n.cfg.Topic)
	out.ask(q, "publish",
		func(_, ctx context.Context) error {
			if _, ok := n.cfg.Ledger.Delivered(key); ok {
				return nil // published before this process began
			}
			if err := n.publish(ctx, msg); err != nil {
				return err
			}
			n.cfg.Ledger.Record(key, "published")
			return nil
		},
		func(ctx context.Context, closed *ask.Question) error {
			err := n.publish(ctx, ntfyClosed(s, q, closed))
			if err == nil {
				n.cfg.Ledger.Forget(key)
			}
			return err
		})
}

// sessionName is s as clai answer names it where the channel runs: HOST/ID
// for a session of another machine.
func (n *Ntfy) sessionName(s ask.Session) string {
	if n.cfg.Host != "" && s.Host != "" && s.Host != n.cfg.Host {
		return s.Host + "/" + s.ID
	}
	return s.ID
}

// ntfyClosed is the follow-up of question q, published, once it closed
// (closed.Closed says how): ntfy cannot edit a message it delivered.
func ntfyClosed(s ask.Session, q, closed *ask.Question) ntfyPublish {
	tag := "heavy_check_mark"
	if closed.Closed == nil || closed.Closed.How != ask.Answered {
		tag = "fast_forward"
	}
	return ntfyPublish{Title: fmt.Sprintf("clai: %s, question %s closed", s.Name, q.ID),
		Message: cut(fmt.Sprintf("%s\n— %s", cut(q.Text, 300), closedText(closed)), maxMessage), Tags: []string{tag}, Priority: 2}
}

// press answers the question of a pressed button; a stale or forged one is
// told that the question has moved on.
func (n *Ntfy) press(ctx context.Context, out *outbox, served *desks, m ntfyMessage) {
	if !n.limiter.allow() {
		n.log.Info(LogIgnored, zap.String("event", LogIgnored), zap.String("channel", n.Name()), zap.String("reason", "more inputs than the rate allows"))
		return
	}
	b, err := ParseButton(strings.TrimSpace(m.Message))
	if err != nil {
		n.log.Info(LogIgnored, zap.String("event", LogIgnored), zap.String("channel", n.Name()), zap.String("reason", err.Error()))
		return
	}
	answer := pressIn(ctx, served, b, "ntfy", n.Name())
	title := "clai"
	if desk, ok := served.session(b.Session); ok {
		title += ": " + desk.Session().Name
	}
	fill := out.reserve(topicLane, "publish")
	out.serial(b.Session, func() {
		if _, err := answer(); err != nil {
			n.log.Info(LogRefused, zap.String("event", LogRefused), zap.String("channel", n.Name()), zap.String("reason", err.Error()))
			msg := ntfyPublish{Title: title, Message: MovedOn + ": nothing was typed"}
			fill(func(ctx context.Context) error { return n.publish(ctx, msg) })
			return
		}
		fill(nil)
		n.log.Info(LogAnswer, zap.String("event", LogAnswer), zap.String("channel", n.Name()), zap.String("by", "ntfy"))
	})
}

// subscribe reads the reply topic's JSON stream and hands each new message
// to presses until ctx ends, reconnecting after a failure from where it
// left off.
func (n *Ntfy) subscribe(ctx context.Context, presses chan<- ntfyMessage) {
	since := n.cfg.Since
	if since == "" {
		since = strconv.FormatInt(time.Now().Unix(), 10)
	}
	failures := 0
	for ctx.Err() == nil {
		last, err := n.stream(ctx, since, presses)
		if last != "" {
			since, failures = last, 0
		}
		if ctx.Err() != nil {
			return
		}
		failures++
		if err != nil {
			n.failed("subscribe", err)
		}
		if !n.cfg.Sleep(ctx, backoff.Jitter(backoff.Step(failures))) {
			return
		}
	}
}

// stream reads one connection of the JSON stream; it returns the id of the
// last message read.
func (n *Ntfy) stream(ctx context.Context, since string, presses chan<- ntfyMessage) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, n.server+"/"+n.reply+"/json?since="+url.QueryEscape(since), nil)
	if err != nil {
		return "", errors.New("the request cannot be made")
	}
	n.authorize(req)
	resp, err := n.client.Do(req)
	if err != nil {
		return "", n.transportError(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("status %d", resp.StatusCode)
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 4096), maxLine)
	last := ""
	for sc.Scan() {
		var m ntfyMessage
		if json.Unmarshal(sc.Bytes(), &m) != nil || m.Event != "message" || m.ID == "" {
			continue
		}
		last = m.ID
		if n.cfg.Seen != nil {
			n.cfg.Seen(m.ID)
		}
		if m.Topic != n.reply || !n.remember(m.ID) {
			continue
		}
		if len(m.Message) > MaxText {
			n.log.Info(LogIgnored, zap.String("event", LogIgnored), zap.String("channel", n.Name()), zap.Int("bytes", len(m.Message)),
				zap.String("reason", fmt.Sprintf("a message on the reply topic of %d bytes, more than %d", len(m.Message), MaxText)))
			continue
		}
		select {
		case presses <- m:
		case <-ctx.Done():
			return last, nil
		}
	}
	if err := sc.Err(); err != nil {
		return last, fmt.Errorf("the stream: %w", err)
	}
	return last, errors.New("the stream ended")
}

// remember says whether id is new, and remembers it.
func (n *Ntfy) remember(id string) bool {
	if n.seen[id] {
		return false
	}
	if len(n.order) == maxSeen {
		delete(n.seen, n.order[0])
		n.order = n.order[1:]
	}
	n.seen[id] = true
	n.order = append(n.order, id)
	return true
}

// publish posts msg to the topic.
func (n *Ntfy) publish(ctx context.Context, msg ntfyPublish) error {
	msg.Topic = n.cfg.Topic
	return n.post(ctx, msg)
}

func (n *Ntfy) post(ctx context.Context, msg ntfyPublish) error {
	ctx, cancel := context.WithTimeout(ctx, n.cfg.CallTimeout)
	defer cancel()
	body, err := json.Marshal(msg)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, n.server+"/", bytes.NewReader(body))
	if err != nil {
		return errors.New("the request cannot be made")
	}
	req.Header.Set("Content-Type", "application/json")
	n.authorize(req)
	resp, err := n.client.Do(req)
	if err != nil {
		return n.transportError(err)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, MaxResponse))
	if refusedStatus(resp.StatusCode) {
		return &refusedError{fmt.Errorf("status %d", resp.StatusCode)}
	}
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("status %d", resp.StatusCode)
	}
	return nil
}

func (n *Ntfy) authorize(req *http.Request) {
	if n.cfg.Token != "" {
		req.Header.Set("Authorization", "Bearer "+n.cfg.Token)
	}
}

// transportError is err without its URL, which names the reply topic.
func (n *Ntfy) transportError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	msg := strings.ReplaceAll(err.Error(), n.reply, "***")
	if n.cfg.Token != "" {
		msg = strings.ReplaceAll(msg, n.cfg.Token, "***")
	}
	return errors.New(msg)
}

func (n *Ntfy) failed(what string, err error) {
	n.log.Warn(LogFailed, zap.String("event", LogFailed), zap.String("channel", n.Name()), zap.String("method", what), zap.String("error", err.Error()))
}

// ntfy's JSON, as far as clai writes and reads it.
type (
	ntfyPublish struct {
		Topic    string       `json:"topic"`
		Title    string       `json:"title,omitempty"`
		Message  string       `json:"message"`
		Tags     []string     `json:"tags,omitempty"`
		Priority int          `json:"priority,omitempty"`
		Actions  []ntfyAction `json:"actions,omitempty"`
	}
	ntfyAction struct {
		Action  string            `json:"action"`
		Label   string            `json:"label"`
		URL     string            `json:"url"`
		Method  string            `json:"method,omitempty"`
		Headers map[string]string `json:"headers,omitempty"`
		Body    string            `json:"body,omitempty"`
		Clear   bool              `json:"clear,omitempty"`
	}
	ntfyMessage struct {
		ID      string `json:"id"`
		Time    int64  `json:"time"`
		Event   string `json:"event"`
		Topic   string `json:"topic"`
		Message string `json:"message"`
	}
)

// ntfyKind is the ntfy: channel of a user config: a topic the questions are
// published to, whose answers come back on a reply topic of the channel's
// own; docs/ntfy.md.
func ntfyKind() kind {
	return kind{name: "ntfy", keys: []string{"server", "topic", "token"}, read: readNtfy, replyTopic: true}
}

// defaultNtfyURL is the ntfy server's address.
const defaultNtfyURL = "https://ntfy.sh"

func readNtfy(r *playbooks.ChannelReader) opener {
	server := defaultNtfyURL
	if r.Has("server") {
		server = r.URL("server")
	}
	topic := r.String("topic")
	if r.Has("topic") && topic != "" && !ntfyTopicSyntax(topic) {
		r.Errorf("topic", "use letters, digits, - and _ only, at most 64", "%s is not an ntfy topic", r.What("topic"))
	}
	var token *playbooks.SecretRef
	if r.Has("token") {
		if ref, ok := r.Secret("token"); ok {
			token = &ref
		}
	}
	if !r.Require("topic") {
		return nil
	}
	return func(env notify.Environment, log *zap.Logger, kept Kept) (Multi, error) {
		cfg := NtfyConfig{Server: server, Topic: topic, Log: log, Ledger: kept.Ledger, ReplyTopic: kept.ReplyTopic, Since: kept.Since, Seen: kept.Seen, Host: kept.Host}
		if token != nil {
			secret, err := notify.ReadSecret(*token, env)
			if err != nil {
				return nil, fmt.Errorf("ntfy token: %w", err)
			}
			cfg.Token = secret
		}
		return NewNtfy(cfg)
	}
}

// ntfyTopicSyntax says whether s is a topic's name as ntfy takes it.
func ntfyTopicSyntax(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for _, r := range s {
		if !(r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return false
		}
	}
	return true
}
