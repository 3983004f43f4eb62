package humanloop_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/clai-sh/clai/runner"
	"github.com/clai-sh/clai/runner/channel/channeltest"
	"github.com/clai-sh/clai/runner/humanloop"
)

// deployPlaybook's program asks where to deploy, which no rule answers.
const deployPlaybook = "version: 1\nname: deploy\nspawn:\n  command: %s\ntimeouts:\n  prompt: 120s\n  total: 300s\n"

// telegramConfig is a user config with one Telegram channel, the fake tg,
// whose token is read from the variable CLAI_TEST_TG, for chat.
func telegramConfig(tg *channeltest.Telegram, chat int64) string {
	return fmt.Sprintf("channels:\n  - telegram:\n      token: env:CLAI_TEST_TG\n      chats: [%d]\n      base_url: %q\n", chat, tg.URL())
}

// waitTelegramQuestion waits for the first message of tg with buttons.
func waitTelegramQuestion(t *testing.T, tg *channeltest.Telegram) channeltest.Message {
	t.Helper()
	var asked channeltest.Message
	tg.Wait(t, "a question", func(f *channeltest.Telegram) bool {
		for _, m := range f.Messages() {
			if len(m.Buttons) > 0 {
				asked = m
				return true
			}
		}
		return false
	})
	return asked
}

// A run over a real program reaches a question; the fake Telegram gets it
// with one button per option; a press answers it, and the program receives
// exactly that option; the report names the channel, and the token is in no
// output.
func TestTelegramAnswersARun(t *testing.T) {
	iso := isolate(t)
	const token, chat = "123456:AAHsecret-token_value", 4242
	tg := channeltest.NewTelegram(t, token)
	pb := parsePlaybook(t, deployPlaybook, prompterCommand(t, "-q", "Deploy where? [staging/prod] "))
	r := iso.startRun(t, pb, humanloop.Options{Config: parseConfig(t, "%s", telegramConfig(tg, chat)), Headless: true,
		Environ: append(os.Environ(), "CLAI_TEST_TG="+token)})

	asked := waitTelegramQuestion(t, tg)
	if asked.Chat != chat || !strings.Contains(asked.Text, "Deploy where?") || len(asked.Buttons) != 2 ||
		asked.Buttons[0].Text != "staging" || asked.Buttons[1].Text != "prod" {
		t.Fatalf("the question sent: %+v", asked)
	}
	tg.Press(chat, chat, asked.ID, asked.Buttons[1].Data)
	rep := r.waitDone(t)
	if got := r.shown.String(); !strings.Contains(got, "got: prod\r\n") || strings.Contains(got, "got: staging") {
		t.Fatalf("the program got:\n%s", got)
	}
	tg.Snapshot(func(f *channeltest.Telegram) {
		if a := f.Answers(); len(a) != 1 || !strings.Contains(a[0].Text, "sent") {
			t.Errorf("the press was answered %+v", a)
		}
	})
	if len(rep.Questions) != 1 || rep.Questions[0].Closed == nil || rep.Questions[0].Closed.Channel != "telegram" {
		t.Errorf("the report does not name the channel: %+v", rep.Questions)
	}
	var data bytes.Buffer
	if err := rep.Write(&data, "json"); err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{"the output": r.shown.String(), "the notices": r.notices.String(),
		"the report": data.String(), "the log": r.log.String()} {
		if strings.Contains(text, "AAHsecret") {
			t.Errorf("%s holds the bot token", name)
		}
	}
}

// A channel whose token is not set refuses the run before anything starts,
// with the place in the config file.
func TestChannelWithoutItsTokenRefusesTheRun(t *testing.T) {
	iso := isolate(t)
	cfg := parseConfig(t, "channels:\n  - telegram:\n      token: env:CLAI_TEST_UNSET\n      chats: [1]\n")
	pb := parsePlaybook(t, deployPlaybook, prompterCommand(t, "-q", "Deploy where? [staging/prod] "))
	r := iso.startRun(t, pb, humanloop.Options{Config: cfg, Headless: true, Environ: []string{"PATH=" + os.Getenv("PATH")}})
	rep, err := r.wait(t)
	var setup *runner.SetupError
	if rep != nil || !errors.As(err, &setup) ||
		!strings.Contains(err.Error(), "config.yaml:2:5: channel: telegram token: secret env:CLAI_TEST_UNSET: the environment variable is not set") {
		t.Fatalf("the run: %+v, %v; want it refused for the channel's token", rep, err)
	}
	if r.shown.String() != "" {
		t.Fatalf("the program started:\n%s", r.shown.String())
	}
}

// A run publishes its question to a fake ntfy server with an action per
// option; the app's press posts to the run's reply topic, and the program
// receives exactly that option; the log names the channel, and the token is
// in no output.
func TestNtfyAnswersARun(t *testing.T) {
	iso := isolate(t)
	const token = "tk_e2esecretntfytoken"
	ntfy := channeltest.NewNtfy(t, token)
	cfg := parseConfig(t, "channels:\n  - ntfy:\n      server: %q\n      topic: alice-questions\n      token: env:CLAI_TEST_NTFY\n", ntfy.URL())
	pb := parsePlaybook(t, deployPlaybook, prompterCommand(t, "-q", "Deploy where? [staging/prod] "))
	r := iso.startRun(t, pb, humanloop.Options{Config: cfg, Headless: true, Environ: append(os.Environ(), "CLAI_TEST_NTFY="+token)})

	var asked channeltest.NtfyMessage
	ntfy.Wait(t, "the question", func(msgs []channeltest.NtfyMessage) bool {
		for _, m := range msgs {
			if len(m.Actions) > 0 {
				asked = m
				return true
			}
		}
		return false
	})
	if asked.Topic != "alice-questions" || len(asked.Actions) != 2 || asked.Actions[1].Label != "prod" {
		t.Fatalf("the question published: %+v", asked)
	}
	if status := ntfy.Press(t, asked.Actions[1]); status != 200 {
		t.Fatalf("the press: status %d", status)
	}
	r.waitDone(t)
	if got := r.shown.String(); !strings.Contains(got, "got: prod\r\n") || strings.Contains(got, "got: staging") {
		t.Fatalf("the program got:\n%s", got)
	}
	if log := r.log.String(); !strings.Contains(log, `"channel":"ntfy"`) || strings.Contains(log, token) ||
		strings.Contains(r.shown.String()+r.notices.String(), token) {
		t.Errorf("the log names no ntfy answer, or a run's output holds the token:\n%s", log)
	}
}

// A run with an answerer and a Telegram channel: the answerer takes
// Continue? [Y/n], which never reaches the chat; it leaves the rm -rf
// hand-over to people, which does, with its buttons, and a press answers
// it; the report says a person decided at the hand-over.
func TestTelegramAsksOnlyWhatTheAnswererLeaves(t *testing.T) {
	iso := isolate(t)
	const token, chat = "123456:AAHsecret-token_value", 4242
	tg := channeltest.NewTelegram(t, token)
	// People have all the time they need.
	pb := parsePlaybook(t, answererPlaybook, answererProgram(t), "{prompt: 120s, total: 300s}",
		fmt.Sprintf("  command: [%q]", scriptModel(t, alwaysYes)))
	r := iso.startRun(t, pb, humanloop.Options{Config: parseConfig(t, "%s", telegramConfig(tg, chat)), Headless: true,
		Environ: append(os.Environ(), "CLAI_TEST_TG="+token)})

	asked := waitTelegramQuestion(t, tg)
	if !strings.Contains(asked.Text, "rm -rf build") || len(asked.Buttons) != 2 || asked.Buttons[1].Text != "N" {
		t.Fatalf("the first question sent, want the rm -rf hand-over: %+v", asked)
	}
	tg.Press(chat, chat, asked.ID, asked.Buttons[1].Data)
	// A person took the danger rule's hand-over: the run ends as the
	// program did, and says who decided.
	if rep := r.waitDone(t); rep.DecidedBy == "" {
		t.Errorf("the report does not say who decided at the hand-over: %+v", rep)
	}
	if got := r.shown.String(); !strings.Contains(got, "got: Y\r\n") || !strings.Contains(got, "got: N\r\n") {
		t.Fatalf("the program got:\n%s", got)
	}
	tg.Snapshot(func(f *channeltest.Telegram) {
		for _, m := range append(f.Messages(), f.Edits()...) {
			// The prompt's question (the hand-over's screen shows it too).
			if strings.Contains(m.Text, ", prompt)") {
				t.Errorf("the question the answerer took reached the chat: %q", m.Text)
			}
		}
	})
}
