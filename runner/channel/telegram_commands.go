package channel

import (
	"context"
	"errors"
	"fmt"
	"html"
	"strings"
	"time"

	"github.com/clai-sh/clai/runner/ask"
)

// command obeys /status, /answer SESSION TEXT, /view SESSION and /help;
// anything else is answered with the help. With one session served, the
// replies speak of it alone; with several, /status lists them all and the
// others need the session named.
func (t *Telegram) command(ctx context.Context, out *outbox, served *desks, chat int64, text, by string) {
	name, rest, _ := strings.Cut(strings.TrimSpace(text), " ")
	name, _, _ = strings.Cut(name, "@") // /status@my_bot in a group
	switch name {
	case "/status":
		if desk, ok := served.only(); ok {
			t.reply(out, chat, cut(statusText(desk.Session()), maxMessage))
			return
		}
		t.reply(out, chat, cut(served.listText(), maxMessage))
	case "/view":
		session := strings.TrimSpace(rest)
		desk, ok := served.find(session)
		if !ok {
			t.reply(out, chat, viewUsage(served, session))
			return
		}
		fill := out.reserve(chatLane(chat), "sendMessage")
		out.serial(desk.Session().ID, func() {
			screen := desk.Screen().Text
			body := "<pre>" + html.EscapeString(cut(excerpt(screen, 60, 200), maxMessage-20)) + "</pre>"
			params := map[string]any{"chat_id": chat, "text": body, "parse_mode": "HTML"}
			fill(func(ctx context.Context) error { return t.call(ctx, "sendMessage", params, nil) })
		})
	case "/answer":
		session, answer, ok := strings.Cut(strings.TrimLeft(rest, " "), " ")
		desk, found := served.find(session)
		if !ok || !found {
			t.reply(out, chat, "write /answer "+sessionHint(served)+" TEXT")
			return
		}
		fill := out.reserve(chatLane(chat), "sendMessage")
		s := desk.Session()
		out.serial(s.ID, func() {
			params := map[string]any{"chat_id": chat, "text": t.answerText(ctx, desk, s, answer, by)}
			fill(func(ctx context.Context) error { return t.call(ctx, "sendMessage", params, nil) })
		})
	default:
		t.reply(out, chat, helpText(served))
	}
}

// sessionHint is what a reply names as the session to write: the one
// served, or SESSION.
func sessionHint(served *desks) string {
	if desk, ok := served.only(); ok {
		return desk.Session().ID
	}
	return "SESSION"
}

// viewUsage is the reply to a /view that names no session served.
func viewUsage(served *desks, asked string) string {
	desk, one := served.only()
	switch {
	case one && asked == "":
		s := desk.Session()
		return fmt.Sprintf("/view needs the session: write /view %s (or /view %s) to see the screen of %s.", s.ID, s.Name, s.Name)
	case one:
		s := desk.Session()
		return fmt.Sprintf("there is no session \"%s\" here; this bot serves %s: write /view %s.", cut(ask.Visible(asked), 64), s.Name, s.ID)
	case asked == "":
		return "/view needs the session: write /view SESSION; /status lists them."
	}
	return fmt.Sprintf("there is no one session \"%s\" here; /status lists them.", cut(ask.Visible(asked), 64))
}

// helpText lists the commands, for the sessions served.
func helpText(served *desks) string {
	if desk, ok := served.only(); ok {
		s := desk.Session()
		return fmt.Sprintf(`clai serves %s (%s) here. Press a question's buttons to answer it, or:
/status — the session, its state and its open question
/answer %s TEXT — type TEXT as the answer to the open question
/view %s — the screen as it is now
/help — this list`, s.Name, where(s), s.ID, s.ID)
	}
	return fmt.Sprintf(`clai serves %d sessions here. Press a question's buttons to answer it, or:
/status — every session, its state and its open question
/answer SESSION TEXT — type TEXT as the answer to the session's open question
/view SESSION — the session's screen as it is now
/help — this list`, len(served.order))
}

// answerText types text as the answer to the open question.
func (t *Telegram) answerText(ctx context.Context, desk ask.Desk, s ask.Session, text, by string) string {
	if s.Question == nil {
		t.logAnswer(by, &ask.Refusal{Code: ask.RefusedNoQuestion, Reason: "no question is open"})
		return "no question is open"
	}
	sent, err := desk.Answer(ctx, ask.Answer{Question: s.Question.ID, Text: &text, By: by, Channel: t.Name()})
	t.logAnswer(by, err)
	var r *ask.Refusal
	switch {
	case errors.As(err, &r) && (r.Code == ask.RefusedClosed || r.Code == ask.RefusedStale || r.Code == ask.RefusedEnded):
		return MovedOn
	case err != nil:
		return cut(err.Error(), 300)
	}
	return "sent: " + ask.Visible(sent.Sent)
}

// statusText lists the session and its open question.
func statusText(s ask.Session) string {
	text := fmt.Sprintf("%s (%s): %s since %s", s.Name, where(s), s.State, s.Since.UTC().Format(time.TimeOnly))
	if q := s.Question; q != nil {
		text += fmt.Sprintf("\nopen question %s: %s", q.ID, cut(q.Text, 300))
		for _, o := range q.Options {
			text += "\n  • " + cut(o.Label, 64)
		}
	}
	return text
}
