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
		{10, "internal/clock", "internal/config"},
		{7, "internal/store", "internal/clock"},
		{4, "internal/parents", "net/http"},
		{11, "internal/whatsapp", "internal/messagesandbox"},
		{11, "internal/messagesandbox", "internal/whatsapp"},
		{11, "internal/mail", "internal/clock"},
		{12, "web", "internal/messagesandbox"},
		{4, "internal/ledger", "net/http"},
		{13, "internal/billing", "github.com/prometheus/client_golang/prometheus"},
		{13, "web", "github.com/prometheus/client_golang/prometheus/promhttp"},
		{13, "cmd/portal", "github.com/prometheus/common/expfmt"},
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
		{"internal/whatsapp", "net/http"}, {"internal/messagesandbox", "net/http"}, {"cmd/portal", "internal/messagesandbox"},
		{"internal/metrics", "net/http"}, {"internal/metrics", "github.com/prometheus/client_golang/prometheus/collectors"},
		{"web", "internal/metrics"},
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

// TestOnlyTheClockReadsTheTime: no non-test file in internal/ or web/ reads the system's
// clock but internal/clock (docs/ARCHITECTURE.md, "One clock").
func TestOnlyTheClockReadsTheTime(t *testing.T) {
	t.Parallel()
	root, _ := moduleGraph(t)
	reads, err := TimeReads(root, "internal", "web")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range reads {
		t.Error(r)
	}
	// The reader must see the clock's own reads when asked, or an empty answer proves nothing.
	own, err := TimeReads(root, ClockPackage)
	if err != nil || len(own) != 0 {
		t.Fatalf("internal/clock is the one place allowed: %v %v", own, err)
	}
}

// Every way of reading the clock is found: a call, a function passed as a value, Since
// and Until, an aliased import and a dot import; test files and internal/clock are not
// read, and a package's own Now is not the system's.
func TestTimeReadsAreFound(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	files := map[string]string{
		"internal/a/a.go":      "package a\n\nimport \"time\"\n\nfunc A() time.Time { return time.Now() }\n",
		"internal/a/b.go":      "package a\n\nimport \"time\"\n\nvar now = time.Now\n\nfunc B(t time.Time) time.Duration { return time.Since(t) + time.Until(t) }\n",
		"internal/a/a_test.go": "package a\n\nimport \"time\"\n\nvar _ = time.Now()\n",
		"internal/b/b.go":      "package b\n\nimport tm \"time\"\n\nvar _ = tm.Now()\n",
		"internal/c/c.go":      "package c\n\nimport . \"time\"\n\nvar _ = Second\n",
		"internal/clock/c.go":  "package clock\n\nimport \"time\"\n\nvar _ = time.Now()\n",
		"internal/d/d.go":      "package d\n\nimport (\n\t\"time\"\n\n\t\"example.com/clock\"\n)\n\nvar c clock.Clock\n\nfunc D() time.Time { return c.Now() }\n",
		"web/w.go":             "package web\n\nimport \"time\"\n\nfunc W() time.Time { return time.Now().UTC() }\n",
	}
	for name, src := range files {
		path := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	reads, err := TimeReads(root, "internal", "web")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range reads {
		got = append(got, r.Pos+" "+r.Call)
	}
	slices.Sort(got)
	want := []string{
		"internal/a/a.go:5:29 time.Now",
		"internal/a/b.go:5:11 time.Now",
		"internal/a/b.go:7:44 time.Since",
		"internal/a/b.go:7:60 time.Until",
		"internal/b/b.go:5:9 time.Now",
		`internal/c/c.go:3:8 import . "time"`,
		"web/w.go:5:29 time.Now",
	}
	if !slices.Equal(got, want) {
		t.Errorf("found\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
