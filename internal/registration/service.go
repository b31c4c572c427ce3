package registration

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/sekolah/portal/internal/audit"
	"github.com/sekolah/portal/internal/auth"
	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/changes"
	"github.com/sekolah/portal/internal/clock"
	"github.com/sekolah/portal/internal/problem"
	"github.com/sekolah/portal/internal/store"
	"github.com/sekolah/portal/internal/students"
)

// The codes of this package's audit entries (checkouts themselves are the writer's
// upstream.checkout).
const (
	ActionTemplateCreate = "settings.fee_template.create"
	ActionTemplateUpdate = "settings.fee_template.update"
	ActionTemplateDelete = "settings.fee_template.delete"
	ActionPublicSettings = "settings.registration.update"
)

// The same as the audit log's vocabulary: a fee template with its lines and total, and
// the public form opened or closed with the template it offers.
var (
	auditTemplateCreate = audit.Register(audit.Action{Code: ActionTemplateCreate, About: audit.AboutFeeTemplate,
		Shows: []audit.Figure{audit.Lines, audit.Money}, Needs: []audit.Key{audit.KeyName, audit.KeyCount, audit.KeyTotal}})
	auditTemplateUpdate = audit.Register(audit.Action{Code: ActionTemplateUpdate, About: audit.AboutFeeTemplate,
		Shows: []audit.Figure{audit.Lines, audit.Money}, Needs: []audit.Key{audit.KeyName, audit.KeyCount, audit.KeyTotal}})
	auditTemplateDelete = audit.Register(audit.Action{Code: ActionTemplateDelete, About: audit.AboutFeeTemplate,
		Shows: []audit.Figure{audit.Lines, audit.Money}, Needs: []audit.Key{audit.KeyName, audit.KeyCount, audit.KeyTotal}})
	auditPublicSettings = audit.Register(audit.Action{Code: ActionPublicSettings, About: audit.AboutPublicForm,
		Shows: []audit.Figure{audit.Named, hourlyCap}, Keeps: []audit.Key{audit.KeyClass}, Needs: []audit.Key{audit.KeyEnabled}})
)

// publicUsername is who the audit log names for registrations from the public form.
const publicUsername = "public"

func init() { audit.RegisterMachine(publicUsername, audit.ThePublic) }

// Settings keys of the public registration form.
const (
	settingPublicEnabled  = "registration.public.enabled"
	settingPublicTemplate = "registration.public.template"
	settingPublicClass    = "registration.public.class"
	settingPublicCap      = "registration.public.hourly_cap"
	settingPublicPrefix   = "registration.public.number_prefix"
)

// Public form rate limit defaults: submissions per address (an IPv6 one by its /64) per
// window.
const (
	DefaultPublicLimit  = 5
	DefaultPublicWindow = time.Hour
)

// The public form's cap: registrations it sends to the service on its own per hour, from
// every address together; past it, applications wait for staff. MaxHourlyCap bounds the
// setting.
const (
	DefaultHourlyCap = 30
	MaxHourlyCap     = 1000
)

// Errors callers branch on.
var (
	// ErrTemplateInUse: the template is the public form's, which must be changed first.
	ErrTemplateInUse = errors.New("registration: template used by the public form")
	// ErrChanged: the template or the day changed since the person reviewed the figures.
	ErrChanged = errors.New("registration: figures changed since the review")
	// ErrTemplateGone: the chosen template no longer exists.
	ErrTemplateGone = errors.New("registration: template not found")
)

// TotalShownError answers a confirmation whose total is not the total of the components
// ticked (the page's total did not follow a change of the ticks): nothing was registered,
// and the review is shown again at Total.
type TotalShownError struct{ Shown, Total int64 }

func (e *TotalShownError) Error() string {
	return fmt.Sprintf("registration: %d shown, but the chosen components add up to %d", e.Shown, e.Total)
}

// PublicActor is who the audit log names for registrations from the public form.
func PublicActor(ip string) auth.Actor { return auth.Actor{Username: publicUsername, IP: ip} }

// Service makes the audited changes of this package and registers students.
type Service struct {
	DB      *store.DB
	Writer  *changes.Writer
	Billing *billing.Client
	// Accounts are the account codes the billing service knows.
	Accounts []string
	// Clock is the portal's clock: the registration day is the school's date today. The
	// zero Clock refuses to be read.
	Clock clock.Clock
	Log   *slog.Logger
	// PublicLimit submissions per PublicWindow from one address; zero: the defaults.
	PublicLimit  int
	PublicWindow time.Duration
	// Nudge, when set, wakes the Intake for an application just stored.
	Nudge func()
	// ParentContacts keeps the form's contact (name, phone, e-mail) as the new student's
	// parents' contacts (internal/parents), after the registration; nil: not kept.
	ParentContacts func(ctx context.Context, actor auth.Actor, nis, name, phone, email string) error
}

func (s *Service) now() time.Time { return s.Clock.Now() }

func (s *Service) logger() *slog.Logger {
	if s.Log != nil {
		return s.Log
	}
	return slog.Default()
}

// Today is the registration day of a registration made now: today's date in the service
// zone, as a UTC-midnight time like every component day (billing.DayIn, the day rule).
func (s *Service) Today() time.Time { return s.Clock.Day() }

// audit records a change; the change already happened, so a failure is logged only.
func (s *Service) audit(ctx context.Context, actor auth.Actor, e audit.Entry, target, detail string) {
	e.Actor, e.Target, e.Outcome, e.Detail = actor.Audit(), target, audit.OK, detail
	actx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if err := (audit.Log{DB: s.DB, Clock: s.Clock}).Record(actx, e); err != nil {
		s.logger().Error("append audit entry", "action", e.Action.Code, "target", target, "err", err)
	}
}

// templateEntry is the entry of action about template t.
func templateEntry(action *audit.Action, t store.FeeTemplate) audit.Entry {
	return action.With(audit.Name(t.Name), audit.Count(len(t.Lines)), audit.Total(t.Total()))
}

func templateDetail(t store.FeeTemplate) string {
	names := make([]string, len(t.Lines))
	for i, l := range t.Lines {
		names[i] = l.Name
	}
	return fmt.Sprintf("%d lines, Rp %d: %s", len(t.Lines), t.Total(), strings.Join(names, ", "))
}

// CreateTemplate checks the form and stores a new template. A mistake is a problem.List.
func (s *Service) CreateTemplate(ctx context.Context, actor auth.Actor, in TemplateInput) (store.FeeTemplate, error) {
	t, ps := ParseTemplate(in, s.Accounts)
	if len(ps) > 0 {
		return store.FeeTemplate{}, ps.Err()
	}
	created, err := s.DB.CreateFeeTemplate(ctx, t)
	if errors.Is(err, store.ErrConflict) {
		return store.FeeTemplate{}, problem.List{problem.New("name", "feetemplates.err.name_taken")}
	} else if err != nil {
		return store.FeeTemplate{}, err
	}
	s.audit(ctx, actor, templateEntry(auditTemplateCreate, created), created.Name, templateDetail(created))
	return created, nil
}

// UpdateTemplate checks the form and replaces template id. A mistake is a problem.List; a
// template deleted meanwhile is store.ErrNotFound.
func (s *Service) UpdateTemplate(ctx context.Context, actor auth.Actor, id string, in TemplateInput) (store.FeeTemplate, error) {
	t, ps := ParseTemplate(in, s.Accounts)
	if len(ps) > 0 {
		return store.FeeTemplate{}, ps.Err()
	}
	t.ID = id
	updated, err := s.DB.UpdateFeeTemplate(ctx, t)
	if errors.Is(err, store.ErrConflict) {
		return store.FeeTemplate{}, problem.List{problem.New("name", "feetemplates.err.name_taken")}
	} else if err != nil {
		return store.FeeTemplate{}, err
	}
	s.audit(ctx, actor, templateEntry(auditTemplateUpdate, updated), updated.Name, templateDetail(updated))
	return updated, nil
}

// DeleteTemplate removes a template; ErrTemplateInUse while the public form uses it.
func (s *Service) DeleteTemplate(ctx context.Context, actor auth.Actor, t store.FeeTemplate) error {
	p, err := s.PublicSettings(ctx)
	if err != nil {
		return err
	}
	if p.Enabled && p.TemplateID == t.ID {
		return ErrTemplateInUse
	}
	if err := s.DB.DeleteFeeTemplate(ctx, t.ID); err != nil {
		return err
	}
	s.audit(ctx, actor, templateEntry(auditTemplateDelete, t), t.Name, templateDetail(t))
	return nil
}

// Public are the settings of the public registration form.
type Public struct {
	Enabled    bool
	TemplateID string
	// Class is the description (class) new students get; empty: the template's name.
	Class string
	// HourlyCap is how many registrations the form sends to the service on its own in an
	// hour (DefaultHourlyCap unless set); past it, applications wait for staff. 0: every
	// application waits for staff.
	HourlyCap int
	// NumberPrefix begins the registration numbers the school gives applicants
	// (DefaultNumberPrefix unless set): "PPDB" gives "PPDB-2026-0001".
	NumberPrefix string
}

// PublicInput is the settings form as typed.
type PublicInput struct {
	Enabled           bool
	TemplateID, Class string
	HourlyCap         string
	NumberPrefix      string
}

// numberPrefixPattern is a prefix of registration numbers: letters and digits, so the
// number is a NIS the service takes (students.ValidNIS) and reads out over the phone.
var numberPrefixPattern = regexp.MustCompile(`^[A-Za-z0-9]{1,12}$`)

// PublicSettings reads the public form's settings; it is off until an admin turns it on.
func (s *Service) PublicSettings(ctx context.Context) (Public, error) {
	var p Public
	for key, dst := range map[string]*string{settingPublicTemplate: &p.TemplateID, settingPublicClass: &p.Class,
		settingPublicPrefix: &p.NumberPrefix} {
		v, _, err := s.DB.Setting(ctx, key)
		if err != nil {
			return Public{}, err
		}
		*dst = v
	}
	v, _, err := s.DB.Setting(ctx, settingPublicEnabled)
	if err != nil {
		return Public{}, err
	}
	p.Enabled, _ = strconv.ParseBool(v)
	if !numberPrefixPattern.MatchString(p.NumberPrefix) {
		p.NumberPrefix = DefaultNumberPrefix
	}
	p.HourlyCap = DefaultHourlyCap
	if v, ok, err := s.DB.Setting(ctx, settingPublicCap); err != nil {
		return Public{}, err
	} else if n, perr := strconv.Atoi(v); ok && perr == nil && n >= 0 {
		p.HourlyCap = min(n, MaxHourlyCap)
	}
	return p, nil
}

// ParsePublic reads the settings form: a mistake in the cap is a problem of its field,
// "hourly_cap" (a whole number from 0 to MaxHourlyCap; empty is the default).
func ParsePublic(in PublicInput) (Public, problem.List) {
	p := Public{Enabled: in.Enabled, TemplateID: in.TemplateID, Class: in.Class, HourlyCap: DefaultHourlyCap,
		NumberPrefix: strings.ToUpper(strings.TrimSpace(in.NumberPrefix))}
	var ps problem.List
	switch {
	case p.NumberPrefix == "":
		p.NumberPrefix = DefaultNumberPrefix
	case !numberPrefixPattern.MatchString(p.NumberPrefix):
		ps.Add("number_prefix", "registration.settings.err.prefix")
	}
	if c := strings.TrimSpace(in.HourlyCap); c != "" {
		n, err := strconv.Atoi(c)
		switch {
		case err != nil || n < 0:
			ps.Add("hourly_cap", "registration.settings.err.cap")
		case n > MaxHourlyCap:
			ps.Add("hourly_cap", "registration.settings.err.cap_max", MaxHourlyCap)
		default:
			p.HourlyCap = n
		}
	}
	return p, ps
}

// SetPublicSettings stores the public form's settings as typed (see ParsePublic);
// turning it on needs an existing template. A mistake is a problem.List.
func (s *Service) SetPublicSettings(ctx context.Context, actor auth.Actor, in PublicInput) error {
	p, ps := ParsePublic(in)
	p.Class = strings.Join(strings.Fields(p.Class), " ")
	name := ""
	if p.TemplateID != "" {
		t, err := s.DB.FeeTemplate(ctx, p.TemplateID)
		switch {
		case errors.Is(err, store.ErrNotFound):
			ps.Add("template", "form.invalid_choice")
		case err != nil:
			return err
		default:
			name = t.Name
		}
	} else if p.Enabled {
		ps.Add("template", "form.required")
	}
	// The public form's class is every new student's class: the student rule applies.
	students.CheckText(&ps, "class", p.Class, false, students.MaxClassLen)
	if len(ps) > 0 {
		return ps
	}
	for key, v := range map[string]string{
		settingPublicEnabled: strconv.FormatBool(p.Enabled), settingPublicTemplate: p.TemplateID, settingPublicClass: p.Class,
		settingPublicCap: strconv.Itoa(p.HourlyCap), settingPublicPrefix: p.NumberPrefix,
	} {
		if err := s.DB.SetSetting(ctx, key, v); err != nil {
			return err
		}
	}
	s.audit(ctx, actor, auditPublicSettings.With(audit.Enabled(p.Enabled), audit.Name(name), audit.Class(p.Class),
		audit.ArgOf(keyHourlyCap, strconv.Itoa(p.HourlyCap))),
		"public registration form", fmt.Sprintf("enabled=%t template=%q class=%q cap=%d prefix=%q", p.Enabled, name, p.Class,
			p.HourlyCap, p.NumberPrefix))
	return nil
}

// Review is what a registration with a template would bill today.
type Review struct {
	Template    store.FeeTemplate
	Day         time.Time
	Items       []Item
	Fingerprint string
}

// Review computes the components template id bills on today. ErrTemplateGone when it no
// longer exists; lines whose days do not fit today are problems of the "template" field.
func (s *Service) Review(ctx context.Context, templateID string) (Review, error) {
	t, err := s.DB.FeeTemplate(ctx, templateID)
	if errors.Is(err, store.ErrNotFound) {
		return Review{}, ErrTemplateGone
	} else if err != nil {
		return Review{}, err
	}
	day := s.Today()
	items, ps := Compute(t, day)
	r := Review{Template: t, Day: day, Items: items, Fingerprint: Fingerprint(t, day)}
	if len(ps) > 0 {
		return r, ps
	}
	return r, nil
}

// NISKnown reports whether a student with nis exists: in the roster, or else at the
// billing service. err is the service's failure to answer; taken is then false, and the
// checkout itself will refuse an existing NIS.
func (s *Service) NISKnown(ctx context.Context, nis string) (bool, error) {
	if _, err := s.DB.StudentByNIS(ctx, nis); err == nil {
		return true, nil
	} else if !errors.Is(err, store.ErrNotFound) {
		return false, err
	}
	if s.Billing == nil {
		return false, nil
	}
	_, err := s.Billing.Student(ctx, nis)
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, billing.ErrNotFound):
		return false, nil
	default:
		return false, err
	}
}

// Application is a registration to make.
type Application struct {
	Applicant  Applicant // cleaned and validated
	TemplateID string
	// Include says which optional lines to bill; nil bills them all.
	Include func(lineID string) bool
	// Fingerprint is the review's; when set and no longer current, ErrChanged.
	Fingerprint string
	// ShownTotal is the total the person saw when confirming; when set (not 0) and not
	// the total of the chosen components, *TotalShownError: what is billed is what was
	// shown.
	ShownTotal int64
}

// Register makes the checkout (student and bill at once, atomically at the service; the
// writer audits it and adds the student to the roster) and keeps the record of it.
//
// Errors: problem.List (a template line that does not fit today, no component chosen, the NIS
// already taken), ErrTemplateGone, ErrChanged, *TotalShownError, or the billing service's error. A returned
// record with a BillID means the service registered the student, even when err reports a
// failure to note it in the roster or the portal's records.
func (s *Service) Register(ctx context.Context, actor auth.Actor, app Application, source string) (store.Registration, error) {
	rev, err := s.Review(ctx, app.TemplateID)
	if err != nil {
		return store.Registration{}, err
	}
	if app.Fingerprint != "" && app.Fingerprint != rev.Fingerprint {
		return store.Registration{}, ErrChanged
	}
	items := Select(rev.Items, app.Include)
	if len(items) == 0 {
		return store.Registration{}, problem.List{problem.New("lines", "registration.err.none_selected")}
	}
	if total := Total(items); app.ShownTotal != 0 && app.ShownTotal != total {
		return store.Registration{}, &TotalShownError{Shown: app.ShownTotal, Total: total}
	}
	req := billing.Checkout{Student: app.Applicant.Student()}
	for _, it := range items {
		req.Components = append(req.Components, it.Component)
	}
	res, err := s.Writer.Checkout(ctx, actor, req, source)
	if res.BillID == "" {
		if IsNISTaken(err) {
			return store.Registration{}, problem.List{problem.New("nis", "registration.err.nis_taken")}
		}
		if err == nil {
			err = errors.New("registration: the billing service answered without a bill id")
		}
		return store.Registration{}, err
	}
	a := app.Applicant
	rec := store.Registration{
		BillID: res.BillID, NIS: a.NIS, StudentName: a.Name, ContactName: a.ContactName, Phone: a.Phone, Email: a.Email,
		Description: a.Description, TemplateID: rev.Template.ID, TemplateName: rev.Template.Name, Source: source,
		Actor: actor.Username, IP: actor.IP, Total: Total(items), CreatedAt: s.now(),
	}
	for i, it := range items {
		c := it.Component
		rc := store.RegisteredComponent{Name: c.Name, AccountCode: c.AccountCode, Amount: c.Amount, Penalty: c.Penalty,
			Due: c.Due, Expiry: c.Expiry, Description: c.Description}
		if i < len(res.ComponentIDs) {
			rc.ID = res.ComponentIDs[i]
		}
		rec.Components = append(rec.Components, rc)
	}
	// Registered at the service: keep the record even if the request is gone by now.
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if rerr := s.DB.AddRegistration(rctx, rec); rerr != nil {
		err = errors.Join(err, rerr)
	}
	if s.ParentContacts != nil {
		// Who filled the form in is who the school writes to; a failure here loses no
		// registration: staff can type the contacts in.
		if cerr := s.ParentContacts(rctx, actor, rec.NIS, rec.ContactName, rec.Phone, rec.Email); cerr != nil {
			s.logger().Warn("keep the registration's contact as the parents'", "nis", rec.NIS, "err", cerr)
		}
	}
	return rec, err
}

// RateLimited says when the address may submit the public form again.
type RateLimited struct{ Until time.Time }

func (e *RateLimited) Error() string {
	return "registration: too many public submissions until " + e.Until.UTC().Format(time.RFC3339)
}

// AllowPublic counts one public form submission from addr and answers *RateLimited when
// the address already sent PublicLimit in the last PublicWindow. The submission is noted
// before counting, so instances racing on one database never let more through; a refused
// one is forgotten again, so retrying does not push the wait further out.
func (s *Service) AllowPublic(ctx context.Context, addr string) error {
	limit, window := s.PublicLimit, s.PublicWindow
	if limit <= 0 {
		limit = DefaultPublicLimit
	}
	if window <= 0 {
		window = DefaultPublicWindow
	}
	now := s.now()
	id, err := s.DB.RecordRegistrationAttempt(ctx, addr, now)
	if err != nil {
		return err
	}
	n, oldest, err := s.DB.RegistrationAttemptsSince(ctx, addr, now.Add(-window))
	if err != nil {
		return err
	}
	if n <= limit {
		if err := s.DB.PruneRegistrationAttempts(ctx, now.Add(-window)); err != nil {
			s.logger().Warn("prune registration attempts", "err", err)
		}
		return nil
	}
	if err := s.DB.DeleteRegistrationAttempt(ctx, id); err != nil {
		return err
	}
	return &RateLimited{Until: oldest.Add(window)}
}

// demoTemplateName names the fee template a portal on the embedded sandbox starts with.
const demoTemplateName = "Pendaftaran Siswa Baru (contoh)"

// demoTemplateSetting records that the sample was offered.
const demoTemplateSetting = "demo.fee_template_offered"

// EnsureDemoTemplate gives a portal running on the embedded sandbox a fee template to try
// the registration wizard with, when no template exists yet. It is an ordinary, audited
// template the admin may edit or delete.
func (s *Service) EnsureDemoTemplate(ctx context.Context) (bool, error) {
	// Once only: a sample the admin deleted stays deleted.
	if _, offered, err := s.DB.Setting(ctx, demoTemplateSetting); err != nil || offered {
		return false, err
	}
	existing, err := s.DB.ListFeeTemplates(ctx)
	if err != nil || len(existing) > 0 || len(s.Accounts) == 0 {
		return false, err
	}
	account := func(i int) string { return s.Accounts[min(i, len(s.Accounts)-1)] }
	_, err = s.CreateTemplate(ctx, auth.SystemActor, TemplateInput{Name: demoTemplateName, Lines: []LineInput{
		{Name: "Uang Pangkal", AccountCode: account(1), Amount: "5.000.000", Due: "+14", Expiry: "+60", Description: "Sekali bayar saat pendaftaran"},
		{Name: "Seragam", AccountCode: account(2), Amount: "750.000", Due: "+14", Expiry: "+60", Optional: true},
		{Name: "SPP bulan pertama", AccountCode: account(0), Amount: "450.000", Penalty: "25.000", Due: "+30", Expiry: "+90"},
	}})
	if err != nil {
		return false, fmt.Errorf("demo fee template: %w", err)
	}
	return true, s.DB.SetSetting(ctx, demoTemplateSetting, s.now().UTC().Format(time.RFC3339))
}
