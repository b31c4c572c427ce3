package web

import (
	"context"

	"github.com/sekolah/portal/internal/i18n"
)

// knownClasses are the roster's classes in the portal's one order of classes (natural:
// "Kelas 7A" … "Kelas 9C" before "Kelas 10A"), for filters and the class fields' choices.
// A failure to read them leaves the choices empty: a class can always be typed.
func (h *Handler) knownClasses(ctx context.Context) []string {
	classes, err := h.db.Classes(ctx)
	if err != nil {
		h.log.Warn("read the roster's classes", "err", err)
		return nil
	}
	i18n.SortNatural(classes)
	return classes
}
