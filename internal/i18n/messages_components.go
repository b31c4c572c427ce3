package i18n

// The rules of a bill component (internal/component), shared by the add-components form,
// the fee templates and the uploads.
func init() {
	Register(map[string]Message{
		"components.err.amount":           {ID: "Tulis nominal rupiah tanpa sen, misalnya 1.250.000 atau Rp 1.250.000.", EN: "Write whole rupiah, e.g. 1.250.000 or Rp 1.250.000."},
		"components.err.too_large":        {ID: "Nominal terlalu besar: paling banyak Rp 999.999.999.999.", EN: "Too large: at most Rp 999.999.999.999."},
		"components.err.date":             {ID: "Tanggal tidak valid. Gunakan pemilih tanggal atau tulis seperti 31/01/2026.", EN: "Not a valid date. Use the date picker or write it like 31/01/2026."},
		"components.err.due_after_expiry": {ID: "Jatuh tempo %[1]s jatuh setelah tanggal kedaluwarsa %[2]s.", EN: "The due date %[1]s is after the expiry date %[2]s."},
		"components.err.active_after_due": {ID: "Tanggal aktif %[1]s jatuh setelah jatuh tempo %[2]s.", EN: "The active date %[1]s is after the due date %[2]s."},
		"components.err.account":          {ID: "Kode akun tidak dikenal; gunakan salah satu dari: %[1]s.", EN: "Unknown account code; use one of: %[1]s."},
	})
}
