// Package school is the school as its documents show it: the profile printed at the head
// of receipts and bill letters (name, address, NPSN, phone, logo, receipt footer), and the
// receipt numbers the counter suggests from the school's pattern. Everything is kept in
// the database (internal/store), which is all several portal instances share; every
// change is audited.
package school

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/jpeg"
	"image/png"
	"log/slog"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/sekolah/portal/internal/audit"
	"github.com/sekolah/portal/internal/auth"
	"github.com/sekolah/portal/internal/clock"
	"github.com/sekolah/portal/internal/problem"
	"github.com/sekolah/portal/internal/store"
)

// The codes of this package's audit entries.
const (
	ActionProfile    = "settings.school.update"
	ActionLogo       = "settings.school.logo"
	ActionLogoRemove = "settings.school.logo_remove"
)

// The same as the audit log's vocabulary: the profile by the school's name with its
// receipt pattern, the logo by its file's name.
var (
	auditProfile = audit.Register(audit.Action{Code: ActionProfile, About: audit.AboutSchool,
		Shows: []audit.Figure{audit.ReceiptPattern}, Needs: []audit.Key{audit.KeyName}})
	auditLogo = audit.Register(audit.Action{Code: ActionLogo, About: audit.AboutFile,
		Keeps: []audit.Key{audit.KeyBytes}, Needs: []audit.Key{audit.KeyFile, audit.KeyBytes}})
	auditLogoRemove = audit.Register(audit.Action{Code: ActionLogoRemove})
)

// The profile form's fields, as problem fields.
const (
	FieldName    = "name"
	FieldAddress = "address"
	FieldNPSN    = "npsn"
	FieldPhone   = "phone"
	FieldFooter  = "receipt_footer"
	FieldPattern = "receipt_pattern"
	FieldLetter  = "letter_note"
	FieldLogo    = "logo"
	// The letters' place, signatories and numbers.
	FieldCity          = "city"
	FieldBursarName    = "bursar_name"
	FieldBursarNIP     = "bursar_nip"
	FieldPrincipalName = "principal_name"
	FieldPrincipalNIP  = "principal_nip"
	FieldLetterPattern = "letter_pattern"
)

// Limits of the profile's texts (characters) and of the logo.
const (
	MaxName    = 120
	MaxAddress = 300
	MaxPhone   = 40
	MaxFooter  = 300
	MaxLetter  = 600
	// MaxPerson bounds a signatory's name (with their titles: "Drs. H. …, M.Pd.").
	MaxPerson = 100
	// MaxCity bounds the place a letter is written in.
	MaxCity = 60
	// MaxLogoBytes bounds the logo file: a header image, not a photograph.
	MaxLogoBytes = 512 << 10
	// MaxLogoSide bounds the logo's width and height in pixels.
	MaxLogoSide = 4000
)

// Service reads and changes the school's profile and numbers receipts.
type Service struct {
	DB *store.DB
	// Clock is the portal's clock: a receipt's month and year are the school's today. The
	// zero Clock refuses to be read.
	Clock clock.Clock
	Log   *slog.Logger
}

// Profile is the school's profile with the version of its logo ("" when none).
type Profile struct {
	store.SchoolProfile
	LogoVersion string
}

// Profile reads the profile.
func (s *Service) Profile(ctx context.Context) (Profile, error) {
	p, err := s.DB.SchoolProfile(ctx)
	if err != nil {
		return Profile{}, err
	}
	v, err := s.DB.SchoolLogoVersion(ctx)
	if err != nil {
		return Profile{}, err
	}
	return Profile{SchoolProfile: p, LogoVersion: v}, nil
}

// Input is the profile form as typed.
type Input struct {
	Name, Address, NPSN, Phone, ReceiptFooter, ReceiptPattern, LetterNote string
	// The letters: the place, who signs (with their NIP) and the numbers' pattern.
	City, BursarName, BursarNIP, PrincipalName, PrincipalNIP, LetterPattern string
}

var (
	npsnRE  = regexp.MustCompile(`^[0-9]{8}$`)
	nipRE   = regexp.MustCompile(`^[0-9]{8,20}$`)
	phoneRE = regexp.MustCompile(`^\+?[0-9(][0-9 ()./-]*$`)
)

// Check cleans in and checks it: the name is required; the NPSN, when given, is the
// eight digits of the national school number; the phone is digits with the usual
// separators; the receipt pattern is one Pattern accepts.
func Check(in Input) (store.SchoolProfile, problem.List) {
	var l problem.List
	p := store.SchoolProfile{
		Name:           oneLine(in.Name),
		Address:        lines(in.Address),
		NPSN:           strings.Join(strings.Fields(in.NPSN), ""),
		Phone:          oneLine(in.Phone),
		ReceiptFooter:  lines(in.ReceiptFooter),
		ReceiptPattern: strings.TrimSpace(in.ReceiptPattern),
		LetterNote:     lines(in.LetterNote),
		City:           oneLine(in.City),
		BursarName:     oneLine(in.BursarName),
		BursarNIP:      strings.Join(strings.Fields(in.BursarNIP), ""),
		PrincipalName:  oneLine(in.PrincipalName),
		PrincipalNIP:   strings.Join(strings.Fields(in.PrincipalNIP), ""),
		LetterPattern:  strings.TrimSpace(in.LetterPattern),
	}
	text := func(field, v string, required bool, max int) {
		switch {
		case required && v == "":
			l.Add(field, "form.required")
		case utf8.RuneCountInString(v) > max:
			l.Add(field, "form.too_long", max)
		}
	}
	text(FieldName, p.Name, true, MaxName)
	text(FieldAddress, p.Address, false, MaxAddress)
	if p.NPSN != "" && !npsnRE.MatchString(p.NPSN) {
		l.Add(FieldNPSN, "school.err.npsn")
	}
	if p.Phone != "" {
		switch n := countDigits(p.Phone); {
		case utf8.RuneCountInString(p.Phone) > MaxPhone:
			l.Add(FieldPhone, "form.too_long", MaxPhone)
		case !phoneRE.MatchString(p.Phone) || n < 6 || n > 15:
			l.Add(FieldPhone, "school.err.phone")
		}
	}
	text(FieldFooter, p.ReceiptFooter, false, MaxFooter)
	text(FieldLetter, p.LetterNote, false, MaxLetter)
	pattern := func(field, v string) {
		if v == "" {
			return
		}
		if _, err := ParsePattern(v); err != nil {
			var pe *PatternError
			if errors.As(err, &pe) {
				l.Add(field, pe.Key, pe.Args...)
			}
		}
	}
	pattern(FieldPattern, p.ReceiptPattern)
	text(FieldCity, p.City, false, MaxCity)
	text(FieldBursarName, p.BursarName, false, MaxPerson)
	text(FieldPrincipalName, p.PrincipalName, false, MaxPerson)
	// An NIP is the civil servant's 18 digits; a private school's staff number (NIY) is
	// shorter: digits, spaces allowed as typed on their decree.
	for _, nip := range []struct{ field, v, name string }{
		{FieldBursarNIP, p.BursarNIP, p.BursarName}, {FieldPrincipalNIP, p.PrincipalNIP, p.PrincipalName},
	} {
		switch {
		case nip.v != "" && !nipRE.MatchString(nip.v):
			l.Add(nip.field, "school.err.nip")
		case nip.v != "" && nip.name == "":
			l.Add(nip.field, "school.err.nip_without_name")
		}
	}
	pattern(FieldLetterPattern, p.LetterPattern)
	return p, l
}

func countDigits(s string) int {
	n := 0
	for _, r := range s {
		if r >= '0' && r <= '9' {
			n++
		}
	}
	return n
}

// oneLine collapses runs of white space, newlines included, to one space.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// lines keeps the lines of a multi-line text (an address), each trimmed and collapsed,
// without empty ones.
func lines(s string) string {
	var out []string
	for _, ln := range strings.Split(strings.ReplaceAll(s, "\r\n", "\n"), "\n") {
		if ln = oneLine(ln); ln != "" {
			out = append(out, ln)
		}
	}
	return strings.Join(out, "\n")
}

// LogoFile is a logo as uploaded.
type LogoFile struct {
	Name string
	Data []byte
}

// Save checks in and stores it as the profile (the logo is not touched). A mistake is a
// problem.List.
func (s *Service) Save(ctx context.Context, actor auth.Actor, in Input) (store.SchoolProfile, error) {
	return s.Update(ctx, actor, in, nil)
}

// Update checks the profile and, when one was uploaded, the new logo, and stores both or
// neither: a problem with either is a problem.List and nothing changes.
func (s *Service) Update(ctx context.Context, actor auth.Actor, in Input, logo *LogoFile) (store.SchoolProfile, error) {
	p, l := Check(in)
	var ct string
	if logo != nil {
		var lp *problem.Problem
		if ct, lp = CheckLogo(logo.Data); lp != nil {
			l = append(l, *lp)
		}
	}
	if len(l) > 0 {
		return p, l
	}
	if logo != nil {
		stored, err := s.DB.SetSchoolLogo(ctx, ct, logo.Data)
		if err != nil {
			return p, err
		}
		s.audit(ctx, actor, auditLogo.With(audit.File(logo.Name), audit.Bytes(len(logo.Data))), logo.Name,
			fmt.Sprintf("%s %q, %d bytes, sha256 %s", ct, logo.Name, len(logo.Data), stored.SHA256))
	}
	if err := s.DB.SaveSchoolProfile(ctx, p); err != nil {
		return p, err
	}
	s.audit(ctx, actor, auditProfile.With(audit.Name(p.Name), audit.Pattern(p.ReceiptPattern)), p.Name,
		fmt.Sprintf("npsn=%q phone=%q pattern=%q city=%q bursar=%q bursar_nip=%q principal=%q principal_nip=%q letter_pattern=%q",
			p.NPSN, p.Phone, p.ReceiptPattern, p.City, p.BursarName, p.BursarNIP, p.PrincipalName, p.PrincipalNIP, p.LetterPattern))
	return p, nil
}

// CheckLogo checks an uploaded logo: a PNG or JPEG image (by its content, whatever its
// name says), at most MaxLogoBytes and MaxLogoSide pixels a side. It returns the content
// type.
func CheckLogo(data []byte) (string, *problem.Problem) {
	bad := func(key string, args ...any) (string, *problem.Problem) {
		p := problem.New(FieldLogo, key, args...)
		return "", &p
	}
	if len(data) == 0 {
		return bad("school.err.logo_empty")
	}
	if len(data) > MaxLogoBytes {
		return bad("school.err.logo_size", MaxLogoBytes>>10)
	}
	var ct string
	var cfg image.Config
	var err error
	switch {
	case bytes.HasPrefix(data, []byte("\x89PNG\r\n\x1a\n")):
		ct = "image/png"
		cfg, err = png.DecodeConfig(bytes.NewReader(data))
	case bytes.HasPrefix(data, []byte{0xff, 0xd8, 0xff}):
		ct = "image/jpeg"
		cfg, err = jpeg.DecodeConfig(bytes.NewReader(data))
	default:
		return bad("school.err.logo_type")
	}
	if err != nil {
		return bad("school.err.logo_broken")
	}
	if cfg.Width > MaxLogoSide || cfg.Height > MaxLogoSide || cfg.Width < 1 || cfg.Height < 1 {
		return bad("school.err.logo_dimensions", MaxLogoSide)
	}
	return ct, nil
}

// RemoveLogo removes the logo.
func (s *Service) RemoveLogo(ctx context.Context, actor auth.Actor) error {
	if err := s.DB.RemoveSchoolLogo(ctx); err != nil {
		return err
	}
	s.audit(ctx, actor, auditLogoRemove.With(), "", "")
	return nil
}

// ErrNoLogo means the school has no logo: the store's not-found, which Logo answers.
var ErrNoLogo = store.ErrNotFound

// Logo reads the logo; ErrNoLogo when there is none.
func (s *Service) Logo(ctx context.Context) (store.SchoolLogo, error) { return s.DB.SchoolLogo(ctx) }

func (s *Service) audit(ctx context.Context, actor auth.Actor, e audit.Entry, target, detail string) {
	e.Actor, e.Target, e.Outcome, e.Detail = actor.Audit(), target, audit.OK, detail
	actx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if err := (audit.Log{DB: s.DB, Clock: s.Clock}).Record(actx, e); err != nil {
		log := s.Log
		if log == nil {
			log = slog.Default()
		}
		log.Error("append audit entry", "action", e.Action.Code, "err", err)
	}
}

// demoProfileSetting records that the demo school's profile was offered.
const demoProfileSetting = "demo.school_profile_offered"

// EnsureDemoProfile gives a portal running on the embedded sandbox a school profile, so
// its receipts and letters look like a school's from the start. Once only, and only when
// no profile was saved: the admin may change or clear it like any other.
func (s *Service) EnsureDemoProfile(ctx context.Context) (bool, error) {
	if _, offered, err := s.DB.Setting(ctx, demoProfileSetting); err != nil || offered {
		return false, err
	}
	p, err := s.DB.SchoolProfile(ctx)
	if err != nil {
		return false, err
	}
	if p.Name == "" {
		if _, err := s.Save(ctx, auth.SystemActor, Input{
			Name: "SMP Nusantara (contoh)", Address: "Jl. Pendidikan No. 1\nBandung 40111", NPSN: "20212345",
			Phone: "(022) 765-4321", ReceiptPattern: "KW/{YYYY}/{MM}/{seq}",
			ReceiptFooter: "Simpan kuitansi ini sebagai bukti pembayaran yang sah.",
			City:          "Bandung", LetterPattern: DefaultLetterPattern,
			BursarName: "Siti Aminah, S.E.", BursarNIP: "198703152010012008",
			PrincipalName: "Drs. H. Ahmad Fauzi, M.Pd.", PrincipalNIP: "196805121994031004",
		}); err != nil {
			return false, fmt.Errorf("demo school profile: %w", err)
		}
	}
	return p.Name == "", s.DB.SetSetting(ctx, demoProfileSetting, "1")
}
