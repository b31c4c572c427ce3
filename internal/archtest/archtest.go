// Package archtest keeps the arrows of docs/ARCHITECTURE.md: its test reads the imports of
// every package of the module (non-test files only, with go/parser) and fails when one
// crosses a never-arrow; and it finds every read of the system's clock (time.Now,
// time.Since, time.Until) in internal/ and web/ outside internal/clock, the one clock. It
// has no code of its own beyond the rules and the reading.
package archtest

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Module is the module path; packages below are named relative to it ("web",
// "internal/billing").
const Module = "github.com/sekolah/portal"

// Graph maps each package of the module (relative path) to what its non-test files
// import: packages of the module by relative path, others (the standard library, other
// modules) by their import path.
type Graph map[string][]string

// Read walks the module at root and parses the imports of every non-test .go file.
func Read(root string) (Graph, error) {
	g := Graph{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch name := d.Name(); {
			case path != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "vendor" || name == "node_modules"):
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, filepath.Dir(path))
		if err != nil {
			return err
		}
		pkg := filepath.ToSlash(rel)
		if _, ok := g[pkg]; !ok {
			g[pkg] = nil
		}
		for _, imp := range f.Imports {
			p, err := strconv.Unquote(imp.Path.Value)
			if err != nil {
				return err
			}
			if p == Module {
				p = "."
			} else if rest, ok := strings.CutPrefix(p, Module+"/"); ok {
				p = rest
			}
			if !slices.Contains(g[pkg], p) {
				g[pkg] = append(g[pkg], p)
			}
		}
		return nil
	})
	for _, imps := range g {
		sort.Strings(imps)
	}
	return g, err
}

// FindRoot is the directory of go.mod above dir.
func FindRoot(dir string) (string, error) {
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("archtest: no go.mod above %s", dir)
		}
		dir = parent
	}
}

// Rule is one never-arrow: packages that From selects must not import what Forbids says.
type Rule struct {
	// Name is the rule as docs/ARCHITECTURE.md states it.
	Name string
	// From selects the importing packages.
	From func(pkg string) bool
	// Forbids reports whether pkg importing imp crosses the rule.
	Forbids func(pkg, imp string) bool
}

// within reports whether pkg is root or below it.
func within(pkg, root string) bool { return pkg == root || strings.HasPrefix(pkg, root+"/") }

// inModule reports whether an import is a package of the module.
func inModule(g Graph, imp string) bool {
	_, ok := g[imp]
	return ok
}

// harness is the test harness, which starts the whole portal (web included) for tests.
const harness = "internal/portaltest"

// Rules are the never-arrows of docs/ARCHITECTURE.md, in its order.
func Rules(g Graph) []Rule {
	isInternal := func(pkg string) bool {
		return within(pkg, "internal") && !within(pkg, harness) && !within(pkg, "internal/archtest")
	}
	return []Rule{
		{
			Name: "views/* imports nothing of the module but internal/i18n, static and views/*",
			From: func(pkg string) bool { return within(pkg, "views") },
			Forbids: func(_, imp string) bool {
				return inModule(g, imp) && !within(imp, "views") && imp != "static" && imp != "internal/i18n"
			},
		},
		{
			Name: "no internal/* package imports web, views/*, static or cmd/* (the harness excepted)",
			From: isInternal,
			Forbids: func(_, imp string) bool {
				return within(imp, "web") || within(imp, "views") || imp == "static" || within(imp, "cmd")
			},
		},
		{
			Name: "internal/billing and internal/sandbox never import each other",
			From: func(pkg string) bool { return within(pkg, "internal/billing") || within(pkg, "internal/sandbox") },
			Forbids: func(pkg, imp string) bool {
				return within(pkg, "internal/billing") && within(imp, "internal/sandbox") ||
					within(pkg, "internal/sandbox") && within(imp, "internal/billing")
			},
		},
		{
			Name:    "web never imports internal/sandbox",
			From:    func(pkg string) bool { return within(pkg, "web") },
			Forbids: func(_, imp string) bool { return within(imp, "internal/sandbox") },
		},
		{
			// internal/metrics serves its own exposition (/metrics, on PORTAL_METRICS_ADDR).
			Name: "only internal/billing, internal/whatsapp, the sandboxes and internal/metrics import net/http among internal/*",
			From: func(pkg string) bool {
				return isInternal(pkg) && !within(pkg, "internal/billing") && !within(pkg, "internal/sandbox") &&
					!within(pkg, "internal/whatsapp") && !within(pkg, "internal/messagesandbox") && !within(pkg, MetricsPackage)
			},
			Forbids: func(_, imp string) bool { return imp == "net/http" || strings.HasPrefix(imp, "net/http/") },
		},
		{
			// The ledger is the portal's read model of the service: its SQL (summary tables,
			// aggregates, keyset pages) is what it is, and it needs billing's types, which
			// internal/store may not import (the rule below).
			Name: "only internal/store, internal/ledger and internal/sandbox import database/sql",
			From: func(pkg string) bool {
				return !within(pkg, "internal/store") && !within(pkg, "internal/ledger") && !within(pkg, "internal/sandbox")
			},
			Forbids: func(_, imp string) bool { return imp == "database/sql" },
		},
		{
			Name:    "web never imports encoding/json",
			From:    func(pkg string) bool { return within(pkg, "web") },
			Forbids: func(_, imp string) bool { return imp == "encoding/json" },
		},
		{
			// internal/sqlite is how the store (and the sandbox) open SQLite: a driver
			// detail, itself a leaf.
			Name: "internal/billing, internal/store, internal/i18n, internal/config and internal/sqlite import no other package of the module (the store but internal/sqlite)",
			From: func(pkg string) bool {
				return slices.Contains([]string{"internal/billing", "internal/store", "internal/i18n", "internal/config", "internal/sqlite"}, pkg)
			},
			Forbids: func(pkg, imp string) bool {
				return inModule(g, imp) && !(pkg == "internal/store" && imp == "internal/sqlite")
			},
		},
		{
			Name: "only cmd/portal, web and internal/portaltest import internal/app",
			From: func(pkg string) bool {
				return pkg != "cmd/portal" && !within(pkg, "web") && !within(pkg, harness)
			},
			Forbids: func(_, imp string) bool { return imp == "internal/app" },
		},
		{
			Name:    "nothing imports cmd/*",
			From:    func(string) bool { return true },
			Forbids: func(_, imp string) bool { return within(imp, "cmd") },
		},
		{
			// The floor takes the clock as a func() time.Time (clock.Clock.Func) rather than
			// import it, so the clock stays a leaf that anything may use.
			Name:    "internal/clock imports nothing of the module",
			From:    func(pkg string) bool { return pkg == ClockPackage },
			Forbids: func(_, imp string) bool { return inModule(g, imp) },
		},
		{
			// The message clients are floor like the billing client; the message sandbox
			// must not borrow their reading of the protocols (nor they its).
			Name: "internal/whatsapp and internal/mail import nothing of the module, internal/messagesandbox only the clock",
			From: func(pkg string) bool {
				return within(pkg, "internal/whatsapp") || within(pkg, "internal/mail") || within(pkg, "internal/messagesandbox")
			},
			Forbids: func(pkg, imp string) bool {
				return inModule(g, imp) && !(within(pkg, "internal/messagesandbox") && imp == ClockPackage)
			},
		},
		{
			Name:    "web never imports internal/messagesandbox",
			From:    func(pkg string) bool { return within(pkg, "web") },
			Forbids: func(_, imp string) bool { return within(imp, "internal/messagesandbox") },
		},
		{
			// The domain packages offer hooks of their own (billing.Config.Observe,
			// ledger.Observer, jobs.Watcher); internal/metrics implements them.
			Name:    "only internal/metrics imports the Prometheus client",
			From:    func(pkg string) bool { return !within(pkg, MetricsPackage) },
			Forbids: func(_, imp string) bool { return within(imp, "github.com/prometheus") },
		},
	}
}

// MetricsPackage is the one package that imports the Prometheus client.
const MetricsPackage = "internal/metrics"

// Violation is one import that crosses a rule.
type Violation struct {
	Rule, Pkg, Import string
}

func (v Violation) String() string { return fmt.Sprintf("%s imports %s: %s", v.Pkg, v.Import, v.Rule) }

// Check applies the rules to g and returns every import that crosses one, in order.
func Check(g Graph, rules []Rule) []Violation {
	pkgs := make([]string, 0, len(g))
	for p := range g {
		pkgs = append(pkgs, p)
	}
	sort.Strings(pkgs)
	var out []Violation
	for _, r := range rules {
		for _, p := range pkgs {
			if !r.From(p) {
				continue
			}
			for _, imp := range g[p] {
				if r.Forbids(p, imp) {
					out = append(out, Violation{Rule: r.Name, Pkg: p, Import: imp})
				}
			}
		}
	}
	return out
}

// TimeRead is one place a non-test file reads the system's clock itself.
type TimeRead struct {
	// Pos is file:line:column, the file relative to the module root.
	Pos string
	// Call is what it reads: "time.Now", "time.Since" or "time.Until" (or a dot import of
	// time, which would hide them).
	Call string
}

func (r TimeRead) String() string {
	return fmt.Sprintf("%s: %s outside internal/clock: take the portal's clock (clock.Clock) instead", r.Pos, r.Call)
}

// clockReads are the functions of package time that read the system's clock: Since and
// Until read it too.
var clockReads = map[string]bool{"Now": true, "Since": true, "Until": true}

// ClockPackage is the one package that reads the system's clock.
const ClockPackage = "internal/clock"

// TimeReads parses every non-test .go file below the module root's folders dirs (say
// "internal" and "web") and returns each reference to time.Now, time.Since and
// time.Until, called or passed as a value, under whatever name time is imported, outside
// internal/clock.
func TimeReads(root string, dirs ...string) ([]TimeRead, error) {
	var out []TimeRead
	fset := token.NewFileSet()
	for _, dir := range dirs {
		err := filepath.WalkDir(filepath.Join(root, dir), func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			rel, err := filepath.Rel(root, path)
			if err != nil {
				return err
			}
			rel = filepath.ToSlash(rel)
			if d.IsDir() {
				if name := d.Name(); within(rel, ClockPackage) || name == "testdata" || strings.HasPrefix(name, ".") && rel != dir {
					return filepath.SkipDir
				}
				return nil
			}
			if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return nil
			}
			f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
			if err != nil {
				return err
			}
			name := ""
			for _, imp := range f.Imports {
				if p, _ := strconv.Unquote(imp.Path.Value); p != "time" {
					continue
				}
				name = "time"
				if imp.Name != nil {
					name = imp.Name.Name
				}
				if name == "." {
					out = append(out, TimeRead{Pos: position(fset, imp.Pos(), rel), Call: `import . "time"`})
				}
			}
			if name == "" || name == "_" || name == "." {
				return nil
			}
			ast.Inspect(f, func(n ast.Node) bool {
				sel, ok := n.(*ast.SelectorExpr)
				if !ok {
					return true
				}
				if id, ok := sel.X.(*ast.Ident); ok && id.Name == name && clockReads[sel.Sel.Name] {
					out = append(out, TimeRead{Pos: position(fset, sel.Pos(), rel), Call: "time." + sel.Sel.Name})
				}
				return true
			})
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// position is p as rel:line:column.
func position(fset *token.FileSet, p token.Pos, rel string) string {
	pos := fset.Position(p)
	return fmt.Sprintf("%s:%d:%d", rel, pos.Line, pos.Column)
}
