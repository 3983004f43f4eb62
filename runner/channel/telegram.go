package channel

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/clai-sh/clai/internal/backoff"
	"github.com/clai-sh/clai/playbooks"
	"github.com/clai-sh/clai/runner/ask"
	"github.com/clai-sh/clai/runner/notify"
)

// Telegram's bounds and the channel's.
const (
	// PollTimeout is how long one getUpdates waits at the server.
	PollTimeout = 25 * time.Second
	// CallTimeout bounds every other call of the Bot API.
	CallTimeout = 10 * time.Second
	// maxMessage is what clai writes in one message, below Telegram's 4096.
	maxMessage = 3500
	// maxUpdates is how many updates one getUpdates returns.
	maxUpdates = 50
	// MaxRetryAfter bounds the wait the Bot API asks for when a bot makes
	// too many requests (a 429 with parameters.retry_after).
	MaxRetryAfter = time.Minute
	// floodAttempts is how often a call the Bot API refuses for too many
	// requests is made, each after the wait it asked for.
	floodAttempts = 3
)

// TelegramConfig is a Telegram channel's settings.
type TelegramConfig struct {
	// BaseURL is the Bot API's address (https://api.telegram.org).
	BaseURL string
	// Token is the bot's token.
	Token string
	// Chats are the chats asked and obeyed; Users, when not empty, the only
	// users obeyed.
	Chats []int64
	Users []int64
	// Client makes the requests (nil: a client of its own).
	Client *http.Client
	// CallTimeout bounds a call but getUpdates (0: CallTimeout).
	CallTimeout time.Duration
	// Log gets a line for each input ignored or refused, each answer and
	// each failure of the service.
	Log *zap.Logger
	// Ledger remembers the messages delivered, so that a hub started again
	// neither asks twice nor loses a follow-up (nil: none).
	Ledger Ledger
	// Now and Sleep are the channel's time (nil: the wall clock's), which a
	// test makes virtual. Sleep waits d or until ctx ends, and says whether
	// d passed.
	Now   func() time.Time
	Sleep func(ctx context.Context, d time.Duration) bool
}

// Telegram is a bot that asks in the allowed chats, with an inline button per
// option, and reads the presses and commands by long polling getUpdates.
type Telegram struct {
	cfg     TelegramConfig
	base    string
	client  *http.Client
	log     *zap.Logger
	limiter *limiter
	// offset is the next update wanted.
	offset int64
	// resumeAt is when the Bot API takes calls again, after it said there
	// were too many.
	mu       sync.Mutex
	resumeAt time.Time
}

// NewTelegram returns the channel; nothing is sent before Serve.
func NewTelegram(cfg TelegramConfig) (*Telegram, error) {
	u, err := url.Parse(cfg.BaseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, errors.New("telegram: the base URL is not an http or https address")
	}
	if cfg.Token == "" || strings.ContainsAny(cfg.Token, "/?#% \t\r\n") {
		return nil, errors.New("telegram: the bot token is empty or not a token")
	}
	if len(cfg.Chats) == 0 {
		return nil, errors.New("telegram: no chat is allowed")
	}
	t := &Telegram{cfg: cfg, base: strings.TrimRight(cfg.BaseURL, "/"), client: cfg.Client, log: cfg.Log,
		limiter: newLimiter(InputRate, InputPer)}
	if t.client == nil {
		t.client = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	}
	if t.log == nil {
		t.log = zap.NewNop()
	}
	if t.cfg.CallTimeout <= 0 {
		t.cfg.CallTimeout = CallTimeout
	}
	if t.cfg.Now == nil {
		t.cfg.Now = time.Now
	}
	if t.cfg.Ledger == nil {
		t.cfg.Ledger = noLedger{}
	}
	if t.cfg.Sleep == nil {
		t.cfg.Sleep = sleep
	}
	return t, nil
}

// Name is ask.ChannelTelegram.
func (t *Telegram) Name() string { return ask.ChannelTelegram }

// Serve asks desk's questions in the allowed chats and takes their answers
// until the run ends or ctx ends. A question's message is sent to each
// chat until it is delivered or the question closes; once a delivered
// question closes, its message is edited to say how.
func (t *Telegram) Serve(ctx context.Context, desk ask.Desk) error {
	return serveOne(ctx, desk, t.outboxConfig(), maxUpdates, t.poll, t.tell, t.handle)
}

// ServeAll is Serve of every desk that joins, with one poller of the bot's
// updates for them all, until ctx ends: a press answers the session its
// button was made for, a command the session it names.
func (t *Telegram) ServeAll(ctx context.Context, joins <-chan ask.Desk) error {
	return serve(ctx, joins, false, t.outboxConfig(), maxUpdates, t.poll, t.tell, t.handle)
}

func (t *Telegram) outboxConfig() outboxConfig {
	return outboxConfig{channel: t.Name(), log: t.log, sleep: t.cfg.Sleep}
}

// tell sends what the people in the chats are told of u.
func (t *Telegram) tell(out *outbox, desk ask.Desk, u ask.Update) {
	switch u.Kind {
	case ask.UpdateQuestion:
		if u.Question != nil {
			t.ask(out, desk.Session(), u.Question)
		}
	case ask.UpdateClosed:
		if u.Question != nil {
			out.close(u.Question)
		}
	case ask.UpdateEnd:
		s := desk.Session()
		code := ""
		if u.ExitCode != nil {
			code = fmt.Sprintf(", exit code %d", *u.ExitCode)
		}
		for _, chat := range t.cfg.Chats {
			t.reply(out, chat, fmt.Sprintf("clai: %s (%s) ended: %s%s", s.Name, where(s), u.Outcome, code))
		}
	}
}

// ask sends q to each chat with a button per suggestion, then per option;
// once it closes, each message delivered is edited to say how, without
// buttons.
func (t *Telegram) ask(out *outbox, s ask.Session, q *ask.Question) {
	if out.asked(q) {
		return
	}
	text := questionText(s, q)
	var keyboard [][]tgButton
	for _, b := range Buttons(q, 0) {
		keyboard = append(keyboard, []tgButton{{Text: cut(b.Label(q), 64), CallbackData: b.Encode()}})
	}
	if len(q.Options) == 0 {
		text += fmt.Sprintf("\n/answer %s TEXT", s.ID)
	}
	text = cut(text, maxMessage)
	for _, chat := range t.cfg.Chats {
		params := map[string]any{"chat_id": chat, "text": text}
		if len(keyboard) > 0 {
			params["reply_markup"] = map[string]any{"inline_keyboard": keyboard}
		}
		var message int64
		key := ledgerKey(t.Name(), q, strconv.FormatInt(chat, 10))
		out.ask(q, "sendMessage",
			func(stop, ctx context.Context) error {
				if data, ok := t.cfg.Ledger.Delivered(key); ok {
					if id, err := strconv.ParseInt(data, 10, 64); err == nil {
						message = id // delivered before this process began
						return nil
					}
				}
				var msg tgMessage
				if err := t.callWaiting(stop, ctx, "sendMessage", params, &msg, t.cfg.CallTimeout); err != nil {
					return err
				}
				message = msg.MessageID
				t.cfg.Ledger.Record(key, strconv.FormatInt(message, 10))
				return nil
			},
			func(ctx context.Context, closed *ask.Question) error {
				edit := map[string]any{"chat_id": chat, "message_id": message, "text": cut(text+"\n— "+closedText(closed), maxMessage)}
				err := t.call(ctx, "editMessageText", edit, nil)
				if err == nil {
					t.cfg.Ledger.Forget(key)
				}
				return err
			})
	}
}

// chatLane is the lane of the replies to chat: they keep their order.
func chatLane(chat int64) string { return fmt.Sprintf("chat %d", chat) }

// reply sends text to chat after the replies before it.
func (t *Telegram) reply(out *outbox, chat int64, text string) {
	t.replyParams(out, chat, map[string]any{"chat_id": chat, "text": text})
}

func (t *Telegram) replyParams(out *outbox, chat int64, params map[string]any) {
	out.reply(chatLane(chat), "sendMessage", func(ctx context.Context) error { return t.call(ctx, "sendMessage", params, nil) })
}

// poll reads the updates by long polling and hands them to inputs until ctx
// ends; a failure is retried after a backoff.
func (t *Telegram) poll(ctx context.Context, inputs chan<- tgUpdate) {
	failures := 0
	for ctx.Err() == nil {
		var batch []tgUpdate
		params := map[string]any{"offset": t.offset, "timeout": int(PollTimeout / time.Second), "limit": maxUpdates,
			"allowed_updates": []string{"message", "callback_query"}}
		if err := t.callTimeout(ctx, "getUpdates", params, &batch, PollTimeout+t.cfg.CallTimeout); err != nil {
			if ctx.Err() != nil {
				return
			}
			failures++
			t.failed("getUpdates", err)
			var flood *floodError
			if errors.As(err, &flood) {
				continue // the next call waits as long as the Bot API asked
			}
			if !t.cfg.Sleep(ctx, backoff.Step(failures)) {
				return
			}
			continue
		}
		failures = 0
		if len(batch) > maxUpdates {
			batch = batch[:maxUpdates]
		}
		for _, u := range batch {
			if u.UpdateID >= t.offset {
				t.offset = u.UpdateID + 1
			}
			select {
			case inputs <- u:
			case <-ctx.Done():
				return
			}
		}
	}
}

// handle obeys an update from an allowed chat and user; any other is
// ignored and logged, and so is a message longer than MaxText (its size
// and sender, never its text).
func (t *Telegram) handle(ctx context.Context, out *outbox, served *desks, u tgUpdate) {
	chat, user, kind := u.origin()
	if kind == "" {
		return
	}
	ignore := func(reason string, fields ...zap.Field) {
		t.log.Info(LogIgnored, append([]zap.Field{zap.String("event", LogIgnored), zap.String("channel", t.Name()),
			zap.Int64("chat", chat), zap.Int64("user", user), zap.String("reason", reason)}, fields...)...)
	}
	if !t.allowed(chat, user) {
		ignore("not allow-listed")
		return
	}
	if !t.limiter.allow() {
		ignore("more inputs than the rate allows")
		return
	}
	by := fmt.Sprintf("telegram:%d", user)
	if kind == "callback" {
		t.press(ctx, out, served, u.CallbackQuery, by)
		return
	}
	if size := len(u.Message.Text); size > MaxText {
		ignore(fmt.Sprintf("a message of %d bytes, more than %d", size, MaxText), zap.Int("bytes", size))
		return
	}
	t.command(ctx, out, served, chat, u.Message.Text, by)
}

func (t *Telegram) allowed(chat, user int64) bool {
	if !slices.Contains(t.cfg.Chats, chat) {
		return false
	}
	return len(t.cfg.Users) == 0 || slices.Contains(t.cfg.Users, user)
}

// press answers the question of a button; the person is told what was
// typed, or that the question has moved on.
func (t *Telegram) press(ctx context.Context, out *outbox, served *desks, cq *tgCallback, by string) {
	reply := func(text string) func(ctx context.Context) error {
		params := map[string]any{"callback_query_id": cq.ID, "text": cut(text, 190)}
		return func(ctx context.Context) error { return t.call(ctx, "answerCallbackQuery", params, nil) }
	}
	b, err := ParseButton(cq.Data)
	if err != nil {
		t.logAnswer(by, err)
		out.reply(chatLane(cq.Message.Chat.ID), "answerCallbackQuery", reply(MovedOn))
		return
	}
	answer := pressIn(ctx, served, b, by, t.Name())
	fill := out.reserve(chatLane(cq.Message.Chat.ID), "answerCallbackQuery")
	out.serial(b.Session, func() {
		text := MovedOn
		sent, err := answer()
		if err == nil {
			text = "sent: " + ask.Visible(sent.Sent)
		}
		t.logAnswer(by, err)
		fill(reply(text))
	})
}

func (t *Telegram) logAnswer(by string, err error) {
	if err != nil {
		t.log.Info(LogRefused, zap.String("event", LogRefused), zap.String("channel", t.Name()), zap.String("by", by), zap.String("reason", err.Error()))
		return
	}
	t.log.Info(LogAnswer, zap.String("event", LogAnswer), zap.String("channel", t.Name()), zap.String("by", by))
}

func (t *Telegram) failed(method string, err error) {
	t.log.Warn(LogFailed, zap.String("event", LogFailed), zap.String("channel", t.Name()), zap.String("method", method), zap.String("error", err.Error()))
}

// call posts params to the Bot API's method and decodes its result into
// result (nil: none wanted).
func (t *Telegram) call(ctx context.Context, method string, params, result any) error {
	return t.callTimeout(ctx, method, params, result, t.cfg.CallTimeout)
}

// callTimeout is call bounded by timeout, after the wait the Bot API asked
// for, if any; a call it refuses for too many requests is made again after
// the wait it asks for, floodAttempts times at most. Its error never holds
// the token.
func (t *Telegram) callTimeout(ctx context.Context, method string, params, result any, timeout time.Duration) error {
	return t.callWaiting(ctx, ctx, method, params, result, timeout)
}

// callWaiting is callTimeout whose waits for the Bot API's turn end with
// stop, while a call under way ends with ctx only.
func (t *Telegram) callWaiting(stop, ctx context.Context, method string, params, result any, timeout time.Duration) error {
	for attempt := 1; ; attempt++ {
		if !t.waitTurn(stop) {
			return fmt.Errorf("telegram %s: waiting as the Bot API asked: %w", method, context.Cause(stop))
		}
		err := t.callOnce(ctx, method, params, result, timeout)
		var flood *floodError
		if !errors.As(err, &flood) {
			return err
		}
		t.holdOff(flood.wait)
		if attempt == floodAttempts {
			return err
		}
	}
}

// callOnce makes one call, bounded by timeout.
func (t *Telegram) callOnce(ctx context.Context, method string, params, result any, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	err := t.do(ctx, method, params, result)
	var flood *floodError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &flood):
		return fmt.Errorf("telegram %s: %w", method, err)
	}
	masked := errors.New(t.mask(fmt.Sprintf("telegram %s: %v", method, err)))
	var refused *refusedError
	if errors.As(err, &refused) {
		return &refusedError{masked}
	}
	return masked
}

// holdOff has every call wait d from now (MaxRetryAfter at most), as the
// Bot API asked.
func (t *Telegram) holdOff(d time.Duration) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if at := t.cfg.Now().Add(min(d, MaxRetryAfter)); at.After(t.resumeAt) {
		t.resumeAt = at
	}
}

// waitTurn waits until the Bot API takes calls again; false when ctx ended
// first.
func (t *Telegram) waitTurn(ctx context.Context) bool {
	t.mu.Lock()
	d := t.resumeAt.Sub(t.cfg.Now())
	t.mu.Unlock()
	return d <= 0 || t.cfg.Sleep(ctx, d)
}

// floodError is the Bot API's refusal of a call for too many requests: a
// call may be made again after wait.
type floodError struct{ wait time.Duration }

func (e *floodError) Error() string {
	return fmt.Sprintf("too many requests: retry after %s", e.wait)
}

func (t *Telegram) do(ctx context.Context, method string, params, result any) error {
	body, err := json.Marshal(params)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, t.base+"/bot"+t.cfg.Token+"/"+method, bytes.NewReader(body))
	if err != nil {
		return errors.New("the request cannot be made")
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := t.client.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // the URL holds the token
		}
		return err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, MaxResponse+1))
	if err != nil {
		return fmt.Errorf("reading the response: %w", err)
	}
	if len(data) > MaxResponse {
		return fmt.Errorf("the response is larger than %d bytes", MaxResponse)
	}
	var r struct {
		OK          bool            `json:"ok"`
		Result      json.RawMessage `json:"result"`
		ErrorCode   int             `json:"error_code"`
		Description string          `json:"description"`
		Parameters  struct {
			RetryAfter int `json:"retry_after"`
		} `json:"parameters"`
	}
	if err := json.Unmarshal(data, &r); err != nil {
		return fmt.Errorf("status %d, the response is not the Bot API's", resp.StatusCode)
	}
	if !r.OK && r.Parameters.RetryAfter > 0 {
		seconds := min(r.Parameters.RetryAfter, int(MaxRetryAfter/time.Second))
		return &floodError{wait: time.Duration(seconds) * time.Second}
	}
	if !r.OK {
		err := fmt.Errorf("status %d: %d %s", resp.StatusCode, r.ErrorCode, cut(r.Description, 200))
		if refusedStatus(r.ErrorCode) {
			return &refusedError{err}
		}
		return err
	}
	if result == nil {
		return nil
	}
	if err := json.Unmarshal(r.Result, result); err != nil {
		return fmt.Errorf("the result does not decode: %w", err)
	}
	return nil
}

// mask hides the token in s.
func (t *Telegram) mask(s string) string {
	return strings.ReplaceAll(s, t.cfg.Token, "***")
}

// The Bot API's types, as far as clai reads them.
type (
	tgUpdate struct {
		UpdateID      int64       `json:"update_id"`
		Message       *tgMessage  `json:"message"`
		CallbackQuery *tgCallback `json:"callback_query"`
	}
	tgMessage struct {
		MessageID int64   `json:"message_id"`
		From      *tgUser `json:"from"`
		Chat      tgChat  `json:"chat"`
		Text      string  `json:"text"`
	}
	tgCallback struct {
		ID      string     `json:"id"`
		From    tgUser     `json:"from"`
		Message *tgMessage `json:"message"`
		Data    string     `json:"data"`
	}
	tgUser struct {
		ID int64 `json:"id"`
	}
	tgChat struct {
		ID int64 `json:"id"`
	}
	tgButton struct {
		Text         string `json:"text"`
		CallbackData string `json:"callback_data"`
	}
)

// origin is the chat and user of u and whether it is a "callback" or a
// text "message"; "" for an update clai does not read.
func (u tgUpdate) origin() (chat, user int64, kind string) {
	switch {
	case u.CallbackQuery != nil && u.CallbackQuery.Message != nil:
		return u.CallbackQuery.Message.Chat.ID, u.CallbackQuery.From.ID, "callback"
	case u.Message != nil && u.Message.From != nil && u.Message.Text != "":
		return u.Message.Chat.ID, u.Message.From.ID, "message"
	}
	return 0, 0, ""
}

// telegramKind is the telegram: channel of a user config: a bot that asks
// in the chats listed, and takes the answers of their people (of users:,
// when given); docs/telegram.md.
func telegramKind() kind {
	return kind{name: "telegram", keys: []string{"token", "chats", "users", "base_url"}, read: readTelegram}
}

// defaultTelegramURL is the Bot API's address.
const defaultTelegramURL = "https://api.telegram.org"

// maxTelegramIDs bounds a channel's chats and users.
const maxTelegramIDs = 64

func readTelegram(r *playbooks.ChannelReader) opener {
	const idHint = "write the id as Telegram gives it, e.g. 987654321 or -1001234567890"
	token, _ := r.Secret("token")
	chats := r.Int64s("chats", maxTelegramIDs, idHint)
	users := r.Int64s("users", maxTelegramIDs, idHint)
	base := defaultTelegramURL
	if r.Has("base_url") {
		base = r.URL("base_url")
	}
	if !r.Require("token", "chats") {
		return nil
	}
	if r.EmptyList("chats") {
		r.Errorf("chats", "list the chat ids to ask, e.g. [987654321]; docs/telegram.md says how to find yours", "%s is empty: nobody would be asked", r.What("chats"))
		return nil
	}
	return func(env notify.Environment, log *zap.Logger, kept Kept) (Multi, error) {
		secret, err := notify.ReadSecret(token, env)
		if err != nil {
			return nil, fmt.Errorf("telegram token: %w", err)
		}
		return NewTelegram(TelegramConfig{BaseURL: base, Token: secret, Chats: chats, Users: users, Log: log, Ledger: kept.Ledger})
	}
}
