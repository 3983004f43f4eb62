package notify

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/nicholas-fedor/shoutrrr/pkg/router"
	"github.com/nicholas-fedor/shoutrrr/pkg/types"
)

// titled are the services whose URL takes a title of its own; the others
// get the title as the message's first line.
var titled = map[string]bool{
	"bark": true, "discord": true, "generic": true, "gotify": true, "ifttt": true, "join": true,
	"lark": true, "matrix": true, "ntfy": true, "opsgenie": true, "pushbullet": true,
	"pushover": true, "slack": true, "teams": true, "telegram": true,
}

// urlTarget delivers through a service URL as shoutrrr reads it.
type urlTarget struct {
	address string
	service string
	name    string
	mask    *mask
}

// openURL expands raw's ${NAME}s and checks that shoutrrr takes the URL.
func openURL(raw string, env Environment) (*urlTarget, error) {
	address, values, err := expand(raw, env.Environ)
	if err != nil {
		return nil, err
	}
	t := &urlTarget{address: address, name: "a service URL"}
	if u, err := url.Parse(address); err == nil {
		t.service, _, _ = strings.Cut(u.Scheme, "+")
		t.name = u.Scheme + "://" + u.Hostname() + "/…"
		if tokenPlaces[t.service] == "host" {
			t.name = u.Scheme + "://…"
		}
	}
	t.mask = newMask(address, t.name, values...)
	if _, err := t.locate(); err != nil {
		return nil, fmt.Errorf("%s: %w", t.name, err)
	}
	return t, nil
}

// tokenPlaces are the services whose host is their token.
var tokenPlaces = map[string]string{"pushbullet": "host", "ifttt": "host", "notifiarr": "host"}

// locate makes a fresh service for the URL: one attempt's service shares
// nothing with another's, which may still run after it was given up.
func (t *urlTarget) locate() (types.Service, error) {
	var r router.ServiceRouter
	svc, err := r.Locate(t.address)
	if err != nil {
		return nil, t.mask.err(err)
	}
	return svc, nil
}

func (t *urlTarget) Name() string { return t.name }

// Deliver sends the notification's message. shoutrrr's services take no
// context: an attempt that outlives ctx is left to end by the service's own
// timeout, and its result is dropped.
func (t *urlTarget) Deliver(ctx context.Context, n *Notification) error {
	svc, err := t.locate()
	if err != nil {
		return err
	}
	message, params := n.Message(), types.Params{}
	if titled[t.service] {
		params["title"] = n.Title
	} else {
		message = n.Title + "\n" + message
	}
	done := make(chan error, 1)
	go func() { done <- svc.Send(message, &params) }()
	select {
	case err := <-done:
		return t.mask.err(err)
	case <-ctx.Done():
		return fmt.Errorf("%s: %w", t.name, context.Cause(ctx))
	}
}

// errGaveUp is the cause of an attempt cut short at the end of the run.
var errGaveUp = errors.New("the run ended")
