package channel

import (
	"fmt"
	"slices"
	"strings"

	"github.com/clai-sh/clai/runner/ask"
)

// desks are the sessions one Serve tells of, by id: one for a run's own
// channel, every registered run's for the hub's (see ServeAll). A press or
// a command is routed to the session it names; one that names no session
// here is refused as moved on.
type desks struct {
	byID  map[string]ask.Desk
	order []string
}

func newDesks() *desks { return &desks{byID: map[string]ask.Desk{}} }

// add takes desk in under its session's id, keeping the order they came.
func (d *desks) add(desk ask.Desk) string {
	id := desk.Session().ID
	if _, ok := d.byID[id]; !ok {
		d.order = append(d.order, id)
	}
	d.byID[id] = desk
	return id
}

// remove lets the session id go.
func (d *desks) remove(id string) {
	delete(d.byID, id)
	d.order = slices.DeleteFunc(d.order, func(s string) bool { return s == id })
}

// session is the desk of session id, if it is here.
func (d *desks) session(id string) (ask.Desk, bool) {
	desk, ok := d.byID[id]
	return desk, ok
}

// all are the desks, in the order they came.
func (d *desks) all() []ask.Desk {
	out := make([]ask.Desk, 0, len(d.order))
	for _, id := range d.order {
		out = append(out, d.byID[id])
	}
	return out
}

// only is the one desk, when there is exactly one.
func (d *desks) only() (ask.Desk, bool) {
	if len(d.order) != 1 {
		return nil, false
	}
	return d.byID[d.order[0]], true
}

// find is the desk a person names: by its id, its host and id (host/id),
// or its name when no other session has that name.
func (d *desks) find(name string) (ask.Desk, bool) {
	if name == "" {
		return nil, false
	}
	if desk, ok := d.byID[name]; ok {
		return desk, true
	}
	var found []ask.Desk
	for _, desk := range d.all() {
		s := desk.Session()
		if name == s.Name || s.Host != "" && name == s.Host+"/"+s.ID || s.Host != "" && name == s.Host+"/"+s.Name {
			found = append(found, desk)
		}
	}
	if len(found) != 1 {
		return nil, false
	}
	return found[0], true
}

// where names a session as a message says it: "session ID" and, when its
// host is known, "on HOST".
func where(s ask.Session) string {
	if s.Host == "" {
		return "session " + s.ID
	}
	return fmt.Sprintf("session %s on %s", s.ID, cut(ask.Visible(s.Host), 64))
}

// listText lists the sessions served, one line each, for /status of many.
func (d *desks) listText() string {
	if len(d.order) == 0 {
		return "no session is running here now"
	}
	var b strings.Builder
	for i, desk := range d.all() {
		if i > 0 {
			b.WriteString("\n\n")
		}
		b.WriteString(statusText(desk.Session()))
	}
	return b.String()
}
