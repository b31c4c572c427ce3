package archtest

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

func moduleGraph(t *testing.T) (string, Graph) {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	root, err := FindRoot(wd)
	if err != nil {
		t.Fatal(err)
	}
	g, err := Read(root)
	if err != nil {
		t.Fatal(err)
	}
	return root, g
}

// TestArchitecture is the check: no package of the module crosses a never-arrow of
// docs/ARCHITECTURE.md.
func TestArchitecture(t *testing.T) {
	t.Parallel()
	_, g := moduleGraph(t)
	// The reader must have seen the module, or an empty graph would pass every rule.
	for _, pkg := range []string{"web", "views/pages", "views/viewctx", "internal/billing", "internal/sandbox", "internal/app", "cmd/portal"} {
		if _, ok := g[pkg]; !ok {
			t.Fatalf("package %s not found: the reader missed the module", pkg)
		}
	}
	if !slices.Contains(g["web"], "views/pages") || !slices.Contains(g["cmd/portal"], "internal/app") {
		t.Fatalf("imports not read: web %v", g["web"])
	}
	for _, v := range Check(g, Rules(g)) {
		t.Error(v)
	}
}

// Each rule catches the import it exists for (and lets the allowed ones through): the
// module's graph with one forbidden import added fails exactly that rule.
func TestEachRuleCatchesItsImport(t *testing.T) {
	t.Parallel()
	_, real := moduleGraph(t)
	tests := []struct {
		rule     int // index in Rules
		pkg, imp string
	}{
		{0, "views/pages", "internal/reports"},
		{0, "views/viewctx", "internal/auth"},
		{1, "internal/reports", "views/pages"},
		{1, "internal/uploads", "web"},
		{1, "internal/students", "views/layout"},
		{2, "internal/sandbox", "internal/billing"},
		{3, "web", "internal/sandbox"},
		{4, "internal/reports", "net/http"},
		{4, "internal/counter", "net/http/httptest"},
		{5, "web", "database/sql"},
		{5, "internal/uploads", "database/sql"},
		{6, "web", "encoding/json"},
		{7, "internal/billing", "internal/i18n"},
		{7, "internal/config", "internal/problem"},
		{7, "internal/store", "internal/problem"},
		{8, "internal/counter", "internal/app"},
		{9, "web", "cmd/portal"},
	}
	for _, tt := range tests {
		g := Graph{}
		for p, imps := range real {
			g[p] = slices.Clone(imps)
		}
		g[tt.pkg] = append(g[tt.pkg], tt.imp)
		rules := Rules(g)
		got := Check(g, rules)
		want := rules[tt.rule].Name
		if !slices.ContainsFunc(got, func(v Violation) bool { return v.Rule == want && v.Pkg == tt.pkg && v.Import == tt.imp }) {
			t.Errorf("%s importing %s: violations %v, want one of %q", tt.pkg, tt.imp, got, want)
		}
		for _, v := range got {
			if v.Pkg != tt.pkg || v.Import != tt.imp {
				t.Errorf("%s importing %s also reported %v", tt.pkg, tt.imp, v)
			}
		}
	}
	// billing importing the sandbox crosses two rules (they never import each other, and
	// billing imports nothing of the module): both are reported.
	g := Graph{"internal/billing": {"internal/sandbox"}, "internal/sandbox": nil}
	if v := Check(g, Rules(g)); len(v) != 2 {
		t.Errorf("billing importing the sandbox: %v", v)
	}
	// Allowed arrows stay allowed.
	for _, ok := range [][2]string{
		{"views/pages", "internal/i18n"}, {"views/layout", "static"}, {"web", "internal/billing"},
		{"internal/portaltest", "web"}, {"cmd/portal", "internal/sandbox"}, {"internal/sandbox", "database/sql"},
	} {
		g := Graph{}
		for p, imps := range real {
			g[p] = slices.Clone(imps)
		}
		g[ok[0]] = append(g[ok[0]], ok[1])
		if v := Check(g, Rules(g)); len(v) > 0 {
			t.Errorf("%s importing %s is allowed: %v", ok[0], ok[1], v)
		}
	}
}

// linkRE finds the targets of markdown links and images.
var linkRE = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// The README and the docs link only to files in the repository (or to the web).
func TestDocsLinkOnlyToFilesInTheRepository(t *testing.T) {
	t.Parallel()
	root, _ := moduleGraph(t)
	docs, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	docs = append(docs, filepath.Join(root, "README.md"), filepath.Join(root, "CONTRIBUTING.md"))
	checked := 0
	for _, doc := range docs {
		b, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range linkRE.FindAllStringSubmatch(string(b), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") || strings.HasPrefix(target, "#") {
				continue
			}
			target, _, _ = strings.Cut(target, "#")
			path := filepath.Join(filepath.Dir(doc), filepath.FromSlash(target))
			checked++
			rel, err := filepath.Rel(root, path)
			if err != nil || strings.HasPrefix(rel, "..") {
				t.Errorf("%s links outside the repository: %s", filepath.Base(doc), m[1])
				continue
			}
			if _, err := os.Stat(path); err != nil {
				t.Errorf("%s links to %s, which is not in the repository", filepath.Base(doc), m[1])
			}
		}
	}
	if checked < 5 {
		t.Fatalf("only %d links checked: the docs were not read", checked)
	}
}
