package students

import (
	"testing"

	"github.com/sekolah/portal/internal/i18n"
)

func TestStatuses(t *testing.T) {
	t.Parallel()
	for _, s := range Statuses {
		if StatusOf(string(s)) != s {
			t.Errorf("%s does not read back", s)
		}
		if !i18n.Has(s.Key()) {
			t.Errorf("%s: no name %s in the catalogue", s, s.Key())
		}
		if s.Active() != (s == StatusActive) {
			t.Errorf("%s: active %v", s, s.Active())
		}
	}
	if StatusOf("") != StatusActive || StatusOf("expelled") != StatusActive {
		t.Error("a status stored before statuses existed, or unknown, must read as active")
	}
}
