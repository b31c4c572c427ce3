package uploads

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/problem"
	"github.com/sekolah/portal/internal/sheets"
	"github.com/sekolah/portal/internal/store"
)

// StudentChecker tells which student numbers the billing service knows.
type StudentChecker interface {
	// KnownStudents returns the subset of nis the service knows. An error means some
	// could not be checked (the service did not answer); nothing is guessed.
	KnownStudents(ctx context.Context, nis []string) (map[string]bool, error)
}

// ComponentFinder tells which components already exist at the billing service.
type ComponentFinder interface {
	// FindComponents reports, for each key, whether the service has a component of
	// that student with that name (case and spacing aside) due that day.
	FindComponents(ctx context.Context, keys []Key) ([]bool, error)
}

// Key identifies a component for duplicate checks: the same student, name and due day
// is the same bill, whatever its amount. Names are compared with case and runs of spaces
// folded (the analysis passes them folded already).
type Key struct {
	NIS  string
	Name string
	Due  time.Time
}

// Options say how to read and check a sheet.
type Options struct {
	Kind     Kind
	Accounts []string
	Limits   Limits
	// Students checks that NIS exist (components) or finds those that already do
	// (students sheets).
	Students StudentChecker
	// Existing finds components already uploaded; nil skips that check.
	Existing ComponentFinder
	// Roster gives the records of the students a students sheet names that exist, to
	// tell what the sheet changes; nil treats them all as already there. It is also what a
	// NIS that lost its leading zeros (12345 for 0012345) is recognised by, and a new
	// student's name that an existing student has.
	Roster RosterReader
	// Today is the school's date: a due day outside the school year around it is a
	// warning (zero: not checked).
	Today time.Time
	// Bills finds the components a corrections sheet names (its "ID Tagihan" column);
	// without it every id is unknown.
	Bills BillGetter
	// Keep, when set, is given every row whose cells are valid, as it would be sent, in
	// row order (a Component or a Student): the analysis keeps them so the commit need not
	// read the sheet again. Rows found wrong only later (an unknown NIS) are among them;
	// the bad rows say which.
	Keep func(row int, item any) error
}

// Summary is what a sheet holds, by row.
type Summary struct {
	// Rows counts the non-empty data rows.
	Rows int
	// New rows are valid and not at the service yet; Already rows are valid and already
	// there; Errors rows have at least one issue.
	New, Already, Errors int
	// Issues counts the cell problems.
	Issues int
	// Totals are the new rows' rupiah per account code (components only).
	Totals []Total
	// BadRows are the rows with at least one issue (Errors of them).
	BadRows RowSet
	// Sample is the first SampleSize new rows as they will be sent.
	Sample []SampleRow
	// Changes are the corrections (rows with a component id): their rows are in neither
	// New nor Already, except those that change nothing (Changes.Unchanged, also in Already).
	Changes Changes
	// Reading says which sheet and heading rows were read, and the columns that were not.
	Reading Reading
	// Aid are the government-aid flags of a students sheet that has them (a Dapodik
	// export), by NIS: every valid row's, new students and existing ones alike.
	Aid map[string]store.StudentAid
}

// Total is the sum of one account code's new components.
type Total struct {
	AccountCode string
	Rows        int
	Amount      int64
}

// Row states inside the analysis.
const (
	rowNew uint8 = iota
	rowBad
	rowAlready
	rowUpdate
)

// Correction is a valid row that changes the component ID: the fields named in Set
// (updateFields' contract names) take the row's values.
type Correction struct {
	Component
	ID  string
	Set []string
}

// corrRow is a row with a component id, kept until the ids are looked up.
type corrRow struct {
	index int // into the rows
	id    string
	c     Component
}

// compRow is what the analysis keeps of one components row: small, because a sheet may
// have 200,000 of them.
type compRow struct {
	amount int64
	row    int32
	nis    int32 // index into the distinct NIS, -1 when the cell is invalid
	name   int32 // index into the distinct folded names, -1 when invalid
	due    int32 // days since 1970-01-01, -1 when invalid
	acct   int16 // index into the account codes, -1 when invalid
	state  uint8
}

type compKey struct{ nis, name, due int32 }

// interner hands out small indexes for repeated strings (NIS, names).
type interner struct {
	index map[string]int32
	list  []string
}

func newInterner() *interner { return &interner{index: map[string]int32{}} }

func (in *interner) id(s string) int32 {
	if i, ok := in.index[s]; ok {
		return i
	}
	i := int32(len(in.list))
	in.index[s] = i
	in.list = append(in.list, s)
	return i
}

func epochDay(t time.Time) int32 { return int32(t.Unix() / 86400) }

func dayOfEpoch(d int32) time.Time { return time.Unix(int64(d)*86400, 0).UTC() }

// Analyse reads the sheet at path row by row and checks every cell, reporting each problem
// to sink as it is found (in row order, except unknown NIS and component ids, which are
// known only once the whole sheet has been read). It never holds a components sheet: only a
// few numbers per row, and the values of the rows that correct a component; a students
// sheet (a school's roster, a few thousand rows) keeps its valid rows' values, to compare
// the students that exist with their records.
// A problem with the file itself is a *FileError.
func Analyse(ctx context.Context, path string, o Options, sink func(Issue) error) (sum Summary, err error) {
	defer recoverUnreadable(&err)
	s, err := openSheet(path, o.Kind, o.Limits)
	if err != nil {
		return Summary{}, err
	}
	defer s.close()
	l := s.layout
	v := newValidator(l, o.Accounts, s.date1904)
	var roster *rosterIndex
	if o.Roster != nil {
		if roster, err = loadRoster(ctx, o.Roster); err != nil {
			return Summary{}, fmt.Errorf("uploads: read the roster: %w", err)
		}
	}
	switch o.Kind {
	case Components:
		sum, err = analyseComponents(ctx, s, v, roster, o, sink)
	case Students:
		sum, err = analyseStudents(ctx, s, v, roster, o, sink)
	default:
		return Summary{}, fmt.Errorf("uploads: unknown kind %q", o.Kind)
	}
	sum.Reading = s.info
	return sum, err
}

// issueSink counts problems and remembers whether the current row had one.
type issueSink struct {
	sink   func(Issue) error
	err    error
	bad    bool
	issues int
}

func (is *issueSink) emit(i Issue) {
	is.bad = true
	is.warn(i)
}

// warn reports a warning: counted and kept like a problem, but its row is still sent.
func (is *issueSink) warn(i Issue) {
	is.issues++
	if is.err == nil {
		is.err = is.sink(i)
	}
}

// nextRow reads the next data row into s, past what rowNotes says of the reading (merged
// ranges filled, a total row skipped), counting it in rows against Limits.MaxRows; false
// at the end.
func nextRow(ctx context.Context, s *sheet, v *validator, o Options, out *issueSink, rows *int) (bool, error) {
	for {
		ok, err := s.next()
		if err != nil || !ok {
			return false, err
		}
		out.bad = false
		if !rowNotes(s, v, out) {
			continue
		}
		if *rows++; o.Limits.MaxRows > 0 && *rows > o.Limits.MaxRows {
			return false, &FileError{Code: "too_many_rows", Args: []string{strconv.Itoa(o.Limits.MaxRows)}}
		}
		if *rows%4096 == 0 && ctx.Err() != nil {
			return false, ctx.Err()
		}
		return true, nil
	}
}

// rowNotes says what the reading of the current row did beside its cells: the merged
// ranges filled down for the first time (once each); and skips a total row ("Jumlah"),
// saying so. It reports whether the row is data.
func rowNotes(s *sheet, v *validator, out *issueSink) bool {
	for _, f := range s.filled {
		out.warn(Issue{Row: f.g.FirstRow, Col: f.g.FirstCol, Problem: problem.New("", warnKeyPrefix+WarnMerged,
			f.g.String(), quote(f.value), int64(f.g.LastRow-f.g.FirstRow))})
	}
	if label, col, ok := s.totalRow(); ok {
		out.warn(Issue{Row: s.row, Col: col, Value: quote(label), Problem: problem.New("", warnKeyPrefix+WarnTotalRow)})
		return false
	}
	return true
}

func analyseComponents(ctx context.Context, s *sheet, v *validator, roster *rosterIndex, o Options, sink func(Issue) error) (Summary, error) {
	var (
		sum   Summary
		rows  []compRow
		nis   = newInterner()
		names = newInterner()
		// folded caches each name as typed → its folded index, so the folding (which
		// allocates) runs once per distinct spelling, not once per row.
		folded = map[string]int32{}
		// typed is each folded name as first typed, for the messages.
		typed []string
		seen  = map[compKey]int32{}
		acct  = map[string]int16{}
		c     Component
		out   = &issueSink{sink: sink}
		cands []candidate
		corrs []corrRow
		ids   = map[string]int32{} // component id → first row naming it
	)
	for i, a := range o.Accounts {
		acct[a] = int16(i)
	}
	var yearFrom, yearTo time.Time
	var yearName string
	if !o.Today.IsZero() {
		yearFrom, yearTo, yearName = schoolYears(o.Today)
	}
	nisCol, amountCol := v.l.Col[FieldNIS], v.l.Col[FieldAmount]
	for {
		ok, err := nextRow(ctx, s, v, o, out, &sum.Rows)
		if err != nil {
			return sum, err
		}
		if !ok {
			break
		}
		cells := s.cells
		valid := v.component(s.row, cells, &c, out.emit)
		if full, ok := roster.restore(c.NIS, ""); ok {
			out.warn(Issue{Row: s.row, Col: nisCol, Problem: problem.New("", warnKeyPrefix+WarnNISRestored, c.NIS, full)})
			c.NIS = full
		}
		if c.Amount > 0 && c.Amount < minAmount {
			out.warn(v.warning(s.row, FieldAmount, WarnAmountSmall, i18n.Rupiah(c.Amount), v.l.Header[FieldAmount]))
		}
		if c.Penalty > 0 && c.Penalty < minAmount {
			out.warn(v.warning(s.row, FieldPenalty, WarnAmountSmall, i18n.Rupiah(c.Penalty), v.l.Header[FieldPenalty]))
		}
		if !yearFrom.IsZero() && !c.Due.IsZero() && (c.Due.Before(yearFrom) || !c.Due.Before(yearTo)) {
			out.warn(v.warning(s.row, FieldDue, WarnDateOutside, c.Due, yearName))
		}
		r := compRow{row: int32(s.row), nis: -1, name: -1, due: -1, acct: -1, amount: c.Amount}
		if c.NIS != "" {
			r.nis = nis.id(c.NIS)
		}
		if c.Name != "" {
			id, ok := folded[c.Name]
			if !ok {
				id = names.id(nameKey(c.Name))
				folded[c.Name] = id
				if int(id) == len(typed) {
					typed = append(typed, c.Name)
				}
			}
			r.name = id
		}
		if !c.Due.IsZero() {
			r.due = epochDay(c.Due)
		}
		if c.AccountCode != "" {
			r.acct = acct[c.AccountCode]
		}
		id := v.get(s.cells, FieldComponentID)
		if id != "" {
			if first, dup := ids[id]; dup {
				out.emit(v.issue(s.row, FieldComponentID, "duplicate_id", id, strconv.Itoa(int(first))))
			} else {
				ids[id] = r.row
			}
		}
		if id == "" && r.nis >= 0 && r.name >= 0 && r.due >= 0 {
			k := compKey{r.nis, r.name, r.due}
			if first, dup := seen[k]; dup {
				out.emit(v.issue(s.row, FieldName, "duplicate_row", strconv.Itoa(int(first))))
			} else {
				seen[k] = r.row
			}
		}
		if out.err != nil {
			return sum, out.err
		}
		switch {
		case out.bad:
			r.state = rowBad
		case valid && id != "":
			r.state = rowUpdate
			corrs = append(corrs, corrRow{index: len(rows), id: id, c: c})
		case valid:
			if len(cands) < sampleScan {
				cands = append(cands, candidate{index: len(rows), row: sampleOfComponent(c)})
			}
			if o.Keep != nil {
				if err := o.Keep(s.row, c); err != nil {
					return sum, err
				}
			}
		}
		rows = append(rows, r)
	}
	seen = nil

	// An amount far below the others of its bill name: 350 among 350.000s.
	byName := map[int32][]int64{}
	for _, r := range rows {
		if r.name >= 0 && r.amount >= minAmount {
			byName[r.name] = append(byName[r.name], r.amount)
		}
	}
	medians := make(map[int32]int64, len(byName))
	for name, amounts := range byName {
		if len(amounts) >= 3 {
			medians[name] = median(amounts)
		}
	}
	byName = nil
	for _, r := range rows {
		if m, ok := medians[r.name]; ok && r.amount >= minAmount && r.amount*belowFactor <= m {
			out.warn(Issue{Row: int(r.row), Col: amountCol, Problem: problem.New("", warnKeyPrefix+WarnAmountBelow,
				i18n.Rupiah(r.amount), typed[r.name], i18n.Rupiah(m))})
		}
	}
	sayMisread(v, out)

	// Every NIS must be a student the service knows: asked once per distinct NIS.
	known, err := o.Students.KnownStudents(ctx, nis.list)
	if err != nil {
		return sum, err
	}
	for i := range rows {
		r := &rows[i]
		if r.nis >= 0 && !known[nis.list[r.nis]] {
			out.emit(Issue{Row: int(r.row), Col: nisCol, Problem: problem.New("", issueKeyPrefix+"nis_unknown", nis.list[r.nis])})
			r.state = rowBad
		}
	}
	if out.err != nil {
		return sum, out.err
	}

	// Corrections: each id must name an unpaid component of the row's student.
	if err := checkCorrections(ctx, o, v, rows, corrs, &sum.Changes, out); err != nil {
		return sum, err
	}
	if out.err != nil {
		return sum, out.err
	}

	// Rows already at the service (the same sheet uploaded before, in full or in part).
	if o.Existing != nil {
		var keys []Key
		var idx []int
		for i, r := range rows {
			if r.state == rowNew {
				keys = append(keys, Key{NIS: nis.list[r.nis], Name: names.list[r.name], Due: dayOfEpoch(r.due)})
				idx = append(idx, i)
			}
		}
		if len(keys) > 0 {
			found, err := o.Existing.FindComponents(ctx, keys)
			if err != nil {
				return sum, err
			}
			for j, f := range found {
				if f {
					rows[idx[j]].state = rowAlready
				}
			}
		}
	}

	totals := make([]Total, len(o.Accounts))
	for i, a := range o.Accounts {
		totals[i].AccountCode = a
	}
	for _, r := range rows {
		switch r.state {
		case rowNew:
			sum.New++
			totals[r.acct].Rows++
			totals[r.acct].Amount += r.amount
		case rowAlready:
			sum.Already++
		case rowUpdate:
		default:
			sum.Errors++
			sum.BadRows.Add(int(r.row))
		}
	}
	sum.Sample = pickSample(cands, func(i int) bool { return rows[i].state == rowNew })
	for _, t := range totals {
		if t.Rows > 0 {
			sum.Totals = append(sum.Totals, t)
		}
	}
	sum.Issues = out.issues
	return sum, nil
}

// checkCorrections looks up the components the rows with an id name, reports those that
// cannot be corrected at the id's cell, and for the rest lists the changed cells: a row
// that changes nothing is already there; the others are kept (o.Keep) as corrections.
func checkCorrections(ctx context.Context, o Options, v *validator, rows []compRow, corrs []corrRow, ch *Changes, out *issueSink) error {
	if len(corrs) == 0 {
		return nil
	}
	var ask []string
	for _, cr := range corrs {
		if rows[cr.index].state == rowUpdate {
			ask = append(ask, cr.id)
		}
	}
	bills := map[string]billing.Bill{}
	if o.Bills != nil && len(ask) > 0 {
		var err error
		if bills, err = o.Bills.Bills(ctx, ask); err != nil {
			return err
		}
	}
	for _, cr := range corrs {
		r := &rows[cr.index]
		if r.state != rowUpdate {
			continue
		}
		b, found := bills[cr.id]
		if code, args := idProblem(b, found, cr.c.NIS); code != "" {
			out.emit(v.issue(int(r.row), FieldComponentID, code, append([]any{cr.id}, args...)...))
			r.state = rowBad
			continue
		}
		cells := diff(componentOf(b), cr.c)
		if len(cells) == 0 {
			r.state = rowAlready
			ch.Unchanged++
			continue
		}
		ch.Count++
		if len(ch.First) < MaxChangesShown {
			ch.First = append(ch.First, Change{Row: int(r.row), ID: cr.id, NIS: cr.c.NIS, Name: b.Name, Cells: cells})
		}
		if o.Keep != nil {
			set := make([]string, len(cells))
			for i, c := range cells {
				set[i] = fieldContractName(c.Field)
			}
			if err := o.Keep(int(r.row), Correction{Component: cr.c, ID: cr.id, Set: set}); err != nil {
				return err
			}
		}
	}
	return nil
}

func fieldContractName(f Field) string {
	for _, u := range updateFields {
		if u.field == f {
			return u.name
		}
	}
	return ""
}

type studentRow struct {
	row   int32
	nis   int32
	state uint8
}

func analyseStudents(ctx context.Context, s *sheet, v *validator, roster *rosterIndex, o Options, sink func(Issue) error) (Summary, error) {
	var (
		sum   Summary
		rows  []studentRow
		vals  = map[int]Student{} // the valid rows' values, by index into rows
		nis   = newInterner()
		seen  = map[int32]int32{}
		st    Student
		out   = &issueSink{sink: sink}
		cands []candidate
	)
	nisCol := v.l.Col[FieldNIS]
	for {
		ok, err := nextRow(ctx, s, v, o, out, &sum.Rows)
		if err != nil {
			return sum, err
		}
		if !ok {
			break
		}
		valid := v.student(s.row, s.cells, &st, out.emit)
		if full, ok := roster.restore(st.NIS, st.Name); ok {
			out.warn(Issue{Row: s.row, Col: nisCol, Problem: problem.New("", warnKeyPrefix+WarnNISRestored, st.NIS, full)})
			st.NIS = full
		}
		r := studentRow{row: int32(s.row), nis: -1}
		if st.NIS != "" {
			r.nis = nis.id(st.NIS)
			if first, dup := seen[r.nis]; dup {
				out.emit(v.issue(s.row, FieldNIS, "duplicate_nis", st.NIS, strconv.Itoa(int(first))))
			} else {
				seen[r.nis] = r.row
			}
		}
		if out.err != nil {
			return sum, out.err
		}
		if out.bad {
			r.state = rowBad
		} else if valid {
			if len(cands) < sampleScan {
				cands = append(cands, candidate{index: len(rows), row: sampleOfStudent(st)})
			}
			vals[len(rows)] = st
		}
		rows = append(rows, r)
	}
	// A student the service already has is not created again: the row updates their
	// record where it differs ("naik kelas": the whole school's list with new classes),
	// and is skipped when it changes nothing.
	var candidates []string
	for _, r := range rows {
		if r.state == rowNew {
			candidates = append(candidates, nis.list[r.nis])
		}
	}
	known, err := o.Students.KnownStudents(ctx, candidates)
	if err != nil {
		return sum, err
	}
	var records map[string]store.Student
	if o.Roster != nil {
		var have []string
		for _, n := range candidates {
			if known[n] {
				have = append(have, n)
			}
		}
		if records, err = o.Roster.StudentsByNIS(ctx, have); err != nil {
			return sum, err
		}
	}
	sayMisread(v, out)
	for i := range rows {
		r := &rows[i]
		if r.state != rowNew {
			continue
		}
		val := vals[i]
		if val.HasAid {
			if sum.Aid == nil {
				sum.Aid = map[string]store.StudentAid{}
			}
			sum.Aid[val.NIS] = val.Aid
		}
		if !known[val.NIS] {
			if other, ok := roster.sameName(val.Name, val.NIS); ok {
				out.warn(Issue{Row: int(r.row), Col: v.l.Col[FieldStudentName], Problem: problem.New("", warnKeyPrefix+WarnNameMatches,
					val.Name, other, val.NIS)})
			}
			if o.Keep != nil {
				if err := o.Keep(int(r.row), val); err != nil {
					return sum, err
				}
			}
			continue
		}
		r.state = rowAlready
		cur, ok := records[val.NIS]
		if !ok {
			continue // known at the service, not in the roster: nothing to compare with
		}
		upd, cells := studentUpdate(v.l, cur, val)
		if len(cells) == 0 {
			sum.Changes.Unchanged++
			continue
		}
		r.state = rowUpdate
		sum.Changes.Count++
		if len(sum.Changes.First) < MaxChangesShown {
			sum.Changes.First = append(sum.Changes.First, Change{Row: int(r.row), NIS: val.NIS, Name: cur.Name, Cells: cells})
		}
		if o.Keep != nil {
			if err := o.Keep(int(r.row), upd); err != nil {
				return sum, err
			}
		}
	}
	if out.err != nil {
		return sum, out.err
	}
	for _, r := range rows {
		switch r.state {
		case rowBad:
			sum.Errors++
			sum.BadRows.Add(int(r.row))
		case rowAlready:
			sum.Already++
		case rowNew:
			sum.New++
		}
	}
	sum.Sample = pickSample(cands, func(i int) bool { return rows[i].state == rowNew })
	sum.Issues = out.issues
	return sum, nil
}

// sayMisread warns of each date cell read in the order the sheet's typed dates do not
// use, with the date it would be the other way round.
func sayMisread(v *validator, out *issueSink) {
	v.dates.misread(func(c dateCell, read, other time.Time) {
		out.warn(Issue{Row: int(c.row), Col: int(c.col), Problem: problem.New("", warnKeyPrefix+WarnDateOrder, read, other)})
	})
}

// StudentUpdate is a valid students row whose NIS exists: the student's record as it will
// be sent (UpdateStudent replaces it whole), their values where the sheet says nothing.
type StudentUpdate struct {
	Student
	KeyName string
}

// studentUpdate merges a row into the student's record: the name always (it is required),
// the class, phone and e-mail when the sheet has the column and the cell is filled in (an
// empty cell keeps what the school has). It returns the record and the changed cells.
func studentUpdate(l *Layout, cur store.Student, row Student) (StudentUpdate, []CellChange) {
	u := StudentUpdate{Student: Student{Row: row.Row, NIS: cur.NIS, Name: cur.Name, Class: cur.Description, Phone: cur.Phone,
		Email: cur.Email, Aid: row.Aid, HasAid: row.HasAid}, KeyName: cur.KeyName}
	var cells []CellChange
	set := func(f Field, dst *string, val string) {
		if f != FieldStudentName && (!l.Has(f) || val == "") {
			return
		}
		if *dst != val {
			cells = append(cells, CellChange{Field: f, Old: *dst, New: val})
			*dst = val
		}
	}
	set(FieldStudentName, &u.Name, row.Name)
	set(FieldClass, &u.Class, row.Class)
	set(FieldPhone, &u.Phone, row.Phone)
	set(FieldEmail, &u.Email, row.Email)
	return u, cells
}

// RosterReader reads the portal's roster (a *store.DB).
type RosterReader interface {
	StudentsByNIS(ctx context.Context, nis []string) (map[string]store.Student, error)
	AllStudents(ctx context.Context, fn func(store.Student) error) error
}

// ReadComponents calls fn for every valid components row whose row number skip does not
// name; a row that does not validate is passed over. It is the commit's second reading
// of the file, after Analyse found the problems.
func ReadComponents(ctx context.Context, path string, o Options, skip func(row int) bool, fn func(Component) error) error {
	return readRows(ctx, path, o, Components, func(v *validator, row int, cells []sheets.Cell) error {
		if skip(row) {
			return nil
		}
		var c Component
		if !v.component(row, cells, &c, func(Issue) {}) {
			return nil
		}
		return fn(c)
	})
}

// ReadStudents is ReadComponents for students sheets.
func ReadStudents(ctx context.Context, path string, o Options, skip func(row int) bool, fn func(Student) error) error {
	return readRows(ctx, path, o, Students, func(v *validator, row int, cells []sheets.Cell) error {
		if skip(row) {
			return nil
		}
		var s Student
		if !v.student(row, cells, &s, func(Issue) {}) {
			return nil
		}
		return fn(s)
	})
}

func readRows(ctx context.Context, path string, o Options, kind Kind, fn func(v *validator, row int, cells []sheets.Cell) error) (err error) {
	defer recoverUnreadable(&err)
	s, err := openSheet(path, kind, o.Limits)
	if err != nil {
		return err
	}
	defer s.close()
	v := newValidator(s.layout, o.Accounts, s.date1904)
	for n := 0; ; n++ {
		ok, err := s.next()
		if err != nil {
			return err
		}
		if !ok {
			return nil
		}
		if n%4096 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		if _, _, total := s.totalRow(); total {
			continue
		}
		if err := fn(v, s.row, s.cells); err != nil {
			return err
		}
	}
}

// SortIssues orders issues as the preview shows them: by row, then column.
func SortIssues(list []Issue) {
	slices.SortFunc(list, func(a, b Issue) int {
		if a.Row != b.Row {
			return a.Row - b.Row
		}
		return a.Col - b.Col
	})
}

// recoverUnreadable turns a panic of the spreadsheet library on a malformed file into the
// file problem "unreadable": one odd upload must not take the portal down.
func recoverUnreadable(err *error) {
	if r := recover(); r != nil {
		*err = &FileError{Code: "unreadable"}
	}
}
