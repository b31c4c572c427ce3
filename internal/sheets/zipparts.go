package sheets

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"encoding/xml"
	"errors"
	"io"
	"strings"
)

// zipBook is an open zip (.xlsx, .ods) with its parts by name and the bounds of reading
// them: each part's declared size against MaxPartBytes, the parts read together against
// MaxUnzipped (Go's zip reader refuses a part that inflates past what it declared).
type zipBook struct {
	zr       *zip.Reader
	files    map[string]*zip.File
	lim      *Limits
	format   Format
	unzipped int64
	opened   map[string]bool
}

// zipEntries reads how many entries a zip's directory declares, from its end records,
// without reading the directory: 0 when it cannot tell (zip.NewReader then decides).
func zipEntries(ra io.ReaderAt, size int64) uint64 {
	const eocdLen = 22
	tail := min(size, 65535+eocdLen)
	buf := make([]byte, tail)
	if _, err := ra.ReadAt(buf, size-tail); err != nil && err != io.EOF {
		return 0
	}
	i := bytes.LastIndex(buf, []byte("PK\x05\x06"))
	if i < 0 || i+eocdLen > len(buf) {
		return 0
	}
	n := uint64(binary.LittleEndian.Uint16(buf[i+10:]))
	if n != 0xFFFF || i < 20 || string(buf[i-20:i-16]) != "PK\x06\x07" {
		return n
	}
	off := int64(binary.LittleEndian.Uint64(buf[i-20+8:]))
	rec := make([]byte, 56)
	if off < 0 || off > size-56 {
		return 0
	}
	if _, err := ra.ReadAt(rec, off); err != nil || string(rec[:4]) != "PK\x06\x06" {
		return 0
	}
	return binary.LittleEndian.Uint64(rec[32:])
}

func openZip(ra io.ReaderAt, size int64, f Format, lim *Limits) (*zipBook, error) {
	if n := zipEntries(ra, size); n > uint64(lim.MaxZipEntries) {
		return nil, tooBig(f, BoundZipEntries, int64(lim.MaxZipEntries), "")
	}
	zr, err := zip.NewReader(ra, size)
	if err != nil {
		return nil, damaged(f, "", "zip", err)
	}
	if len(zr.File) > lim.MaxZipEntries {
		return nil, tooBig(f, BoundZipEntries, int64(lim.MaxZipEntries), "")
	}
	z := &zipBook{zr: zr, files: make(map[string]*zip.File, len(zr.File)), lim: lim, format: f, opened: map[string]bool{}}
	for _, zf := range zr.File {
		z.files[partKey(zf.Name)] = zf
	}
	return z, nil
}

// partKey is how parts are looked up: case-insensitive, forward slashes, no leading '/'.
func partKey(name string) string {
	return strings.TrimPrefix(strings.ToLower(strings.ReplaceAll(name, `\`, "/")), "/")
}

func (z *zipBook) has(name string) bool { return z.files[partKey(name)] != nil }

// open opens a part for reading, counting its declared size against the bounds once.
func (z *zipBook) open(name string) (io.ReadCloser, error) {
	zf := z.files[partKey(name)]
	if zf == nil {
		return nil, damaged(z.format, name, "missing part", nil)
	}
	size := zf.UncompressedSize64
	if size > uint64(z.lim.MaxPartBytes) {
		return nil, tooBig(z.format, BoundPartBytes, z.lim.MaxPartBytes, name)
	}
	if !z.opened[zf.Name] {
		if z.unzipped+int64(size) > z.lim.MaxUnzipped {
			return nil, tooBig(z.format, BoundUnzipped, z.lim.MaxUnzipped, name)
		}
		z.unzipped += int64(size)
		z.opened[zf.Name] = true
	}
	rc, err := zf.Open()
	if err != nil {
		return nil, damaged(z.format, name, "zip entry", err)
	}
	return rc, nil
}

// readSmall reads a whole small part (at most max bytes: mimetype, a manifest).
func (z *zipBook) readSmall(name string, max int64) ([]byte, error) {
	rc, err := z.open(name)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	b, err := io.ReadAll(io.LimitReader(rc, max+1))
	if err != nil {
		return nil, damaged(z.format, name, "unzip", err)
	}
	if int64(len(b)) > max {
		return nil, tooBig(z.format, BoundPartBytes, max, name)
	}
	return b, nil
}

// xmlPart is a part read as XML tokens through an xmlFilter. Tokens come from the
// decoder's RawToken, which keeps no element stack (the filter bounds the depth anyway).
type xmlPart struct {
	stack  []xml.Name // open elements: their ends must match (at most MaxDepth)
	rc     io.ReadCloser
	filter *xmlFilter
	dec    *xml.Decoder
	name   string
	format Format
}

// openXML opens a part as a token stream; hook, if set, sees every tag.
func (z *zipBook) openXML(name string, hook func(*tagView) error) (*xmlPart, error) {
	rc, err := z.open(name)
	if err != nil {
		return nil, err
	}
	fl := newXMLFilter(rc, z.format, name, z.lim)
	fl.hook = hook
	dec := xml.NewDecoder(fl)
	dec.Strict = true
	return &xmlPart{rc: rc, filter: fl, dec: dec, name: name, format: z.format}, nil
}

// scanXML streams a whole part through the filter with a hook, without decoding it.
func (z *zipBook) scanXML(name string, hook func(*tagView) error) error {
	rc, err := z.open(name)
	if err != nil {
		return err
	}
	defer rc.Close()
	fl := newXMLFilter(rc, z.format, name, z.lim)
	fl.hook = hook
	return fl.scan()
}

// token is the next raw token, nil at the end; a bound passed or a syntax error is an
// *Error.
func (p *xmlPart) token() (xml.Token, error) {
	t, err := p.dec.RawToken()
	if err == nil {
		switch e := t.(type) {
		case xml.StartElement:
			p.stack = append(p.stack, e.Name)
		case xml.EndElement:
			if n := len(p.stack); n == 0 || p.stack[n-1] != e.Name {
				return nil, damaged(p.format, p.name, "XML: end tag "+e.Name.Local+" does not match", nil)
			}
			p.stack = p.stack[:len(p.stack)-1]
		}
		return t, nil
	}
	if p.filter.err != nil {
		return nil, p.filter.err
	}
	if errors.Is(err, io.EOF) {
		return nil, nil
	}
	var se *Error
	if errors.As(err, &se) {
		return nil, se
	}
	return nil, damaged(p.format, p.name, "XML", err)
}

func (p *xmlPart) close() error { return p.rc.Close() }

// attrOf is the value of the attribute with the given prefix and local name.
func attrOf(attrs []xml.Attr, space, local string) (string, bool) {
	for _, a := range attrs {
		if a.Name.Local == local && a.Name.Space == space {
			return a.Value, true
		}
	}
	return "", false
}

// attrLocal is the value of the first attribute with the given local name, whatever its
// prefix.
func attrLocal(attrs []xml.Attr, local string) string {
	for _, a := range attrs {
		if a.Name.Local == local {
			return a.Value
		}
	}
	return ""
}
