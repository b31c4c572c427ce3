package sheets

import (
	"bytes"
	"errors"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/sekolah/portal/internal/xmlscan"
)

// xmlFilter passes an XML part through unchanged while it checks, holding nothing but
// counters, what an XML decoder would otherwise hold: the nesting depth (a decoder keeps
// the element stack) and the length of a tag, comment or processing instruction (a decoder
// holds one whole), counted by internal/xmlscan's Scanner, the one place these bounds are
// counted for every upload; and here the characters of a text run (a decoder holds one
// whole) and the bytes of the part. It refuses a DOCTYPE: no spreadsheet writes one, and
// it is how entity bombs begin. Every XML part this package reads goes through one, so
// these bounds hold in one place for every format.
//
// A hook, when set, sees every tag as it ends (its first bytes, enough for the attributes
// a reader looks for): a pass with a hook and no decoder is a fast scan of a part.
type xmlFilter struct {
	r      io.Reader
	format Format
	part   string
	lim    *Limits
	hook   func(t *tagView) error
	// textHook, when set, sees character data as it comes (raw: entities undecoded, a run
	// perhaps in several pieces).
	textHook func(b []byte)
	// unboundedRuns: a text run may be longer than a cell (a part scanned with hooks, no
	// decoder, holds none of it: the shared strings).
	unboundedRuns bool

	sc     xmlscan.Scanner
	n      int64
	run    int
	entity int
	err    error
	view   tagView
}

// tagView is a tag just read, for a hook.
type tagView struct {
	raw         []byte // the tag's first bytes after '<' (a '/' first for an end tag)
	name        []byte // its qualified name ("table:table-cell", "c")
	closing     bool   // an end tag
	selfClosing bool   // <x/>
	depth       int    // the element's depth (1 for the root)
}

// local is the name without its prefix.
func (t *tagView) local() string {
	n := t.name
	if k := bytes.IndexByte(n, ':'); k >= 0 {
		n = n[k+1:]
	}
	return string(n)
}

// attr is the unescaped value of the attribute with the qualified name q (or "").
func (t *tagView) attr(q string) string {
	v, ok := rawAttr(t.raw, q)
	if !ok {
		return ""
	}
	return unescapeXML(v)
}

// tagKeep is how much of each tag a hook sees: sheet names and references come early.
const tagKeep = 4096

func newXMLFilter(r io.Reader, f Format, part string, lim *Limits) *xmlFilter {
	x := &xmlFilter{r: r, format: f, part: part, lim: lim}
	x.sc = xmlscan.Scanner{Handler: x, MaxDepth: lim.MaxDepth, MaxTagBytes: lim.MaxTagBytes, KeepTag: tagKeep,
		RefuseDirectives: true}
	return x
}

func (x *xmlFilter) Read(p []byte) (int, error) {
	if x.err != nil {
		return 0, x.err
	}
	n, err := x.r.Read(p)
	if n > 0 {
		if x.n += int64(n); x.n > x.lim.MaxPartBytes {
			x.err = tooBig(x.format, BoundPartBytes, x.lim.MaxPartBytes, x.part)
			return 0, x.err
		}
		if ok, ferr := x.sc.Scan(p[:n]); ferr != nil {
			// What came before the fault goes on to the decoder, so the reader knows
			// where it was (the cell a too long text is in); the fault comes next.
			x.err = x.fault(ferr)
			return ok, nil
		}
	}
	if err != nil && err != io.EOF {
		x.err = damaged(x.format, x.part, "unzip", err)
		return n, x.err
	}
	return n, err
}

// fault is the scanner's error as this package's: the bound passed, named with the part.
func (x *xmlFilter) fault(err error) error {
	var deep *xmlscan.TooDeepError
	switch {
	case errors.As(err, &deep):
		return tooBig(x.format, BoundDepth, int64(deep.Max), x.part)
	case errors.Is(err, xmlscan.ErrTagTooLong):
		return tooBig(x.format, BoundTagBytes, int64(x.lim.MaxTagBytes), x.part)
	case errors.Is(err, xmlscan.ErrDirective):
		return damaged(x.format, x.part, "DOCTYPE or other declaration", nil)
	}
	return err // the hook's, or Text's: already this package's
}

// scan reads the whole part through the filter (with its hook), keeping nothing.
func (x *xmlFilter) scan() error {
	buf := make([]byte, 32<<10)
	for {
		_, err := x.Read(buf)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// Text counts the characters of the current text run (one per UTF-8 sequence, one per
// entity reference): the scanner's Handler.
func (x *xmlFilter) Text(b []byte) error {
	if x.textHook != nil && len(b) > 0 {
		x.textHook(b)
	}
	if x.unboundedRuns {
		return nil
	}
	n := 0
	for _, c := range b {
		switch {
		case x.entity > 0:
			if x.entity++; c == ';' || x.entity > 12 {
				x.entity = 0
			}
		case c == '&':
			x.entity = 1
			n++
		case c&0xC0 != 0x80:
			n++
		}
	}
	if x.run += n; x.run > x.lim.MaxCellChars {
		return tooBig(x.format, BoundCellChars, int64(x.lim.MaxCellChars), x.part)
	}
	return nil
}

// Element acts on a tag just read (the scanner's Handler): it ends the text run, and the
// hook sees it.
func (x *xmlFilter) Element(tag xmlscan.Tag) error {
	x.run, x.entity = 0, 0
	if x.hook == nil {
		return nil
	}
	name := tag.Raw
	if tag.Closing {
		name = name[1:]
	}
	if k := bytes.IndexAny(name, " \t\r\n/>"); k >= 0 {
		name = name[:k]
	}
	x.view = tagView{raw: tag.Raw, name: name, closing: tag.Closing, selfClosing: tag.SelfClosing, depth: tag.Depth}
	return x.hook(&x.view)
}

// rawAttr finds the attribute with the qualified name q in a tag's first bytes.
func rawAttr(tag []byte, q string) ([]byte, bool) {
	i := 0
	// Skip the element's name.
	for i < len(tag) && !isSpace(tag[i]) {
		i++
	}
	for i < len(tag) {
		for i < len(tag) && isSpace(tag[i]) {
			i++
		}
		start := i
		for i < len(tag) && tag[i] != '=' && !isSpace(tag[i]) && tag[i] != '>' && tag[i] != '/' {
			i++
		}
		key := tag[start:i]
		for i < len(tag) && isSpace(tag[i]) {
			i++
		}
		if i >= len(tag) || tag[i] != '=' {
			if i == start {
				i++
			}
			continue
		}
		i++
		for i < len(tag) && isSpace(tag[i]) {
			i++
		}
		if i >= len(tag) || (tag[i] != '"' && tag[i] != '\'') {
			continue
		}
		quote := tag[i]
		i++
		vs := i
		for i < len(tag) && tag[i] != quote {
			i++
		}
		if string(key) == q {
			return tag[vs:min(i, len(tag))], true
		}
		i++
	}
	return nil, false
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// unescapeXML decodes the predefined entities and character references of an attribute
// value read raw.
func unescapeXML(b []byte) string {
	if bytes.IndexByte(b, '&') < 0 {
		return string(b)
	}
	var sb strings.Builder
	for len(b) > 0 {
		k := bytes.IndexByte(b, '&')
		if k < 0 {
			sb.Write(b)
			break
		}
		sb.Write(b[:k])
		b = b[k:]
		end := bytes.IndexByte(b, ';')
		if end < 0 || end > 12 {
			sb.WriteByte('&')
			b = b[1:]
			continue
		}
		ent := string(b[1:end])
		b = b[end+1:]
		switch ent {
		case "amp":
			sb.WriteByte('&')
		case "lt":
			sb.WriteByte('<')
		case "gt":
			sb.WriteByte('>')
		case "quot":
			sb.WriteByte('"')
		case "apos":
			sb.WriteByte('\'')
		default:
			var n uint64
			var err error
			switch {
			case strings.HasPrefix(ent, "#x"):
				n, err = strconv.ParseUint(ent[2:], 16, 32)
			case strings.HasPrefix(ent, "#"):
				n, err = strconv.ParseUint(ent[1:], 10, 32)
			default:
				err = strconv.ErrSyntax
			}
			if err != nil || !utf8.ValidRune(rune(n)) {
				sb.WriteRune(utf8.RuneError)
			} else {
				sb.WriteRune(rune(n))
			}
		}
	}
	return sb.String()
}
