package hub

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/clai-sh/clai/internal/bounded"
)

// StateName is the base name of the hub's state in the runtime folder.
const StateName = "hub-state.json"

// Bounds of the state.
const (
	// maxState bounds the state file read.
	maxState = 4 << 20
	// maxDelivered bounds the deliveries remembered; the oldest go first.
	maxDelivered = 4096
	// keepDelivered is how long a delivery whose question never closed is
	// remembered.
	keepDelivered = 7 * 24 * time.Hour
)

// State is what the hub keeps beyond its process, in its runtime folder:
// the ledger of what each channel delivered of the questions still open,
// and each ntfy channel's reply topic and where its stream was read to, so
// that a hub killed and started again neither asks twice nor loses a
// press. Every change is written at once, atomically.
type State struct {
	path string
	mu   sync.Mutex
	data stateData
}

type stateData struct {
	Delivered map[string]delivered `json:"delivered"`
	Ntfy      map[string]ntfyState `json:"ntfy"`
}

type delivered struct {
	Data string    `json:"data"`
	At   time.Time `json:"at"`
}

type ntfyState struct {
	ReplyTopic string `json:"reply_topic"`
	Since      string `json:"since,omitempty"`
}

// OpenState reads the state in dir, or starts it empty where there is none
// or it is unreadable (it only spares people a second message).
func OpenState(dir string) (*State, error) {
	s := &State{path: filepath.Join(dir, StateName), data: stateData{Delivered: map[string]delivered{}, Ntfy: map[string]ntfyState{}}}
	b, err := bounded.ReadFile(s.path, maxState)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return s, nil
	case err != nil:
		return nil, fmt.Errorf("hub state: %w", err)
	}
	var data stateData
	if json.Unmarshal(b, &data) == nil {
		now := time.Now()
		for k, d := range data.Delivered {
			if now.Sub(d.At) < keepDelivered {
				s.data.Delivered[k] = d
			}
		}
		for k, n := range data.Ntfy {
			s.data.Ntfy[k] = n
		}
	}
	return s, nil
}

// Delivered is channel.Ledger's.
func (s *State) Delivered(key string) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	d, ok := s.data.Delivered[key]
	return d.Data, ok
}

// Record is channel.Ledger's.
func (s *State) Record(key, data string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.data.Delivered) >= maxDelivered {
		s.dropOldest()
	}
	s.data.Delivered[key] = delivered{Data: data, At: time.Now()}
	s.save()
}

// Forget is channel.Ledger's.
func (s *State) Forget(key string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.data.Delivered[key]; !ok {
		return
	}
	delete(s.data.Delivered, key)
	s.save()
}

// dropOldest lets the oldest delivery go; s.mu is held.
func (s *State) dropOldest() {
	oldest, at := "", time.Time{}
	for k, d := range s.data.Delivered {
		if oldest == "" || d.At.Before(at) {
			oldest, at = k, d.At
		}
	}
	delete(s.data.Delivered, oldest)
}

// ReplyTopic is the reply topic kept for the ntfy channel name, and where
// its stream was read to; newTopic makes one where none is kept.
func (s *State) ReplyTopic(name string, newTopic func() (string, error)) (topic, since string, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if n, ok := s.data.Ntfy[name]; ok && n.ReplyTopic != "" {
		return n.ReplyTopic, n.Since, nil
	}
	if topic, err = newTopic(); err != nil {
		return "", "", err
	}
	s.data.Ntfy[name] = ntfyState{ReplyTopic: topic}
	s.save()
	return topic, "", nil
}

// Seen keeps id as where the ntfy channel name's stream was read to.
func (s *State) Seen(name, id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := s.data.Ntfy[name]
	n.Since = id
	s.data.Ntfy[name] = n
	s.save()
}

// save writes the state atomically; s.mu is held. A failure is not fatal:
// the next change tries again.
func (s *State) save() {
	b, err := json.Marshal(s.data)
	if err != nil {
		return
	}
	tmp := s.path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return
	}
	_ = os.Rename(tmp, s.path)
}
