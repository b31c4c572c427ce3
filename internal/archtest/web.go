package archtest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/build"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// The rules of "handlers hold domain services, nothing lower" (STYLE point 13): web reads
// and changes the portal's records only through the domain packages. Unlike the import
// rules above they look at the code itself, type-checked (go/types, with the export data
// `go list -export` gives), because what matters is what web holds and calls, however it
// got there (a field of internal/app's App needs no import).

// Finding is one place in a file that crosses a rule.
type Finding struct {
	Rule string
	// File is the file's name in its package's folder; Line is 0 for the file as a whole.
	File string
	Line int
	What string
}

func (f Finding) String() string {
	if f.Line == 0 {
		return fmt.Sprintf("%s: %s: %s", f.File, f.What, f.Rule)
	}
	return fmt.Sprintf("%s:%d: %s: %s", f.File, f.Line, f.What, f.Rule)
}

// Rule names of the web rules, as docs/ARCHITECTURE.md states them.
const (
	RuleWebNoStore   = "web never imports internal/store nor holds its *store.DB"
	RuleWebNoClient  = "web never holds the billing client (*billing.Client): the service is read and written through the domain"
	RuleWebNoLedgerW = "web never calls a write of the ledger (internal/ledger's Ledger and Syncer): it changes through changes.Writer, the callback and the sync"
)

// WebRules are the rules' lists: what web may not call of the ledger, what it may, and
// the files still pending.
type WebRules struct {
	// LedgerWrites are the methods of the ledger (by its type: Ledger, Syncer) that change
	// its records or run its sync: only changes.Writer, the callback's domain side and the
	// Syncer itself call them.
	LedgerWrites map[string][]string
	// LedgerUses are the methods web may call: the ledger's reads, and the requests a
	// person makes (a sync, a reconcile) or the payment callback delivers
	// (ReceiveCallback, the callback's domain side: it checks the signature and records
	// the payment in one transaction). A method in neither list is refused until it is
	// put in one.
	LedgerUses map[string][]string
	// Pending are files of web that may still import internal/store and hold its
	// *store.DB, each with why. A file here that no longer does is itself a finding, so
	// the exception leaves with its last use.
	Pending map[string]string
}

// Web are the rules as the module keeps them.
func Web() WebRules {
	return WebRules{LedgerWrites: ledgerWrites, LedgerUses: ledgerUses, Pending: pendingWeb}
}

var ledgerWrites = map[string][]string{
	"Ledger": {"Upsert", "MarkDeleted", "StudentRemoved", "RecordStudents", "RebuildTotals", "SetMaxFound",
		"CounterSending", "CounterRecorded", "CounterNotSent", "BackfillChannels"},
	"Syncer": {"Run", "RunIncremental", "RunReconcile", "Start", "Stop", "SetAskPollForTest"},
}

var ledgerUses = map[string][]string{
	"Ledger": {"Accounts", "All", "AllForStudent", "Bills", "CallbackStats", "Callbacks", "ChangeSeq", "Component", "Counts",
		"Dashboard", "DashboardOn", "Freshness", "LastRun", "Location", "Now", "Outstanding", "PaymentDays", "Payments", "Runs",
		"StudentTotals", "Today", "EachBill", "UnconfirmedPayments", "OpenNames", "FlaggedCallbacks", "ReceiveCallback", "AskSync", "AskReconcile",
		"PaymentChannels", "CounterReceipts", "CounterAttempts"},
	"Syncer": {"AskSync", "AskReconcile", "Nudge", "Every", "FirstRun", "Owner", "ReconcileHour"},
}

// pendingWeb are files of web still allowed the store, each with why: none since the
// upload and correction pages read through their runners (issue 25, points 3 and 8).
var pendingWeb = map[string]string{}

// Typed is one package of the module, type-checked from its non-test source.
type Typed struct {
	Fset  *token.FileSet
	Files map[string]*ast.File // by file name
	Pkg   *types.Package
	Info  *types.Info
}

// goTool is the go command that runs the tests: the one on the PATH, else GOROOT's.
func goTool() string {
	if p, err := exec.LookPath("go"); err == nil {
		return p
	}
	if root := os.Getenv("GOROOT"); root != "" {
		return filepath.Join(root, "bin", "go")
	}
	return "go"
}

// TypeCheck type-checks the package at root/pkg (its non-test files, with extra files
// added by name: a test's deliberate violation). The packages it imports are read from
// the export data the go command builds.
func TypeCheck(root, pkg string, extra map[string]string) (*Typed, error) {
	cmd := exec.Command(goTool(), "list", "-export", "-deps", "-json=ImportPath,Export", "./"+pkg)
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("archtest: go list -export: %w: %s", err, stderr.String())
	}
	exports := map[string]string{}
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p struct{ ImportPath, Export string }
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return nil, fmt.Errorf("archtest: go list -export: %w", err)
		}
		exports[p.ImportPath] = p.Export
	}
	dir := filepath.Join(root, filepath.FromSlash(pkg))
	bp, err := build.Default.ImportDir(dir, 0)
	if err != nil {
		return nil, fmt.Errorf("archtest: %s: %w", pkg, err)
	}
	t := &Typed{Fset: token.NewFileSet(), Files: map[string]*ast.File{}, Info: &types.Info{
		Types: map[ast.Expr]types.TypeAndValue{}, Uses: map[*ast.Ident]types.Object{}, Selections: map[*ast.SelectorExpr]*types.Selection{},
	}}
	var files []*ast.File
	add := func(name string, src any) error {
		f, err := parser.ParseFile(t.Fset, filepath.Join(dir, name), src, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		t.Files[name] = f
		files = append(files, f)
		return nil
	}
	for _, name := range bp.GoFiles {
		if err := add(name, nil); err != nil {
			return nil, err
		}
	}
	for name, src := range extra {
		if err := add(name, src); err != nil {
			return nil, err
		}
	}
	imp := importer.ForCompiler(t.Fset, "gc", func(path string) (io.ReadCloser, error) {
		file, ok := exports[path]
		if !ok || file == "" {
			return nil, fmt.Errorf("archtest: no export data of %s", path)
		}
		return os.Open(file)
	})
	conf := types.Config{Importer: imp}
	if t.Pkg, err = conf.Check(Module+"/"+pkg, t.Fset, files, t.Info); err != nil {
		return nil, fmt.Errorf("archtest: type-check %s: %w", pkg, err)
	}
	return t, nil
}

// named reports whether typ is the named type name of the module's package pkg, or a
// pointer to it.
func named(typ types.Type, pkg, name string) bool {
	typ = types.Unalias(typ)
	if p, ok := typ.(*types.Pointer); ok {
		typ = p.Elem()
	}
	n, ok := types.Unalias(typ).(*types.Named)
	return ok && n.Obj().Name() == name && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == Module+"/"+pkg
}

func (t *Typed) at(pos token.Pos) (string, int) {
	p := t.Fset.Position(pos)
	return filepath.Base(p.Filename), p.Line
}

// Check applies the rules to t (web, type-checked) and reports each crossing once per
// line; the pending files may import the store and hold its *store.DB.
func (r WebRules) Check(t *Typed) []Finding {
	var out []Finding
	seen := map[Finding]bool{}
	crossed := map[string]bool{}
	report := func(rule string, pos token.Pos, what string) {
		file, line := t.at(pos)
		f := Finding{Rule: rule, File: file, Line: line, What: what}
		if _, ok := r.Pending[file]; ok && rule == RuleWebNoStore {
			crossed[file] = true
			return
		}
		if !seen[f] {
			seen[f] = true
			out = append(out, f)
		}
	}
	for _, f := range t.Files {
		for _, imp := range f.Imports {
			if p, _ := strconv.Unquote(imp.Path.Value); p == Module+"/internal/store" {
				report(RuleWebNoStore, imp.Pos(), "imports internal/store")
			}
		}
	}
	for expr, tv := range t.Info.Types {
		if !tv.IsValue() {
			continue
		}
		switch {
		case named(tv.Type, "internal/store", "DB"):
			report(RuleWebNoStore, expr.Pos(), "a *store.DB")
		case named(tv.Type, "internal/billing", "Client"):
			report(RuleWebNoClient, expr.Pos(), "the billing client")
		}
	}
	for sel, s := range t.Info.Selections {
		if s.Kind() == types.FieldVal {
			continue
		}
		for typ := range r.LedgerWrites {
			if !named(s.Recv(), "internal/ledger", typ) {
				continue
			}
			m := s.Obj().Name()
			switch {
			case slices.Contains(r.LedgerWrites[typ], m):
				report(RuleWebNoLedgerW, sel.Sel.Pos(), fmt.Sprintf("calls ledger.%s.%s", typ, m))
			case !slices.Contains(r.LedgerUses[typ], m):
				report(RuleWebNoLedgerW, sel.Sel.Pos(), fmt.Sprintf("calls ledger.%s.%s, which the web rules' ledger lists do not classify", typ, m))
			}
		}
	}
	for file := range r.Pending {
		if !crossed[file] {
			out = append(out, Finding{Rule: "a pending file of the web rules no longer imports internal/store nor holds a *store.DB: take it off the list",
				File: file, What: "pending"})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].File != out[j].File {
			return out[i].File < out[j].File
		}
		if out[i].Line != out[j].Line {
			return out[i].Line < out[j].Line
		}
		return strings.Compare(out[i].What, out[j].What) < 0
	})
	return out
}
