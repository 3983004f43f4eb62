package sessions

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// The names of a running dashboard's file in the registry's folder:
// dashboard-NAME.json, written first as .dashboard-NAME.tmp.
const (
	dashboardPrefix = "dashboard-"
	dashboardSuffix = ".json"
	dashboardTemp   = ".tmp"
)

// maxDashboardFile is the largest dashboard file a reader takes.
const maxDashboardFile = 4 << 10

// staleTemp is how old a dashboard's unfinished file must be, and not
// locked, before a reader removes it: one whose writer was killed before it
// was put in place.
const staleTemp = time.Minute

// dashboardInfo is what a dashboard's file holds.
type dashboardInfo struct {
	// URL is the dashboard's address with its token.
	URL string `json:"url"`
	// PID is the dashboard's process.
	PID int `json:"pid"`
	// Started is when it began to serve.
	Started time.Time `json:"started"`
}

// Dashboard is a running dashboard's file in the registry, which the
// dashboard keeps locked while it lives, so that the runs of this user find
// its URL. Its token is a credential: only the user's own processes can
// read it (the folder is theirs alone, the file 0600).
type Dashboard struct {
	lock *os.File
	path string
	once sync.Once
}

// AnnounceDashboard makes the dashboard at address (its URL with its token)
// findable by DashboardURL until Close. The file is written whole and
// locked before it takes its name, so a reader never sees it half written
// or unlocked.
func (r *Registry) AnnounceDashboard(address string) (*Dashboard, error) {
	if err := checkDashboardURL(address); err != nil {
		return nil, err
	}
	name, err := newEntryName()
	if err != nil {
		return nil, fmt.Errorf("dashboard entry name: %w", err)
	}
	temp := filepath.Join(r.dir, "."+dashboardPrefix+name+dashboardTemp)
	path := filepath.Join(r.dir, dashboardPrefix+name+dashboardSuffix)
	f, err := os.OpenFile(temp, os.O_CREATE|os.O_EXCL|os.O_WRONLY|unix.O_NOFOLLOW, 0o600)
	if err != nil {
		return nil, fmt.Errorf("dashboard entry: %w", err)
	}
	fail := func(err error) (*Dashboard, error) {
		_ = os.Remove(temp)
		_ = f.Close()
		return nil, fmt.Errorf("dashboard entry %s: %w", temp, err)
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		return fail(fmt.Errorf("lock: %w", err))
	}
	info := dashboardInfo{URL: address, PID: os.Getpid(), Started: time.Now().UTC()}
	if err := json.NewEncoder(f).Encode(info); err != nil {
		return fail(err)
	}
	if err := os.Rename(temp, path); err != nil {
		return fail(err)
	}
	return &Dashboard{lock: f, path: path}, nil
}

// Close removes the dashboard's file and lets go of its lock. Only the
// first call does anything.
func (d *Dashboard) Close() error {
	var err error
	d.once.Do(func() {
		if rmErr := os.Remove(d.path); rmErr != nil && !errors.Is(rmErr, os.ErrNotExist) {
			err = fmt.Errorf("dashboard entry: %w", rmErr)
		}
		_ = d.lock.Close()
	})
	return err
}

// DashboardURL is the URL, with its token, of the dashboard of this user
// that started last and still runs; "" when none does. The files of
// dashboards that are gone (killed: nobody holds their lock) are removed.
func (r *Registry) DashboardURL() string {
	dirents, err := os.ReadDir(r.dir)
	if err != nil {
		return ""
	}
	var latest dashboardInfo
	for _, d := range dirents {
		name := d.Name()
		if !d.Type().IsRegular() {
			continue
		}
		if strings.HasPrefix(name, "."+dashboardPrefix) && strings.HasSuffix(name, dashboardTemp) {
			r.removeStaleTemp(name)
			continue
		}
		if !strings.HasPrefix(name, dashboardPrefix) || !strings.HasSuffix(name, dashboardSuffix) {
			continue
		}
		info, live := r.readDashboard(name)
		if live && (latest.URL == "" || info.Started.After(latest.Started)) {
			latest = info
		}
	}
	return latest.URL
}

// readDashboard reads the dashboard file name. One nobody holds locked is a
// dashboard that is gone: it is removed and live is false; one that does
// not parse is not live.
func (r *Registry) readDashboard(name string) (info dashboardInfo, live bool) {
	path := filepath.Join(r.dir, name)
	b, live, err := readLive(path, unix.LOCK_EX, maxDashboardFile, func() { _ = os.Remove(path) })
	if err != nil || !live || json.Unmarshal(b, &info) != nil || checkDashboardURL(info.URL) != nil {
		return info, false
	}
	return info, true
}

// removeStaleTemp removes the unfinished dashboard file name when its
// writer is gone: nobody holds its lock and it is older than staleTemp.
func (r *Registry) removeStaleTemp(name string) {
	path := filepath.Join(r.dir, name)
	f, err := os.OpenFile(path, os.O_RDONLY|unix.O_NOFOLLOW, 0)
	if err != nil {
		return
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || time.Since(st.ModTime()) < staleTemp {
		return
	}
	if unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB) == nil {
		_ = os.Remove(path)
	}
}

// checkDashboardURL refuses an address that is not an http or https URL,
// or too long for a dashboard's file.
func checkDashboardURL(address string) error {
	u, err := url.Parse(address)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || len(address) > maxDashboardFile/2 {
		return errors.New("dashboard entry: the address is not an http or https URL")
	}
	return nil
}
