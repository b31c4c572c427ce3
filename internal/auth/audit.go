package auth

import "github.com/sekolah/portal/internal/audit"

// What this package writes to the audit log: signing in and out, sessions ended, and the
// changes to staff accounts, each about the member of staff concerned.
var (
	auditSignIn         = audit.Register(audit.Action{Code: ActionSignIn, About: audit.AboutTypedUsername})
	auditSignOut        = audit.Register(audit.Action{Code: ActionSignOut, About: audit.AboutStaff, Needs: []audit.Key{audit.KeyUser}})
	auditSessionEnd     = audit.Register(audit.Action{Code: ActionSessionEnd, About: audit.AboutStaff, Needs: []audit.Key{audit.KeyUser}})
	auditSessionsEndAll = audit.Register(audit.Action{Code: ActionSessionsEndAll, About: audit.AboutStaff, Needs: []audit.Key{audit.KeyUser}})
	auditStaffCreate    = audit.Register(audit.Action{Code: ActionStaffCreate, About: audit.AboutStaff,
		Shows: []audit.Figure{audit.RoleGiven}, Keeps: []audit.Key{audit.KeyName}, Needs: []audit.Key{audit.KeyUser, audit.KeyRole}})
	auditStaffPassword = audit.Register(audit.Action{Code: ActionStaffPassword, About: audit.AboutStaff, Needs: []audit.Key{audit.KeyUser}})
	auditStaffRole     = audit.Register(audit.Action{Code: ActionStaffRole, About: audit.AboutStaff,
		Shows: []audit.Figure{audit.RoleGiven}, Needs: []audit.Key{audit.KeyUser, audit.KeyRole, audit.KeyFrom}})
	auditStaffDisable = audit.Register(audit.Action{Code: ActionStaffDisable, About: audit.AboutStaff, Needs: []audit.Key{audit.KeyUser}})
	auditStaffEnable  = audit.Register(audit.Action{Code: ActionStaffEnable, About: audit.AboutStaff, Needs: []audit.Key{audit.KeyUser}})
)

// The portal's own work (the command line, start-up) is done as SystemActor.
func init() { audit.RegisterMachine(SystemActor.Username, audit.ThePortal) }

// Audit is the actor as the audit log records them.
func (a Actor) Audit() audit.Actor {
	return audit.Actor{Username: a.Username, Role: string(a.Role), IP: a.IP}
}
