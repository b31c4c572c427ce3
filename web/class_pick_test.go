package web_test

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/chromedp/chromedp"
	"github.com/sekolah/portal/internal/portaltest"
)

// TestClassPickedFromTheRoster: the staff's forms for a student (students/new and the
// registration wizard's first step) offer the school's classes from the roster as a select,
// not a free-text field where 7A and 7 A become two classes; a class the roster does not
// have is typed on purpose after choosing "Kelas baru…", and kept when the form comes back.
func TestClassPickedFromTheRoster(t *testing.T) {
	t.Parallel()
	p := portaltest.Start(t, portaltest.Options{Now: regNow})
	tpl := createTemplate(t, p, p.SignedIn(t, "admin"), "Pendaftaran SMP 2027")
	c := p.SignedIn(t, "finance")
	// Two students in two classes, through the wizard as a person types them today.
	for _, s := range []struct{ nis, class string }{{"2027001", "Kelas 7A"}, {"2027002", "Kelas 7B"}} {
		res := c.Post("/registrations/new", with(student(s.nis), "description", s.class, "template", tpl.ID, "action", "next"))
		res = c.Post("/registrations/new", with(student(s.nis), "description", s.class, "template", tpl.ID, "fingerprint", value(res, "fingerprint"), "action", "confirm"))
		if res.StatusCode != http.StatusSeeOther {
			t.Fatalf("register %s: %d", s.nis, res.StatusCode)
		}
	}
	choices := func(doc *goquery.Document) []string {
		var out []string
		doc.Find(`select#f-description option`).Each(func(_ int, o *goquery.Selection) { out = append(out, o.AttrOr("value", "")) })
		return out
	}
	for _, path := range []string{"/students/new", "/registrations/new"} {
		doc := c.Get(path).Doc
		if got := choices(doc); !slices.Equal(got, []string{"", "Kelas 7A", "Kelas 7B", "+new"}) {
			t.Errorf("%s offers the classes %q", path, got)
		}
		if doc.Find(`input[name="description"]`).Length() != 0 || doc.Find(`input#f-description-new[name="description_new"]`).Length() != 1 ||
			doc.Find(`label[for="f-description-new"]`).Length() != 1 {
			t.Errorf("%s: want the class as a select, and a labelled field for a new class", path)
		}
	}

	// students/new: a class from the list; then a new class, typed deliberately.
	base := url.Values{"key_name": {"NIS"}}
	add := func(nis, name string, kv ...string) *portaltest.Response {
		f := with(base, append([]string{"nis", nis, "name", name}, kv...)...)
		return c.Post("/students/new", f)
	}
	if res := add("2027010", "Ani", "description", "Kelas 7B"); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("add with a listed class: %d %s", res.StatusCode, billsText(res.Doc.Find("main")))
	}
	if res := add("2027011", "Budi", "description", "+new", "description_new", "  Kelas 7C "); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("add with a new class: %d", res.StatusCode)
	}
	for nis, want := range map[string]string{"2027010": "Kelas 7B", "2027011": "Kelas 7C"} {
		if st, err := p.DB.StudentByNIS(t.Context(), nis); err != nil || st.Description != want {
			t.Errorf("%s is in %q (%v), want %q", nis, st.Description, err, want)
		}
	}
	// A form that comes back (no name) keeps the new class typed, "Kelas baru…" chosen.
	res := add("2027012", "", "description", "+new", "description_new", "Kelas 8A")
	if res.StatusCode != http.StatusUnprocessableEntity {
		t.Fatalf("no name: %d", res.StatusCode)
	}
	if sel := res.Doc.Find(`#f-description option[selected]`).AttrOr("value", ""); sel != "+new" || value(res, "description_new") != "Kelas 8A" {
		t.Errorf("the form came back with %q chosen and %q typed", sel, value(res, "description_new"))
	}
	// A listed class chosen wins over a stray new one left in the field.
	if res := add("2027013", "Cici", "description", "Kelas 7A", "description_new", "Kelas 9Z"); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("add: %d", res.StatusCode)
	}
	if st, _ := p.DB.StudentByNIS(t.Context(), "2027013"); st.Description != "Kelas 7A" {
		t.Errorf("2027013 is in %q, want the chosen Kelas 7A", st.Description)
	}

	// The wizard: a new class chosen on step 1 is the class reviewed and registered.
	res = c.Post("/registrations/new", with(student("2027020"), "description", "+new", "description_new", "Kelas 7D", "template", tpl.ID, "action", "next"))
	if !strings.Contains(billsText(res.Doc.Find(`[data-testid="review-student"]`)), "Kelas 7D") {
		t.Fatalf("the review shows %q", billsText(res.Doc.Find(`[data-testid="review-student"]`)))
	}
	res = c.Post("/registrations/new", with(student("2027020"), "description", "Kelas 7D", "template", tpl.ID, "fingerprint", value(res, "fingerprint"), "action", "confirm"))
	if st, err := p.DB.StudentByNIS(t.Context(), "2027020"); res.StatusCode != http.StatusSeeOther || err != nil || st.Description != "Kelas 7D" {
		t.Errorf("registered with the new class: %d, %q %v", res.StatusCode, st.Description, err)
	}
}

// TestBrowserClassPick: the class choice on both forms, at both sizes, fits the page and
// sends a new class typed after choosing "Kelas baru…".
func TestBrowserClassPick(t *testing.T) {
	t.Parallel()
	p := portaltest.Start(t, portaltest.Options{Now: regNow})
	tpl := createTemplate(t, p, p.SignedIn(t, "admin"), "Pendaftaran SMP 2027")
	c := p.SignedIn(t, "finance")
	res := c.Post("/registrations/new", with(student("2027001"), "template", tpl.ID, "action", "next"))
	c.Post("/registrations/new", with(student("2027001"), "template", tpl.ID, "fingerprint", value(res, "fingerprint"), "action", "confirm"))
	b := p.NewBrowser(t)
	b.SignIn("admin", portaltest.Password)
	for _, path := range []string{"/students/new", "/registrations/new"} {
		b.Visit(path)
		for _, size := range []struct{ w, h int64 }{{1366, 768}, {390, 844}} {
			b.Do(chromedp.EmulateViewport(size.w, size.h))
			b.Do(chromedp.ScrollIntoView(chromedp.CSS(`#f-description`)))
			if fits := portaltest.Get(b, chromedp.Evaluate[bool](`document.documentElement.scrollWidth <= window.innerWidth && document.querySelector("#f-description-new").getBoundingClientRect().right <= window.innerWidth`)); !fits {
				t.Errorf("%s at %d: the class fields do not fit", path, size.w)
			}
			b.Screenshot(fmt.Sprintf("class-pick%s-%d", strings.ReplaceAll(path, "/", "-"), size.w))
		}
	}
	b.Do(chromedp.EmulateViewport(1280, 900))
	b.Visit("/students/new")
	b.Do(chromedp.SetValue(chromedp.CSS(`#f-nis`), "2027030"))
	b.Do(chromedp.SetValue(chromedp.CSS(`#f-name`), "Dodi"))
	b.Do(chromedp.SetValue(chromedp.CSS(`#f-description`), "+new"))
	b.Do(chromedp.SetValue(chromedp.CSS(`#f-description-new`), "Kelas 9A"))
	b.Click(`[data-testid="student-save"]`)
	b.WaitVisible(`[data-testid="flash"]`)
	if st, err := p.DB.StudentByNIS(t.Context(), "2027030"); err != nil || st.Description != "Kelas 9A" {
		t.Errorf("added in the browser: %q %v", st.Description, err)
	}
}
