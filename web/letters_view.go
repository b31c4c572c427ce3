package web

import (
	"context"
	"net/url"
	"strings"

	"github.com/sekolah/portal/internal/ledger"
	"github.com/sekolah/portal/internal/letters"
	"github.com/sekolah/portal/views/pages"
)

// letterSetOf is a set of letters as the letter pages print it.
func letterSetOf(ctx context.Context, b letters.Batch) pages.LetterSet {
	p := b.School
	s := pages.LetterSet{Reminder: b.Kind == letters.Reminder, School: schoolHeaderOf(ctx, p), Today: b.Today, City: p.City,
		HowToPay: p.LetterNote, Bursar: p.BursarName, BursarNIP: p.BursarNIP, Principal: p.PrincipalName, PrincipalNIP: p.PrincipalNIP}
	for _, l := range b.Letters {
		d := pages.LetterDoc{Number: l.Number, NIS: l.NIS, Student: l.Student, Class: l.Class, Total: l.Total, Penalty: l.Penalty, Expired: l.Expired}
		for _, ln := range l.Lines {
			d.Lines = append(d.Lines, letterLineOf(ln))
		}
		for _, ln := range l.Later {
			d.Later = append(d.Later, letterLineOf(ln))
		}
		s.Letters = append(s.Letters, d)
	}
	return s
}

func letterLineOf(l letters.Line) pages.LetterLine {
	return pages.LetterLine{Name: l.Name, Due: l.Due, Expiry: l.Expiry, Active: l.Active, Amount: l.Amount, Penalty: l.Penalty,
		Price: l.Price, DaysLate: l.DaysLate, Late: l.Late}
}

// remindersURL prints the reminders of an arrears report's students that have something
// overdue (the report's whole selection, not its page), and how many.
func remindersURL(rows []ledger.OutstandingRow) (string, int) {
	var nis []string
	for _, o := range rows {
		if o.OverdueCount > 0 && o.NIS != "" {
			nis = append(nis, o.NIS)
		}
	}
	if len(nis) == 0 {
		return "", 0
	}
	return "/students/letters?" + url.Values{"kind": {string(letters.Reminder)}, "nis": {strings.Join(nis, ",")}}.Encode(), len(nis)
}
