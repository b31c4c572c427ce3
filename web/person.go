package web

import (
	"context"

	"github.com/sekolah/portal/internal/auth"
	"github.com/sekolah/portal/views/viewctx"
)

// navItems are the sections of the portal, each shown to the roles that may open it
// (the routes check the same permissions; hiding a link is a courtesy).
var navItems = []struct {
	viewctx.NavItem
	perm auth.Permission
}{
	{viewctx.NavItem{Href: "/", Key: "nav.dashboard", TestID: "nav-dashboard"}, auth.ReadBilling},
	// The counter is the page used most: second, for those who take payments.
	{viewctx.NavItem{Href: "/payments/new", Key: "nav.counter", TestID: "nav-counter"}, auth.WriteBilling},
	{viewctx.NavItem{Href: "/students", Key: "nav.students", TestID: "nav-students"}, auth.ReadBilling},
	{viewctx.NavItem{Href: "/bills", Key: "nav.bills", TestID: "nav-bills"}, auth.ReadBilling},
	{viewctx.NavItem{Href: "/plans", Key: "plans.nav", TestID: "nav-plans"}, auth.ReadBilling},
	{viewctx.NavItem{Href: "/registrations/new", Key: "registration.nav", TestID: "nav-registration"}, auth.WriteBilling},
	{viewctx.NavItem{Href: "/registrations/applications", Key: "applications.nav", TestID: "nav-applications"}, auth.WriteBilling},
	{viewctx.NavItem{Href: "/uploads", Key: "nav.uploads", TestID: "nav-uploads"}, auth.WriteBilling},
	{viewctx.NavItem{Href: "/reports", Key: "nav.reports", TestID: "nav-reports"}, auth.ReadReports},
	{viewctx.NavItem{Href: "/closing", Key: "closing.nav", TestID: "nav-closing"}, auth.ReadReports},
	{viewctx.NavItem{Href: "/audit", Key: "nav.audit", TestID: "nav-audit"}, auth.ReadAudit},
	{viewctx.NavItem{Href: "/staff", Key: "nav.staff", TestID: "nav-staff"}, auth.ManageStaff},
	{viewctx.NavItem{Href: "/settings/fee-templates", Key: "feetemplates.nav", TestID: "nav-settings"}, auth.ManageSettings},
}

// withPerson puts the signed-in person and the navigation their role may use into ctx,
// for the handlers (can) and the templates (viewctx).
func withPerson(ctx context.Context, u auth.User) context.Context {
	role := auth.Role(u.Role)
	var nav []viewctx.NavItem
	for _, it := range navItems {
		if role.Can(it.perm) {
			nav = append(nav, it.NavItem)
		}
	}
	ctx = viewctx.WithPerson(ctx, viewctx.Person{ID: u.ID, Username: u.Username, DisplayName: u.DisplayName, Role: u.Role})
	return viewctx.WithNav(ctx, nav)
}

// can reports whether the signed-in person's role holds perm.
func can(ctx context.Context, perm auth.Permission) bool {
	p, ok := viewctx.CurrentPerson(ctx)
	return ok && auth.Role(p.Role).Can(perm)
}
