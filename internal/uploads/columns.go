package uploads

import (
	"strings"
	"unicode"
)

// Kind is what a sheet holds.
type Kind string

// The kinds of sheet the portal reads.
const (
	Components Kind = "components"
	Students   Kind = "students"
)

// Kinds lists the kinds in the order the upload form offers them.
func Kinds() []Kind { return []Kind{Components, Students} }

// ParseKind reads a kind from a form value.
func ParseKind(s string) (Kind, bool) {
	for _, k := range Kinds() {
		if string(k) == s {
			return k, true
		}
	}
	return "", false
}

// Field is one column the portal understands.
type Field int

// The columns of both kinds of sheet.
const (
	FieldNIS Field = iota
	FieldName
	FieldAccount
	FieldAmount
	FieldPenalty
	FieldDue
	FieldExpiry
	FieldActive
	FieldNotes
	FieldStudentName
	FieldClass
	FieldPhone
	FieldEmail
	// FieldComponentID is a components sheet's optional "ID Tagihan": a row with one
	// corrects that component instead of creating one.
	FieldComponentID
	numFields
)

// column describes one field of a kind of sheet.
type column struct {
	field    Field
	required bool
	// header is what the templates write; aliases are other headers people use.
	header  string
	aliases []string
	// width is the template's column width in characters.
	width float64
}

// columnsOf lists each kind's columns in template order.
var columnsOf = map[Kind][]column{
	Components: {
		{FieldNIS, true, "NIS", []string{"Nomor Induk Siswa", "No Induk", "Nomor Induk", "bill_key", "Student ID"}, 14},
		{FieldName, true, "Nama Tagihan", []string{"Nama Komponen", "Komponen", "Komponen Tagihan", "Tagihan", "bill_component_name", "Item", "Item name", "Bill item"}, 28},
		{FieldAccount, true, "Kode Rekening", []string{"Kode Akun", "Rekening", "Akun", "account_code", "Account code", "Account"}, 16},
		{FieldAmount, true, "Nominal", []string{"Jumlah", "Jumlah Tagihan", "Besar Tagihan", "Biaya", "amount", "Amount"}, 16},
		{FieldPenalty, false, "Denda", []string{"Denda Keterlambatan", "penalty", "penalty_amount", "Late fee", "Penalty"}, 14},
		{FieldDue, true, "Jatuh Tempo", []string{"Tanggal Jatuh Tempo", "Tgl Jatuh Tempo", "Batas Bayar", "due", "due_date", "Due date"}, 15},
		{FieldExpiry, true, "Kedaluwarsa", []string{"Kadaluwarsa", "Kadaluarsa", "Kedaluarsa", "Tanggal Kedaluwarsa", "Tgl Kedaluwarsa", "Berlaku Sampai", "expiry", "expiry_date", "Expiry date", "Expires"}, 15},
		{FieldActive, false, "Tanggal Aktif", []string{"Tgl Aktif", "Aktif", "Mulai Berlaku", "active", "active_date", "Active from", "Active date"}, 15},
		{FieldNotes, false, "Catatan", []string{"Keterangan", "notes", "Notes", "Note"}, 30},
		{FieldComponentID, false, "ID Tagihan", []string{"ID Komponen", "ID Komponen Tagihan", "bill_component_id", "Bill ID", "Component ID", "Item ID"}, 40},
	},
	Students: {
		{FieldNIS, true, "NIS", []string{"Nomor Induk Siswa", "No Induk", "Nomor Induk", "bill_key_value", "Student ID"}, 14},
		{FieldStudentName, true, "Nama Siswa", []string{"Nama", "Nama Lengkap", "Nama Murid", "name", "Student name"}, 30},
		{FieldClass, false, "Kelas", []string{"Keterangan", "description", "Class", "Rombel"}, 14},
		{FieldPhone, false, "No. Telepon", []string{"Telepon", "No Telepon", "Nomor Telepon", "No HP", "Nomor HP", "HP", "No WA", "WhatsApp", "phone", "Phone"}, 18},
		{FieldEmail, false, "Email", []string{"E-mail", "Surel", "Alamat Email", "email"}, 28},
	},
}

// headerKey folds a header for matching: lower case, letters and digits only, and without
// a parenthesised remark, so "Nominal (Rp)", "nominal", "NOMINAL " and "no_minal" agree
// where they should.
func headerKey(h string) string {
	if i := strings.IndexByte(h, '('); i > 0 {
		h = h[:i]
	}
	var b strings.Builder
	for _, r := range h {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(unicode.ToLower(r))
		}
	}
	return b.String()
}

// aliasIndex maps each kind's folded headers to their field.
var aliasIndex = func() map[Kind]map[string]Field {
	out := map[Kind]map[string]Field{}
	for kind, cols := range columnsOf {
		m := map[string]Field{}
		for _, c := range cols {
			m[headerKey(c.header)] = c.field
			for _, a := range c.aliases {
				m[headerKey(a)] = c.field
			}
		}
		out[kind] = m
	}
	return out
}()

// Layout is where a sheet keeps each field: the header row and a column per field.
type Layout struct {
	Kind Kind
	// HeaderRow is the 1-based row of the header.
	HeaderRow int
	// Col is each field's 0-based column, -1 when the sheet has none.
	Col [numFields]int
	// Header is each field's header as the sheet writes it.
	Header [numFields]string
	// Headers are all header cells, in order, for the error workbook.
	Headers []string
}

// Has reports whether the sheet has the field's column.
func (l *Layout) Has(f Field) bool { return l.Col[f] >= 0 }

// mapHeader finds the fields in a header row. It returns the problem with the header, if
// any: columns missing (all named at once) or one field in two columns.
func mapHeader(kind Kind, row int, cells []string) (*Layout, *FileError) {
	l := &Layout{Kind: kind, HeaderRow: row, Headers: append([]string(nil), cells...)}
	for i := range l.Col {
		l.Col[i] = -1
	}
	index := aliasIndex[kind]
	for i, h := range cells {
		f, ok := index[headerKey(h)]
		if !ok {
			continue
		}
		if prev := l.Col[f]; prev >= 0 {
			return nil, &FileError{Code: "duplicate_column", Args: []string{strings.TrimSpace(h), cellName(prev, row), cellName(i, row)}}
		}
		l.Col[f], l.Header[f] = i, strings.TrimSpace(h)
	}
	var missing []string
	for _, c := range columnsOf[kind] {
		if c.required && l.Col[c.field] < 0 {
			missing = append(missing, c.header)
		}
	}
	if len(missing) > 0 {
		return nil, &FileError{Code: "missing_columns", Args: []string{strings.Join(missing, ", "), itoa(row)}}
	}
	return l, nil
}

// looksLikeHeader reports whether a row names at least two of the kind's columns; a
// title line above the header does not.
func looksLikeHeader(kind Kind, cells []string) bool {
	n := 0
	index := aliasIndex[kind]
	for _, h := range cells {
		if _, ok := index[headerKey(h)]; ok {
			n++
		}
	}
	return n >= 2
}
