package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/sekolah/portal/internal/auth"
)

const userUsage = `usage:
  portal user list
  portal user add USERNAME ROLE [DISPLAY NAME...]   (ROLE: admin, finance or principal)
  portal user passwd USERNAME
The password is read from the first line of standard input; with nothing there, a strong
one is generated and printed once.`

// usageError is the answer to a user command that is not one: its text is the usage.
type usageError string

func (e usageError) Error() string { return string(e) }

// errUsage is what a command that is not one of userUsage's answers.
var errUsage error = usageError(userUsage)

// userCommand is the operator's way to manage accounts from the server's shell, e.g. to
// recover when every admin has forgotten their password.
func userCommand(ctx context.Context, svc *auth.Service, args []string, in io.Reader, out io.Writer) error {
	if len(args) == 0 {
		return errUsage
	}
	switch args[0] {
	case "list":
		users, err := svc.Store.ListUsers(ctx)
		if err != nil {
			return err
		}
		tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "USERNAME\tNAME\tROLE\tSTATUS\tCREATED")
		for _, u := range users {
			status := "active"
			if u.Disabled {
				status = "disabled"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", u.Username, u.DisplayName, u.Role, status, u.CreatedAt.Format("2006-01-02"))
		}
		return tw.Flush()
	case "add":
		if len(args) < 3 {
			return errUsage
		}
		role, err := auth.ParseRole(args[2])
		if err != nil {
			return fmt.Errorf("role %q: want admin, finance or principal", args[2])
		}
		name := strings.Join(args[3:], " ")
		if name == "" {
			name = args[1]
		}
		password, generated, err := readPassword(in)
		if err != nil {
			return err
		}
		u, err := svc.CreateUser(ctx, auth.SystemActor, args[1], name, role, password)
		if err != nil {
			return fmt.Errorf("add %s: %w", args[1], err)
		}
		fmt.Fprintf(out, "added %s (%s)\n", u.Username, u.Role)
		if generated {
			fmt.Fprintf(out, "password: %s\n", password)
		}
		// Said at once: before the first start, an account of another role leaves the
		// portal without an admin until it starts.
		if n, err := svc.Store.CountAdmins(ctx); err == nil && n == 0 {
			fmt.Fprintln(out, "note: there is no admin account yet; the portal's next start creates \"admin\" "+
				"(with PORTAL_ADMIN_PASSWORD, or a generated password it gives once), or add one with `portal user add USERNAME admin`")
		}
		return nil
	case "passwd":
		if len(args) != 2 {
			return errUsage
		}
		u, err := svc.Store.UserByUsername(ctx, args[1])
		if err != nil {
			return fmt.Errorf("user %s: %w", args[1], err)
		}
		password, generated, err := readPassword(in)
		if err != nil {
			return err
		}
		if err := svc.SetPassword(ctx, auth.SystemActor, u.ID, password); err != nil {
			return fmt.Errorf("set password of %s: %w", u.Username, err)
		}
		fmt.Fprintf(out, "password of %s changed\n", u.Username)
		if generated {
			fmt.Fprintf(out, "password: %s\n", password)
		}
		return nil
	}
	return errUsage
}

// readPassword takes the first line of in; an empty input means "generate one".
func readPassword(in io.Reader) (password string, generated bool, err error) {
	line, err := bufio.NewReader(in).ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return "", false, fmt.Errorf("read password: %w", err)
	}
	if line = strings.TrimRight(line, "\r\n"); line != "" {
		return line, false, nil
	}
	return auth.GeneratePassword(), true, nil
}
