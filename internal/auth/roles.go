// Package auth is who may do what: staff passwords, roles and permissions,
// sign-in with throttling, and the audited staff changes.
package auth

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Role is a staff member's role; its value is what the store keeps.
type Role string

// The roles, least to most privileged in what they may change.
const (
	Admin     Role = "admin"
	Finance   Role = "finance"
	Principal Role = "principal"
)

// ErrUnknownRole means a role string is not one of Roles().
var ErrUnknownRole = errors.New("auth: unknown role")

// Roles lists every role in display order.
func Roles() []Role { return []Role{Admin, Finance, Principal} }

// ParseRole reads a role name, ignoring case and surrounding space.
func ParseRole(s string) (Role, error) {
	r := Role(strings.ToLower(strings.TrimSpace(s)))
	for _, known := range Roles() {
		if r == known {
			return r, nil
		}
	}
	return "", fmt.Errorf("auth: role %q: %w", s, ErrUnknownRole)
}

// Valid reports whether r is exactly one of Roles().
func (r Role) Valid() bool { return slices.Contains(Roles(), r) }

// String returns the role's stored value.
func (r Role) String() string { return string(r) }

// Permission names one thing a role may do.
type Permission string

// The permissions the portal checks.
const (
	// ManageStaff covers creating accounts, roles, passwords and disabling.
	ManageStaff Permission = "manage_staff"
	// ReadAudit is reading the audit log.
	ReadAudit Permission = "read_audit"
	// WriteBilling covers students, components, uploads, payments and registrations.
	WriteBilling Permission = "write_billing"
	// ReadBilling is seeing students, bills and payments.
	ReadBilling Permission = "read_billing"
	// ReadReports is seeing and exporting reports.
	ReadReports Permission = "read_reports"
	// ManageSettings is changing the portal's settings.
	ManageSettings Permission = "manage_settings"
)

// grants is the whole permission table, kept in one place so it reads as policy.
var grants = map[Role]map[Permission]bool{
	Admin: {
		ManageStaff: true, ReadAudit: true, WriteBilling: true,
		ReadBilling: true, ReadReports: true, ManageSettings: true,
	},
	Finance: {
		WriteBilling: true, ReadBilling: true, ReadReports: true,
	},
	Principal: {
		ReadBilling: true, ReadReports: true,
	},
}

// Can reports whether role r holds permission p; unknown roles hold none.
func (r Role) Can(p Permission) bool { return grants[r][p] }
