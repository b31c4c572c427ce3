package celltext_test

import (
	"bytes"
	"testing"

	"github.com/xuri/excelize/v2"

	"github.com/sekolah/portal/internal/celltext"
	"github.com/sekolah/portal/internal/celltext/celltexttest"
)

func TestFormulaic(t *testing.T) {
	t.Parallel()
	for s, want := range map[string]bool{
		"=1+2": true, "+62812": true, "-5": true, "@SUM(A1)": true, "\t=1": true, "\r=1": true,
		"": false, "SPP Juli": false, " =1": false, "'=1": false, "Rp 5.000": false,
	} {
		if got := celltext.Formulaic(s); got != want {
			t.Errorf("Formulaic(%q) = %t, want %t", s, got, want)
		}
	}
}

// TestQuoted: a quoted style is the base style (its number format kept) with the quote
// prefix, made once per base; the base itself keeps none; an unknown style is refused.
func TestQuoted(t *testing.T) {
	t.Parallel()
	f := excelize.NewFile()
	defer f.Close()
	text, err := f.NewStyle(&excelize.Style{NumFmt: 49})
	if err != nil {
		t.Fatal(err)
	}
	q := celltext.NewQuoted(f)
	id, err := q.Style(text)
	if err != nil || id == text {
		t.Fatalf("Style(%d) = %d, %v", text, id, err)
	}
	if again, _ := q.Style(text); again != id {
		t.Errorf("made twice: %d then %d", id, again)
	}
	if st, err := f.GetStyle(id); err != nil || st.NumFmt != 49 {
		t.Errorf("the quoted style lost the base's format: %+v %v", st, err)
	}
	if _, err := q.Style(999); err == nil {
		t.Error("an unknown style was copied")
	}
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(f.SetCellStr("Sheet1", "A1", "=1+2"))
	must(f.SetCellStyle("Sheet1", "A1", "A1", id))
	must(f.SetCellStr("Sheet1", "A2", "=3"))
	must(f.SetCellStyle("Sheet1", "A2", "A2", text))
	var buf bytes.Buffer
	must(f.Write(&buf))
	if c := celltexttest.Read(t, buf.Bytes(), "xl/worksheets/sheet1.xml", "A1"); !c.String || c.Text != "=1+2" || !c.QuotePrefix {
		t.Errorf("A1 = %+v", c)
	}
	if c := celltexttest.Read(t, buf.Bytes(), "xl/worksheets/sheet1.xml", "A2"); c.QuotePrefix {
		t.Errorf("A2 = %+v, the base style got the prefix", c)
	}
}
