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
	// FieldLandline is a students sheet's landline ("Telepon") when the sheet also has a
	// mobile column ("HP"), as Dapodik's export has: the mobile is the phone, the landline
	// used when the mobile cell is empty.
	FieldLandline
	// FieldAidKIP, FieldAidKPS and FieldAidPIP are the government-aid flags of a Dapodik
	// export ("Penerima KIP", "Penerima KPS", "Layak PIP"): kept with the student.
	FieldAidKIP
	FieldAidKPS
	FieldAidPIP
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
	// extra columns are read when a sheet has them, but are not in the template (the
	// columns of other systems' exports: Dapodik's aid flags).
	extra bool
}

// columnsOf lists each kind's columns in template order.
var columnsOf = map[Kind][]column{
	Components: {
		{FieldNIS, true, "NIS", []string{"Nomor Induk Siswa", "No Induk", "Nomor Induk", "bill_key", "Student ID", "NIPD"}, 14, false},
		{FieldName, true, "Nama Tagihan", []string{"Nama Komponen", "Komponen", "Komponen Tagihan", "Tagihan", "bill_component_name", "Item", "Item name", "Bill item"}, 28, false},
		{FieldAccount, true, "Kode Rekening", []string{"Kode Akun", "Rekening", "Akun", "account_code", "Account code", "Account"}, 16, false},
		{FieldAmount, true, "Nominal", []string{"Jumlah", "Jumlah Tagihan", "Besar Tagihan", "Biaya", "amount", "Amount"}, 16, false},
		{FieldPenalty, false, "Denda", []string{"Denda Keterlambatan", "penalty", "penalty_amount", "Late fee", "Penalty"}, 14, false},
		{FieldDue, true, "Jatuh Tempo", []string{"Tanggal Jatuh Tempo", "Tgl Jatuh Tempo", "Batas Bayar", "due", "due_date", "Due date"}, 15, false},
		{FieldExpiry, true, "Kedaluwarsa", []string{"Kadaluwarsa", "Kadaluarsa", "Kedaluarsa", "Tanggal Kedaluwarsa", "Tgl Kedaluwarsa", "Berlaku Sampai", "expiry", "expiry_date", "Expiry date", "Expires"}, 15, false},
		{FieldActive, false, "Tanggal Aktif", []string{"Tgl Aktif", "Aktif", "Mulai Berlaku", "active", "active_date", "Active from", "Active date"}, 15, false},
		{FieldNotes, false, "Catatan", []string{"Keterangan", "notes", "Notes", "Note"}, 30, false},
		{FieldComponentID, false, "ID Tagihan", []string{"ID Komponen", "ID Komponen Tagihan", "bill_component_id", "Bill ID", "Component ID", "Item ID"}, 40, false},
	},
	Students: {
		// NIPD is the school's own student number in a Dapodik export (NISN, the national
		// one, is another number and is not read).
		{FieldNIS, true, "NIS", []string{"Nomor Induk Siswa", "No Induk", "Nomor Induk", "bill_key_value", "Student ID", "NIPD",
			"Nomor Induk Peserta Didik", "NIS Lokal"}, 14, false},
		{FieldStudentName, true, "Nama Siswa", []string{"Nama", "Nama Lengkap", "Nama Murid", "Nama Peserta Didik", "name", "Student name"}, 30, false},
		{FieldClass, false, "Kelas", []string{"Keterangan", "description", "Class", "Rombel", "Rombel Saat Ini", "Rombongan Belajar"}, 14, false},
		{FieldPhone, false, "No. Telepon", append(append([]string(nil), landlineHeaders...), mobileHeaders...), 18, false},
		{FieldEmail, false, "Email", []string{"E-mail", "Surel", "Alamat Email", "email"}, 28, false},
		{FieldAidKIP, false, "Penerima KIP", []string{"KIP"}, 12, true},
		{FieldAidKPS, false, "Penerima KPS", []string{"KPS"}, 12, true},
		{FieldAidPIP, false, "Layak PIP", []string{"Layak PIP (usulan dari sekolah)", "Usulan Layak PIP", "PIP"}, 12, true},
	},
}

// The phone column's headers: a mobile's and a landline's. A sheet with one of each
// (Dapodik's "Telepon" and "HP") reads the mobile as the phone and the landline as its
// stand-in (FieldLandline); either alone is the phone.
var (
	landlineHeaders = []string{"Telepon", "No Telepon", "Nomor Telepon", "No. Telp", "Telp", "phone", "Phone"}
	mobileHeaders   = []string{"No HP", "Nomor HP", "No. HP", "HP", "Handphone", "Ponsel", "No WA", "Nomor WA", "WhatsApp", "Mobile"}
)

// isMobileHeader reports a header that names a mobile number.
var isMobileHeader = func() func(string) bool {
	m := map[string]bool{}
	for _, h := range mobileHeaders {
		m[headerKey(h)] = true
	}
	return func(h string) bool { return m[headerKey(h)] }
}()

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
	// HeaderRow is the 1-based row of the header; SubHeaderRow the row below it when the
	// headings take two rows (Dapodik's "Data Ayah" over "Nama", "Pekerjaan", …), else 0.
	HeaderRow, SubHeaderRow int
	// Col is each field's 0-based column, -1 when the sheet has none.
	Col [numFields]int
	// Header is each field's header as the sheet writes it.
	Header [numFields]string
	// Headers are all header cells, in order, for the error workbook (a second heading
	// row's under its group: "Data Ayah: Nama").
	Headers []string
}

// Has reports whether the sheet has the field's column.
func (l *Layout) Has(f Field) bool { return l.Col[f] >= 0 }

// fieldAt is the field read from the 0-based column col, -1 for none.
func (l *Layout) fieldAt(col int) Field {
	for f := Field(0); f < numFields; f++ {
		if l.Col[f] == col {
			return f
		}
	}
	return -1
}

// Ignored are the columns with a heading the portal does not read, in order.
func (l *Layout) Ignored() []IgnoredColumn {
	var out []IgnoredColumn
	for i, h := range l.Headers {
		if strings.TrimSpace(h) != "" && l.fieldAt(i) < 0 {
			out = append(out, IgnoredColumn{Col: colName(i), Header: strings.TrimSpace(h)})
		}
	}
	return out
}

// mapHeader finds the fields in a header row. It returns the problem with the header, if
// any: columns missing (all named at once) or one field in two columns. A mobile and a
// landline column (Dapodik's "HP" and "Telepon") are not two phones: the mobile is the
// phone, the landline its stand-in.
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
			if f == FieldPhone && l.Col[FieldLandline] < 0 && isMobileHeader(h) != isMobileHeader(l.Header[f]) {
				mobile, landline := i, prev
				if isMobileHeader(l.Header[f]) {
					mobile, landline = prev, i
				}
				l.Col[FieldPhone], l.Header[FieldPhone] = mobile, strings.TrimSpace(cells[mobile])
				l.Col[FieldLandline], l.Header[FieldLandline] = landline, strings.TrimSpace(cells[landline])
				continue
			}
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

// templateColumns are the kind's columns the template writes (not the extra ones).
func templateColumns(kind Kind) []column {
	var out []column
	for _, c := range columnsOf[kind] {
		if !c.extra {
			out = append(out, c)
		}
	}
	return out
}
