// Package xmlscan reads XML a byte at a time while holding nothing of it but a few
// counters, and refuses what would cost a real XML decoder far more than it weighs: an
// element nested deeper than MaxDepth, a tag (comment, processing instruction,
// directive) longer than MaxTagBytes. Go's encoding/xml, and excelize over it, keep
// every open element on a stack: six million nested `<x>`, 43 KB zipped, took a portal
// from 204 MB to 1 GB. Every XML part an upload reads (a workbook's sheets, shared
// strings, styles, relationships, content types; an OpenDocument's content) goes
// through a Scanner first, or is read through NewReader.
//
// A Scanner only tokenizes: it tells a Handler about text and tags, so a reader can count
// what it cares about (cells, rows, strings) in the same pass. It is not a validating
// parser: what it lets through, the real decoder still checks. It is the one place these
// bounds are counted: internal/sheets, which reads every upload, passes each XML part
// through one (with its own, tighter bounds in tests and fuzzing: Scanner.MaxDepth,
// MaxTagBytes), and refuses a DOCTYPE with it (RefuseDirectives).
package xmlscan

import (
	"bytes"
	"errors"
	"fmt"
	"io"
)

// The bounds every XML part is held to.
const (
	// MaxDepth is the deepest nesting of elements allowed. The deepest a spreadsheet goes
	// is a dozen or so levels (a chart's series cache in an .xlsx; a cell's text span in
	// an .ods about ten); 64 leaves room for any real file, and a decoder's stack of 64
	// elements costs a few KB.
	MaxDepth = 64
	// MaxTagBytes bounds one tag, comment, processing instruction or directive. The
	// longest in a real workbook (a worksheet's namespaces, a long list of validated
	// ranges) is a few KB; a decoder holds a whole one in memory.
	MaxTagBytes = 1 << 20
)

// ErrTagTooLong is the error of a tag, comment or directive over MaxTagBytes (or the
// Scanner's own bound).
var ErrTagTooLong = errors.New("xmlscan: a tag over the length bound")

// ErrDirective is the error of a DOCTYPE or another declaration when the Scanner refuses
// them (RefuseDirectives): no spreadsheet writes one, and it is how entity bombs begin.
var ErrDirective = errors.New("xmlscan: a DOCTYPE or other declaration")

// TooDeepError is the error of an element nested deeper than Max.
type TooDeepError struct {
	Max int // the bound that was passed
}

func (e *TooDeepError) Error() string {
	return fmt.Sprintf("xmlscan: elements nested deeper than %d", e.Max)
}

// Tag is one start, end or empty-element tag, as a Handler sees it.
type Tag struct {
	// Raw is the tag's first bytes (up to 256, or the Scanner's KeepTag) without the '<':
	// "c r=\"B7\" t=\"s\"" or "/row"; enough for its name and the attributes that come first.
	Raw []byte
	// Closing is an end tag (</row>); SelfClosing an empty element (<c/>).
	Closing, SelfClosing bool
	// Depth is the element's depth, 1 for the root (an end tag's is that of the element
	// it ends).
	Depth int
}

// Name is the tag's local name: without '/', attributes or a namespace prefix (x:c → c).
func (t Tag) Name() []byte {
	name := t.Raw
	if t.Closing {
		name = name[1:]
	}
	if k := bytes.IndexAny(name, " \t\r\n/>"); k >= 0 {
		name = name[:k]
	}
	if k := bytes.IndexByte(name, ':'); k >= 0 {
		name = name[k+1:]
	}
	return name
}

// Handler is told what a Scanner reads. Either method may stop the scan with an error.
type Handler interface {
	// Text is character data (CDATA's included), in pieces as they come.
	Text(b []byte) error
	// Element is a tag just read (it is not called for comments, processing
	// instructions and directives).
	Element(t Tag) error
}

// Scanner states.
const (
	stText      = iota // character data
	stOpen             // just after '<'
	stTag              // inside a start or end tag
	stQuote            // inside a quoted attribute value
	stComment          // <!-- ... -->
	stCData            // <![CDATA[ ... ]]>
	stPI               // <? ... ?>
	stDirective        // <!DOCTYPE ...> and the like
	stBang             // just after "<!": deciding which
)

// Scanner tokenizes XML fed to it in pieces of any size, the state carried across them.
// The zero Scanner checks the bounds and tells nobody.
type Scanner struct {
	// Handler, when set, is told what the Scanner reads.
	Handler Handler
	// MaxDepth replaces the package's MaxDepth when above zero (tests, fuzzing).
	MaxDepth int
	// MaxTagBytes replaces the package's MaxTagBytes when above zero.
	MaxTagBytes int
	// KeepTag is how many of a tag's first bytes the Handler sees (default 256).
	KeepTag int
	// RefuseDirectives makes a DOCTYPE or any other declaration an ErrDirective.
	RefuseDirectives bool

	state    int
	quote    byte
	tagLen   int    // bytes of the current tag (or comment, ...)
	tag      []byte // its first bytes, for the element's name and attributes
	prev     byte   // the tag's byte before the current one ('/' before '>': self-closing)
	endMatch int    // how much of an end marker ("-->", "]]>", "?>") was seen
	bang     []byte // the bytes after "<!" while deciding
	dirDepth int    // nesting of '<' inside a directive
	depth    int    // elements open
}

// Depth is the number of elements open.
func (s *Scanner) Depth() int { return s.depth }

func (s *Scanner) maxDepth() int {
	if s.MaxDepth > 0 {
		return s.MaxDepth
	}
	return MaxDepth
}

func (s *Scanner) maxTag() int {
	if s.MaxTagBytes > 0 {
		return s.MaxTagBytes
	}
	return MaxTagBytes
}

func (s *Scanner) keepTag() int {
	if s.KeepTag > 0 {
		return s.KeepTag
	}
	return 256
}

// Feed scans the next bytes: nil, a *TooDeepError, ErrTagTooLong, ErrDirective or the
// Handler's error. After an error the Scanner must not be fed again.
func (s *Scanner) Feed(b []byte) error {
	_, err := s.Scan(b)
	return err
}

// Scan is Feed that also says, on an error, how many bytes of b came before the fault
// (len(b) without one): a reader passing bytes on to a decoder hands it those first, so
// the decoder knows where the fault is (the cell whose text is too long).
func (s *Scanner) Scan(b []byte) (int, error) {
	maxTag := s.maxTag()
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch s.state {
		case stText:
			j := bytes.IndexByte(b[i:], '<')
			if j < 0 {
				if err := s.text(b[i:]); err != nil {
					return i, err
				}
				return len(b), nil
			}
			if err := s.text(b[i : i+j]); err != nil {
				return i, err
			}
			i += j
			s.state = stOpen
		case stOpen:
			switch c {
			case '!':
				s.state, s.bang = stBang, s.bang[:0]
			case '?':
				s.state, s.tagLen, s.endMatch = stPI, 2, 0
			default:
				s.state, s.tagLen, s.tag, s.prev = stTag, 2, append(s.tag[:0], c), c
				if c == '>' { // "<>": not XML; the decoder will say so
					s.state = stText
				}
			}
		case stBang:
			s.bang = append(s.bang, c)
			switch {
			case bytes.Equal(s.bang, []byte("--")):
				s.state, s.tagLen, s.endMatch = stComment, 4, 0
			case bytes.Equal(s.bang, []byte("[CDATA[")):
				s.state, s.endMatch = stCData, 0
			case !bytes.HasPrefix([]byte("--"), s.bang) && !bytes.HasPrefix([]byte("[CDATA["), s.bang):
				if s.RefuseDirectives {
					return i, ErrDirective
				}
				s.state, s.tagLen, s.dirDepth, s.quote = stDirective, 2+len(s.bang), 0, 0
				if c == '>' {
					s.state = stText
				}
			}
		case stTag, stQuote:
			if s.tagLen++; s.tagLen > maxTag {
				return i, ErrTagTooLong
			}
			if len(s.tag) < s.keepTag() {
				s.tag = append(s.tag, c)
			}
			switch {
			case s.state == stQuote:
				if c == s.quote {
					s.state = stTag
				}
			case c == '"' || c == '\'':
				s.state, s.quote = stQuote, c
			case c == '>':
				s.state = stText
				if err := s.element(s.prev == '/'); err != nil {
					return i, err
				}
			}
			s.prev = c
		case stComment, stPI:
			if s.tagLen++; s.tagLen > maxTag {
				return i, ErrTagTooLong
			}
			end := "-->"
			if s.state == stPI {
				end = "?>"
			}
			s.endMatch = advance(s.endMatch, end, c)
			if s.endMatch == len(end) {
				s.state = stText
			}
		case stCData:
			// Character data like any other, a byte at a time (rare in spreadsheets).
			s.endMatch = advance(s.endMatch, "]]>", c)
			if s.endMatch == 3 {
				s.state = stText
				continue
			}
			if s.endMatch == 0 {
				if err := s.text(b[i : i+1]); err != nil {
					return i, err
				}
			}
		case stDirective:
			if s.tagLen++; s.tagLen > maxTag {
				return i, ErrTagTooLong
			}
			switch {
			case s.quote != 0:
				if c == s.quote {
					s.quote = 0
				}
			case c == '"' || c == '\'':
				s.quote = c
			case c == '<':
				s.dirDepth++
			case c == '>' && s.dirDepth > 0:
				s.dirDepth--
			case c == '>':
				s.state = stText
			}
		}
	}
	return len(b), nil
}

func (s *Scanner) text(b []byte) error {
	if s.Handler == nil || len(b) == 0 {
		return nil
	}
	return s.Handler.Text(b)
}

// element counts the depth over a tag just read, refusing one level too deep before the
// handler hears of it.
func (s *Scanner) element(selfClosing bool) error {
	t := Tag{Raw: s.tag, Closing: len(s.tag) > 0 && s.tag[0] == '/', SelfClosing: selfClosing, Depth: s.depth}
	switch {
	case t.Closing:
		if s.depth > 0 {
			s.depth--
		}
	case !selfClosing:
		if s.depth++; s.depth > s.maxDepth() {
			return &TooDeepError{Max: s.maxDepth()}
		}
		t.Depth = s.depth
	default:
		t.Depth = s.depth + 1
	}
	if s.Handler == nil {
		return nil
	}
	return s.Handler.Element(t)
}

// advance moves the match of an end marker over c.
func advance(matched int, marker string, c byte) int {
	switch {
	case c == marker[matched]:
		return matched + 1
	case c == marker[0]:
		return 1
	}
	return 0
}

// Check scans r to its end with a Scanner and no Handler: nil when within the bounds, the
// bound's error otherwise, or r's own error.
func Check(r io.Reader) error {
	_, err := io.Copy(io.Discard, NewReader(r))
	return err
}

// NewReader passes r through, scanning what it passes: the read that would carry an
// element past MaxDepth (or a tag over MaxTagBytes) returns the bound's error instead of
// those bytes, so a decoder reading from it never holds more than MaxDepth elements.
// Wrap every XML part before decoding it: xml.NewDecoder(xmlscan.NewReader(part)).
func NewReader(r io.Reader) io.Reader { return &reader{r: r} }

type reader struct {
	r   io.Reader
	s   Scanner
	err error
}

func (r *reader) Read(p []byte) (int, error) {
	if r.err != nil {
		return 0, r.err
	}
	n, err := r.r.Read(p)
	if n > 0 {
		if serr := r.s.Feed(p[:n]); serr != nil {
			r.err = serr
			return 0, serr
		}
	}
	return n, err
}
