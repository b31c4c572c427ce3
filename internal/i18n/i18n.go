// Package i18n holds every visible string of the portal, formats numbers, money
// and dates the way Indonesian school finance staff read them, and reads the
// amounts of rupiah and the calendar days they type.
//
// Indonesian is the default language; English is offered on request. Messages
// are registered per area from init() in messages_<area>.go files, so each
// engineer adds their own file and a duplicate key fails at start-up.
package i18n

import (
	"context"
	"fmt"
	"io"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Lang is a language the portal is shown in.
type Lang string

// The languages the portal offers; Indonesian is the default.
const (
	Indonesian Lang = "id"
	English    Lang = "en"
)

// Langs lists the offered languages in the order a switcher shows them.
var Langs = []Lang{Indonesian, English}

// ParseLang reads a language code as sent by a form, cookie or Accept-Language
// tag ("id", "en", "en-US", "id_ID"); ok is false for anything else.
func ParseLang(s string) (Lang, bool) {
	s = strings.ToLower(strings.TrimSpace(s))
	if i := strings.IndexAny(s, "-_"); i >= 0 {
		s = s[:i]
	}
	switch s {
	case "id", "in": // "in" is the retired ISO 639 code some old browsers still send.
		return Indonesian, true
	case "en":
		return English, true
	}
	return "", false
}

// String returns the language code.
func (l Lang) String() string { return string(l) }

// Name returns the language's own name, as a switcher labels it.
func (l Lang) Name() string {
	if l == English {
		return "English"
	}
	return "Bahasa Indonesia"
}

// Message is one catalogue entry. Both texts are fmt formats whose verbs use
// explicit argument indexes (%[1]s) so a translation may reorder them.
type Message struct{ ID, EN string }

var (
	catalogueMu sync.RWMutex
	catalogue   = map[string]Message{}
)

// Register adds messages to the catalogue. It is meant for init() functions;
// a key registered twice panics, because two areas silently sharing a key is
// how one page ends up showing another page's words.
func Register(msgs map[string]Message) {
	catalogueMu.Lock()
	defer catalogueMu.Unlock()
	for k, m := range msgs {
		if _, dup := catalogue[k]; dup {
			panic(fmt.Sprintf("i18n: message %q registered twice", k))
		}
		catalogue[k] = m
	}
}

// Has reports whether key is in the catalogue.
func Has(key string) bool {
	catalogueMu.RLock()
	defer catalogueMu.RUnlock()
	_, ok := catalogue[key]
	return ok
}

// Keys returns every registered key, sorted; tests use it to check the catalogue.
func Keys() []string {
	catalogueMu.RLock()
	defer catalogueMu.RUnlock()
	keys := make([]string, 0, len(catalogue))
	for k := range catalogue {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// Lookup returns the entry for key.
func Lookup(key string) (Message, bool) {
	catalogueMu.RLock()
	defer catalogueMu.RUnlock()
	m, ok := catalogue[key]
	return m, ok
}

// DefaultZone is the zone times are shown in when none is configured.
const DefaultZone = "Asia/Jakarta"

// jakarta is loaded once; a machine without tzdata still gets the right
// offset because Jakarta has had no daylight saving since 1964.
var jakarta = func() *time.Location {
	if loc, err := time.LoadLocation(DefaultZone); err == nil {
		return loc
	}
	return time.FixedZone("WIB", 7*60*60)
}()

// Jakarta returns the Asia/Jakarta location (WIB).
func Jakarta() *time.Location { return jakarta }

// Printer renders messages, numbers and dates for one person: their language
// and the zone instants are shown in.
type Printer struct {
	Lang Lang
	Loc  *time.Location
}

// NewPrinter returns a Printer; an unknown language falls back to Indonesian
// and a nil location to Asia/Jakarta.
func NewPrinter(lang Lang, loc *time.Location) Printer {
	if lang != English {
		lang = Indonesian
	}
	if loc == nil {
		loc = jakarta
	}
	return Printer{Lang: lang, Loc: loc}
}

type ctxKey struct{}

// WithPrinter returns a context that carries p for the views below it.
func WithPrinter(ctx context.Context, p Printer) context.Context {
	return context.WithValue(ctx, ctxKey{}, p)
}

// From returns the Printer in ctx, or Indonesian in Asia/Jakarta when none was set.
func From(ctx context.Context) Printer {
	if ctx != nil {
		if p, ok := ctx.Value(ctxKey{}).(Printer); ok {
			return p
		}
	}
	return NewPrinter(Indonesian, nil)
}

// T translates key with the Printer in ctx; templ views call it as i18n.T(ctx, "key").
func T(ctx context.Context, key string, args ...any) string {
	return From(ctx).T(key, args...)
}

// T returns the message for key in p's language, formatted with args. An
// unknown key returns the key itself so a missing entry is visible on the page
// rather than blank; TestViewsUseKnownKeys keeps that from reaching production.
func (p Printer) T(key string, args ...any) string {
	m, ok := Lookup(key)
	if !ok {
		return key
	}
	format := m.ID
	if p.Lang == English {
		format = m.EN
	}
	if len(args) == 0 && !strings.Contains(format, "%%") {
		return format
	}
	if strings.IndexByte(format, '{') >= 0 {
		format = plurals(format, args)
		if !strings.Contains(format, "%[") {
			// The chosen form names no argument ("Send this row"); every verb of the
			// catalogue has an explicit index, so none is left to fill.
			return strings.ReplaceAll(format, "%%", "%")
		}
	}
	return fmt.Sprintf(format, counts(args)...)
}

// counts wraps the integer arguments of a message so %d (or %s) prints them grouped like
// every other number on the page ("7.244 siswa", not "7244 siswa"): one place for every
// count. A year or another number that must not be grouped is passed as a string.
func counts(args []any) []any {
	out, cloned := args, false
	for i, a := range args {
		var n int64
		switch v := a.(type) {
		case int:
			n = int64(v)
		case int64:
			n = v
		case int32:
			n = int64(v)
		default:
			continue
		}
		if !cloned {
			out, cloned = slices.Clone(args), true
		}
		out[i] = count(n)
	}
	return out
}

// count is an integer argument that prints grouped with %d.
type count int64

// Format prints the number grouped with dots for %d (and %v, %s); other verbs see the
// plain integer.
func (c count) Format(f fmt.State, verb rune) {
	switch verb {
	case 'd', 'v', 's':
		_, _ = io.WriteString(f, Number(int64(c)))
	default:
		_, _ = fmt.Fprintf(f, fmt.FormatString(f, verb), int64(c))
	}
}

// pluralRE matches a plural choice in a message: {N:one|other} picks "one" when argument
// N is 1 (or -1, or the text "1") and "other" otherwise, so English reads "1 payment", "2 payments".
var pluralRE = regexp.MustCompile(`\{(\d+):([^{}|]*)\|([^{}]*)\}`)

// plurals resolves the plural choices of format against args.
func plurals(format string, args []any) string {
	return pluralRE.ReplaceAllStringFunc(format, func(m string) string {
		sub := pluralRE.FindStringSubmatch(m)
		i, _ := strconv.Atoi(sub[1])
		if i < 1 || i > len(args) {
			return sub[3]
		}
		switch n := args[i-1].(type) {
		case int:
			if n == 1 || n == -1 {
				return sub[2]
			}
		case int64:
			if n == 1 || n == -1 {
				return sub[2]
			}
		case string:
			// A count passed already formatted (i18n.Number) chooses like the number.
			if n == "1" || n == "-1" {
				return sub[2]
			}
		}
		return sub[3]
	})
}
