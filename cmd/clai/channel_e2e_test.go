package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clai-sh/clai/internal/testprog"
	"github.com/clai-sh/clai/runner/channel/channeltest"
)

// telegramChannel gives e's runs a user config with one Telegram channel,
// the fake tg, whose token is read from the environment, and chat.
func (e *sessionsEnv) telegramChannel(t *testing.T, tg *channeltest.Telegram, token string, chat int64) {
	t.Helper()
	config := filepath.Join(e.dir, "config", "clai", "config.yaml")
	if err := os.MkdirAll(filepath.Dir(config), 0o700); err != nil {
		t.Fatal(err)
	}
	cfg := fmt.Sprintf("channels:\n  - telegram:\n      token: env:CLAI_TEST_TG\n      chats: [%d]\n      base_url: %q\n", chat, tg.URL())
	if err := os.WriteFile(config, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	e.env = append(e.env, "XDG_CONFIG_HOME="+filepath.Join(e.dir, "config"), "CLAI_TEST_TG="+token)
}

// TestTelegramAnswersARun: clai run passes the user config file's channel
// to the run: a real clai run over a program reaches a question; the fake
// Telegram gets it with one button per option; a press answers it, and the
// program receives exactly that option; the report names the channel, and
// the token is in no output. The channels' own behaviour is tested in
// runner/humanloop.
func TestTelegramAnswersARun(t *testing.T) {
	t.Parallel()
	const token, chat = "123456:AAHsecret-token_value", 4242
	tg := channeltest.NewTelegram(t, token)
	e := newSessionsEnv(t)
	e.telegramChannel(t, tg, token, chat)
	prompter := testprog.Build(t, "prompter")
	pb := filepath.Join(e.dir, "deploy.yaml")
	if err := os.WriteFile(pb, []byte(fmt.Sprintf("version: 1\nname: deploy\nspawn:\n  command: [%q, \"-q\", \"Deploy where? [staging/prod] \"]\ntimeouts:\n  prompt: 120s\n  total: 300s\n", prompter)), 0o644); err != nil {
		t.Fatal(err)
	}
	log, rep := filepath.Join(e.dir, "run.log"), filepath.Join(e.dir, "run.json")
	_, out, exited := e.start(t, "run", "--log", log, "--report", rep, pb)

	var asked channeltest.Message
	tg.Wait(t, "the question", func(f *channeltest.Telegram) bool {
		for _, m := range f.Messages() {
			if len(m.Buttons) > 0 {
				asked = m
				return true
			}
		}
		return false
	})
	if asked.Chat != chat || !strings.Contains(asked.Text, "Deploy where?") || len(asked.Buttons) != 2 ||
		asked.Buttons[0].Text != "staging" || asked.Buttons[1].Text != "prod" {
		t.Fatalf("the question sent: %+v", asked)
	}
	tg.Press(chat, chat, asked.ID, asked.Buttons[1].Data)
	select {
	case err := <-exited:
		if err != nil {
			t.Fatalf("clai run: %v\n%s", err, out)
		}
	case <-time.After(60 * time.Second):
		t.Fatalf("clai run still runs after the press:\n%s", out)
	}
	if got := out.String(); !strings.Contains(got, "got: prod\r\n") || strings.Contains(got, "got: staging") {
		t.Fatalf("the program got:\n%s", got)
	}
	tg.Snapshot(func(f *channeltest.Telegram) {
		if a := f.Answers(); len(a) != 1 || !strings.Contains(a[0].Text, "sent") {
			t.Errorf("the press was answered %+v", a)
		}
	})
	report, err := os.ReadFile(rep)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(report), `"channel": "telegram"`) && !strings.Contains(string(report), `"channel":"telegram"`) {
		t.Errorf("the report does not name the channel:\n%s", report)
	}
	logText, _ := os.ReadFile(log)
	for name, text := range map[string]string{"the output": out.String(), "the report": string(report), "the log": string(logText)} {
		if strings.Contains(text, "AAHsecret") {
			t.Errorf("%s holds the bot token", name)
		}
	}
}

// TestChannelWithoutItsTokenRefusesTheRun: a channel whose token is not
// set stops clai run before anything starts, with exit 2 and the place in
// the config file.
func TestChannelWithoutItsTokenRefusesTheRun(t *testing.T) {
	t.Parallel()
	e := newSessionsEnv(t)
	config := filepath.Join(e.dir, "config", "clai", "config.yaml")
	if err := os.MkdirAll(filepath.Dir(config), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(config, []byte("channels:\n  - telegram:\n      token: env:CLAI_TEST_UNSET\n      chats: [1]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	e.env = append(e.env, "XDG_CONFIG_HOME="+filepath.Join(e.dir, "config"))
	_, stderr, code := e.clai(t, "run", "--quiet", deployPlaybook(t, e.dir))
	if code != 2 || !strings.Contains(stderr, "config.yaml:2:5: channel: telegram token: secret env:CLAI_TEST_UNSET: the environment variable is not set") {
		t.Fatalf("exit %d, stderr:\n%s", code, stderr)
	}
}
