package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/sekolah/portal/internal/auth"
	"github.com/sekolah/portal/internal/clock"
	"github.com/sekolah/portal/internal/store/storetest"
)

func TestUserCommand(t *testing.T) {
	auth.SetBcryptCostForTests(4)
	ctx := context.Background()
	svc := auth.NewService(storetest.OpenTest(t), clock.System(time.UTC))
	run := func(stdin string, args ...string) (string, error) {
		var out bytes.Buffer
		err := userCommand(ctx, svc, args, strings.NewReader(stdin), &out)
		return out.String(), err
	}

	if out, err := run("typed-password-1\n", "add", "siti", "finance", "Siti", "Aminah"); err != nil || !strings.Contains(out, "added siti (finance)") ||
		strings.Contains(out, "password:") || !strings.Contains(out, "no admin account yet") {
		t.Fatalf("add with typed password: %q %v", out, err)
	}
	if out, err := run("typed-password-2\n", "add", "kepala.tu", "admin"); err != nil || strings.Contains(out, "no admin account") {
		t.Fatalf("add an admin: %q %v", out, err)
	}
	if _, err := svc.SignIn(ctx, "siti", "typed-password-1", "127.0.0.1"); err != nil {
		t.Fatalf("sign in with typed password: %v", err)
	}
	out, err := run("", "add", "pak.kepala", "principal")
	if err != nil || !strings.Contains(out, "password: ") {
		t.Fatalf("add with generated password: %q %v", out, err)
	}
	generated := strings.TrimSpace(out[strings.Index(out, "password: ")+len("password: "):])
	if _, err := svc.SignIn(ctx, "pak.kepala", generated, "127.0.0.1"); err != nil {
		t.Fatalf("sign in with generated password: %v", err)
	}
	if _, err := run("", "add", "x", "janitor"); err == nil || !strings.Contains(err.Error(), "want admin, finance or principal") {
		t.Fatalf("bad role: %v", err)
	}
	if out, err := run("another-password\n", "passwd", "SITI"); err != nil || !strings.Contains(out, "password of siti changed") {
		t.Fatalf("passwd: %q %v", out, err)
	}
	if _, err := svc.SignIn(ctx, "siti", "another-password", "127.0.0.1"); err != nil {
		t.Fatalf("sign in after passwd: %v", err)
	}
	out, err = run("", "list")
	if err != nil || !strings.Contains(out, "pak.kepala") || !strings.Contains(out, "Siti Aminah") {
		t.Fatalf("list: %q %v", out, err)
	}
	if _, err := run("", "frobnicate"); err == nil {
		t.Fatal("unknown subcommand accepted")
	}
}
