package xmlscan_test

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/sekolah/portal/internal/xmlscan"
)

func nested(n int) string { return strings.Repeat("<x>", n) + strings.Repeat("</x>", n) }

// TestCheck: the depth bound counts open elements, not siblings, empty elements, end
// tags, comments, CDATA, processing instructions, directives or '<' in quoted values;
// a tag over MaxTagBytes is refused.
func TestCheck(t *testing.T) {
	t.Parallel()
	max := xmlscan.MaxDepth
	tests := []struct {
		name string
		xml  string
		deep bool
		long bool
	}{
		{"at the bound", nested(max), false, false},
		{"one over", nested(max + 1), true, false},
		{"prolog and namespaces", `<?xml version="1.0"?>` + "\n" + `<a:w xmlns:a="u">` + nested(max-1) + `</a:w>`, false, false},
		{"prefixed one over", strings.Repeat("<a:x>", max+1), true, false},
		{"siblings", strings.Repeat("<x>a</x>", 10*max), false, false},
		{"empty elements", "<r>" + strings.Repeat(`<x a="1"/>`, 10*max) + "</r>", false, false},
		{"closed as it goes", strings.Repeat("<x></x>", 10*max), false, false},
		{"quoted markup", "<r>" + strings.Repeat(`<x a="<y>"/>`, 10*max) + "</r>", false, false},
		{"comments", strings.Repeat("<!-- <x> -->", 10*max), false, false},
		{"CDATA", "<r><![CDATA[" + strings.Repeat("<x>", 10*max) + "]]></r>", false, false},
		{"processing instructions", strings.Repeat("<?pi <x> ?>", 10*max), false, false},
		{"a directive", "<!DOCTYPE r [" + strings.Repeat("<!ENTITY e 'x'>", 10*max) + "]><r/>", false, false},
		{"a long tag", "<r " + strings.Repeat("a", xmlscan.MaxTagBytes) + ">", false, true},
		{"a long comment", "<!--" + strings.Repeat("a", xmlscan.MaxTagBytes) + "-->", false, true},
		{"end tags past the root do not go negative", "</x></x></x>" + nested(max), false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := xmlscan.Check(strings.NewReader(tt.xml))
			var deep *xmlscan.TooDeepError
			switch {
			case tt.deep && (!errors.As(err, &deep) || deep.Max != max):
				t.Fatalf("err %v, want too deep at %d", err, max)
			case tt.long && !errors.Is(err, xmlscan.ErrTagTooLong):
				t.Fatalf("err %v, want the tag too long", err)
			case !tt.deep && !tt.long && err != nil:
				t.Fatalf("refused: %v", err)
			}
		})
	}
}

// oneByte reads one byte at a time: a Scanner's state must carry across any split.
type oneByte struct{ r io.Reader }

func (o oneByte) Read(p []byte) (int, error) { return o.r.Read(p[:min(1, len(p))]) }

// TestNewReaderBoundsADecoder: encoding/xml reading through NewReader stops at the bound
// with the scanner's error, having held no more than MaxDepth+1 elements; a real document
// decodes the same through it, read in pieces of any size.
func TestNewReaderBoundsADecoder(t *testing.T) {
	t.Parallel()
	d := xml.NewDecoder(xmlscan.NewReader(strings.NewReader(nested(6_000_000))))
	open := 0
	var err error
	for {
		var tok xml.Token
		if tok, err = d.Token(); err != nil {
			break
		}
		if _, ok := tok.(xml.StartElement); ok {
			open++
		}
	}
	var deep *xmlscan.TooDeepError
	if !errors.As(err, &deep) {
		t.Fatalf("err %v, want too deep", err)
	}
	if open > xmlscan.MaxDepth+1 {
		t.Errorf("the decoder opened %d elements, want at most %d", open, xmlscan.MaxDepth+1)
	}

	doc := `<?xml version="1.0"?><sheet><row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1"><is><t>a &amp; b <![CDATA[<x>]]></t></is></c></row></sheet>`
	type cell struct {
		R string `xml:"r,attr"`
		V string `xml:"v"`
		T string `xml:"is>t"`
	}
	var want, got struct {
		Cells []cell `xml:"row>c"`
	}
	if err := xml.Unmarshal([]byte(doc), &want); err != nil {
		t.Fatal(err)
	}
	if err := xml.NewDecoder(xmlscan.NewReader(oneByte{strings.NewReader(doc)})).Decode(&got); err != nil {
		t.Fatal(err)
	}
	if len(got.Cells) != 2 || got.Cells[1] != want.Cells[1] || got.Cells[1].T != "a & b <x>" {
		t.Errorf("decoded %+v, want %+v", got, want)
	}
}

// recorder is a Handler that writes down what it is told.
type recorder struct {
	text bytes.Buffer
	tags []string
}

func (r *recorder) Text(b []byte) error { r.text.Write(b); return nil }
func (r *recorder) Element(t xmlscan.Tag) error {
	kind := "open"
	switch {
	case t.Closing:
		kind = "close"
	case t.SelfClosing:
		kind = "empty"
	}
	r.tags = append(r.tags, kind+" "+string(t.Name()))
	return nil
}

// TestScannerTellsTheHandler: text (CDATA's too, comments' not) and tags with their local
// names reach the handler, whatever the pieces fed.
func TestScannerTellsTheHandler(t *testing.T) {
	t.Parallel()
	doc := `<?xml version="1.0"?><!-- note --><x:row r="1"><x:c r="A1" a='>'/><t>hi <![CDATA[<b>]]></t></x:row>`
	for _, size := range []int{1, 3, len(doc)} {
		r := &recorder{}
		s := xmlscan.Scanner{Handler: r}
		for b := []byte(doc); len(b) > 0; {
			n := min(size, len(b))
			if err := s.Feed(b[:n]); err != nil {
				t.Fatal(err)
			}
			b = b[n:]
		}
		if got, want := strings.Join(r.tags, ","), "open row,empty c,open t,close t,close row"; got != want {
			t.Errorf("size %d: tags %s, want %s", size, got, want)
		}
		if r.text.String() != "hi <b>" {
			t.Errorf("size %d: text %q", size, r.text.String())
		}
		if s.Depth() != 0 {
			t.Errorf("size %d: depth %d at the end", size, s.Depth())
		}
	}
}

func FuzzScanner(f *testing.F) {
	f.Add([]byte(`<a><b c="<"><![CDATA[<]]><!-- <x> --><?p?></b></a>`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var s xmlscan.Scanner
		if err := s.Feed(data); err == nil && s.Depth() > xmlscan.MaxDepth {
			t.Fatalf("depth %d past the bound without an error", s.Depth())
		}
	})
}
