package i18n

import (
	"context"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// verbRE matches one fmt verb, capturing its explicit argument index and its letter.
var verbRE = regexp.MustCompile(`%[-+# 0]*(?:\[(\d+)\])?\d*(?:\.\d+)?([a-zA-Z%])`)

// verbs returns the sorted distinct "[n]x" verbs of a format, and an error for
// a verb without an explicit index (which would pin the word order).
func verbs(format string) ([]string, error) {
	var out []string
	for _, m := range verbRE.FindAllStringSubmatch(format, -1) {
		if m[2] == "%" {
			continue
		}
		if m[1] == "" {
			return nil, fmt.Errorf("verb %q has no explicit index like %%[1]%s", m[0], m[2])
		}
		v := "[" + m[1] + "]" + m[2]
		if !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	sort.Strings(out)
	return out, nil
}

// sampleArgs returns arguments that satisfy verbs, so rendering can be checked.
func sampleArgs(vs []string) []any {
	var args []any
	for _, v := range vs {
		i, _ := strconv.Atoi(v[1:strings.IndexByte(v, ']')])
		for len(args) < i {
			args = append(args, nil)
		}
		switch v[len(v)-1] {
		case 'd':
			args[i-1] = 7
		default:
			args[i-1] = "x"
		}
	}
	return args
}

// checkMessage is shared by the catalogue test and the scan of views and web,
// whose packages may register their own messages.
func checkMessage(key string, m Message) []string {
	var probs []string
	if strings.TrimSpace(m.ID) == "" {
		probs = append(probs, "empty Indonesian text")
	}
	if strings.TrimSpace(m.EN) == "" {
		probs = append(probs, "empty English text")
	}
	idv, err := verbs(m.ID)
	if err != nil {
		probs = append(probs, "ID: "+err.Error())
	}
	env, err2 := verbs(m.EN)
	if err2 != nil {
		probs = append(probs, "EN: "+err2.Error())
	}
	if err == nil && err2 == nil {
		if !slices.Equal(idv, env) {
			probs = append(probs, fmt.Sprintf("verbs differ: ID %v, EN %v", idv, env))
		}
		for i, v := range idv {
			if want := "[" + strconv.Itoa(i+1) + "]"; !strings.HasPrefix(v, want) {
				probs = append(probs, fmt.Sprintf("argument indexes are not 1..n: %v", idv))
				break
			}
		}
		args := sampleArgs(idv)
		for _, s := range []string{fmt.Sprintf(m.ID, args...), fmt.Sprintf(m.EN, args...)} {
			if strings.Contains(s, "%!") {
				probs = append(probs, "renders badly: "+s)
			}
		}
	}
	if key != strings.TrimSpace(key) || strings.ContainsAny(key, " \t\n\"") || !strings.Contains(key, ".") {
		probs = append(probs, "key should be dotted like area.name, without spaces")
	}
	return probs
}

func TestCatalogueMessages(t *testing.T) {
	keys := Keys()
	if len(keys) < 100 {
		t.Fatalf("catalogue has %d keys; the shared vocabulary alone is larger", len(keys))
	}
	for _, k := range keys {
		m, _ := Lookup(k)
		for _, p := range checkMessage(k, m) {
			t.Errorf("%s: %s", k, p)
		}
	}
}

func TestCatalogueHasSharedVocabulary(t *testing.T) {
	// Keys the views are told exist; renaming one breaks them.
	want := []string{
		"app.name",
		"nav.dashboard", "nav.students", "nav.bills", "nav.uploads", "nav.reports", "nav.audit", "nav.staff",
		"role.admin", "role.finance", "role.principal",
		"env.sandbox", "env.test", "env.production",
		"state.provisioned", "state.paid", "state.expired", "state.overdue",
		"btn.save", "btn.cancel", "btn.delete", "btn.edit", "btn.search", "btn.filter", "btn.reset",
		"btn.export", "btn.download", "btn.print", "btn.back", "btn.next", "btn.previous",
		"btn.confirm", "btn.sign_out", "btn.sign_in",
		"page.of", "page.showing",
		"empty.generic",
		"form.required", "form.invalid_number", "form.invalid_date", "form.too_long", "form.positive",
		"upstream.timeout", "upstream.unavailable", "upstream.unauthorized", "upstream.validation",
		"upstream.not_found", "upstream.generic",
		"error.403.title", "error.404.title", "error.500.title",
	}
	for _, k := range want {
		if !Has(k) {
			t.Errorf("missing key %q", k)
		}
	}
}

func TestRegisterDuplicatePanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("registering app.name twice did not panic")
		}
	}()
	Register(map[string]Message{"app.name": {ID: "x", EN: "x"}})
}

func init() {
	Register(map[string]Message{
		"test.percent":      {ID: "%[1]d%% lunas", EN: "%[1]d%% paid"},
		"test.percent_only": {ID: "100%% lunas", EN: "100%% paid"},
	})
}

func TestT(t *testing.T) {
	id := NewPrinter(Indonesian, nil)
	en := NewPrinter(English, nil)
	ctxEN := WithPrinter(context.Background(), en)
	tests := []struct {
		name string
		got  string
		want string
	}{
		{"id plain", id.T("nav.bills"), "Tagihan"},
		{"en plain", en.T("nav.bills"), "Bills"},
		{"id args", id.T("page.of", 2, 9), "Halaman 2 dari 9"},
		{"en args", en.T("page.showing", 51, 100, 230), "Showing 51–100 of 230"},
		{"unknown key", en.T("no.such.key"), "no.such.key"},
		{"unknown key with args", en.T("no.such.key", 3), "no.such.key"},
		{"percent sign", id.T("test.percent", 78), "78% lunas"},
		{"percent sign without args", id.T("test.percent_only"), "100% lunas"},
		{"ctx default is Indonesian", T(context.Background(), "app.name"), "Portal Tagihan Sekolah"},
		{"ctx English", T(ctxEN, "app.name"), "School Billing Portal"},
		{"upstream timeout", id.T("upstream.timeout", 15), "Layanan pembayaran tidak menjawab dalam 15 detik. Tidak ada yang tercatat; coba lagi."},
		{"upstream validation", id.T("upstream.validation", "bill_upload_list[3].due_date: required"), "Layanan pembayaran menolak data: bill_upload_list[3].due_date: required"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.name, tt.got, tt.want)
		}
	}
	if got := From(context.Background()); got.Lang != Indonesian || got.Loc.String() != DefaultZone {
		t.Errorf("From(empty ctx) = %v/%v, want id/%s", got.Lang, got.Loc, DefaultZone)
	}
}

func TestParseLang(t *testing.T) {
	tests := []struct {
		in   string
		want Lang
		ok   bool
	}{
		{"id", Indonesian, true},
		{"ID", Indonesian, true},
		{"id-ID", Indonesian, true},
		{"in", Indonesian, true},
		{"en", English, true},
		{" en-US ", English, true},
		{"en_GB", English, true},
		{"fr", "", false},
		{"", "", false},
	}
	for _, tt := range tests {
		got, ok := ParseLang(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("ParseLang(%q) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

// Calls whose key is a literal: T(ctx, "key"), i18n.T(r.Context(), "key"), p.T("key").
var (
	// A literal followed by + is the prefix of a key built at run time
	// ("role." + role); the test skips those.
	ctxCallRE     = regexp.MustCompile(`\bT\(\s*[A-Za-z_][A-Za-z0-9_.]*(?:\(\))?\s*,\s*"([^"\\]*)"(\s*\+)?`)
	printerCallRE = regexp.MustCompile(`\.T\(\s*"([^"\\]*)"(\s*\+)?`)
	// Keys kept in tables (nav items, state labels) and passed to T later:
	// any literal under a shared-vocabulary prefix must name a real key.
	vocabLiteralRE = regexp.MustCompile(`"((?:nav|btn|state|role|env|page|empty|form|upstream|error|term|login|lang|user|confirm|sort)\.[a-z0-9_]+(?:\.[a-z0-9_]+)*)"(\s*\+)?`)
)

// TestViewsUseKnownKeys fails on any literal key in views/ or web/ that the
// catalogue lacks: the page would show the bare key. Messages those packages
// register themselves (i18n.Register(map[string]i18n.Message{...})) count as
// known, and are held to the same rules as the catalogue's.
func TestViewsUseKnownKeys(t *testing.T) {
	problems, uses, local, err := scanKeys([]string{"../../views", "../../web"})
	if err != nil {
		t.Fatal(err)
	}
	if len(problems) > 0 {
		t.Errorf("%d problems with message keys in views/web:\n%s", len(problems), strings.Join(problems, "\n"))
	}
	t.Logf("checked %d literal key uses, %d keys registered outside the catalogue", uses, local)
}

// TestScanKeysFindsProblems keeps the guard above honest: it must notice each kind of
// mistake it exists for.
func TestScanKeysFindsProblems(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"pages/a.templ": `<p>{ i18n.T(ctx, "nav.bills") }</p>
<p>{ i18n.T(ctx, "nope.missing_templ") }</p>
<p>{ i18n.T(ctx, "role." + string(r)) }</p>`,
		"pages/b.go": `package pages
var items = []string{"nav.students", "state.nonexistent"}
func f(ctx context.Context, p i18n.Printer) string { return i18n.T(r.Context(), "nope.missing_go") + p.T("nope.printer") + p.T("local.ok") }`,
		"pages/b_templ.go": `package pages
func g() string { return i18n.T(ctx, "nope.generated_is_skipped") }`,
		"pages/messages.go": `package pages
func init() {
	i18n.Register(map[string]i18n.Message{
		"local.ok":    {ID: "Oke %[1]d", EN: "OK %[1]d"},
		"local.bad":   {ID: "Buruk %d", EN: ""},
		"nav.bills":   {ID: "x", EN: "x"},
	})
}`,
	}
	for name, src := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	problems, _, local, err := scanKeys([]string{dir, filepath.Join(dir, "absent")})
	if err != nil {
		t.Fatal(err)
	}
	all := strings.Join(problems, "\n")
	for _, want := range []string{
		`"nope.missing_templ"`, `"nope.missing_go"`, `"nope.printer"`, `"state.nonexistent"`,
		`local.bad: empty English text`, `local.bad: ID: verb "%d" has no explicit index`,
		`key "nav.bills" already registered`,
	} {
		if !strings.Contains(all, want) {
			t.Errorf("scan did not report %s; got:\n%s", want, all)
		}
	}
	for _, unwanted := range []string{"nope.generated_is_skipped", `"role."`, `"local.ok"`, `"nav.students"`} {
		if strings.Contains(all, unwanted) {
			t.Errorf("scan wrongly reported %s:\n%s", unwanted, all)
		}
	}
	if local != 3 {
		t.Errorf("found %d locally registered keys, want 3", local)
	}
}

// scanKeys walks dirs for .templ and hand-written .go files and reports literal keys
// missing from the catalogue, and faulty messages registered there.
func scanKeys(dirs []string) (problems []string, uses, nLocal int, err error) {
	local := map[string]string{} // key → file registering it
	type use struct{ key, where string }
	var found []use
	for _, dir := range dirs {
		if _, err := os.Stat(dir); os.IsNotExist(err) {
			continue
		}
		err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			if strings.HasSuffix(p, "_templ.go") || !(strings.HasSuffix(p, ".go") || strings.HasSuffix(p, ".templ")) {
				return nil
			}
			src, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			for i, line := range strings.Split(string(src), "\n") {
				for _, re := range []*regexp.Regexp{ctxCallRE, printerCallRE, vocabLiteralRE} {
					for _, m := range re.FindAllStringSubmatch(line, -1) {
						if m[2] == "" {
							found = append(found, use{m[1], fmt.Sprintf("%s:%d", p, i+1)})
						}
					}
				}
			}
			if strings.HasSuffix(p, ".go") {
				for k, m := range registeredIn(p, src) {
					if prev, dup := local[k]; dup || Has(k) {
						problems = append(problems, fmt.Sprintf("%s: key %q already registered (%s)", p, k, cmpOr(prev, "catalogue")))
					}
					local[k] = p
					for _, prob := range checkMessage(k, m) {
						problems = append(problems, fmt.Sprintf("%s: %s: %s", p, k, prob))
					}
				}
			}
			return nil
		})
		if err != nil {
			return nil, 0, 0, err
		}
	}
	seen := map[string]bool{}
	for _, u := range found {
		if seen[u.key+u.where] {
			continue // two patterns matched the same call
		}
		seen[u.key+u.where] = true
		if _, ok := local[u.key]; !Has(u.key) && !ok {
			problems = append(problems, fmt.Sprintf("%s: %q is not in the catalogue", u.where, u.key))
		}
	}
	sort.Strings(problems)
	return problems, len(found), len(local), nil
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// registeredIn parses a Go file and returns the literal messages it passes to
// Register(map[string]Message{...}) (qualified or not).
func registeredIn(path string, src []byte) map[string]Message {
	f, err := parser.ParseFile(token.NewFileSet(), path, src, parser.SkipObjectResolution)
	if err != nil {
		return nil // someone's file mid-edit; the compiler will tell them
	}
	out := map[string]Message{}
	ast.Inspect(f, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok || len(call.Args) != 1 {
			return true
		}
		var name string
		switch fn := call.Fun.(type) {
		case *ast.SelectorExpr:
			name = fn.Sel.Name
		case *ast.Ident:
			name = fn.Name
		}
		lit, ok := call.Args[0].(*ast.CompositeLit)
		if name != "Register" || !ok {
			return true
		}
		for _, el := range lit.Elts {
			kv, ok := el.(*ast.KeyValueExpr)
			if !ok {
				continue
			}
			key, ok := stringLit(kv.Key)
			if !ok {
				continue
			}
			var m Message
			if val, ok := kv.Value.(*ast.CompositeLit); ok {
				for i, f := range val.Elts {
					field, s := "", ""
					if fkv, ok := f.(*ast.KeyValueExpr); ok {
						if id, ok := fkv.Key.(*ast.Ident); ok {
							field = id.Name
						}
						s, _ = stringLit(fkv.Value)
					} else {
						field = []string{"ID", "EN"}[min(i, 1)]
						s, _ = stringLit(f)
					}
					switch field {
					case "ID":
						m.ID = s
					case "EN":
						m.EN = s
					}
				}
			}
			out[key] = m
		}
		return true
	})
	return out
}

func stringLit(e ast.Expr) (string, bool) {
	b, ok := e.(*ast.BasicLit)
	if !ok || b.Kind != token.STRING {
		return "", false
	}
	s, err := strconv.Unquote(b.Value)
	return s, err == nil
}
