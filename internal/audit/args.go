package audit

import (
	"strconv"
	"strings"

	"github.com/sekolah/portal/internal/i18n"
)

// Key names an argument of an entry as stored. The names are a contract with every entry
// already written.
type Key string

// The arguments entries carry.
const (
	KeyNIS      Key = "nis"      // the student (the first of several)
	KeyName     Key = "name"     // the student's, template's or school's name
	KeyStudents Key = "students" // how many students in all
	KeyUser     Key = "user"     // the member of staff (their username)
	KeyRole     Key = "role"     // a role given
	KeyFrom     Key = "from"     // the role before a change
	KeyUpload   Key = "upload"   // the upload (its id) a change came from, or is about
	KeyFile     Key = "file"     // a file's name
	KeyCount    Key = "count"    // how many items, lines or components
	KeyTotal    Key = "total"    // rupiah, a whole number
	KeyRef      Key = "ref"      // a receipt number
	KeyReason   Key = "reason"   // why, as the person gave it
	KeyItem     Key = "item"     // a bill item's name
	KeyOverdue  Key = "overdue"  // how many overdue items a follow-up named
	KeyEnabled  Key = "enabled"  // the public form opened ("true") or closed ("false")
	KeyPattern  Key = "pattern"  // the receipt numbers' pattern
	KeySource   Key = "source"   // where a student came from (portal, upload, registration, …)
	KeyClass    Key = "class"    // a student's class
	KeyFields   Key = "fields"   // the fields a correction changed, comma-separated
	KeyComp     Key = "component"
	KeyJob      Key = "job"   // the correction job or upload a change was sent by
	KeyBill     Key = "bill"  // the service's bill id of a registration
	KeyBytes    Key = "bytes" // a file's size
	KeyFormat   Key = "format"
)

// Args are an entry's arguments by name, values as plain text (numbers in decimal, rupiah
// as whole numbers): what the store keeps.
type Args map[string]string

// Get is the argument k ("" when absent).
func (a Args) Get(k Key) string { return a[string(k)] }

// Int is the argument k as a number, and whether it is one.
func (a Args) Int(k Key) (int64, bool) {
	n, err := strconv.ParseInt(a[string(k)], 10, 64)
	return n, err == nil
}

// Arg is one typed argument of an entry; the functions below make them.
type Arg struct {
	pairs [][2]string
}

func arg(kv ...string) Arg {
	a := Arg{}
	for i := 0; i+1 < len(kv); i += 2 {
		a.pairs = append(a.pairs, [2]string{kv[i], kv[i+1]})
	}
	return a
}

// Collect puts args together as stored; an argument given twice keeps its last value,
// and an empty text is left out (a name not known is no name).
func Collect(args ...Arg) Args {
	out := Args{}
	for _, a := range args {
		for _, p := range a.pairs {
			if p[1] != "" {
				out[p[0]] = p[1]
			}
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// Student names one student: their NIS and, when known, their name.
func Student(nis, name string) Arg { return arg(string(KeyNIS), nis, string(KeyName), name) }

// Students names several students by the first (its name when known) and how many.
func Students(nis, names []string) Arg {
	a := arg(string(KeyStudents), strconv.Itoa(len(nis)))
	if len(nis) > 0 {
		a.pairs = append(a.pairs, [2]string{string(KeyNIS), nis[0]})
	}
	if len(names) > 0 {
		a.pairs = append(a.pairs, [2]string{string(KeyName), names[0]})
	}
	return a
}

// StaffMember names a member of staff by username.
func StaffMember(username string) Arg { return arg(string(KeyUser), username) }

// Role is the role given to a member of staff.
func Role(role string) Arg { return arg(string(KeyRole), role) }

// RoleChange is a member of staff's role before and after.
func RoleChange(from, to string) Arg { return arg(string(KeyFrom), from, string(KeyRole), to) }

// Upload is the upload (its id) an entry is about or a change came from.
func Upload(id string) Arg { return arg(string(KeyUpload), id) }

// File is a file's name.
func File(name string) Arg { return arg(string(KeyFile), name) }

// Count is how many items (components, a template's lines).
func Count(n int) Arg { return arg(string(KeyCount), strconv.Itoa(n)) }

// Total is a sum of rupiah.
func Total(rupiah int64) Arg { return arg(string(KeyTotal), strconv.FormatInt(rupiah, 10)) }

// Ref is a receipt number.
func Ref(ref string) Arg { return arg(string(KeyRef), ref) }

// Reason is why, as the person gave it (at most 200 characters are kept).
func Reason(s string) Arg { return arg(string(KeyReason), clip(s, 200)) }

// Item is a bill item's name.
func Item(name string) Arg { return arg(string(KeyItem), name) }

// Overdue is how many overdue items a follow-up named.
func Overdue(n int) Arg { return arg(string(KeyOverdue), strconv.Itoa(n)) }

// Name is a fee template's or the school's name.
func Name(s string) Arg { return arg(string(KeyName), s) }

// Enabled says the public form was opened (true) or closed.
func Enabled(on bool) Arg { return arg(string(KeyEnabled), strconv.FormatBool(on)) }

// Pattern is the receipt numbers' pattern.
func Pattern(s string) Arg { return arg(string(KeyPattern), s) }

// Source is where a student came from (the roster's source: portal, upload, …).
func Source(s string) Arg { return arg(string(KeySource), s) }

// Class is a student's class.
func Class(s string) Arg { return arg(string(KeyClass), s) }

// Fields are the fields a correction changed, in the contract's words.
func Fields(f []string) Arg { return arg(string(KeyFields), strings.Join(f, ",")) }

// Component is a bill component's id.
func Component(id string) Arg { return arg(string(KeyComp), id) }

// Job is the correction job or upload that sent a change.
func Job(id string) Arg { return arg(string(KeyJob), id) }

// Bill is the service's bill id of a registration.
func Bill(id string) Arg { return arg(string(KeyBill), id) }

// Bytes is a file's size.
func Bytes(n int) Arg { return arg(string(KeyBytes), strconv.Itoa(n)) }

// Format is an export's file format (xlsx, csv, …).
func Format(f string) Arg { return arg(string(KeyFormat), f) }

// clip keeps the first n bytes of s, cut at a character.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && (s[cut]&0xC0) == 0x80 {
		cut--
	}
	return s[:cut] + "…"
}

// Figure is one figure an action's words show after the subject ("2 tagihan",
// "Rp 1.350.000", "kuitansi KW/…"), read from its arguments.
type Figure struct {
	name string
	keys []Key
	word func(p i18n.Printer, a Args) string
}

// NewFigure is a figure of a package's own: its name, the arguments it reads (keys of the
// package's own, when no Key above fits) and how it words them, "" when they are absent.
// Declare it beside the actions that show it.
func NewFigure(name string, keys []Key, word func(p i18n.Printer, a Args) string) Figure {
	return Figure{name: name, keys: keys, word: word}
}

// ArgOf is one argument of a package's own key (for its own figures), its value as stored.
func ArgOf(k Key, value string) Arg { return arg(string(k), value) }

// The figures entries show.
var (
	// Items is a count of bill items: "2 tagihan".
	Items = Figure{"items", []Key{KeyCount}, func(p i18n.Printer, a Args) string {
		return countOf(p, a, KeyCount, "audit.items")
	}}
	// Lines is a count of a fee template's lines: "3 komponen".
	Lines = Figure{"lines", []Key{KeyCount}, func(p i18n.Printer, a Args) string {
		return countOf(p, a, KeyCount, "audit.lines")
	}}
	// OverdueItems is how many overdue items a follow-up named: "2 tagihan terlambat".
	OverdueItems = Figure{"overdue", []Key{KeyOverdue}, func(p i18n.Printer, a Args) string {
		return countOf(p, a, KeyOverdue, "followups.audit_overdue")
	}}
	// Money is a total in rupiah: "Rp 1.350.000".
	Money = Figure{"money", []Key{KeyTotal}, func(_ i18n.Printer, a Args) string {
		if v, ok := a.Int(KeyTotal); ok {
			return i18n.Rupiah(v)
		}
		return ""
	}}
	// Receipt is a receipt number: "kuitansi KW/2026/11/0001".
	Receipt = Figure{"receipt", []Key{KeyRef}, func(p i18n.Printer, a Args) string {
		return textOf(p, a, KeyRef, "audit.receipt")
	}}
	// Why is the reason given: "alasan: salah unggah".
	Why = Figure{"reason", []Key{KeyReason}, func(p i18n.Printer, a Args) string {
		return textOf(p, a, KeyReason, "audit.reason")
	}}
	// ItemName is a bill item's name, as it is: "SPP Desember".
	ItemName = Figure{"item", []Key{KeyItem}, func(_ i18n.Printer, a Args) string { return a.Get(KeyItem) }}
	// RoleGiven is a role, or a change of role: "Keuangan", "Admin → Keuangan".
	RoleGiven = Figure{"role", []Key{KeyRole, KeyFrom}, func(p i18n.Printer, a Args) string {
		role, from := a.Get(KeyRole), a.Get(KeyFrom)
		switch {
		case role == "":
			return ""
		case from != "":
			return p.T("audit.role_change", p.T("role."+from), p.T("role."+role))
		}
		return p.T("role." + role)
	}}
	// ReceiptPattern is the receipt numbers' pattern: "pola kuitansi KW/{YYYY}/…".
	ReceiptPattern = Figure{"pattern", []Key{KeyPattern}, func(p i18n.Printer, a Args) string {
		return textOf(p, a, KeyPattern, "audit.pattern")
	}}
	// Named is a name, as it is (the template the public form offers).
	Named = Figure{"name", []Key{KeyName}, func(_ i18n.Printer, a Args) string { return a.Get(KeyName) }}
)

func countOf(p i18n.Printer, a Args, k Key, key string) string {
	if n, ok := a.Int(k); ok {
		return p.T(key, int(n))
	}
	return ""
}

func textOf(p i18n.Printer, a Args, k Key, key string) string {
	if v := a.Get(k); v != "" {
		return p.T(key, v)
	}
	return ""
}
