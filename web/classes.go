package web

import "context"

// knownClasses are the roster's classes in the portal's one order of classes, for filters
// and the class fields' choices. A failure to read them leaves the choices empty: a class
// can always be typed.
func (h *Handler) knownClasses(ctx context.Context) []string {
	classes, err := h.students.Classes(ctx)
	if err != nil {
		h.log.Warn("read the roster's classes", "err", err)
		return nil
	}
	return classes
}
