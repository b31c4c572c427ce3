package uploads

import (
	"strings"
	"time"

	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/store"
)

// IssueCodes are every code Analyse reports; each has a message "uploads.err.<code>".
var IssueCodes = []string{
	"required", "too_long", "nis_format", "nis_unknown", "account_unknown", "amount_invalid", "amount_fraction",
	"amount_too_large", "amount_positive", "penalty_negative", "date_invalid", "date_range", "due_after_expiry",
	"active_after_due", "duplicate_row", "duplicate_nis", "phone_invalid", "email_invalid",
}

// FileCodes are every file problem; each has a message "uploads.file.<code>".
var FileCodes = []string{
	"not_xlsx", "old_or_protected", "too_big_unzipped", "unreadable", "no_sheet", "empty", "empty_file",
	"missing_columns", "duplicate_column", "too_many_rows", "upstream", "internal", "file_gone",
}

// FailCodes are the reasons a row was not created; each has a message "uploads.fail.<code>".
var FailCodes = []string{FailRejected, FailUnavailable, FailRefused}

func messageArgs(p i18n.Printer, args []string) []any {
	out := make([]any, len(args))
	for i, a := range args {
		if rest, ok := strings.CutPrefix(a, dateMark); ok {
			if t, err := time.Parse(time.DateOnly, rest); err == nil {
				out[i] = p.Day(t)
				continue
			}
		}
		out[i] = a
	}
	return out
}

// IssueMessage says in p's language which cell is wrong and why: "Sel D17: ...".
func IssueMessage(p i18n.Printer, row, col int, code string, args []string) string {
	return p.T("uploads.err.at", cellName(col, row), p.T("uploads.err."+code, messageArgs(p, args)...))
}

// CellName is the A1 name of a 0-based column in a 1-based row.
func CellName(col, row int) string { return cellName(col, row) }

// FileMessage says in p's language what is wrong with a whole file.
func FileMessage(p i18n.Printer, code string, args []string) string {
	return p.T("uploads.file."+code, messageArgs(p, args)...)
}

// FailureMessage says in p's language why a row was not created: "Baris 17: ...".
func FailureMessage(p i18n.Printer, f store.UploadFailure) string {
	var reason string
	if f.Code == FailRejected {
		reason = p.T("uploads.fail."+f.Code, f.Arg)
	} else {
		reason = p.T("uploads.fail." + f.Code)
	}
	return p.T("uploads.fail.at", f.Row, reason)
}
