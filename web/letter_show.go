package web

import (
	"net/http"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/counter"
	"github.com/sekolah/portal/views/pages"
)

// showLetter is the printable bill letter for a student's parents: the unpaid components
// priced as of today (the counter's reading of them), with due dates, late fees in words
// and how to pay at the bank with the NIS.
func (h *Handler) showLetter(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	s := studentFrom(r)
	uctx, cancel := h.upstreamCtx(ctx)
	st, err := h.counter.Student(uctx, s.NIS)
	cancel()
	if err != nil {
		h.log.Warn("bill letter", "nis", s.NIS, "err", err)
		h.renderError(w, r, upstreamStatus(err), h.upstreamMessage(ctx, err, false))
		return
	}
	prof, perr := h.school.Profile(ctx)
	if perr != nil {
		h.log.Error("read the school profile", "err", perr)
	}
	name := s.Name
	if name == "" {
		name = st.Name
	}
	v := pages.LetterView{School: schoolHeaderOf(ctx, prof), NIS: s.NIS, Student: name, Class: s.Description,
		Today: st.Today, HowToPay: prof.LetterNote, StudentURL: studentURL(s.NIS)}
	for _, l := range st.Lines {
		if l.Reason == counter.ReasonExpired {
			v.Expired++
			continue
		}
		b := l.Bill
		v.Lines = append(v.Lines, letterLine(b, l))
		if l.Payable {
			v.Total += l.Due
		}
	}
	h.render(w, r, http.StatusOK, pages.Letter(v))
}

func letterLine(b billing.Bill, l counter.Line) pages.LetterLine {
	ll := pages.LetterLine{Name: b.Name, Due: b.Due, Expiry: b.Expiry, Active: b.Active, Amount: b.Amount, Penalty: b.Penalty,
		DueToday: l.Due, Late: l.Late, NotYetActive: l.Today.NotYetActive}
	if ll.NotYetActive {
		ll.DueToday = b.Amount // what it will cost when it opens, on time
	}
	return ll
}
