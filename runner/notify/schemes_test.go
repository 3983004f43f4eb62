package notify_test

import (
	"slices"
	"testing"

	"github.com/nicholas-fedor/shoutrrr/pkg/router"

	"github.com/clai-sh/clai/playbooks"
)

// TestSchemesAreShoutrrrs: lint's list of services is the one shoutrrr serves.
func TestSchemesAreShoutrrrs(t *testing.T) {
	t.Parallel()
	var r router.ServiceRouter
	served := r.ListServices()
	slices.Sort(served)
	if !slices.Equal(served, playbooks.NotifySchemes()) {
		t.Errorf("shoutrrr serves %q,\nplaybooks.NotifySchemes lists %q", served, playbooks.NotifySchemes())
	}
}
