package sheets

import (
	"bytes"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"
)

// xmlFilter passes an XML part through unchanged while it checks, a byte at a time and
// holding nothing but counters, what an XML decoder would otherwise hold: the nesting
// depth (a decoder keeps the element stack), the length of a tag, comment or processing
// instruction (a decoder holds one whole), the characters of a text run (a decoder holds
// one whole) and the bytes of the part. It refuses a DOCTYPE: no spreadsheet writes one,
// and it is how entity bombs begin. Every XML part this package reads goes through one,
// so these bounds hold in one place for every format.
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

	n        int64
	state    int
	depth    int
	tagLen   int
	tag      []byte
	quote    byte
	prev     byte
	endMatch int
	bang     []byte
	run      int
	entity   int
	err      error
	view     tagView
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

const (
	fxText = iota
	fxOpen
	fxTag
	fxQuote
	fxComment
	fxCData
	fxPI
	fxBang
)

// tagKeep is how much of each tag a hook sees: sheet names and references come early.
const tagKeep = 4096

func newXMLFilter(r io.Reader, f Format, part string, lim *Limits) *xmlFilter {
	return &xmlFilter{r: r, format: f, part: part, lim: lim}
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
		if ok, ferr := x.feed(p[:n]); ferr != nil {
			// What came before the fault goes on to the decoder, so the reader knows
			// where it was (the cell a too long text is in); the fault comes next.
			x.err = ferr
			return ok, nil
		}
	}
	if err != nil && err != io.EOF {
		x.err = damaged(x.format, x.part, "unzip", err)
		return n, x.err
	}
	return n, err
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

func (x *xmlFilter) text(b []byte) error {
	if x.textHook != nil && len(b) > 0 {
		x.textHook(b)
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

// feed checks b; on a fault, ok is how much of b came before it.
func (x *xmlFilter) feed(b []byte) (ok int, err error) {
	defer func() {
		if err != nil && x.err == nil {
			x.err = err
		}
	}()
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch x.state {
		case fxText:
			j := bytes.IndexByte(b[i:], '<')
			if j < 0 {
				return i, x.text(b[i:])
			}
			if err := x.text(b[i : i+j]); err != nil {
				return i, err
			}
			i += j
			x.run, x.entity, x.state = 0, 0, fxOpen
		case fxOpen:
			switch c {
			case '!':
				x.state, x.bang = fxBang, x.bang[:0]
			case '?':
				x.state, x.tagLen, x.endMatch = fxPI, 2, 0
			default:
				x.state, x.tagLen, x.tag, x.prev = fxTag, 2, append(x.tag[:0], c), c
			}
		case fxBang:
			x.bang = append(x.bang, c)
			switch {
			case string(x.bang) == "--":
				x.state, x.tagLen, x.endMatch = fxComment, 4, 0
			case string(x.bang) == "[CDATA[":
				x.state, x.endMatch = fxCData, 0
			case !strings.HasPrefix("--", string(x.bang)) && !strings.HasPrefix("[CDATA[", string(x.bang)):
				// <!DOCTYPE, <!ENTITY: not in any spreadsheet, and how entity bombs start.
				return i, damaged(x.format, x.part, "DOCTYPE or other declaration", nil)
			}
		case fxTag, fxQuote:
			if x.tagLen++; x.tagLen > x.lim.MaxTagBytes {
				return i, tooBig(x.format, BoundTagBytes, int64(x.lim.MaxTagBytes), x.part)
			}
			if len(x.tag) < tagKeep {
				x.tag = append(x.tag, c)
			}
			switch {
			case x.state == fxQuote:
				if c == x.quote {
					x.state = fxTag
				}
			case c == '"' || c == '\'':
				x.state, x.quote = fxQuote, c
			case c == '>':
				x.state = fxText
				if err := x.endTag(x.prev == '/'); err != nil {
					return i, err
				}
			}
			x.prev = c
		case fxComment, fxPI:
			if x.tagLen++; x.tagLen > x.lim.MaxTagBytes {
				return i, tooBig(x.format, BoundTagBytes, int64(x.lim.MaxTagBytes), x.part)
			}
			end := "-->"
			if x.state == fxPI {
				end = "?>"
			}
			x.endMatch = advanceMarker(x.endMatch, end, c)
			if x.endMatch == len(end) {
				x.state = fxText
			}
		case fxCData:
			x.endMatch = advanceMarker(x.endMatch, "]]>", c)
			if x.endMatch == 3 {
				x.state = fxText
				continue
			}
			if err := x.text(b[i : i+1]); err != nil {
				return i, err
			}
		}
	}
	return len(b), nil
}

// advanceMarker moves the match of an end marker over c.
func advanceMarker(matched int, marker string, c byte) int {
	switch {
	case c == marker[matched]:
		return matched + 1
	case c == marker[0]:
		return 1
	}
	return 0
}

// endTag acts on a tag just read: x.tag holds its first bytes without the '<'.
func (x *xmlFilter) endTag(selfClosing bool) error {
	t := x.tag
	closing := len(t) > 0 && t[0] == '/'
	if closing {
		t = t[1:]
	}
	name := t
	if k := bytes.IndexAny(name, " \t\r\n/>"); k >= 0 {
		name = name[:k]
	}
	depth := x.depth
	switch {
	case closing:
		if x.depth > 0 {
			x.depth--
		}
	case !selfClosing:
		if x.depth++; x.depth > x.lim.MaxDepth {
			return tooBig(x.format, BoundDepth, int64(x.lim.MaxDepth), x.part)
		}
		depth = x.depth
	default:
		depth = x.depth + 1
	}
	if x.hook == nil {
		return nil
	}
	x.view = tagView{raw: x.tag, name: name, closing: closing, selfClosing: selfClosing, depth: depth}
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
