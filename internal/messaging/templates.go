package messaging

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/sekolah/portal/internal/audit"
	"github.com/sekolah/portal/internal/auth"
	"github.com/sekolah/portal/internal/problem"
)

// Template names an approved WhatsApp template and its language.
type Template struct {
	Name, Language string
}

// DefaultTemplates are the template names a school starts with (to be approved in its
// WhatsApp Manager with these names and their fields in the kinds' order); the test is
// Meta's own, approved on every account.
var DefaultTemplates = map[Kind]Template{
	KindReceipt:  {"kuitansi_pembayaran", "id"},
	KindReminder: {"pengingat_jatuh_tempo", "id"},
	KindFollowUp: {"tunggakan_sekolah", "id"},
	KindNotice:   {"tagihan_semester", "id"},
	KindTest:     {"hello_world", "en_US"},
}

// ActionTemplates is the audit action of a change of the templates.
const ActionTemplates = "settings.messages"

var auditTemplates = audit.Register(audit.Action{Code: ActionTemplates, Shows: []audit.Figure{audit.Items}, Needs: []audit.Key{audit.KeyCount}})

var (
	templateNameRE = regexp.MustCompile(`^[a-z0-9_]{1,512}$`)
	languageRE     = regexp.MustCompile(`^[a-z]{2,3}(_[A-Z]{2})?$`)
)

func settingKey(k Kind) string { return "messages.template." + string(k) }

// Template is the template kind's messages go out with: the school's, or the default.
func (s *Service) Template(ctx context.Context, k Kind) (Template, error) {
	v, ok, err := s.DB.Setting(ctx, settingKey(k))
	if err != nil {
		return Template{}, fmt.Errorf("messaging: %w", err)
	}
	if name, lang, found := strings.Cut(v, ":"); ok && found && name != "" && lang != "" {
		return Template{Name: name, Language: lang}, nil
	}
	return DefaultTemplates[k], nil
}

// Templates are every kind's templates.
func (s *Service) Templates(ctx context.Context) (map[Kind]Template, error) {
	out := map[Kind]Template{}
	for _, k := range Kinds() {
		t, err := s.Template(ctx, k)
		if err != nil {
			return nil, err
		}
		out[k] = t
	}
	return out, nil
}

// TemplateField is the problem field of a kind's template name ("template_receipt") or
// language ("language_receipt").
func TemplateField(k Kind, language bool) string {
	if language {
		return "language_" + string(k)
	}
	return "template_" + string(k)
}

// SaveTemplates checks and stores the templates (an empty name or language: the
// default), audited. A mistake is a problem.List and nothing changes.
func (s *Service) SaveTemplates(ctx context.Context, actor auth.Actor, in map[Kind]Template) (map[Kind]Template, error) {
	var l problem.List
	out := map[Kind]Template{}
	for _, k := range Kinds() {
		t := Template{Name: strings.TrimSpace(in[k].Name), Language: strings.TrimSpace(in[k].Language)}
		if t.Name == "" {
			t.Name = DefaultTemplates[k].Name
		}
		if t.Language == "" {
			t.Language = DefaultTemplates[k].Language
		}
		if !templateNameRE.MatchString(t.Name) {
			l.Add(TemplateField(k, false), "messages.err.template_name")
		}
		if !languageRE.MatchString(t.Language) {
			l.Add(TemplateField(k, true), "messages.err.language")
		}
		out[k] = t
	}
	if len(l) > 0 {
		return out, l
	}
	var changed []string
	for _, k := range Kinds() {
		if err := s.DB.SetSetting(ctx, settingKey(k), out[k].Name+":"+out[k].Language); err != nil {
			return out, fmt.Errorf("messaging: %w", err)
		}
		changed = append(changed, string(k)+"="+out[k].Name+":"+out[k].Language)
	}
	entry := auditTemplates.With(audit.Count(len(changed)))
	entry.Actor, entry.Outcome, entry.Detail = actor.Audit(), audit.OK, strings.Join(changed, " ")
	if err := (audit.Log{DB: s.DB, Clock: s.Clock}).Record(ctx, entry); err != nil {
		s.logger().Error("append audit entry", "action", ActionTemplates, "err", err)
	}
	return out, nil
}
