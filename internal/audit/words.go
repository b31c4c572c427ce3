package audit

import (
	"strconv"
	"strings"

	"github.com/sekolah/portal/internal/i18n"
)

// Names are what an entry's words need from the portal's records.
type Names interface {
	// StaffName is a member of staff's name by username ("" when unknown).
	StaffName(username string) string
	// StudentName is the roster's name of a student ("" when unknown): for entries
	// written before they carried the name.
	StudentName(nis string) string
}

// Words are an entry in the reader's language.
type Words struct {
	// Actor names who acted: a member of staff's name (else their username), or the
	// portal, the payment service, the public form.
	Actor string
	// Machine is set when no person acted: a role means nothing then.
	Machine bool
	// Phrase says what happened ("Pembayaran di loket dicatat"), or what was tried.
	Phrase string
	// Subject is whom or what it was about.
	Subject Subject
	// Figures follow the subject: "2 tagihan", "Rp 1.350.000", "kuitansi KW/…".
	Figures []string
	// Upload is the upload (its id) a change came from, when it did.
	Upload string
}

// Subject is whom or what an entry is about.
type Subject struct {
	About About
	// Key is what a page about it is found by (a NIS, a username, an upload id, a
	// report's address); empty when it has none (a student deleted, several students).
	Key string
	// Text names it; a report's is left to the pages, which know their names.
	Text string
}

// Word says a stored entry in p's language. An entry whose action no package registers
// still shows its catalogue phrase, or else its code.
func Word(p i18n.Printer, s Stored, names Names) Words {
	w := Words{Actor: actorName(p, s.Actor, names), Machine: MachineOf(s.Actor) != NotMachine}
	a := s.Action
	if a == nil {
		w.Phrase = unregisteredPhrase(p, s.Code, s.Outcome)
		return w
	}
	w.Phrase = a.Phrase(p, s.Outcome)
	w.Subject = subject(p, a, s, names)
	for _, f := range a.Shows {
		if v := f.word(p, s.Args); v != "" {
			w.Figures = append(w.Figures, v)
		}
	}
	if a.About != AboutUpload {
		w.Upload = s.Args.Get(KeyUpload)
	}
	return w
}

// ActorName says who acted as username: a machine, a member of staff's name, or else the
// username itself.
func ActorName(p i18n.Printer, username string, names Names) string {
	return actorName(p, username, names)
}

func actorName(p i18n.Printer, username string, names Names) string {
	if m := MachineOf(username); m != NotMachine {
		return p.T(m.key())
	}
	if names != nil {
		if n := names.StaffName(username); n != "" {
			return n
		}
	}
	return username
}

// unregisteredPhrase words a code no package registers: its catalogue phrase when there
// is one, else the code.
func unregisteredPhrase(p i18n.Printer, code string, o Outcome) string {
	ok, try := "audit.act."+code, "audit.try."+code
	switch {
	case o != OK && i18n.Has(try):
		return p.T(try)
	case i18n.Has(ok):
		return p.T(ok)
	}
	return code
}

func subject(p i18n.Printer, a *Action, s Stored, names Names) Subject {
	args := s.Args
	sub := Subject{About: a.About}
	switch a.About {
	case AboutStudent:
		nis := StudentOf(s)
		if nis == "" {
			return sub
		}
		name := args.Get(KeyName)
		if name == "" && names != nil {
			name = names.StudentName(nis)
		}
		if name != "" {
			sub.Text = p.T("audit.student", name, nis)
		} else {
			sub.Text = p.T("audit.student_nis", nis)
		}
		if n, ok := args.Int(KeyStudents); ok && n > 1 {
			sub.Text = p.T("audit.students_more", sub.Text, int(n-1))
		} else if !(a.Removes && s.Outcome == OK) {
			sub.Key = nis
		}
	case AboutStaff:
		user := args.Get(KeyUser)
		if user == "" {
			user = s.Target
		}
		if user != "" {
			sub.Key, sub.Text = user, actorName(p, user, names)
		}
	case AboutUpload:
		sub.Key = args.Get(KeyUpload)
		if sub.Key == "" {
			sub.Key = s.Target
		}
		sub.Text = args.Get(KeyFile)
		if sub.Text == "" {
			sub.Text = uploadFileName(s.Detail)
		}
		if sub.Text == "" && sub.Key != "" {
			sub.Text = p.T("audit.an_upload")
		}
	case AboutFeeTemplate:
		sub.Text = args.Get(KeyName)
		if sub.Text == "" {
			sub.Text = s.Target
		}
	case AboutReport:
		sub.Key = s.Target
	case AboutFile:
		if f := args.Get(KeyFile); f != "" {
			sub.Text = p.T("audit.file", f)
		}
	case AboutTypedUsername:
		if s.Outcome != OK && s.Target != "" {
			sub.Text = p.T("audit.typed_username", s.Target)
		}
	case AboutSchool:
		sub.Text = args.Get(KeyName)
	case AboutPublicForm:
		switch args.Get(KeyEnabled) {
		case "true":
			sub.Text = p.T("audit.enabled")
		case "false":
			sub.Text = p.T("audit.disabled")
		}
	}
	return sub
}

// StudentOf is the (first) student an entry about students names: its argument, or for
// an older entry the first NIS of its target; "" for an entry about something else.
func StudentOf(s Stored) string {
	if s.Action == nil || s.Action.About != AboutStudent {
		return ""
	}
	if n := s.Args.Get(KeyNIS); n != "" {
		return n
	}
	first, _, _ := strings.Cut(s.Target, ",")
	return strings.TrimSpace(first)
}

// uploadFileName reads the file name from the detail of an upload entry written before
// entries carried arguments (`kind "name", …`).
func uploadFileName(detail string) string {
	_, rest, ok := strings.Cut(detail, " ")
	if !ok {
		return ""
	}
	quoted, err := strconv.QuotedPrefix(rest)
	if err != nil {
		return ""
	}
	name, err := strconv.Unquote(quoted)
	if err != nil {
		return ""
	}
	return name
}
