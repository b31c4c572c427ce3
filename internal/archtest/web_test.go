package archtest

import (
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"
)

var (
	typedOnce sync.Once
	typedWeb  *Typed
	typedErr  error
)

// webTyped is web type-checked once per test binary, with extra files when given (then
// checked afresh).
func webTyped(t *testing.T, extra map[string]string) *Typed {
	t.Helper()
	root, _ := moduleGraph(t)
	if extra != nil {
		typed, err := TypeCheck(root, "web", extra)
		if err != nil {
			t.Fatal(err)
		}
		return typed
	}
	typedOnce.Do(func() { typedWeb, typedErr = TypeCheck(root, "web", nil) })
	if typedErr != nil {
		t.Fatal(typedErr)
	}
	return typedWeb
}

// TestWebHoldsOnlyServices is the check of STYLE point 13: web neither imports the store
// nor holds its *store.DB (but the job runner's pages pending), never holds the billing
// client, and calls no write of the ledger.
func TestWebHoldsOnlyServices(t *testing.T) {
	t.Parallel()
	typed := webTyped(t, nil)
	// The check must have seen web, or an empty package would pass.
	if len(typed.Files) < 100 || typed.Files["handler.go"] == nil || len(typed.Info.Selections) < 1000 {
		t.Fatalf("web not read: %d files, %d selections", len(typed.Files), len(typed.Info.Selections))
	}
	for _, f := range Web().Check(typed) {
		t.Error(f)
	}
}

// Each web rule catches what it exists for: web with one file added that crosses them
// fails each, at its line, and a pending file that crosses nothing is reported too.
func TestWebRulesCatchTheirViolations(t *testing.T) {
	t.Parallel()
	typed := webTyped(t, map[string]string{"violations.go": `package web

import (
	"context"

	"github.com/sekolah/portal/internal/app"
	"github.com/sekolah/portal/internal/store"
)

func (h *Handler) violations(ctx context.Context, a *app.App) {
	var db *store.DB = a.DB
	_ = db
	_, _ = a.Billing.Student(ctx, "2601")
	_, _ = a.Ledger.Upsert(ctx, nil)
	_ = a.Sync.Start(ctx)
	_, _ = a.Ledger.StudentRemoved(ctx, "2601")
	_, _ = a.Ledger.Freshness(ctx)
}
`})
	rules := Web()
	got := rules.Check(typed)
	want := []Finding{
		{Rule: RuleWebNoStore, File: "violations.go", Line: 7, What: "imports internal/store"},
		{Rule: RuleWebNoStore, File: "violations.go", Line: 11, What: "a *store.DB"},
		{Rule: RuleWebNoStore, File: "violations.go", Line: 12, What: "a *store.DB"},
		{Rule: RuleWebNoClient, File: "violations.go", Line: 13, What: "the billing client"},
		{Rule: RuleWebNoLedgerW, File: "violations.go", Line: 14, What: "calls ledger.Ledger.Upsert"},
		{Rule: RuleWebNoLedgerW, File: "violations.go", Line: 15, What: "calls ledger.Syncer.Start"},
		{Rule: RuleWebNoLedgerW, File: "violations.go", Line: 16, What: "calls ledger.Ledger.StudentRemoved"},
	}
	if !slices.Equal(got, want) {
		t.Errorf("findings:\n%s\nwant:\n%s", lines(got), lines(want))
	}

	// A method of the ledger neither list names is refused until someone says which it is.
	unsure := rules
	unsure.LedgerUses = maps.Clone(rules.LedgerUses)
	unsure.LedgerUses["Ledger"] = slices.DeleteFunc(slices.Clone(unsure.LedgerUses["Ledger"]), func(m string) bool { return m == "Freshness" })
	if !slices.ContainsFunc(unsure.Check(typed), func(f Finding) bool {
		return f.File == "violations.go" && f.Line == 17 && strings.Contains(f.What, "do not classify")
	}) {
		t.Error("an unclassified ledger method passes")
	}
	// A pending file is let be for the store only; one that no longer needs it is said.
	lenient := rules
	lenient.Pending = maps.Clone(rules.Pending)
	lenient.Pending["violations.go"] = "test"
	lenient.Pending["healthz.go"] = "test"
	got = lenient.Check(typed)
	if slices.ContainsFunc(got, func(f Finding) bool { return f.File == "violations.go" && f.Rule == RuleWebNoStore }) ||
		!slices.ContainsFunc(got, func(f Finding) bool { return f.File == "violations.go" && f.Rule == RuleWebNoClient }) ||
		!slices.ContainsFunc(got, func(f Finding) bool { return f.File == "healthz.go" && f.What == "pending" }) {
		t.Errorf("pending files:\n%s", lines(got))
	}
}

func lines(fs []Finding) string {
	var b strings.Builder
	for _, f := range fs {
		b.WriteString("\t" + f.String() + "\n")
	}
	return b.String()
}
