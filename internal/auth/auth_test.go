package auth_test

import (
	"errors"
	"os"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"golang.org/x/crypto/bcrypt"

	"github.com/sekolah/portal/internal/auth"
)

func TestMain(m *testing.M) {
	auth.SetBcryptCostForTests(bcrypt.MinCost)
	os.Exit(m.Run())
}

func TestParseRole(t *testing.T) {
	tests := []struct {
		in   string
		want auth.Role
		ok   bool
	}{
		{"admin", auth.Admin, true},
		{" Finance ", auth.Finance, true},
		{"PRINCIPAL", auth.Principal, true},
		{"", "", false},
		{"root", "", false},
	}
	for _, tt := range tests {
		got, err := auth.ParseRole(tt.in)
		if got != tt.want || (err == nil) != tt.ok {
			t.Errorf("ParseRole(%q) = %q, %v", tt.in, got, err)
		}
		if !tt.ok && !errors.Is(err, auth.ErrUnknownRole) {
			t.Errorf("ParseRole(%q) err = %v, want ErrUnknownRole", tt.in, err)
		}
	}
	if got := auth.Roles(); !slices.Equal(got, []auth.Role{auth.Admin, auth.Finance, auth.Principal}) {
		t.Errorf("Roles() = %v", got)
	}
	if auth.Role("Admin").Valid() || auth.Role("x").Valid() || !auth.Finance.Valid() {
		t.Error("Valid() accepts a non-stored spelling or rejects a role")
	}
}

func TestPermissions(t *testing.T) {
	perms := []auth.Permission{auth.ManageStaff, auth.ReadAudit, auth.WriteBilling, auth.ReadBilling, auth.ReadReports, auth.ManageSettings}
	want := map[auth.Role][]auth.Permission{
		auth.Admin:     perms,
		auth.Finance:   {auth.WriteBilling, auth.ReadBilling, auth.ReadReports},
		auth.Principal: {auth.ReadBilling, auth.ReadReports},
		"":             nil,
		"root":         nil,
	}
	for role, granted := range want {
		for _, p := range perms {
			if got := role.Can(p); got != slices.Contains(granted, p) {
				t.Errorf("%q.Can(%s) = %v", role, p, got)
			}
		}
	}
}

func TestHashPassword(t *testing.T) {
	hash, err := auth.HashPassword("kopi-tubruk-2025")
	if err != nil {
		t.Fatal(err)
	}
	if cost, _ := bcrypt.Cost([]byte(hash)); cost != bcrypt.MinCost {
		t.Errorf("cost = %d, want the test cost %d", cost, bcrypt.MinCost)
	}
	if strings.Contains(hash, "kopi") {
		t.Error("hash contains the password")
	}
	if !auth.CheckPassword(hash, "kopi-tubruk-2025") {
		t.Error("right password rejected")
	}
	for _, wrong := range []string{"", "kopi-tubruk-2024", "KOPI-TUBRUK-2025"} {
		if auth.CheckPassword(hash, wrong) {
			t.Errorf("wrong password %q accepted", wrong)
		}
	}
	if auth.CheckPassword("not a hash", "x") {
		t.Error("garbage hash accepted")
	}
	if _, err := auth.HashPassword(strings.Repeat("a", 73)); !errors.Is(err, auth.ErrPasswordTooLong) {
		t.Errorf("73-byte password: err = %v", err)
	}
	if auth.DefaultBcryptCost != 12 {
		t.Errorf("DefaultBcryptCost = %d", auth.DefaultBcryptCost)
	}
}

func TestValidatePassword(t *testing.T) {
	tests := []struct {
		user, pw string
		want     error
	}{
		{"siti", "correct horse", nil},
		{"siti", "123456789", auth.ErrPasswordTooShort},
		{"siti", "", auth.ErrPasswordTooShort},
		{"siti", "ééééééééé", auth.ErrPasswordTooShort}, // 9 characters, 18 bytes
		{"siti", "ééééééééék", nil},
		{"siti", "aaaaaaaaaaaa", auth.ErrPasswordRepeated},
		{"siti", "ééééééééééé", auth.ErrPasswordRepeated},
		{"siti", strings.Repeat("ab", 37), auth.ErrPasswordTooLong},
		{"siti.aminah", "Siti.Aminah", auth.ErrPasswordIsUsername},
		{"", "correct horse", nil},
	}
	for _, tt := range tests {
		if err := auth.ValidateNewPassword(tt.user, tt.pw); !errors.Is(err, tt.want) || (tt.want == nil && err != nil) {
			t.Errorf("ValidateNewPassword(%q, %q) = %v, want %v", tt.user, tt.pw, err, tt.want)
		}
	}
	if err := auth.ValidatePassword("siti.aminah"); err != nil {
		t.Errorf("ValidatePassword without a username: %v", err)
	}
}

func TestGeneratePassword(t *testing.T) {
	seen := map[string]bool{}
	for range 200 {
		pw := auth.GeneratePassword()
		if utf8.RuneCountInString(pw) != auth.GeneratedPasswordLength {
			t.Fatalf("length of %q = %d", pw, len(pw))
		}
		if strings.ContainsAny(pw, "0O1lI") {
			t.Errorf("%q has an ambiguous character", pw)
		}
		if err := auth.ValidatePassword(pw); err != nil {
			t.Errorf("generated %q fails validation: %v", pw, err)
		}
		if seen[pw] {
			t.Errorf("%q generated twice", pw)
		}
		seen[pw] = true
	}
}

func TestValidateUsername(t *testing.T) {
	tests := []struct {
		in, want string
		ok       bool
	}{
		{"Siti.Aminah", "siti.aminah", true},
		{" budi_2 ", "budi_2", true},
		{"ab", "", false},
		{strings.Repeat("a", 33), "", false},
		{"siti aminah", "", false},
		{"siti@school", "", false},
		{"sití", "", false},
	}
	for _, tt := range tests {
		got, err := auth.ValidateUsername(tt.in)
		if got != tt.want || (err == nil) != tt.ok {
			t.Errorf("ValidateUsername(%q) = %q, %v", tt.in, got, err)
		}
	}
}

func TestAddressGroup(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ in, want string }{
		{"203.0.113.9", "203.0.113.9"},
		{"::ffff:203.0.113.9", "203.0.113.9"},
		{"2001:db8:1:2:3:4:5:6", "2001:db8:1:2::/64"},
		{"2001:db8:1:2:ffff:ffff:ffff:ffff", "2001:db8:1:2::/64"},
		{"2001:db8:1:3::1", "2001:db8:1:3::/64"},
		{"fe80::1%eth0", "fe80::/64"},
		{"@", "@"},
		{"", ""},
	} {
		if got := auth.AddressGroup(tt.in); got != tt.want {
			t.Errorf("AddressGroup(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
