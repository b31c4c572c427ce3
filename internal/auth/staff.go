package auth

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/sekolah/portal/internal/audit"
	"github.com/sekolah/portal/internal/store"
)

// Staff-change errors.
var (
	// ErrLastAdmin means the change would leave no enabled admin.
	ErrLastAdmin = store.ErrLastAdmin
	// ErrForbidden means the actor's role may not make the change.
	ErrForbidden = errors.New("auth: not allowed")
	// ErrInvalidUsername means a username outside UsernameRule.
	ErrInvalidUsername = errors.New("auth: invalid username")
	// ErrUsernameTaken means another account already has the username.
	ErrUsernameTaken = errors.New("auth: username taken")
	// ErrNoSuchUser means the account does not exist.
	ErrNoSuchUser = errors.New("auth: no such user")
)

// UsernameRule describes valid usernames for help texts.
const UsernameRule = "3 to 32 characters: a-z, 0-9, dot, dash, underscore"

// BootstrapUsername is the account EnsureBootstrapAdmin creates.
const BootstrapUsername = "admin"

// Actor is who makes a change, as written to the audit log.
type Actor struct {
	ID       string // user id; empty for the system itself
	Username string
	Role     Role
	IP       string
}

// UserActor makes the Actor for a signed-in user acting from ip.
func UserActor(u store.User, ip string) Actor {
	return Actor{ID: u.ID, Username: u.Username, Role: Role(u.Role), IP: ip}
}

// SystemActor acts for the portal itself (command line, start-up).
var SystemActor = Actor{Username: "system", Role: Admin}

// ValidateUsername checks UsernameRule and returns the stored (lower-case) form.
func ValidateUsername(username string) (string, error) {
	name := store.NormalizeUsername(username)
	if len(name) < 3 || len(name) > 32 {
		return "", ErrInvalidUsername
	}
	for _, c := range name {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '.' || c == '-' || c == '_') {
			return "", ErrInvalidUsername
		}
	}
	return name, nil
}

// CreateUser validates and creates an account and audits the attempt.
func (s *Service) CreateUser(ctx context.Context, actor Actor, username, displayName string, role Role, password string) (store.User, error) {
	entry := s.staffEntry(actor, auditStaffCreate, store.NormalizeUsername(username), audit.Role(string(role)),
		audit.Name(strings.TrimSpace(displayName)))
	u, err := s.createUser(ctx, actor, username, displayName, role, password)
	if err == nil {
		entry.Detail = "role " + string(role)
	}
	s.auditResult(ctx, entry, err)
	return u, err
}

func (s *Service) createUser(ctx context.Context, actor Actor, username, displayName string, role Role, password string) (store.User, error) {
	if !actor.Role.Can(ManageStaff) {
		return store.User{}, ErrForbidden
	}
	name, err := ValidateUsername(username)
	if err != nil {
		return store.User{}, err
	}
	if !role.Valid() {
		return store.User{}, fmt.Errorf("auth: role %q: %w", role, ErrUnknownRole)
	}
	if err := ValidateNewPassword(name, password); err != nil {
		return store.User{}, err
	}
	hash, err := HashPassword(password)
	if err != nil {
		return store.User{}, err
	}
	displayName = strings.TrimSpace(displayName)
	if displayName == "" {
		displayName = name
	}
	u := store.User{Username: name, DisplayName: displayName, Role: string(role), PasswordHash: hash}
	if err := s.Store.CreateUser(ctx, &u); err != nil {
		if errors.Is(err, store.ErrConflict) {
			return store.User{}, ErrUsernameTaken
		}
		return store.User{}, fmt.Errorf("auth: create user: %w", err)
	}
	return u, nil
}

// SetPassword sets another account's password (ManageStaff), or the actor's
// own, and audits the attempt. Every session of the account ends with the change.
func (s *Service) SetPassword(ctx context.Context, actor Actor, userID, password string) error {
	u, err := s.userForChange(ctx, actor, userID, actor.ID == userID)
	entry := s.staffEntry(actor, auditStaffPassword, u.Username)
	var ended int64
	if err == nil {
		ended, err = s.setPassword(ctx, u, password)
	}
	entry.Detail = endedDetail(entry.Detail, ended, err)
	s.auditResult(ctx, entry, err)
	return err
}

// ChangePassword lets a signed-in person replace their own password after proving the
// current one, and returns the token of a new session for the device they are using:
// every session of theirs ends with the change, the one they changed it from too, and
// they carry on in the new one. A wrong current password gives ErrBadCredentials and
// counts as a failed sign-in from actor.IP, so a stolen session cannot guess it faster
// than the sign-in form allows (*LockedError once that address is locked).
func (s *Service) ChangePassword(ctx context.Context, actor Actor, current, password string, d Device) (string, error) {
	u, err := s.userForChange(ctx, actor, actor.ID, true)
	entry := s.staffEntry(actor, auditStaffPassword, u.Username)
	if err == nil {
		err = s.checkCurrentPassword(ctx, u, current, actor.IP)
	}
	var ended int64
	if err == nil {
		ended, err = s.setPassword(ctx, u, password)
	}
	entry.Detail = endedDetail(entry.Detail, ended, err)
	s.auditResult(ctx, entry, err)
	if err != nil {
		return "", err
	}
	if u, err = s.Store.UserByID(ctx, u.ID); err != nil {
		return "", fmt.Errorf("auth: change password: %w", err)
	}
	return s.StartSession(ctx, u, d)
}

// checkCurrentPassword checks a password a signed-in person retypes under the sign-in
// throttle of their address (a signed-in device is a known one: the account-wide lock
// does not apply).
func (s *Service) checkCurrentPassword(ctx context.Context, u store.User, password, addr string) error {
	addr = AddressGroup(addr)
	now := s.now()
	if lock, err := s.lockFor(ctx, u.Username, addr, now, true); err != nil {
		return err
	} else if lock != nil {
		return lock
	}
	if CheckPassword(u.PasswordHash, password) {
		return nil
	}
	if err := s.Store.RecordSignIn(ctx, u.Username, addr, false, now); err != nil {
		return fmt.Errorf("auth: change password: %w", err)
	}
	return ErrBadCredentials
}

func (s *Service) setPassword(ctx context.Context, u store.User, password string) (int64, error) {
	if err := ValidateNewPassword(u.Username, password); err != nil {
		return 0, err
	}
	hash, err := HashPassword(password)
	if err != nil {
		return 0, err
	}
	return s.update(ctx, u.ID, store.UserChange{PasswordHash: &hash})
}

// SetRole changes an account's role and audits the attempt; demoting the last
// enabled admin gives ErrLastAdmin. Every session of the account ends with the
// change, so nobody keeps a page open under a role they no longer hold.
func (s *Service) SetRole(ctx context.Context, actor Actor, userID string, role Role) error {
	u, err := s.userForChange(ctx, actor, userID, false)
	entry := s.staffEntry(actor, auditStaffRole, u.Username, audit.RoleChange(u.Role, string(role)))
	entry.Detail = u.Role + " -> " + string(role)
	if err == nil && !role.Valid() {
		err = fmt.Errorf("auth: role %q: %w", role, ErrUnknownRole)
	}
	var ended int64
	if err == nil {
		r := string(role)
		ended, err = s.update(ctx, userID, store.UserChange{Role: &r})
	}
	entry.Detail = endedDetail(entry.Detail, ended, err)
	s.auditResult(ctx, entry, err)
	return err
}

// SetDisabled disables or re-enables an account and audits the attempt;
// disabling the last enabled admin gives ErrLastAdmin. Every session of the
// account ends with the change (re-enabling finds none left to end).
func (s *Service) SetDisabled(ctx context.Context, actor Actor, userID string, disabled bool) error {
	action := auditStaffEnable
	if disabled {
		action = auditStaffDisable
	}
	u, err := s.userForChange(ctx, actor, userID, false)
	entry := s.staffEntry(actor, action, u.Username)
	var ended int64
	if err == nil {
		ended, err = s.update(ctx, userID, store.UserChange{Disabled: &disabled})
	}
	entry.Detail = endedDetail(entry.Detail, ended, err)
	s.auditResult(ctx, entry, err)
	return err
}

// endedDetail adds to an audit detail how many sessions a successful change ended.
func endedDetail(detail string, ended int64, err error) string {
	if err != nil || ended == 0 {
		return detail
	}
	return joinText(detail, sessionsEnded(ended))
}

// ErrAdminNameTaken: no admin account exists, and the bootstrap admin's username belongs
// to an account of another role, so none can be made under it.
var ErrAdminNameTaken = errors.New(`auth: no admin account exists, and the username "admin" is another role's`)

// EnsureBootstrapAdmin creates the "admin" account when no enabled admin exists (a new
// database, or one where `portal user add` made only finance or principal accounts
// before the first start), with password or, when that is empty, a generated one that
// is returned so the caller can show it once. It does nothing when an admin exists.
// ErrAdminNameTaken when "admin" is the username of an account of another role.
func (s *Service) EnsureBootstrapAdmin(ctx context.Context, password string) (created bool, generated string, err error) {
	n, err := s.Store.CountAdmins(ctx)
	if err != nil {
		return false, "", fmt.Errorf("auth: bootstrap admin: %w", err)
	}
	if n > 0 {
		return false, "", nil
	}
	if password == "" {
		password = GeneratePassword()
		generated = password
	}
	_, err = s.CreateUser(ctx, SystemActor, BootstrapUsername, "Administrator", Admin, password)
	if errors.Is(err, ErrUsernameTaken) {
		// Another instance bootstrapped first, or "admin" is someone else's name.
		if n, cerr := s.Store.CountAdmins(ctx); cerr != nil || n == 0 {
			return false, "", errors.Join(ErrAdminNameTaken, cerr)
		}
		return false, "", nil
	}
	if err != nil {
		return false, "", fmt.Errorf("auth: bootstrap admin: %w", err)
	}
	return true, generated, nil
}

// userForChange loads the target account and checks the actor may change it
// (ManageStaff, or self when self is allowed).
func (s *Service) userForChange(ctx context.Context, actor Actor, userID string, selfAllowed bool) (store.User, error) {
	u, err := s.Store.UserByID(ctx, userID)
	if errors.Is(err, store.ErrNotFound) {
		return store.User{Username: userID}, ErrNoSuchUser
	}
	if err != nil {
		return store.User{Username: userID}, fmt.Errorf("auth: load user: %w", err)
	}
	if !actor.Role.Can(ManageStaff) && !(selfAllowed && actor.ID != "" && actor.ID == u.ID) {
		return u, ErrForbidden
	}
	return u, nil
}

// update applies a change to an account's access and ends all its sessions in the
// same transaction, returning how many ended: every change made through here revokes,
// so no caller can forget to.
func (s *Service) update(ctx context.Context, userID string, change store.UserChange) (int64, error) {
	ended, err := s.Store.UpdateUserEndingSessions(ctx, userID, change)
	switch {
	case errors.Is(err, store.ErrLastAdmin):
		return 0, ErrLastAdmin
	case errors.Is(err, store.ErrNotFound):
		return 0, ErrNoSuchUser
	case err != nil:
		return 0, fmt.Errorf("auth: update user: %w", err)
	}
	return ended, nil
}

// staffEntry is an entry of action about the member of staff target (a username), with
// more arguments.
func (s *Service) staffEntry(actor Actor, action *audit.Action, target string, more ...audit.Arg) audit.Entry {
	e := action.With(append([]audit.Arg{audit.StaffMember(target)}, more...)...)
	e.At, e.Actor, e.Target = s.now(), actor.Audit(), target
	return e
}

// auditResult writes entry with the outcome err implies; the detail names the
// rule that failed, never a password.
func (s *Service) auditResult(ctx context.Context, entry audit.Entry, err error) {
	switch {
	case err == nil:
		entry.Outcome = audit.OK
	case errors.Is(err, ErrForbidden):
		entry.Outcome, entry.Detail = audit.Denied, joinDetail(entry.Detail, err)
	default:
		entry.Outcome, entry.Detail = audit.Failed, joinDetail(entry.Detail, err)
	}
	s.audit(ctx, entry)
}

func joinDetail(detail string, err error) string { return joinText(detail, err.Error()) }
