package learned

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

func openTemp(t *testing.T) (*Store, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "state", "learned.db")
	s, err := Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	for p, want := range map[string]os.FileMode{path: 0o600, path + "-wal": 0o600, path + "-shm": 0o600, filepath.Dir(path): 0o700} {
		if info, err := os.Stat(p); err != nil || info.Mode().Perm() != want {
			t.Fatalf("%s: %v, %v; want %v", p, info.Mode(), err, want)
		}
	}
	return s, path
}

func TestAnswersCountAndShare(t *testing.T) {
	t.Parallel()
	s, _ := openTemp(t)
	ctx := t.Context()
	record := func(playbook, program, question, kind, text string, at int64) {
		t.Helper()
		err := s.Record(ctx, Answer{Question: question, Template: Template(question), Kind: kind, Text: text,
			Playbook: playbook, Program: program, Channel: "cli", At: time.Unix(at, 0)})
		if err != nil {
			t.Fatal(err)
		}
	}
	record("pb", "tool", "Delete 3 files? [y/n]", KindChoice, "y", 1)
	record("pb", "tool", "Delete 12 files? [y/n]", KindChoice, "y", 2)
	record("pb", "tool", "Delete 4 files? [y/n]", KindChoice, "n", 3)
	record("pb", "tool", "Delete 5 files? [y/n]", KindChoice, "y", 4)
	record("pb", "other", "Delete 5 files? [y/n]", KindChoice, "n", 5)
	record("pb2", "tool", "Delete 5 files? [y/n]", KindChoice, "n", 6)
	got, err := s.Answers(ctx, Key{Playbook: "pb", Program: "tool", Template: Template("Delete 99 files? [y/n]")}, 5)
	if err != nil {
		t.Fatal(err)
	}
	if s := fmt.Sprint(got); s != "[{choice y 3 0.75} {choice n 1 0.25}]" {
		t.Errorf("answers = %s", s)
	}
	rep, err := s.Repeated(ctx, "pb", 3)
	if err != nil {
		t.Fatal(err)
	}
	if s := fmt.Sprint(rep); s != "[{Delete <num> files? [y/n] Delete 5 files? [y/n] [] {choice y 3 0.6}}]" {
		t.Errorf("repeated = %s", s)
	}
	if rep, _ := s.Repeated(ctx, "pb", 4); len(rep) != 0 {
		t.Errorf("repeated 4 times: %v", rep)
	}
	if n, err := s.Forget(ctx, "pb"); err != nil || n != 5 {
		t.Errorf("forget = %d, %v", n, err)
	}
	if got, _ := s.Answers(ctx, Key{Playbook: "pb2", Program: "tool", Template: "Delete <num> files? [y/n]"}, 5); len(got) != 1 {
		t.Errorf("another playbook's answers were forgotten too: %v", got)
	}
}

// TestKeepsTheLatestAnswersOfAQuestion: past MaxPerQuestion answers to one
// question, the oldest go; another question's stay.
func TestKeepsTheLatestAnswersOfAQuestion(t *testing.T) {
	t.Parallel()
	s, _ := openTemp(t)
	tx, err := s.db.BeginTx(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := range MaxPerQuestion {
		if _, err := tx.Exec(`INSERT INTO answers (at_ms, playbook, program, repo, template, question, kind, answer, channel)
			VALUES (?, 'pb', '', '', 'q', '', 'text', 'old', 'cli')`, i); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	record := func(template, text string) {
		t.Helper()
		if err := s.Record(t.Context(), Answer{Template: template, Kind: KindText, Text: text, Playbook: "pb", At: time.Unix(1, 0)}); err != nil {
			t.Fatal(err)
		}
	}
	record("other", "x")
	for range 10 {
		record("q", "new")
	}
	got, err := s.Answers(t.Context(), Key{Playbook: "pb", Template: "q"}, 5)
	want := fmt.Sprintf("[{text old %d %v} {text new 10 %v}]", MaxPerQuestion-10, float64(MaxPerQuestion-10)/MaxPerQuestion, 10.0/MaxPerQuestion)
	if err != nil || fmt.Sprint(got) != want {
		t.Fatalf("answers = %v, %v; want %s", got, err, want)
	}
	if got, _ := s.Answers(t.Context(), Key{Playbook: "pb", Template: "other"}, 5); len(got) != 1 {
		t.Fatalf("another question's answers: %v", got)
	}
}

// TestRunsWriteAtOnce: stores opened at once on a new file, as runs starting
// together do, make its tables once and each write every answer.
func TestRunsWriteAtOnce(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "learned.db")
	const runs, each = 8, 25
	var wg sync.WaitGroup
	errs := make(chan error, runs)
	for r := range runs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, err := Open(context.Background(), path)
			if err != nil {
				errs <- err
				return
			}
			defer s.Close()
			for i := range each {
				if err := s.Record(context.Background(), Answer{Template: "q", Kind: KindText, Text: fmt.Sprint(r, i), Playbook: "pb", At: time.Now()}); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	s, err := Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var n int
	if err := s.db.QueryRowContext(t.Context(), "SELECT COUNT(*) FROM answers").Scan(&n); err != nil || n != runs*each {
		t.Fatalf("%d answers (%v), want %d", n, err, runs*each)
	}
}

// TestMigratesForward: a database of the first version gets the columns of
// this one, and keeps its answers.
func TestMigratesForward(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "learned.db")
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	for _, stmt := range []string{migrations[0], "PRAGMA user_version = 1",
		`INSERT INTO answers (at_ms, playbook, program, repo, template, question, kind, answer, channel) VALUES (1, 'pb', 'tool', '', 'Go?', 'Go?', 'text', 'y', 'cli')`,
		`INSERT INTO answers (at_ms, playbook, program, repo, template, question, kind, answer, channel) VALUES (2, 'pb', 'tool', '', 'Go?', 'Go?', 'text', 'y', 'cli')`,
	} {
		if _, err := db.ExecContext(t.Context(), stmt); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	s, err := Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	rep, err := s.Repeated(t.Context(), "pb", 2)
	if err != nil || fmt.Sprint(rep) != "[{Go? Go? [] {text y 2 1}}]" {
		t.Fatalf("after the migration: %v, %v", rep, err)
	}
	var version int
	if err := s.db.QueryRowContext(t.Context(), "PRAGMA user_version").Scan(&version); err != nil || version != schemaVersion {
		t.Fatalf("version %d, %v", version, err)
	}
}

func TestNewerDatabaseRefused(t *testing.T) {
	t.Parallel()
	s, path := openTemp(t)
	if _, err := s.db.ExecContext(t.Context(), fmt.Sprintf("PRAGMA user_version = %d", schemaVersion+1)); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if _, err := Open(t.Context(), path); !errors.Is(err, ErrNewer) {
		t.Fatalf("Open of a newer database: %v", err)
	}
}

// BenchmarkAnswers is the lookup a question waits for as it opens, in a
// database of 100,000 answers to 1,000 questions.
func BenchmarkAnswers(b *testing.B) {
	s, err := Open(b.Context(), filepath.Join(b.TempDir(), "learned.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	tx, err := s.db.BeginTx(b.Context(), nil)
	if err != nil {
		b.Fatal(err)
	}
	for i := range 100_000 {
		_, err := tx.Exec(`INSERT INTO answers (at_ms, playbook, program, repo, template, question, kind, answer, channel)
			VALUES (?, 'pb', 'tool', '', ?, '', 'text', ?, 'cli')`, i, fmt.Sprintf("Question %d?", i%1000), fmt.Sprint(i%7))
		if err != nil {
			b.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
	key := Key{Playbook: "pb", Program: "tool", Template: "Question 500?"}
	b.ResetTimer()
	for b.Loop() {
		if got, err := s.Answers(b.Context(), key, MaxSuggestions); err != nil || len(got) != MaxSuggestions {
			b.Fatal(got, err)
		}
	}
}

// TestForgetLeavesNoTraceInTheFiles: the answers forgotten are in neither
// the database nor its write-ahead files, while the store is still open.
func TestForgetLeavesNoTraceInTheFiles(t *testing.T) {
	t.Parallel()
	s, path := openTemp(t)
	const forgotten, kept = "answer-forgotten-7f3a9c", "answer-kept-2b81de"
	for i := range 50 {
		for pb, text := range map[string]string{"pb": forgotten, "other": kept} {
			err := s.Record(t.Context(), Answer{Question: "Name? ", Template: "Name? ", Kind: KindText, Text: text,
				Playbook: pb, Program: "tool", Channel: "cli", At: time.Unix(int64(i), 0)})
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	if n, err := s.Forget(t.Context(), "pb"); err != nil || n != 50 {
		t.Fatalf("forget = %d, %v", n, err)
	}
	var all []byte
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		b, err := os.ReadFile(p)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			t.Fatal(err)
		}
		if bytes.Contains(b, []byte(forgotten)) {
			t.Errorf("%s holds the forgotten answer", filepath.Base(p))
		}
		all = append(all, b...)
	}
	if !bytes.Contains(all, []byte(kept)) {
		t.Error("the answers kept are gone")
	}
}
