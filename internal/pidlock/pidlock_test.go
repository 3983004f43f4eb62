package pidlock

import (
	"os"
	"path/filepath"
	"testing"
)

// TestOneHolder: a lock held is refused to the next taker, which reads the
// holder's process id in it; once let go, it is taken again.
func TestOneHolder(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.lock")
	first, held, err := TryLock(path)
	if err != nil || held {
		t.Fatalf("the first take: held %v, %v", held, err)
	}
	if _, held, err := TryLock(path); err != nil || !held {
		t.Fatalf("the second take while held: held %v, %v", held, err)
	}
	if pid := Holder(path); pid != os.Getpid() {
		t.Fatalf("the holder read: %d, want %d", pid, os.Getpid())
	}
	if err := first.Unlock(); err != nil {
		t.Fatal(err)
	}
	again, held, err := TryLock(path)
	if err != nil || held {
		t.Fatalf("the take after the unlock: held %v, %v", held, err)
	}
	_ = again.Unlock()
	if err := os.WriteFile(path, []byte("not a pid\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if pid := Holder(path); pid != 0 {
		t.Fatalf("the holder of a lock with no pid: %d", pid)
	}
}
