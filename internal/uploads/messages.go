package uploads

import (
	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/store"
)

// IssueCodes are every reading problem Analyse reports; each has a message
// "uploads.err.<code>". The rules' problems have the rule packages' own keys.
var IssueCodes = []string{
	"required", "nis_unknown", "amount_invalid", "amount_fraction", "amount_too_large", "date_invalid", "date_range",
	"duplicate_row", "duplicate_nis", "formula_error", "yes_no",
}

// FileCodes are every file problem; each has a message "uploads.file.<code>".
var FileCodes = []string{
	"not_xlsx", "old_or_protected", "too_big_unzipped", "unreadable", "no_sheet", "empty", "empty_file",
	"missing_columns", "duplicate_column", "too_many_rows", "upstream", "internal", "file_gone",
	"cell_too_long", "text_too_long", "too_many_strings", "too_big_parts", "too_deep",
	"not_spreadsheet", "other_document", "web_page", "encrypted", "old_version", "no_visible_sheet", "too_big",
	"too_many_cols", "too_many_cells", "too_many_merges", "too_many_sheets", "too_many_styles", "too_many_records",
	"line_too_long", "too_many_fields", "tag_too_long", "too_many_parts", "hidden_data",
}

// FailCodes are the reasons a row was not created; each has a message "uploads.fail.<code>".
var FailCodes = []string{FailRejected, FailUnavailable, FailRefused, FailNotChanged}

// CellName is the A1 name of a 0-based column in a 1-based row.
func CellName(col, row int) string { return cellName(col, row) }

// ColumnName is the letters of a 0-based column: 0 → A, 26 → AA.
func ColumnName(col int) string { return colName(col) }

// FileMessage says in p's language what is wrong with a whole file.
func FileMessage(p i18n.Printer, code string, args []string) string {
	return IssueOf(store.UploadIssue{Code: "uploads.file." + code, Args: args}).Problem.Message(p)
}

// FailureMessage says in p's language why a row was not created: "Baris 17: ...".
func FailureMessage(p i18n.Printer, f store.UploadFailure) string {
	var reason string
	switch f.Code {
	case FailRejected:
		reason = p.T("uploads.fail."+f.Code, f.Arg)
	case FailNotChanged:
		reason = p.T("uploads.fail."+f.Code, p.T(f.Arg)) // why: a correction's problem key
	default:
		reason = p.T("uploads.fail." + f.Code)
	}
	return p.T("uploads.fail.at", f.Row, reason)
}
