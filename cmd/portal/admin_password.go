package main

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/sekolah/portal/internal/config"
)

// adminPasswordFile is where, in the data directory, the first start leaves the generated
// admin password when nobody is watching a terminal.
const adminPasswordFile = "admin-password.txt"

// giveAdminPassword hands the generated password of the bootstrap admin to the person who
// started the portal, once, and never to the log: printed on standard output when that is a
// terminal; otherwise (a service manager, a container's log collector) written to a file
// only the portal's user can read, whose path the log gives. On later starts the log
// reminds whoever reads it that the file is still there.
func giveAdminPassword(cfg config.Config, log *slog.Logger, stdout io.Writer, created bool, generated string) error {
	path := filepath.Join(cfg.DataDir, adminPasswordFile)
	if !created || generated == "" {
		if _, err := os.Stat(path); err == nil {
			log.Warn("the first start's admin password file is still there: once the admin has signed in and changed the password, delete "+path, "file", path)
		}
		return nil
	}
	if isTerminal(stdout) {
		fmt.Fprintf(stdout, "\n  First start: an admin account was created.\n  Username: admin\n  Password: %s\n  Keep it safe; it is not shown again (set PORTAL_ADMIN_PASSWORD to choose it).\n\n", generated)
		return nil
	}
	text := fmt.Sprintf("School billing portal, first start: an admin account was created.\n\nUsername: admin\nPassword: %s\n\n"+
		"Sign in, change this password under My account, then delete this file.\n", generated)
	if err := writePrivateFile(path, []byte(text)); err != nil {
		return fmt.Errorf("the admin account was created but its password could not be written to %s (PORTAL_DATA_DIR): %w; "+
			"set a password with `portal user passwd admin`", path, err)
	}
	log.Warn("first start: the admin account's password was written to a file only this user can read; sign in, change it, and delete the file", "file", path)
	return nil
}

// writePrivateFile creates path with mode 0600 (never over an existing file, which could
// be a link placed there) and writes data.
func writePrivateFile(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o750); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, os.ErrExist) {
		// Left by an earlier first start (the database was reset): replaced.
		if err = os.Remove(path); err == nil {
			f, err = os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		}
	}
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// isTerminal reports whether w is a terminal a person reads: a character device that is
// not /dev/null. (Tests replace it.)
var isTerminal = func(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	if err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		return false
	}
	if null, err := os.Stat(os.DevNull); err == nil && os.SameFile(fi, null) {
		return false
	}
	return true
}
