// Package viewctx carries the cross-cutting data every template may need (the signed-in person,
// the navigation they may use, the CSRF token, the upstream environment, the current path)
// through the request context. web/ puts it there; views only read it. It knows no domain
// package: what a person may do arrives as the navigation and as booleans of the view models.
package viewctx

import (
	"context"
)

type key int

const (
	personKey key = iota
	csrfKey
	envKey
	pathKey
	flashKey
	navKey
)

// Person is the signed-in staff member as templates see them.
type Person struct {
	ID          string
	Username    string
	DisplayName string
	// Role is the role's name (admin, finance, principal), for the role badge.
	Role string
}

// NavItem is one section of the navigation the signed-in person may open.
type NavItem struct {
	Href   string
	Key    string // the catalogue key of its label
	TestID string
}

// WithNav stores the navigation of the signed-in person.
func WithNav(ctx context.Context, items []NavItem) context.Context {
	return context.WithValue(ctx, navKey, items)
}

// Nav returns the navigation of the signed-in person.
func Nav(ctx context.Context) []NavItem {
	items, _ := ctx.Value(navKey).([]NavItem)
	return items
}

// Flash is a one-time message carried across a redirect.
type Flash struct {
	Kind string // success, error, warning, info
	Text string
}

// WithPerson stores the signed-in person.
func WithPerson(ctx context.Context, p Person) context.Context {
	return context.WithValue(ctx, personKey, p)
}

// CurrentPerson returns the signed-in person and whether there is one.
func CurrentPerson(ctx context.Context) (Person, bool) {
	p, ok := ctx.Value(personKey).(Person)
	return p, ok
}

// WithCSRF stores the CSRF token of the session.
func WithCSRF(ctx context.Context, token string) context.Context {
	return context.WithValue(ctx, csrfKey, token)
}

// CSRF returns the session's CSRF token for forms.
func CSRF(ctx context.Context) string {
	s, _ := ctx.Value(csrfKey).(string)
	return s
}

// WithEnv stores the upstream environment name (sandbox, test or production).
func WithEnv(ctx context.Context, env string) context.Context {
	return context.WithValue(ctx, envKey, env)
}

// Env returns the upstream environment name.
func Env(ctx context.Context) string {
	s, _ := ctx.Value(envKey).(string)
	return s
}

// WithPath stores the request path so navigation can mark the current section.
func WithPath(ctx context.Context, path string) context.Context {
	return context.WithValue(ctx, pathKey, path)
}

// Path returns the request path.
func Path(ctx context.Context) string {
	s, _ := ctx.Value(pathKey).(string)
	return s
}

// WithFlashes stores the flashes to show on this page.
func WithFlashes(ctx context.Context, f []Flash) context.Context {
	return context.WithValue(ctx, flashKey, f)
}

// Flashes returns the flashes to show on this page.
func Flashes(ctx context.Context) []Flash {
	f, _ := ctx.Value(flashKey).([]Flash)
	return f
}
