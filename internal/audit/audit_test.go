package audit_test

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sekolah/portal/internal/audit"
	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/store"
	"github.com/sekolah/portal/internal/store/storetest"
)

// The test's own vocabulary: one action of each subject, with the figures the portal's
// actions show.
var (
	testPay = audit.Register(audit.Action{Code: "test.pay", About: audit.AboutStudent,
		Shows: []audit.Figure{audit.Items, audit.Money, audit.Receipt}, Keeps: []audit.Key{audit.KeySource, audit.KeyUpload},
		Needs: []audit.Key{audit.KeyNIS, audit.KeyRef}})
	testDelete = audit.Register(audit.Action{Code: "test.delete", About: audit.AboutStudent, Removes: true})
	testRole   = audit.Register(audit.Action{Code: "test.role", About: audit.AboutStaff, Shows: []audit.Figure{audit.RoleGiven},
		Needs: []audit.Key{audit.KeyUser, audit.KeyRole}})
	testUpload   = audit.Register(audit.Action{Code: "test.upload", About: audit.AboutUpload})
	testTemplate = audit.Register(audit.Action{Code: "test.template", About: audit.AboutFeeTemplate,
		Shows: []audit.Figure{audit.Lines, audit.Money}})
	testReport = audit.Register(audit.Action{Code: "test.report", About: audit.AboutReport})
	testLogo   = audit.Register(audit.Action{Code: "test.logo", About: audit.AboutFile, Keeps: []audit.Key{audit.KeyBytes}})
	testSignIn = audit.Register(audit.Action{Code: "test.signin", About: audit.AboutTypedUsername})
	testSchool = audit.Register(audit.Action{Code: "test.school", About: audit.AboutSchool, Shows: []audit.Figure{audit.ReceiptPattern}})
	testForm   = audit.Register(audit.Action{Code: "test.form", About: audit.AboutPublicForm, Shows: []audit.Figure{audit.Named}})
	testCancel = audit.Register(audit.Action{Code: "test.cancel", About: audit.AboutStudent,
		Shows: []audit.Figure{audit.ItemName, audit.Items, audit.Money, audit.Why}})
	testFollow = audit.Register(audit.Action{Code: "test.follow", About: audit.AboutStudent,
		Shows: []audit.Figure{audit.OverdueItems, audit.Money}})
)

func init() {
	msgs := map[string]i18n.Message{}
	for _, a := range audit.Actions() {
		msgs[a.OKKey()] = i18n.Message{ID: "ok " + a.Code, EN: "done " + a.Code}
		msgs[a.TryKey()] = i18n.Message{ID: "coba " + a.Code, EN: "tried " + a.Code}
	}
	audit.RegisterMachine("test-portal", audit.ThePortal)
	audit.RegisterMachine("test-sync", audit.ThePortal)
	audit.RegisterMachine("test-bank", audit.TheService)
	i18n.Register(msgs)
}

// names is a roster of one student and a staff of one.
type names struct{}

func (names) StaffName(u string) string {
	if u == "siti" {
		return "Siti Rahma"
	}
	return ""
}

func (names) StudentName(nis string) string {
	if nis == "2024003" {
		return "Dewi Lestari"
	}
	return ""
}

var id = i18n.NewPrinter(i18n.Indonesian, nil)

// said is an entry's words as the page puts them: phrase — subject, figures.
func said(w audit.Words) string {
	s := w.Phrase
	parts := w.Figures
	if w.Subject.Text != "" {
		parts = append([]string{w.Subject.Text}, parts...)
	}
	if len(parts) > 0 {
		s += " — " + strings.Join(parts, ", ")
	}
	return s
}

func stored(e audit.Entry) audit.Stored { return audit.Read(e.Row()) }

func TestWordEachSubject(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		entry audit.Stored
		want  string
		key   string
	}{
		{"a payment", stored(withOutcome(testPay.With(audit.Student("2024001", "Siti Aminah"), audit.Count(2), audit.Total(535000),
			audit.Ref("KW/2026/11/0001"), audit.Source("portal")), audit.OK)),
			"ok test.pay — Siti Aminah (NIS 2024001), 2 tagihan, Rp\u00a0535.000, kuitansi KW/2026/11/0001", "2024001"},
		{"a payment refused", stored(withOutcome(testPay.With(audit.Student("2024001", ""), audit.Count(1), audit.Ref("KW/1")), audit.Failed)),
			"coba test.pay — NIS 2024001, 1 tagihan, kuitansi KW/1", "2024001"},
		{"older, the name from the roster", audit.Stored{Code: "test.pay", Action: testPay, Target: "2024003,2024004", Outcome: audit.OK},
			"ok test.pay — Dewi Lestari (NIS 2024003)", "2024003"},
		{"several students", stored(withOutcome(testPay.With(audit.Students([]string{"1", "2", "3"}, []string{"Ani"})), audit.OK)),
			"ok test.pay — Ani (NIS 1) dan 2 siswa lain", ""},
		{"a student deleted has no page", stored(withOutcome(testDelete.With(audit.Student("7", "Budi")), audit.OK)), "ok test.delete — Budi (NIS 7)", ""},
		{"a delete refused still has", stored(withOutcome(testDelete.With(audit.Student("7", "Budi")), audit.Failed)), "coba test.delete — Budi (NIS 7)", "7"},
		{"a role change", stored(withOutcome(testRole.With(audit.StaffMember("siti"), audit.RoleChange("principal", "finance")), audit.OK)),
			"ok test.role — Siti Rahma, Kepala Sekolah → Keuangan", "siti"},
		{"an older staff entry", audit.Stored{Code: "test.role", Action: testRole, Target: "budi", Outcome: audit.OK}, "ok test.role — budi", "budi"},
		{"an upload", stored(withOutcome(testUpload.With(audit.Upload("u1"), audit.File("tagihan.xlsx")), audit.OK)), "ok test.upload — tagihan.xlsx", "u1"},
		{"an older upload", audit.Stored{Code: "test.upload", Action: testUpload, Target: "u2", Outcome: audit.OK,
			Detail: `components "tagihan november.xlsx", 5120 bytes`}, "ok test.upload — tagihan november.xlsx", "u2"},
		{"an upload without a name", audit.Stored{Code: "test.upload", Action: testUpload, Target: "u3", Outcome: audit.OK}, "ok test.upload — unggahan", "u3"},
		{"a template", stored(withOutcome(testTemplate.With(audit.Name("Daftar ulang"), audit.Count(3), audit.Total(1500000)), audit.OK)),
			"ok test.template — Daftar ulang, 3 komponen, Rp\u00a01.500.000", ""},
		{"a report", audit.Stored{Code: "test.report", Action: testReport, Target: "/reports/payments?format=csv", Outcome: audit.OK},
			"ok test.report", "/reports/payments?format=csv"},
		{"a logo", stored(withOutcome(testLogo.With(audit.File("logo.png"), audit.Bytes(2048)), audit.OK)), "ok test.logo — berkas “logo.png”", ""},
		{"a failed sign-in names what was typed", audit.Stored{Code: "test.signin", Action: testSignIn, Target: "sitti", Outcome: audit.Failed},
			"coba test.signin — dengan nama pengguna “sitti”", ""},
		{"a sign-in", audit.Stored{Code: "test.signin", Action: testSignIn, Target: "siti", Outcome: audit.OK}, "ok test.signin", ""},
		{"the school", stored(withOutcome(testSchool.With(audit.Name("SMP 1"), audit.Pattern("KW/{seq}")), audit.OK)), "ok test.school — SMP 1, pola kuitansi KW/{seq}", ""},
		{"the form opened", stored(withOutcome(testForm.With(audit.Enabled(true), audit.Name("Daftar ulang")), audit.OK)),
			"ok test.form — dibuka untuk umum, Daftar ulang", ""},
		{"the form closed", stored(withOutcome(testForm.With(audit.Enabled(false)), audit.OK)), "ok test.form — ditutup", ""},
		{"a cancel", stored(withOutcome(testCancel.With(audit.Student("1", "Ani"), audit.Item("SPP Desember"), audit.Count(1), audit.Total(450000),
			audit.Reason("salah unggah")), audit.OK)), "ok test.cancel — Ani (NIS 1), SPP Desember, 1 tagihan, Rp\u00a0450.000, alasan: salah unggah", "1"},
		{"a follow-up", stored(withOutcome(testFollow.With(audit.Student("1", "Ani"), audit.Overdue(2), audit.Total(900000)), audit.OK)),
			"ok test.follow — Ani (NIS 1), 2 tagihan terlambat, Rp\u00a0900.000", "1"},
		{"a code no package registers, without a phrase", audit.Stored{Code: "test.pay.old", Outcome: audit.OK}, "test.pay.old", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := audit.Word(id, tt.entry, names{})
			if got := said(w); got != tt.want {
				t.Errorf("words %q, want %q", got, tt.want)
			}
			if w.Subject.Key != tt.key {
				t.Errorf("subject key %q, want %q", w.Subject.Key, tt.key)
			}
		})
	}
	en := i18n.NewPrinter(i18n.English, nil)
	if got := said(audit.Word(en, stored(withOutcome(testPay.With(audit.Student("1", "Ani"), audit.Count(2), audit.Ref("KW/1")), audit.OK)), nil)); got != "done test.pay — Ani (NIS 1), 2 items, receipt KW/1" {
		t.Errorf("English: %q", got)
	}
}

func withOutcome(e audit.Entry, o audit.Outcome) audit.Entry {
	e.Outcome = o
	return e
}

func TestWordNamesWhoActed(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		actor, want string
		machine     bool
	}{
		{"siti", "Siti Rahma", false}, {"budi", "budi", false},
		{"test-portal", "Portal (otomatis)", true}, {"test-sync", "Portal (otomatis)", true}, {"test-bank", "Layanan pembayaran", true},
	} {
		w := audit.Word(id, audit.Stored{Actor: tt.actor, Code: "test.signin", Action: testSignIn, Outcome: audit.OK}, names{})
		if w.Actor != tt.want || w.Machine != tt.machine {
			t.Errorf("%s: %q (machine %v), want %q (%v)", tt.actor, w.Actor, w.Machine, tt.want, tt.machine)
		}
	}
	// A change sent by an upload links to it.
	if w := audit.Word(id, stored(withOutcome(testPay.With(audit.Student("1", ""), audit.Ref("r"), audit.Upload("u9")), audit.OK)), nil); w.Upload != "u9" {
		t.Errorf("upload %q", w.Upload)
	}
}

func TestCheck(t *testing.T) {
	t.Parallel()
	ok := func(e audit.Entry) audit.Entry { return withOutcome(e, audit.OK) }
	tests := []struct {
		name  string
		entry audit.Entry
		want  string // "" when the entry is right
	}{
		{"right", ok(testPay.With(audit.Student("1", "Ani"), audit.Ref("KW/1"), audit.Count(1))), ""},
		{"a need missing", ok(testPay.With(audit.Student("1", "Ani"), audit.Count(1))), `no "ref"`},
		{"an argument it does not carry", ok(testPay.With(audit.Student("1", "Ani"), audit.Ref("KW/1"), audit.Reason("x"))), `argument "reason"`},
		{"a failure needs nothing", withOutcome(testPay.With(audit.Student("1", "")), audit.Failed), ""},
		{"no outcome", testPay.With(audit.Student("1", ""), audit.Ref("r")), "without an outcome"},
		{"no action", audit.Entry{Outcome: audit.OK}, "no action"},
		{"an action not registered", withOutcome((&audit.Action{Code: "test.stray"}).With(), audit.OK), "not registered"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.entry.Check()
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("Check = %v", err)
			case tt.want != "" && (!errors.Is(err, audit.ErrMalformed) || !strings.Contains(err.Error(), tt.want)):
				t.Errorf("Check = %v, want %q", err, tt.want)
			}
		})
	}
	// A stored entry is checked the same; one without arguments (written before they
	// existed) has nothing to check.
	if err := stored(ok(testPay.With(audit.Student("1", "")))).Check(); err == nil {
		t.Error("stored entry without its ref passes")
	}
	if err := (audit.Stored{Code: "test.pay", Action: testPay, Outcome: audit.OK}).Check(); err != nil {
		t.Errorf("older entry: %v", err)
	}
	if err := (audit.Stored{Code: "nobody.registers.this", Outcome: audit.OK}).Check(); err == nil {
		t.Error("an unregistered code passes")
	}
}

func TestRegisterRefusesMistakes(t *testing.T) {
	t.Parallel()
	for name, a := range map[string]audit.Action{
		"twice":                 {Code: "test.pay"},
		"no code":               {},
		"needs what it lacks":   {Code: "test.needy", About: audit.AboutStaff, Needs: []audit.Key{audit.KeyTotal}},
		"needs another subject": {Code: "test.needy2", About: audit.AboutFile, Needs: []audit.Key{audit.KeyNIS}},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: registered", name)
				}
			}()
			audit.Register(a)
		}()
	}
	if audit.Lookup("test.needy") != nil || audit.Lookup("test.pay") != testPay {
		t.Error("a refused action is in the registry")
	}
	codes := []string{}
	for _, a := range audit.Actions() {
		codes = append(codes, a.Code)
	}
	if !slices.IsSorted(codes) || !slices.Contains(codes, "test.follow") {
		t.Errorf("Actions = %v", codes)
	}
}

func TestLog(t *testing.T) {
	t.Parallel()
	for name, open := range map[string]func(testing.TB) *store.DB{"sqlite": storetest.OpenTest, "postgres": storetest.OpenPostgres} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			db := open(t)
			ctx := t.Context()
			l := audit.Log{DB: db}
			at := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
			for i, e := range []audit.Entry{
				{Action: testSignIn, Actor: audit.Actor{Username: "test-portal"}, Outcome: audit.OK, At: at},
				{Action: testSignIn, Actor: audit.Actor{Username: "test-sync"}, Outcome: audit.OK, At: at.Add(time.Minute)},
				{Action: testSignIn, Actor: audit.Actor{Username: "siti", Role: "finance", IP: "10.0.0.9"}, Outcome: audit.OK, At: at.Add(2 * time.Minute)},
				withOutcome(testPay.With(audit.Student("1", "Ani"), audit.Ref("KW/1")), audit.OK),
			} {
				if e.Actor.Username == "" {
					e.Actor, e.Target, e.At = audit.Actor{Username: "siti"}, "1", at.Add(time.Duration(i)*time.Minute)
				}
				if err := l.Record(ctx, e); err != nil {
					t.Fatal(err)
				}
			}
			// A malformed entry is kept, and said to be malformed.
			bad := withOutcome(testPay.With(audit.Student("1", "Ani")), audit.OK)
			bad.Actor, bad.Target, bad.At = audit.Actor{Username: "siti"}, "1", at.Add(5*time.Minute)
			if err := l.Record(ctx, bad); !errors.Is(err, audit.ErrMalformed) {
				t.Errorf("malformed entry: %v", err)
			}
			all, total, err := l.List(ctx, audit.Filter{})
			if err != nil || total != 5 || all[len(all)-1].Action != testSignIn || all[len(all)-1].Actor != "test-portal" {
				t.Fatalf("List = %+v, %d, %v", all, total, err)
			}
			// The portal acts under two names; either one filters both.
			for _, actor := range []string{"test-sync", "test-portal"} {
				got, n, err := l.List(ctx, audit.Filter{Actor: actor})
				if err != nil || n != 2 || got[0].Actor != "test-sync" || got[1].Actor != "test-portal" {
					t.Errorf("actor %s: %+v, %d, %v", actor, got, n, err)
				}
			}
			if got, n, _ := l.List(ctx, audit.Filter{Actor: "siti", Action: "test.pay", Outcome: audit.OK}); n != 2 || got[0].Args.Get(audit.KeyRef) != "KW/1" && got[1].Args.Get(audit.KeyRef) != "KW/1" {
				t.Errorf("siti's payments: %+v", got)
			}
			actors, err := l.Actors(ctx)
			if err != nil || !slices.Equal(actors, []string{"siti", "test-portal"}) {
				t.Errorf("Actors = %v, %v: each machine once", actors, err)
			}
			latest, err := l.Latest(ctx, testPay.Code, "1", 5)
			if err != nil || len(latest) != 2 || latest[0].Action != testPay {
				t.Errorf("Latest = %+v, %v", latest, err)
			}
		})
	}
}
